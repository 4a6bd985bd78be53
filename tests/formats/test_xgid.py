"""XGID: FORMATS.md's cross-mapping examples, gnubg's `set xgid`, validation."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError, InvalidPositionError
from backgammon.formats.match_id import MatchState, format_gnubg_id, parse_gnubg_id
from backgammon.formats.xgid import Xgid
from backgammon.position import Position

DATA = Path(__file__).parent.parent / "data" / "gnubg"

CROSS = [
    ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10", "4HPwATDgc/ABMA:QYkqASAAIAAA"),
    ("XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:3:0:10", "sGfwATDgc/ABMA:MAEAAAAAAAAA"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:9:10", "4HPwATDgc/ABMA:cIkqAQAAAAAA"),
]


@pytest.mark.parametrize(("xgid", "gnubg_id"), CROSS)
def test_cross_mapping(xgid: str, gnubg_id: str) -> None:
    parsed = Xgid.parse(xgid)
    assert str(parsed) == xgid
    position, state = parsed.to_gnubg()
    assert format_gnubg_id(position, state) == gnubg_id
    back = Xgid.from_gnubg(*parse_gnubg_id(gnubg_id), jacoby=parsed.jacoby, beaver=parsed.beaver)
    assert back == parsed


def test_fields_of_the_manual_example() -> None:
    x = Xgid.parse("-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10")  # no prefix
    assert x.position == Position.initial()
    assert (x.turn, x.cube_value, x.cube_owner, x.dice, x.score, x.match_length) == (1, 2, -1, (5, 2), (4, 2), 9)
    assert not x.crawford and not x.double_offered and x.max_cube_exponent == 10
    assert x.board == "-b----E-C---eE---c-e----B-"


def test_money_flags() -> None:
    x = Xgid.parse(CROSS[1][0])
    assert x.jacoby and x.beaver and not x.crawford and x.turn == -1
    # X has made 8/5 6/5; O is on roll, so the position is O's view
    assert x.x_side[4] == 2 and x.x_side[5] == 4 and x.x_side[7] == 2
    assert x.position.theirs == x.x_side and x.position.mine == x.o_side
    for cj, jacoby, beaver in ((0, False, False), (1, True, False), (2, False, True), (3, True, True)):
        y = Xgid.parse(f"-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{cj}:0:10")
        assert (y.jacoby, y.beaver) == (jacoby, beaver)
        assert str(y).split(":")[7] == str(cj)


def test_crawford_and_dice_order() -> None:
    x = Xgid.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:25:4:2:1:5:10")
    assert x.crawford and x.dice == (2, 5)
    assert str(x) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10"
    assert x.to_gnubg()[1].crawford


@pytest.mark.parametrize("action", ["D", "B", "R"])
def test_cube_actions(action: str) -> None:
    x = Xgid.parse(f"XGID=-b----E-C---eE---c-e----B-:1:1:-1:{action}:0:0:0:0:10")
    assert x.cube_action == action and x.double_offered and x.dice is None
    assert str(x).split(":")[4] == action
    _, state = x.to_gnubg()
    assert state.doubled and state.dice_owner == 0 and state.turn == 1


def test_nine_fields_default_max_cube() -> None:
    x = Xgid.parse("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0")
    assert x.max_cube_exponent == 10
    assert str(x).endswith(":10")


def test_bars_and_board_round_trip() -> None:
    # O has 2 on the bar (char 0), X has 1 on the bar (char 25)
    x = Xgid.parse("XGID=b-----E-C---eE---c-c----AA:0:0:1:31:0:0:0:0:10")
    assert x.x_side[24] == 1 and x.o_side[24] == 2
    assert Xgid.parse(str(x)) == x
    assert x.board == "b-----E-C---eE---c-c----AA"


def _vectors() -> list[tuple[str, str]]:
    lines = (DATA / "xgid_vectors.txt").read_text().splitlines()
    return [tuple(line.split()) for line in lines if line and not line.startswith("#")]  # type: ignore[misc]


def _swap(state: MatchState) -> MatchState:
    return dataclasses.replace(
        state,
        cube_owner=None if state.cube_owner is None else 1 - state.cube_owner,
        dice_owner=1 - state.dice_owner,
        turn=1 - state.turn,
        score=(state.score[1], state.score[0]),
    )


def test_gnubg_set_xgid_vectors() -> None:
    """gnubg 1.07's `set xgid` gives the same position and state, up to its player swap.

    With X on roll it maps X to player 1 (bottom) and S1 to player 1's score, as
    we do. With O on roll it swaps the players so that the side on roll is
    player 1 again; we keep X = player 1 (so that players keep their identity),
    and check gnubg's answer against our state with the players swapped.
    """
    vectors = _vectors()
    assert len(vectors) >= 30
    turns = set()
    for xgid, gnubg_id in vectors:
        x = Xgid.parse(xgid)
        assert str(x) == xgid
        position, state = x.to_gnubg()
        gnubg_position, gnubg_state = parse_gnubg_id(gnubg_id)
        gnubg_state = dataclasses.replace(gnubg_state, extra_bits=0)  # gnubg's Jacoby-off bit
        assert position == gnubg_position
        assert (state if x.turn == 1 else _swap(state)) == gnubg_state
        assert Xgid.from_gnubg(position, state, jacoby=x.jacoby, beaver=x.beaver) == x
        turns.add(x.turn)
    assert turns == {1, -1}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10:1", "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B:1:-1:1:52:4:2:0:9:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----Bx:1:-1:1:52:4:2:0:9:10", "board character"),
        ("XGID=Ab----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10", "O's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:1:-1:1:52:4:2:0:9:10", "X's bar"),
        ("XGID=-b----E-C---eE---c-e----B-:x:-1:1:52:4:2:0:9:10", "cube field"),
        ("XGID=-b----E-C---eE---c-e----B-:16:-1:1:52:4:2:0:9:10", "cube exponent"),
        ("XGID=-b----E-C---eE---c-e----B-:1:2:1:52:4:2:0:9:10", "cube position"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:0:52:4:2:0:9:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:72:4:2:0:9:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:50:4:2:0:9:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:X:4:2:0:9:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:9:2:0:9:10", "score"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:2:9:10", "crawford"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:0:0:4:0:10", "jacoby"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:65:10", "match length"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:16", "maximum cube"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:1e", "maximum cube"),
        ("XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:" + "1" * 300, "longer than"),
    ],
)
def test_parse_rejects(text: str, field: str) -> None:
    with pytest.raises(InvalidInputError, match=field):
        Xgid.parse(text)


def test_impossible_board() -> None:
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        Xgid.parse("XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10")
    with pytest.raises(InvalidPositionError):
        Xgid.parse("XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10")


def test_not_a_string() -> None:
    with pytest.raises(InvalidInputError):
        Xgid.parse(None)  # type: ignore[arg-type]


def test_constructor_validates() -> None:
    p = Position.initial()
    with pytest.raises(InvalidInputError, match="dice and a cube action"):
        Xgid(p, dice=(3, 1), cube_action="D")
    with pytest.raises(InvalidInputError, match="money play"):
        Xgid(p, crawford=True)
    with pytest.raises(InvalidInputError, match="money play only"):
        Xgid(p, jacoby=True, match_length=5)
    with pytest.raises(InvalidInputError, match="position"):
        Xgid("x")  # type: ignore[arg-type]


# ---------------------------------------------------------------- from a Game
def test_from_game_examples() -> None:
    from backgammon.formats.match_id import gnubg_id_of_game
    from backgammon.game import Double, OpeningRoll, Player, Rules
    from backgammon.match import Match

    m = Match.new(Rules(match_length=9, cube_limit=1024))
    m = m.apply(OpeningRoll(5, 2))  # white (X, gnubg player 1) opens with 52
    assert str(Xgid.from_game(m.game)) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:9:10"
    assert gnubg_id_of_game(m.game) == "4HPwATDgc/ABMA:cIkqAQAAAAAA"
    m = m.apply(m.game.move_from_text("13/11 13/8"))
    m = m.apply(Double(Player.BLACK))
    x = Xgid.from_game(m.game)
    assert x.turn == -1 and x.cube_action == "D" and x.dice is None
    position, state = x.to_gnubg()
    assert state.doubled and state.dice_owner == 0 and state.turn == 1
    assert gnubg_id_of_game(m.game) == f"{position.position_id()}:{state.match_id()}"


def test_from_game_matches_match_state_on_random_games() -> None:
    """Xgid.from_game(...).to_gnubg() and MatchState.from_game agree at every step of random matches."""
    import random

    from backgammon.formats.match_id import MatchState
    from backgammon.game import Double, GamePhase, Move, OpeningRoll, Pass, Roll, Rules, Take
    from backgammon.match import Match

    rng = random.Random(5)
    checked = 0
    for rules in (Rules(match_length=5), Rules(jacoby=True, beavers=True)):
        m = Match.new(rules)
        for _ in range(600):
            if m.is_over:
                break
            g = m.game
            if g.phase is not GamePhase.OVER:
                position, state = Xgid.from_game(g).to_gnubg()
                expected = MatchState.from_game(g)
                if g.phase is GamePhase.OPENING:
                    expected = MatchState(
                        dice_owner=1, turn=1, match_length=expected.match_length, score=expected.score
                    )
                assert (position, state) == (g.position, expected)
                checked += 1
            if g.phase is GamePhase.OPENING:
                m = m.apply(OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)))
            elif g.phase is GamePhase.ROLL:
                assert g.turn is not None
                if g.may_double(g.turn) and rng.random() < 0.1:
                    m = m.apply(Double(g.turn))
                else:
                    m = m.apply(Roll(g.turn, (rng.randint(1, 6), rng.randint(1, 6))))
            elif g.phase is GamePhase.MOVE:
                m = m.apply(rng.choice([a for a in g.legal_actions() if isinstance(a, Move)]))
            else:
                assert g.turn is not None
                m = m.apply(Take(g.turn) if rng.random() < 0.7 else Pass(g.turn))
    assert checked > 300
