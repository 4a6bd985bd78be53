"""Tests for backgammon.game: the game state machine, cube, scoring, resignations."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.dice import ScriptedDice
from backgammon.errors import (
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidInputError,
    InvalidPositionError,
    NotYourTurnError,
)
from backgammon.game import (
    AcceptDraw,
    AcceptResignation,
    Beaver,
    Double,
    Ending,
    Game,
    GamePhase,
    Move,
    OfferDraw,
    OpeningRoll,
    Pass,
    Player,
    RejectDraw,
    RejectResignation,
    Resign,
    ResignLevel,
    ResultKind,
    Roll,
    Rules,
    Take,
)
from backgammon.position import Position

W, B = Player.WHITE, Player.BLACK
MONEY = Rules()


def opened(rules: Rules = MONEY, white: int = 3, black: int = 1) -> Game:
    """A game after the opening roll."""
    return Game.new(rules).apply(OpeningRoll(white, black))


def play(game: Game, text: str) -> Game:
    """Apply the play described by ``text`` for the side on roll."""
    return game.apply(game.move_from_text(text))


def at_roll(rules: Rules = MONEY) -> Game:
    """White 31 (8/5 6/5), then black to roll or double."""
    return play(opened(rules), "8/5 6/5")


# A white checker on its 1 point, ready to bear off: the last checker.
def final(theirs: dict[int | str, int], **kwargs: object) -> Game:
    """White to play 2-1 with its last checker on its 2 point; black's checkers as given."""
    position = Position.from_points({2: 1}, theirs)
    return Game.from_position(position, on_roll=W, dice=(2, 1), **kwargs)  # type: ignore[arg-type]


def finish(game: Game) -> Game:
    assert len(game.legal_plays) == 1
    return game.apply(Move(game.turn, game.legal_plays[0]))  # type: ignore[arg-type]


# ----------------------------------------------------------------- players
def test_player_other_and_gnubg_mapping() -> None:
    assert W.other is B and B.other is W
    assert W.gnubg_index == 1 and B.gnubg_index == 0
    assert Player.from_gnubg_index(1) is W and Player.from_gnubg_index(0) is B
    with pytest.raises(InvalidInputError):
        Player.from_gnubg_index(2)


# ------------------------------------------------------------------- rules
@pytest.mark.parametrize(
    "kwargs",
    [
        {"match_length": -1},
        {"match_length": 1.5},
        {"match_length": True},
        {"cube_limit": 48},
        {"cube_limit": 0},
        {"cube_limit": 1 << 16},
        {"automatic_doubles": -1},
        {"backgammon_value": 1},
        {"backgammon_value": 4},
        {"jacoby": 1},
        {"cube": "yes"},
        {"casual": None},
    ],
)
def test_rules_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError, match=r"invalid rules|invalid match length"):
        Rules(**kwargs)  # type: ignore[arg-type]


def test_rules_money_only_options_never_apply_in_a_match() -> None:
    rules = Rules(match_length=5, jacoby=True, beavers=True, automatic_doubles=3)
    assert not rules.jacoby_applies and not rules.beavers_apply and rules.max_automatic_doubles == 0
    money = Rules(jacoby=True, beavers=True, automatic_doubles=3)
    assert money.jacoby_applies and money.beavers_apply and money.max_automatic_doubles == 3
    assert Rules(automatic_doubles=2, cube=False).max_automatic_doubles == 0


# ----------------------------------------------------------------- opening
def test_new_game_waits_for_opening_roll() -> None:
    g = Game.new()
    assert g.phase is GamePhase.OPENING and g.turn is None and g.on_roll is None
    assert g.position == Position.initial() and g.cube_value == 1 and g.cube_owner is None
    assert g.legal_actions() == (OpeningRoll(),)
    assert g.result is None and g.log == ()


@pytest.mark.parametrize("white, black, winner", [(3, 1, W), (1, 3, B), (6, 5, W), (2, 6, B)])
def test_opening_roll_higher_die_plays_both(white: int, black: int, winner: Player) -> None:
    g = Game.new().apply(OpeningRoll(white, black))
    assert g.phase is GamePhase.MOVE and g.turn is winner and g.on_roll is winner
    assert sorted(g.dice) == sorted((white, black))  # type: ignore[arg-type]
    assert not g.may_double(winner)  # the opening roll is played at once
    moves = [m for m in g.legal_actions() if isinstance(m, Move)]
    assert len(moves) == len(Position.initial().legal_plays(white, black)) > 1
    assert all(m.player is winner and m.play.dice_used == 2 for m in moves)


