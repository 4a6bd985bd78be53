"""Tests for backgammon.match: scores, Crawford and post-Crawford, money sessions."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.errors import GameOverError, IllegalActionError, InvalidInputError
from backgammon.game import (
    AcceptResignation,
    Double,
    Ending,
    GamePhase,
    Move,
    OpeningRoll,
    Pass,
    Player,
    Resign,
    ResignLevel,
    Roll,
    Rules,
    Take,
)
from backgammon.match import Match

W, B = Player.WHITE, Player.BLACK


def open_and_play(m: Match, white: int = 3, black: int = 1) -> Match:
    """Opening roll, and the winner of it plays its first legal play; the other side is then on roll."""
    m = m.apply(OpeningRoll(white, black))
    return m.apply(m.game.legal_actions()[0])


def drop(m: Match, doubler: Player) -> Match:
    """``doubler`` (on roll) doubles and the other side passes."""
    return m.apply(Double(doubler)).apply(Pass(doubler.other))


def test_new_match() -> None:
    m = Match.new(Rules(match_length=3), players=("Alice", "Bob"))
    assert m.match_length == 3 and m.score == (0, 0) and m.games == ()
    assert not m.is_over and m.winner is None and not m.is_crawford_game and not m.is_post_crawford
    assert m.name_of(W) == "Alice" and m.name_of(B) == "Bob"
    assert m.game.phase is GamePhase.OPENING and m.away(W) == 3


@pytest.mark.parametrize("players", [("A",), ("A", ""), ("A", 3), "AB"])
def test_bad_players(players: object) -> None:
    with pytest.raises(InvalidInputError, match="players"):
        Match.new(Rules(match_length=3), players=players)  # type: ignore[arg-type]


def test_full_match_to_3_with_crawford_and_post_crawford() -> None:
    m = Match.new(Rules(match_length=3))
    # game 1: white opens, black doubles, white passes: 0-1
    m = drop(open_and_play(m), B)
    assert m.score == (0, 1) and len(m.games) == 1 and m.games[0].result.ending is Ending.PASSED  # type: ignore[union-attr]
    assert m.game.phase is GamePhase.OPENING and not m.is_crawford_game
    # game 2: black opens, white doubles, black takes; black resigns a single on the 2-cube: 2-1
    m = open_and_play(m, 1, 4)
    m = m.apply(Double(W)).apply(Take(B))
    m = m.apply(Roll(W, (6, 5)))
    m = m.apply(m.game.legal_actions()[0])  # white plays
    m = m.apply(Resign(B, ResignLevel.SINGLE)).apply(AcceptResignation(W))
    assert m.score == (2, 1)
    # game 3 is the Crawford game: no doubling for anyone
    assert m.is_crawford_game and not m.is_post_crawford and m.game.crawford_game
    m = open_and_play(m, 5, 2)
    assert m.game.turn is B and not m.game.may_double(B)
    with pytest.raises(IllegalActionError, match="crawford"):
        m.apply(Double(B))
    # black wins the Crawford game: white resigns at its next turn
    m = m.apply(Roll(B, (2, 1)))
    m = m.apply(m.game.legal_actions()[0])
    m = m.apply(Resign(W, ResignLevel.SINGLE)).apply(AcceptResignation(B))
    assert m.score == (2, 2) and not m.is_over
    # game 4 is post-Crawford: the cube is back
    assert m.is_post_crawford and not m.is_crawford_game and not m.game.crawford_game
    m = open_and_play(m, 6, 1)  # white opens; black on roll
    assert m.game.may_double(B)
    m = m.apply(Double(B)).apply(Take(W))
    assert m.game.cube_value == 2
    m = m.apply(Roll(B, (4, 4)))
    m = m.apply(m.game.legal_actions()[0])
    # white resigns a gammon on the 2-cube: 4 points, more than needed; the real points are kept
    m = m.apply(Resign(W, ResignLevel.GAMMON)).apply(AcceptResignation(B))
    assert m.score == (2, 6) and m.is_over and m.winner is B
    assert len(m.games) == 4 and m.game is m.games[-1]
    assert not m.is_crawford_game and not m.is_post_crawford
    with pytest.raises(GameOverError, match="match is over"):
        m.apply(OpeningRoll(3, 1))
    assert len(m.log) == sum(len(g.log) for g in m.games)


def test_crawford_game_happens_once() -> None:
    m = Match.new(Rules(match_length=3), score=(2, 0), crawford_game=True)
    assert m.is_crawford_game
    m = open_and_play(m)  # white opens, black on roll
    m = m.apply(Roll(B, (3, 2)))
    m = m.apply(m.game.legal_actions()[0])
    m = m.apply(Resign(W, ResignLevel.SINGLE)).apply(AcceptResignation(B))
    assert m.score == (2, 1) and m.is_post_crawford
    # black wins again to reach 2-2 (also match point for black): still no second Crawford game
    m = open_and_play(m, 1, 2)  # black opens; white on roll
    m = m.apply(Resign(W)).apply(AcceptResignation(B))
    assert m.score == (2, 2) and m.is_post_crawford and not m.is_crawford_game
    m = open_and_play(m, 1, 2)  # black opens; white on roll
    assert m.game.may_double(W)


def test_crawford_rule_off() -> None:
    m = Match.new(Rules(match_length=3, crawford=False))
    m = drop(open_and_play(m), B)  # 0-1
    m = open_and_play(m, 1, 4)
    m = m.apply(Double(W)).apply(Take(B))
    m = m.apply(Roll(W, (6, 5)))
    m = m.apply(m.game.legal_actions()[0])
    m = m.apply(Resign(B)).apply(AcceptResignation(W))  # 2-1
    assert m.score == (2, 1) and not m.is_crawford_game and not m.is_post_crawford
    m = open_and_play(m)  # white opens, black on roll
    assert m.game.may_double(B)


def test_resume_at_score() -> None:
    m = Match.new(Rules(match_length=5), score=(4, 1), crawford_game=False)
    assert m.is_post_crawford and not m.is_crawford_game
    with pytest.raises(InvalidInputError, match="crawford"):
        Match.new(Rules(match_length=5), score=(3, 1), crawford_game=True)
    with pytest.raises(InvalidInputError, match="score"):
        Match.new(Rules(match_length=5), score=(5, 1))


def test_money_session_goes_on() -> None:
    m = Match.new(Rules(jacoby=True))
    assert m.is_money and m.match_length == 0
    for _ in range(3):
        m = drop(open_and_play(m), B)  # black wins 1 each game
    m = open_and_play(m)
    m = m.apply(Double(B)).apply(Take(W)).apply(Resign(B, ResignLevel.GAMMON)).apply(AcceptResignation(W))
    assert m.score == (4, 3) and not m.is_over and m.winner is None and len(m.games) == 4
    assert m.game.phase is GamePhase.OPENING and not m.is_crawford_game and not m.is_post_crawford
    with pytest.raises(InvalidInputError):
        m.away(W)


def test_match_apply_is_pure_and_errors_propagate() -> None:
    m = Match.new(Rules(match_length=5))
    m2 = m.apply(OpeningRoll(3, 1))
    assert m.game.phase is GamePhase.OPENING and m2.game.phase is GamePhase.MOVE
    with pytest.raises(IllegalActionError):
        m.apply(Double(W))


def test_replay() -> None:
    m = drop(open_and_play(Match.new(Rules(match_length=5))), B)
    m = open_and_play(m, 2, 6)
    again = Match.new(Rules(match_length=5)).replay(m.log)
    assert again.score == m.score and again.game.position == m.game.position and len(again.games) == 1


# ------------------------------------------------------------- properties


def random_action(game, rng: Random):  # type: ignore[no-untyped-def]
    """A random legal action with random dice: cube actions often, resignations sometimes."""
    if game.phase is GamePhase.OPENING:
        return OpeningRoll(rng.randint(1, 6), rng.randint(1, 6))
    actions = [a for a in game.legal_actions() if not isinstance(a, Resign) or rng.random() < 0.01]
    if game.phase is GamePhase.DOUBLED and rng.random() < 0.7:
        return actions[0]  # take
    if game.phase is GamePhase.ROLL and rng.random() < 0.97:
        actions = [a for a in actions if isinstance(a, Roll)]
    action = rng.choice(actions)
    if isinstance(action, Roll):
        return Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
    return action


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), length=st.sampled_from([1, 3, 5]), crawford=st.booleans())
def test_random_matches_end_when_someone_reaches_n(seed: int, length: int, crawford: bool) -> None:
    rng = Random(seed)
    rules = Rules(match_length=length, crawford=crawford)
    m = Match.new(rules)
    steps = 0
    while not m.is_over:
        m = m.apply(random_action(m.game, rng))
        steps += 1
        assert steps < 20000
        assert all(s < length for s in m.score) or m.is_over
    assert max(m.score) >= length and min(m.score) < length
    assert m.winner is (W if m.score[0] >= length else B)
    # the score is the sum of the games' points
    totals = {W: 0, B: 0}
    reached = None  # index of the game after which a side first reached length - 1
    for i, g in enumerate(m.games):
        assert g.result is not None and g.result.winner is not None
        assert g.result.points in {g.result.cube_value * k for k in (1, 2, 3)}
        totals[g.result.winner] += g.result.points
        if reached is None and length > 1 and max(totals.values()) == length - 1:
            reached = i
    assert (totals[W], totals[B]) == m.score
    crawford_games = [i for i, g in enumerate(m.games) if g.crawford_game]
    if crawford and reached is not None and reached + 1 < len(m.games):
        assert crawford_games == [reached + 1]
        assert not any(isinstance(a, Double) for a in m.games[reached + 1].log)
    elif not crawford or reached is None:
        assert crawford_games == []
    assert any(isinstance(a, Move) for g in m.games for a in g.log)


def test_one_point_match() -> None:
    m = Match.new(Rules(match_length=1))
    assert not m.is_crawford_game and not m.is_post_crawford
    m = open_and_play(m)
    assert m.game.may_double(B)  # legal, if pointless
    m = drop(m, B)
    assert m.is_over and m.winner is B and m.score == (0, 1)
