"""Match ID: the worked examples of FORMATS.md, vectors printed by gnubg, validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError, InvalidPositionError
from backgammon.formats.match_id import GameState, MatchState, format_gnubg_id, parse_gnubg_id
from backgammon.position import Position

DATA = Path(__file__).parent.parent / "data" / "gnubg"


def test_manual_example() -> None:
    state = MatchState.from_match_id("QYkqASAAIAAA")
    assert state == MatchState(
        cube_value=2,
        cube_owner=0,
        dice_owner=1,
        turn=1,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )
    assert state.match_id() == "QYkqASAAIAAA"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cAkAAAAAAAAA", MatchState(dice_owner=1, turn=1)),
        ("MAEAAAAAAAAA", MatchState(dice_owner=0, turn=0)),
        ("cIkqAQAAAAAA", MatchState(dice_owner=1, turn=1, dice=(5, 2), match_length=9)),
    ],
)
def test_formats_examples(text: str, expected: MatchState) -> None:
    assert MatchState.from_match_id(text) == expected
    assert expected.match_id() == text


# Vectors from gnubg 1.07 after `new match N`, `set score`, `set cube ...`,
# `set turn`, `set dice` (see tests/data/gnubg/README.md). Debian's gnubg sets
# bit 66 (the final 'E') whenever the Jacoby rule is not in force.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "QYkqASAAIAAE",
            MatchState(
                cube_value=2,
                cube_owner=0,
                dice_owner=1,
                turn=1,
                dice=(5, 2),
                match_length=9,
                score=(2, 4),
                extra_bits=1,
            ),
        ),
        ("cAngAGAAGAAE", MatchState(dice_owner=1, turn=1, match_length=7, score=(6, 3), extra_bits=1)),
        (
            "EgHvAGAAGAAE",
            MatchState(
                cube_value=4,
                cube_owner=1,
                dice_owner=0,
                turn=0,
                dice=(6, 3),
                match_length=7,
                score=(6, 3),
                extra_bits=1,
            ),
        ),
        # gnubg (player 0) doubles at 1-2 in a 3-point match; root must answer
        ("MBlgABAAEAAE", MatchState(dice_owner=0, turn=1, doubled=True, match_length=3, score=(1, 2), extra_bits=1)),
        # the take: root owns the 2-cube, gnubg is on roll again
        ("EQFgABAAEAAE", MatchState(cube_value=2, cube_owner=1, match_length=3, score=(1, 2), extra_bits=1)),
        # money, Jacoby on (bit 66 clear) and off (set)
        ("cAkAAAAAAAAA", MatchState(dice_owner=1, turn=1)),
        ("cAkAAAAAAAAE", MatchState(dice_owner=1, turn=1, extra_bits=1)),
        # 5-point match won 14-1 by a 12-point backgammon: gnubg keeps the real score
        (
            "EgKgABAAcAAE",
            MatchState(
                cube_value=4, cube_owner=1, game_state=GameState.OVER, match_length=5, score=(1, 14), extra_bits=1
            ),
        ),
    ],
)
def test_gnubg_set_vectors(text: str, expected: MatchState) -> None:
    assert MatchState.from_match_id(text) == expected
    assert expected.match_id() == text


def _gnubg_ids() -> list[str]:
    lines = (DATA / "ids.txt").read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_gnubg_play_vectors_round_trip() -> None:
    ids = _gnubg_ids()
    assert len(ids) > 1000
    seen: set[tuple[object, ...]] = set()
    for gnubg_id in ids:
        position, state = parse_gnubg_id(gnubg_id)
        assert format_gnubg_id(position, state) == gnubg_id
        # consistency of what gnubg wrote
        if state.doubled or state.resignation:
            assert state.turn != state.dice_owner
            assert state.dice is None
        else:
            assert state.turn == state.dice_owner
        if state.dice is not None:
            assert state.dice[0] >= state.dice[1]
        if state.crawford:
            assert state.cube_value == 1 and state.cube_owner is None
        seen.add((state.game_state, state.doubled, state.resignation > 0, state.crawford, state.dice is None))
    # the data covers doubles, resignations, Crawford games, finished games, rolled and unrolled dice
    assert (GameState.PLAYING, True, False, False, True) in seen
    assert (GameState.RESIGNED, False, True, False, True) in seen
    assert (GameState.PLAYING, False, False, True, False) in seen
    assert (GameState.OVER, False, False, False, True) in seen


def test_dice_written_larger_first() -> None:
    assert MatchState(dice=(2, 5), match_length=9).match_id() == MatchState(dice=(5, 2), match_length=9).match_id()


def test_round_trip_all_fields() -> None:
    for owner in (None, 0, 1):
        for state in GameState:
            s = MatchState(
                cube_value=8,
                cube_owner=owner,
                dice_owner=1,
                crawford=False,
                game_state=state,
                turn=0,
                doubled=True,
                resignation=0,
                dice=None,
                match_length=64,
                score=(63, 12),
            )
            assert MatchState.from_match_id(s.match_id()) == s
    s = MatchState(cube_value=1 << 15, resignation=3, turn=1, score=(30000, 2), extra_bits=63)
    assert MatchState.from_match_id(s.match_id()) == s


def _with_bits(base: str, start: int, width: int, value: int) -> str:
    import base64

    bits = int.from_bytes(base64.b64decode(base), "little")
    bits &= ~(((1 << width) - 1) << start)
    bits |= value << start
    return base64.b64encode(bits.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    ("start", "width", "value", "field"),
    [
        (15, 3, 7, "dice"),  # die 1 = 7
        (18, 3, 7, "dice"),
        (18, 3, 0, "only one die"),
        (4, 2, 2, "cube owner"),
        (8, 3, 5, "game state"),
        (21, 15, 65, "match length"),
        (36, 15, 10, "score"),  # 10 > 9 while playing
        (21, 15, 0, "crawford"),  # money, with the Crawford bit set below
    ],
)
def test_decoder_rejects(start: int, width: int, value: int, field: str) -> None:
    base = "QYkqASAAIAAA"
    if field == "crawford":
        base = _with_bits(base, 7, 1, 1)
        base = _with_bits(base, 36, 30, 0)
    text = _with_bits(base, start, width, value)
    with pytest.raises(InvalidInputError, match=field):
        MatchState.from_match_id(text)


@pytest.mark.parametrize("text", ["", "QYkqASAAIAA", "QYkqASAAIAAAA", "QYkqASAA!AAA", "QYkqASAAIAA=", 12, None])
def test_decoder_rejects_syntax(text: object) -> None:
    with pytest.raises(InvalidInputError, match="match id"):
        MatchState.from_match_id(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"cube_value": 3}, "cube value"),
        ({"cube_value": 1 << 16}, "cube value"),
        ({"cube_owner": 2}, "cube owner"),
        ({"dice_owner": 2}, "dice owner"),
        ({"turn": True}, "turn"),
        ({"game_state": 9}, "game state"),
        ({"resignation": 4}, "resignation"),
        ({"dice": (0, 3)}, "invalid die 0"),
        ({"dice": (7, 1)}, "invalid die 7"),
        ({"dice": [3, 1]}, "dice"),
        ({"match_length": 65}, "match length"),
        ({"match_length": 5, "score": (6, 1)}, "score"),
        ({"match_length": 5, "score": (5, 5), "game_state": GameState.OVER}, "score"),
        ({"crawford": True}, "crawford"),
        ({"score": (-1, 0)}, "score"),
        ({"extra_bits": 64}, "extra bits"),
    ],
)
def test_constructor_validates(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInputError, match=field):
        MatchState(**kwargs)  # type: ignore[arg-type]


def test_parse_gnubg_id() -> None:
    position, state = parse_gnubg_id("  4HPwATDgc/ABMA:cAkAAAAAAAAA ")
    assert position == Position.initial()
    assert state.is_money and state.dice_owner == 1
    assert parse_gnubg_id("GNU BG ID: 4HPwATDgc/ABMA:cAkAAAAAAAAA")[1] == state
    # the position is seen from the player on roll: after 8/5 6/5 the other side
    position, _ = parse_gnubg_id("sGfwATDgc/ABMA:MAEAAAAAAAAA")
    assert position.theirs[4] == 2 and position.theirs[5] == 4


@pytest.mark.parametrize(
    "text",
    ["4HPwATDgc/ABMA", "4HPwATDgc/ABMA:cAkAAAAAAAAA:x", "4HPwATDgc/ABM:cAkAAAAAAAAA", "4HPwATDgc/ABMA:cAkAAA", ""],
)
def test_parse_gnubg_id_rejects(text: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_gnubg_id(text)


def test_parse_gnubg_id_impossible_position() -> None:
    side = (2,) + (0,) * 24
    shared = Position._trusted(side, tuple(reversed(side[:24])) + (0,))  # both on the same point
    with pytest.raises(InvalidPositionError, match="both sides"):
        parse_gnubg_id(shared.position_id() + ":cAkAAAAAAAAA")


def test_from_game_at_the_end_of_a_gnubg_match() -> None:
    """gnubg printed AAAA2G0DQGEAAA:EgKgABAAcAAE after root won match5_seed2.mat by a backgammon."""
    from backgammon.formats.mat import read_mat, replay
    from backgammon.formats.match_id import gnubg_id_of_game

    match = replay(read_mat((DATA / "match5_seed2.mat").read_text()))
    assert gnubg_id_of_game(match.games[-1]) == "AAAA2G0DQGEAAA:EgKgABAAcAAA"  # bit 66 aside


def test_from_game_states() -> None:
    from backgammon.game import AcceptResignation, Double, OpeningRoll, Pass, Player, Resign, ResultKind, Rules
    from backgammon.match import Match

    m = Match.new(Rules(match_length=7))
    assert MatchState.from_game(m.game).game_state is GameState.NONE
    m = m.apply(OpeningRoll(3, 1))
    m = m.apply(m.game.move_from_text("8/5 6/5"))
    m = m.apply(Resign(Player.BLACK, ResultKind.GAMMON))
    pending = MatchState.from_game(m.game)
    assert (pending.resignation, pending.dice_owner, pending.turn) == (2, 0, 1)
    m = m.apply(AcceptResignation(Player.WHITE))
    done = MatchState.from_game(m.games[-1])
    assert done.game_state is GameState.RESIGNED and done.resignation == 2 and done.score == (0, 2)
    assert (done.dice_owner, done.turn) == (0, 1)
    m = m.apply(OpeningRoll(1, 3))
    m = m.apply(m.game.move_from_text("8/5 6/5"))
    m = m.apply(Double(Player.WHITE))
    doubled = MatchState.from_game(m.game)
    assert doubled.doubled and doubled.dice_owner == 1 and doubled.turn == 0 and doubled.score == (0, 2)
    m = m.apply(Pass(Player.BLACK))
    dropped = MatchState.from_game(m.games[-1])
    assert dropped.game_state is GameState.DROPPED and dropped.score == (0, 3)