def test_opening_tie_rerolls_and_is_logged() -> None:
    g = Game.new().apply(OpeningRoll(4, 4))
    assert g.phase is GamePhase.OPENING and g.log == (OpeningRoll(4, 4),)
    assert g.cube_value == 1 and g.auto_doubles == 0  # automatic doubles are off by default
    g = g.apply(OpeningRoll(2, 5))
    assert g.turn is B and g.dice == (5, 2) and len(g.log) == 2


def test_opening_roll_validates_dice() -> None:
    for bad in [OpeningRoll(), OpeningRoll(0, 3), OpeningRoll(3, 7), OpeningRoll(3, "1")]:  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError):
            Game.new().apply(bad)


def test_opening_roll_player_is_not_checked() -> None:
    assert Game.new().apply(OpeningRoll(1, 2, player=W)).turn is B


def test_opening_roll_only_once() -> None:
    with pytest.raises(IllegalActionError, match="opening roll"):
        opened().apply(OpeningRoll(3, 1))


def test_no_other_action_before_opening_roll() -> None:
    g = Game.new()
    for action in [Roll(W, (3, 1)), Double(W), Resign(W), Take(B)]:
        with pytest.raises(IllegalActionError):
            g.apply(action)


def test_automatic_doubles_up_to_the_limit() -> None:
    g = Game.new(Rules(automatic_doubles=2))
    g = g.apply(OpeningRoll(5, 5))
    assert (g.cube_value, g.auto_doubles, g.cube_owner) == (2, 1, None)
    g = g.apply(OpeningRoll(2, 2))
    assert (g.cube_value, g.auto_doubles) == (4, 2)
    g = g.apply(OpeningRoll(6, 6))  # the limit is reached: a tie just re-rolls
    assert (g.cube_value, g.auto_doubles) == (4, 2)
    g = g.apply(OpeningRoll(6, 1))
    assert g.cube_value == 4 and g.cube_owner is None and g.phase is GamePhase.MOVE
    g = play(g, "13/7 8/7")
    assert g.may_double(B)  # the cube is still centred


@pytest.mark.parametrize(
    "rules",
    [Rules(match_length=5, automatic_doubles=2), Rules(automatic_doubles=2, cube=False)],
    ids=["match", "cube-off"],
)
def test_automatic_doubles_never_in_a_match_or_without_cube(rules: Rules) -> None:
    g = Game.new(rules).apply(OpeningRoll(5, 5)).apply(OpeningRoll(3, 3))
    assert g.cube_value == 1 and g.auto_doubles == 0


def test_automatic_doubles_respect_cube_limit() -> None:
    g = Game.new(Rules(automatic_doubles=5, cube_limit=4))
    for _ in range(4):
        g = g.apply(OpeningRoll(1, 1))
    assert g.cube_value == 4 and g.auto_doubles == 2


# ------------------------------------------------------------------ casual
def test_casual_white_starts_with_ordinary_roll_and_no_cube() -> None:
    rules = Rules(casual=True)
    g = Game.new(rules)
    assert g.phase is GamePhase.ROLL and g.turn is W
    assert not g.may_double(W)
    assert Double(W) not in g.legal_actions() and OfferDraw(W) in g.legal_actions()
    with pytest.raises(IllegalActionError, match="cannot double"):
        g.apply(Double(W))
    with pytest.raises(IllegalActionError):
        g.apply(OpeningRoll(3, 1))
    g = g.apply(Roll(W, (1, 1)))  # a double is an ordinary roll: four steps
    assert g.phase is GamePhase.MOVE and g.turn is W
    g = play(g, "8/7(2) 6/5(2)")
    assert g.turn is B and not g.may_double(B)


def test_casual_draw_by_agreement() -> None:
    g = Game.new(Rules(casual=True)).apply(OfferDraw(W))
    assert g.phase is GamePhase.DRAW_OFFERED and g.turn is B
    assert set(g.legal_actions()) == {AcceptDraw(B), RejectDraw(B)}
    with pytest.raises(NotYourTurnError):
        g.apply(AcceptDraw(W))
    over = g.apply(AcceptDraw(B))
    assert over.is_over and over.result is not None
    assert over.result.winner is None and over.result.points == 0 and over.result.ending is Ending.DRAW
    assert over.result.points_for(W) == over.result.points_for(B) == 0


def test_casual_draw_rejected_resumes_mid_turn() -> None:
    g = Game.new(Rules(casual=True)).apply(Roll(W, (6, 5)))
    g2 = g.apply(OfferDraw(W)).apply(RejectDraw(B))
    assert g2.phase is GamePhase.MOVE and g2.turn is W and g2.dice == (6, 5)
    assert g2.legal_plays == g.legal_plays
    assert str(play(g2, "24/13").log[-1].play) == "24/13"  # type: ignore[union-attr]


def test_no_draws_outside_casual_games() -> None:
    g = at_roll()
    with pytest.raises(IllegalActionError, match="casual"):
        g.apply(OfferDraw(B))
    with pytest.raises(IllegalActionError):
        g.apply(AcceptDraw(B))


# -------------------------------------------------------------------- cube
def test_double_take_and_ownership() -> None:
    g = at_roll()
    assert g.may_double(B) and not g.may_double(W)
    g = g.apply(Double(B))
    assert g.phase is GamePhase.DOUBLED and g.turn is W and g.doubled_by is B and g.cube_value == 1
    assert set(g.legal_actions()) == {Take(W), Pass(W)}
    g = g.apply(Take(W))
    assert g.phase is GamePhase.ROLL and g.turn is B and g.cube_value == 2 and g.cube_owner is W
    assert not g.may_double(B)  # black no longer owns it
    assert Double(B) not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="white owns the cube"):
        g.apply(Double(B))
    g = play(g.apply(Roll(B, (6, 4))), "24/14")
    assert g.turn is W and g.may_double(W)  # the owner may redouble
    g = g.apply(Double(W)).apply(Take(B))
    assert g.cube_value == 4 and g.cube_owner is B and g.turn is W


def test_pass_loses_current_cube_value() -> None:
    g = at_roll().apply(Double(B)).apply(Take(W))
    g = play(g.apply(Roll(B, (6, 4))), "24/14")
    over = g.apply(Double(W)).apply(Pass(B))
    assert over.is_over and over.result is not None
    assert over.result.winner is W and over.result.points == 2 and over.result.ending is Ending.PASSED
    assert over.result.kind is ResultKind.SINGLE and over.result.points_for(B) == -2


def test_pass_of_initial_double_is_one_point() -> None:
    over = at_roll().apply(Double(B)).apply(Pass(W))
    assert over.result is not None and (over.result.winner, over.result.points) == (B, 1)


def test_double_only_before_rolling() -> None:
    g = at_roll().apply(Roll(B, (6, 4)))
    assert not g.may_double(B)
    with pytest.raises(IllegalActionError, match="cannot double now"):
        g.apply(Double(B))


def test_double_out_of_turn() -> None:
    with pytest.raises(NotYourTurnError):
        at_roll().apply(Double(W))


@pytest.mark.parametrize("action", [Take(W), Pass(W), Beaver(W), Take(B), Pass(B)])
def test_answer_when_no_double_offered(action: object) -> None:
    with pytest.raises(IllegalActionError):
        at_roll(Rules(beavers=True)).apply(action)  # type: ignore[arg-type]


def test_doubler_cannot_answer_own_double() -> None:
    g = at_roll().apply(Double(B))
    with pytest.raises(NotYourTurnError):
        g.apply(Take(B))
    with pytest.raises(IllegalActionError):
        g.apply(Roll(B, (3, 1)))


def test_beaver_disabled_by_default() -> None:
    g = at_roll().apply(Double(B))
    assert Beaver(W) not in g.legal_actions()
    with pytest.raises(IllegalActionError, match="beaver"):
        g.apply(Beaver(W))


def test_beaver_redoubles_and_keeps_cube() -> None:
    g = at_roll(Rules(beavers=True)).apply(Double(B))
    assert Beaver(W) in g.legal_actions()
    g = g.apply(Beaver(W))
    assert g.cube_value == 4 and g.cube_owner is W and g.phase is GamePhase.ROLL and g.turn is B
    assert not g.may_double(B)


def test_beaver_never_in_a_match() -> None:
    g = at_roll(Rules(match_length=7, beavers=True)).apply(Double(B))
    with pytest.raises(IllegalActionError, match="beaver"):
        g.apply(Beaver(W))


def test_beaver_respects_cube_limit() -> None:
    g = Game.from_position(Position.initial(), on_roll=B, cube_value=32, cube_owner=B, rules=Rules(beavers=True)).apply(
        Double(B)
    )
    with pytest.raises(IllegalActionError, match="limit"):
        g.apply(Beaver(W))
    assert g.apply(Take(W)).cube_value == 64


def test_cube_limit_64() -> None:
    g = Game.from_position(Position.initial(), on_roll=W, cube_value=32, cube_owner=W)
    g = g.apply(Double(W)).apply(Take(B))
    assert g.cube_value == 64
    g = play(g.apply(Roll(W, (3, 1))), "8/5 6/5")
    assert not g.may_double(B)
    with pytest.raises(IllegalActionError, match="limit of 64"):
        g.apply(Double(B))
    g2 = Game.from_position(Position.initial(), on_roll=W, cube_value=4, cube_owner=W, rules=Rules(cube_limit=4))
    assert not g2.may_double(W)


def test_no_cube_when_cube_off() -> None:
    g = at_roll(Rules(cube=False))
    assert not g.may_double(B)
    with pytest.raises(IllegalActionError, match="not used"):
        g.apply(Double(B))


def test_no_double_in_crawford_game() -> None:
    rules = Rules(match_length=5)
    g = Game.new(rules, score=(4, 2), crawford_game=True).apply(OpeningRoll(3, 1))
    g = play(g, "8/5 6/5")
    assert not g.may_double(B)
    with pytest.raises(IllegalActionError, match="crawford"):
        g.apply(Double(B))


def test_side_that_cannot_move_may_still_double() -> None:
    # black (on roll) has a checker on the bar against white's closed board
    white = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    black = {"bar": 1, 6: 5, 8: 3, 13: 6}
    pos = Position.from_points(black, white)
    g = Game.from_position(pos, on_roll=B)
    assert g.may_double(B)
    g = g.apply(Double(B)).apply(Take(W)).apply(Roll(B, (6, 5)))
    moves = [a for a in g.legal_actions() if isinstance(a, Move)]
    assert len(moves) == 1 and moves[0].play.steps == () and str(moves[0].play) == ""
    g = g.apply(moves[0])
    assert g.turn is W and g.phase is GamePhase.ROLL and g.board_for(B) == pos


def test_empty_play_from_text() -> None:
    white = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    black = {"bar": 1, 6: 5, 8: 3, 13: 6}
    g = Game.from_position(Position.from_points(black, white), on_roll=B, dice=(4, 4))
    assert g.apply(g.move_from_text("")).turn is W


# ---------------------------------------------------------------- scoring
def test_single_game_when_loser_bore_off() -> None:
    over = finish(final({6: 10}))  # black has 5 off
    assert over.result is not None
    assert (over.result.winner, over.result.points, over.result.kind, over.result.ending) == (
        W,
        1,
        ResultKind.SINGLE,
        Ending.PLAYED,
    )
    assert over.board_for(W).off() == (15, 5)


def test_gammon_when_loser_bore_off_none() -> None:
    over = finish(final({12: 15}))
    assert over.result is not None and over.result.kind is ResultKind.GAMMON and over.result.points == 2


@pytest.mark.parametrize(
    "black",
    [{19: 1, 12: 14}, {24: 1, 12: 14}, {"bar": 1, 12: 14}, {22: 15}],
    ids=["in-home-6pt", "in-home-ace", "on-bar", "all-in-home"],
)
def test_backgammon_when_loser_in_winner_home_or_bar(black: dict[int | str, int]) -> None:
    over = finish(final(black))
    assert over.result is not None and over.result.kind is ResultKind.BACKGAMMON and over.result.points == 3


def test_not_backgammon_just_outside_home() -> None:
    over = finish(final({18: 15}))
    assert over.result is not None and over.result.kind is ResultKind.GAMMON


def test_backgammon_counting_two() -> None:
    over = finish(final({"bar": 1, 12: 14}, rules=Rules(backgammon_value=2)))
    assert over.result is not None and over.result.kind is ResultKind.BACKGAMMON and over.result.points == 2


@pytest.mark.parametrize(
    "black, single, expected",
    [({6: 10}, 1, 4), ({12: 15}, 2, 8), ({22: 15}, 3, 12)],
)
def test_points_times_cube(black: dict[int | str, int], single: int, expected: int) -> None:
    over = finish(final(black, cube_value=4, cube_owner=B))
    assert over.result is not None and over.result.points == expected == 4 * single
    assert over.result.cube_value == 4


def test_jacoby_gammon_counts_single_with_centred_cube() -> None:
    rules = Rules(jacoby=True)
    over = finish(final({22: 15}, rules=rules))
    assert over.result is not None and over.result.kind is ResultKind.BACKGAMMON and over.result.points == 1
    over = finish(final({12: 15}, rules=rules, cube_value=2, cube_owner=W))
    assert over.result is not None and over.result.points == 4  # the cube was turned: gammon counts


def test_jacoby_never_in_a_match() -> None:
    over = finish(final({12: 15}, rules=Rules(match_length=5, jacoby=True)))
    assert over.result is not None and over.result.points == 2


def test_black_can_win_too() -> None:
    g = Game.from_position(Position.from_points({1: 1}, {12: 15}), on_roll=B, dice=(6, 6))
    over = finish(g)
    assert over.result is not None and over.result.winner is B and over.result.kind is ResultKind.GAMMON
    assert over.on_roll is B and over.board_for(B).off()[0] == 15


def test_game_over_rejects_every_action() -> None:
    over = finish(final({6: 10}))
    assert over.legal_actions() == () and over.turn is None
    for action in [Roll(B, (3, 1)), Double(B), Take(W), Resign(B), OpeningRoll(3, 1)]:
        with pytest.raises(GameOverError):
            over.apply(action)


# ----------------------------------------------------------- resignations
def test_resignation_accepted_scores_level_times_cube() -> None:
    g = at_roll().apply(Double(B)).apply(Take(W))  # cube 2 owned by white, black on roll
    g = g.apply(Resign(B, ResignLevel.GAMMON))
    assert g.phase is GamePhase.RESIGNATION and g.turn is W and g.resignation is ResignLevel.GAMMON
    assert set(g.legal_actions()) == {AcceptResignation(W), RejectResignation(W)}
    over = g.apply(AcceptResignation(W))
    assert over.result is not None
    assert (over.result.winner, over.result.points, over.result.kind, over.result.ending) == (
        W,
        4,
        ResultKind.GAMMON,
        Ending.RESIGNED,
    )


@pytest.mark.parametrize(
    "level, rules, expected",
    [
        (ResignLevel.SINGLE, MONEY, 1),
        (ResignLevel.GAMMON, MONEY, 2),
        (ResignLevel.BACKGAMMON, MONEY, 3),
        (ResignLevel.BACKGAMMON, Rules(backgammon_value=2), 2),
        (ResignLevel.GAMMON, Rules(jacoby=True), 1),
        (ResignLevel.BACKGAMMON, Rules(jacoby=True), 1),
        (ResignLevel.GAMMON, Rules(match_length=3, jacoby=True), 2),
    ],
)
def test_resignation_values(level: ResignLevel, rules: Rules, expected: int) -> None:
    over = at_roll(rules).apply(Resign(B, level)).apply(AcceptResignation(W))
    assert over.result is not None and over.result.points == expected and over.result.winner is W


def test_resignation_rejected_play_goes_on() -> None:
    g = at_roll()
    g2 = g.apply(Resign(B)).apply(RejectResignation(W))
    assert g2.phase is GamePhase.ROLL and g2.turn is B and g2.resignation is None
    assert len(g2.log) == len(g.log) + 2
    g2.apply(Double(B))  # still may double


def test_resignation_in_the_middle_of_a_turn() -> None:
    g = at_roll().apply(Roll(B, (6, 4)))
    g2 = g.apply(Resign(B, ResignLevel.SINGLE))
    with pytest.raises(IllegalActionError):
        g2.apply(g.move_from_text("24/14"))
    g3 = g2.apply(RejectResignation(W))
    assert g3.phase is GamePhase.MOVE and g3.dice == (6, 4) and g3.turn is B
    assert play(g3, "24/14").turn is W


def test_resignation_only_by_side_to_act() -> None:
    g = at_roll()
    with pytest.raises(NotYourTurnError):
        g.apply(Resign(W))
    with pytest.raises(IllegalActionError):
        g.apply(AcceptResignation(W))
    with pytest.raises(NotYourTurnError):
        g.apply(Resign(B)).apply(AcceptResignation(B))


def test_resignation_bad_level() -> None:
    with pytest.raises(InvalidInputError, match="resignation level"):
        at_roll().apply(Resign(B, 2))  # type: ignore[arg-type]


# ---------------------------------------------------------------- moves
def test_illegal_play_leaves_game_unchanged() -> None:
    g = opened()
    other = Position.initial().legal_plays(6, 5)[0]
    before = (g.phase, g.turn, g.log, g.position)
    with pytest.raises(IllegalPlayError, match="illegal play"):
        g.apply(Move(W, other))
    assert (g.phase, g.turn, g.log, g.position) == before


def test_move_text_errors() -> None:
    g = opened()
    with pytest.raises(IllegalPlayError):
        g.play_from_text("24/18")
    with pytest.raises(InvalidInputError):
        g.play_from_text("hello")
    with pytest.raises(IllegalActionError):
        at_roll().play_from_text("8/5 6/5")


def test_move_by_wrong_player() -> None:
    g = opened()
    with pytest.raises(NotYourTurnError):
        g.apply(Move(B, g.legal_plays[0]))


def test_move_before_rolling() -> None:
    g = at_roll()
    with pytest.raises(IllegalActionError, match="cannot move now"):
        g.apply(Move(B, Position.initial().legal_plays(3, 1)[0]))


def test_move_needs_a_play() -> None:
    with pytest.raises(InvalidInputError, match="invalid play"):
        opened().apply(Move(W, "8/5 6/5"))  # type: ignore[arg-type]


def test_move_switches_perspective() -> None:
    g = at_roll()
    assert g.position.position_id() == "sGfwATDgc/ABMA"  # black on roll after white's 8/5 6/5
    assert g.board_for(W) == g.position.flip() and g.board_for(B) == g.position
    assert g.board_for(W).position_id() == "4HPwATCwZ/ABMA"


# -------------------------------------------------------- rolls and inputs
def test_roll_requires_dice() -> None:
    g = at_roll()
    with pytest.raises(InvalidInputError):
        g.apply(Roll(B))
    with pytest.raises(InvalidInputError):
        g.apply(Roll(B, (0, 3)))  # type: ignore[arg-type]
    with pytest.raises(NotYourTurnError):
        g.apply(Roll(W, (3, 1)))
    assert g.apply(Roll(B, [4, 2])).dice == (4, 2)  # type: ignore[arg-type]


def test_apply_rejects_non_actions() -> None:
    for bad in [None, "roll", (3, 1), Position.initial()]:
        with pytest.raises(InvalidInputError, match="invalid action"):
            at_roll().apply(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="invalid player"):
        at_roll().apply(Double("black"))  # type: ignore[arg-type]


def test_apply_is_pure() -> None:
    g = at_roll()
    g2 = g.apply(Double(B))
    assert g.phase is GamePhase.ROLL and g.turn is B and g2.phase is GamePhase.DOUBLED
    with pytest.raises(AttributeError):
        g.phase = GamePhase.OVER  # type: ignore[misc]


def test_legal_actions_are_all_applicable() -> None:
    rules = Rules(beavers=True)
    games = [
        at_roll(rules),
        at_roll(rules).apply(Double(B)),
        opened(rules),
        at_roll(rules).apply(Resign(B)),
        Game.new(Rules(casual=True)),
    ]
    for g in games:
        actions = g.legal_actions()
        assert actions
        for action in actions:
            if isinstance(action, Roll):
                action = Roll(action.player, (2, 1))
            assert g.is_legal(action), (g, action)
            g.apply(action)


def test_is_legal() -> None:
    g = at_roll()
    assert g.is_legal(Double(B)) and not g.is_legal(Double(W)) and not g.is_legal(Take(W))
    assert not g.is_legal("nonsense")


def test_replay_of_log_gives_same_game() -> None:
    g = play(at_roll().apply(Double(B)).apply(Take(W)).apply(Roll(B, (6, 4))), "24/14")
    again = Game.new().replay(g.log)
    assert again == g and again.position == g.position


# ----------------------------------------------------------- from_position
def test_from_position_validation() -> None:
    p = Position.initial()
    with pytest.raises(InvalidInputError, match="cube value"):
        Game.from_position(p, cube_value=3)
    with pytest.raises(InvalidInputError, match="cube value"):
        Game.from_position(p, cube_value=128)
    with pytest.raises(InvalidInputError, match="owned cube"):
        Game.from_position(p, cube_owner=W)
    with pytest.raises(InvalidInputError, match="not in use"):
        Game.from_position(p, cube_value=2, cube_owner=B, rules=Rules(casual=True))
    with pytest.raises(InvalidInputError, match="not in use"):
        Game.from_position(p, cube_value=2, cube_owner=B, rules=Rules(match_length=5), score=(4, 2), crawford_game=True)
    with pytest.raises(InvalidInputError, match="crawford"):
        Game.from_position(p, crawford_game=True)
    with pytest.raises(InvalidInputError, match="crawford"):
        Game.new(Rules(match_length=5, crawford=False), score=(4, 0), crawford_game=True)
    with pytest.raises(InvalidInputError, match="score"):
        Game.from_position(p, rules=Rules(match_length=5), score=(5, 0))
    with pytest.raises(InvalidInputError, match="score"):
        Game.new(score=(-1, 0))
    with pytest.raises(InvalidInputError):
        Game.from_position(p, dice=(7, 1))
    with pytest.raises(InvalidInputError):
        Game.from_position("4HPwATDgc/ABMA")  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="borne off"):
        Game.from_position(Position.from_points({}, {6: 1}))
    with pytest.raises(InvalidInputError):
        Game.new("money")  # type: ignore[arg-type]


def test_from_position_black_on_roll_perspective() -> None:
    p = Position.from_points({6: 2, 24: 1}, {2: 3})
    g = Game.from_position(p, on_roll=B, dice=(5, 1), cube_value=2, cube_owner=W)
    assert g.position == p and g.board_for(B) == p and g.board_for(W) == p.flip()
    assert g.phase is GamePhase.MOVE and g.turn is B and g.cube_owner is W


# ------------------------------------------------------------- properties


def random_action(game: Game, rng: Random, resign_rate: float = 0.0) -> object:
    """A random legal action, with dice from ``rng``; cube actions now and then, resignations rarely."""
    actions = list(game.legal_actions())
    if game.phase is GamePhase.OPENING:
        return OpeningRoll(rng.randint(1, 6), rng.randint(1, 6))
    resigns = [a for a in actions if isinstance(a, Resign)]
    others = [a for a in actions if not isinstance(a, Resign)]
    if resigns and rng.random() < resign_rate:
        return rng.choice(resigns)
    if game.phase is GamePhase.ROLL:
        if Double(game.turn) in others and rng.random() < 0.15:  # type: ignore[arg-type]
            return Double(game.turn)  # type: ignore[arg-type]
        return Roll(game.turn, (rng.randint(1, 6), rng.randint(1, 6)))  # type: ignore[arg-type]
    if game.phase is GamePhase.DOUBLED:
        return others[0] if rng.random() < 0.8 else rng.choice(others)
    return rng.choice(others)


def _pips_moved(steps: tuple[object, ...]) -> tuple[int, int]:
    mover = sum(s.source - s.destination for s in steps)  # type: ignore[attr-defined]
    hit = sum(s.destination for s in steps if s.hit)  # type: ignore[attr-defined]
    return mover, hit


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), beavers=st.booleans(), jacoby=st.booleans(), auto=st.integers(0, 2))
def test_random_games_keep_invariants(seed: int, beavers: bool, jacoby: bool, auto: int) -> None:
    rng = Random(seed)
    rules = Rules(beavers=beavers, jacoby=jacoby, automatic_doubles=auto)
    game = Game.new(rules)
    for _ in range(2000):
        if game.is_over:
            break
        action = random_action(game, rng, resign_rate=0.002)
        before = game
        game = game.apply(action)  # type: ignore[arg-type]
        for player in (W, B):
            board = game.board_for(player)
            Position(board.mine, board.theirs)  # still a valid position
            assert sum(board.mine) + board.off()[0] == 15 and sum(board.theirs) + board.off()[1] == 15
        if isinstance(action, Move):
            mover = action.player
            moved, hit = _pips_moved(action.play.steps)
            old = before.board_for(mover).pip_counts()
            new = game.board_for(mover).pip_counts()
            assert old[0] - new[0] == moved and new[1] - old[1] == hit
            assert sum(before.dice) * (2 if before.dice[0] == before.dice[1] else 1) >= moved  # type: ignore[index]
        assert game.cube_value <= rules.cube_limit and game.auto_doubles <= auto
    assert game.is_over and game.result is not None
    result = game.result
    assert result.winner in (W, B)
    assert result.points in {game.cube_value * k for k in (1, 2, 3)}
    assert result.points == game.cube_value * (
        1 if result.ending is Ending.PASSED else game.multiplier(result.kind)  # type: ignore[arg-type]
    )
    if result.ending is Ending.PLAYED:
        winner_board = game.board_for(result.winner)
        assert winner_board.off()[0] == 15
        loser_off = winner_board.off()[1]
        assert (result.kind is ResultKind.SINGLE) == (loser_off > 0)
    assert Game.new(rules).replay(game.log) == game


def test_scripted_game_with_a_dice_source() -> None:
    dice = ScriptedDice([(3, 1), (6, 4), (5, 5)])
    g = Game.new().apply(OpeningRoll(dice.die(), dice.die()))
    g = play(g, "8/5 6/5")
    assert g.position.position_id() == "sGfwATDgc/ABMA"
    g = play(g.apply(Roll(B, dice.roll())), "24/14")
    g = g.apply(Roll(W, dice.roll()))
    assert g.dice == (5, 5) and all(p.dice_used == 4 for p in g.legal_plays)
    assert [type(a).__name__ for a in g.log] == ["OpeningRoll", "Move", "Roll", "Move", "Roll"]


def test_error_messages_are_lowercase_one_liners() -> None:
    over = finish(final({6: 10}))
    attempts = [
        (at_roll(), Double(W)),
        (at_roll(), Take(B)),
        (at_roll(), Roll(B, (0, 1))),
        (at_roll().apply(Double(B)), Beaver(W)),
        (opened(), Move(W, Position.initial().legal_plays(6, 5)[0])),
        (over, Double(B)),
        (Game.new(), Roll(W, (3, 1))),
        (Game.new(Rules(casual=True)), Double(W)),
    ]
    for game, action in attempts:
        with pytest.raises((IllegalActionError, IllegalPlayError, InvalidInputError)) as info:
            game.apply(action)
        message = str(info.value)
        assert message and message[0].islower() and "\n" not in message, message


def test_roll_action_from_a_dice_source() -> None:
    dice = ScriptedDice([(4, 4), (2, 6), (5, 3)])
    g = Game.new(Rules(automatic_doubles=1))
    g = g.apply(g.roll_action(dice))  # tie: automatic double
    assert g.cube_value == 2 and g.phase is GamePhase.OPENING
    g = g.apply(g.roll_action(dice))
    assert g.turn is B and g.dice == (6, 2)
    with pytest.raises(IllegalActionError, match="no roll is due"):
        g.roll_action(dice)
    g = play(g, "24/18 13/11")
    action = g.roll_action(dice)
    assert action == Roll(W, (5, 3)) and dice.remaining == 0
    with pytest.raises(IllegalActionError):
        g.apply(Double(W)).roll_action(dice)


def test_action_types_are_the_kinds_of_the_legal_actions_in_every_phase() -> None:
    """``Game.action_types`` (what the web offers) against ``legal_actions`` over seeded random games
    with every kind of action: doubles, takes, passes, beavers, resignations, casual draws."""
    import random

    from backgammon.game import OpeningRoll, Roll

    rng = random.Random(20261204)
    seen = set()
    for rules in (Rules(), Rules(casual=True), Rules(beavers=True), Rules(match_length=5)):
        for _ in range(30):
            game = Game.new(rules)
            while not game.is_over:
                actions = game.legal_actions()
                assert game.action_types() == tuple(dict.fromkeys(type(a) for a in actions))
                seen.update(game.action_types())
                action = rng.choice(actions)
                if isinstance(action, OpeningRoll):
                    action = OpeningRoll(rng.randint(1, 5), 6)
                elif isinstance(action, Roll):
                    action = Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
                game = game.apply(action)
    assert len(seen) >= 8
