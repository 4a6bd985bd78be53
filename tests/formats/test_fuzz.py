"""Fuzz tests for every parser: only the project's own errors escape, and
parse -> print -> parse is stable.

Inputs are hypothesis-generated text and mutations of valid inputs. Sizes
are kept small so that the file runs in seconds; ``BG_FUZZ_SCALE=N`` runs N
times as many examples.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.formats.mat import load_mat, read_mat, replay, write_mat
from backgammon.formats.match_id import MatchState, parse_gnubg_id
from backgammon.formats.xgid import Xgid
from backgammon.game import crawford_problem
from backgammon.notation import format_steps, parse_move_text, parse_play
from backgammon.position import Position

DATA = Path(__file__).parent.parent / "data"
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# BG_FUZZ_SCALE=10 runs ten times as many examples (for a long fuzzing session)
_SCALE = max(1, int(os.environ.get("BG_FUZZ_SCALE", "1")))
FUZZ = settings(max_examples=300 * _SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ_SLOW = settings(max_examples=40 * _SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated(draw: st.DrawFn, valid: list[str], alphabet: str | None = None) -> str:
    """A valid input with a few random edits: replace, delete, insert or duplicate."""
    text = draw(st.sampled_from(valid))
    chars = st.characters(codec="utf-8") if alphabet is None else st.sampled_from(alphabet)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "delete", "insert", "duplicate"]))
        i = draw(st.integers(0, max(0, len(text) - 1)))
        if op == "replace" and text:
            text = text[:i] + draw(chars) + text[i + 1 :]
        elif op == "delete" and text:
            j = draw(st.integers(i, min(len(text), i + 5)))
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.text(chars, max_size=5)) + text[i:]
        else:
            j = draw(st.integers(i, min(len(text), i + 10)))
            text = text[:i] + text[i:j] + text[i:]
    return text


# ---------------------------------------------------------------- Position ID
POSITION_IDS = ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "zGbiIQgxH/AAWA", "jGfkASjg8wcBMA"]


@FUZZ
@given(st.one_of(st.text(max_size=20), st.text(alphabet=B64, min_size=14, max_size=14), mutated(POSITION_IDS, B64)))
def test_position_id(text: str) -> None:
    try:
        position = Position.from_position_id(text)
    except BackgammonError as exc:
        assert isinstance(exc, InvalidInputError)
        return
    again = Position.from_position_id(position.position_id())
    assert again == position
    assert again.position_id() == position.position_id()


# ---------------------------------------------------------------- Match ID
MATCH_IDS = ["QYkqASAAIAAA", "cAkAAAAAAAAA", "MAEAAAAAAAAA", "cIkqAQAAAAAA", "cAllAAAAAAAE", "EgKgABAAcAAE"]


@FUZZ
@given(st.one_of(st.text(max_size=20), st.text(alphabet=B64, min_size=12, max_size=12), mutated(MATCH_IDS, B64)))
def test_match_id(text: str) -> None:
    try:
        state = MatchState.from_match_id(text)
    except InvalidInputError:
        return
    printed = state.match_id()
    assert MatchState.from_match_id(printed) == state
    assert MatchState.from_match_id(printed).match_id() == printed


@FUZZ
@given(st.binary(min_size=9, max_size=9))
def test_match_id_every_bit_pattern(key: bytes) -> None:
    text = base64.b64encode(key).decode()
    try:
        state = MatchState.from_match_id(text)
    except InvalidInputError as exc:
        assert "invalid match id" in str(exc)
        return
    # the only non-canonical part is the dice order (gnubg writes the larger first)
    if state.dice is None or state.dice[0] >= state.dice[1]:
        assert state.match_id() == text


@FUZZ
@given(st.one_of(st.text(max_size=40), mutated(["4HPwATDgc/ABMA:QYkqASAAIAAA", "sGfwATDgc/ABMA:MAEAAAAAAAAA"])))
def test_gnubg_id(text: str) -> None:
    try:
        position, state = parse_gnubg_id(text)
    except InvalidInputError:
        return
    assert parse_gnubg_id(f"{position.position_id()}:{state.match_id()}") == (position, state)


# ---------------------------------------------------------------- XGID
XGIDS = [
    "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10",
    "XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:3:0:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:9:10",
    "XGID=b-----E-C---eE---c-c----AA:1:1:-1:D:0:0:0:0:10",
]
XGID_CHARS = "-ABCDEFabcdefp0123456789:D=XGI"


@FUZZ
@given(st.one_of(st.text(max_size=60), mutated(XGIDS), mutated(XGIDS, XGID_CHARS)))
def test_xgid(text: str) -> None:
    try:
        xgid = Xgid.parse(text)
    except InvalidInputError:
        return
    printed = str(xgid)
    assert Xgid.parse(printed) == xgid
    assert str(Xgid.parse(printed)) == printed
    position, state = xgid.to_gnubg()
    assert (
        Xgid.from_gnubg(
            position, state, jacoby=xgid.jacoby, beaver=xgid.beaver, max_cube_exponent=xgid.max_cube_exponent
        ).position
        == xgid.position
    )


# ---------------------------------------------------------------- move text
MOVES = ["8/5 6/5", "24/18 13/11*", "bar/22 6/off", "8/5(2) 6/3(2)", "13/7*/4", "25/22 6/0"]
MOVE_CHARS = "0123456789/*()bar off ,"


@FUZZ
@given(st.one_of(st.text(max_size=30), mutated(MOVES), mutated(MOVES, MOVE_CHARS)))
def test_move_text(text: str) -> None:
    try:
        parse_move_text(text)
    except InvalidInputError:
        return


POSITIONS = [
    Position.initial(),
    Position.from_position_id("zGbiIQgxH/AAWA"),
    Position.from_position_id("jGfkASjg8wcBMA"),
    Position.from_points({1: 3, 2: 2, 5: 4, "bar": 1}, {1: 2, 3: 3, 21: 2}),
]


@FUZZ
@given(
    st.sampled_from(POSITIONS),
    st.integers(1, 6),
    st.integers(1, 6),
    st.one_of(st.text(alphabet=MOVE_CHARS, max_size=24), mutated(MOVES, MOVE_CHARS)),
)
def test_parse_play(position: Position, d1: int, d2: int, text: str) -> None:
    try:
        play = parse_play(position, d1, d2, text)
    except BackgammonError:
        return
    assert parse_play(position, d1, d2, format_steps(play.steps)) == play


# ---------------------------------------------------------------- .mat
MATS = [(DATA / "gnubg" / name).read_text() for name in ("match1_seed6.mat", "match3_seed1.mat")]
MAT_LINES = [line for text in MATS for line in text.splitlines()]


@st.composite
def mutated_mat(
    draw: st.DrawFn,
    texts: list[str] = MATS,
    pool: list[str] = MAT_LINES,
    alphabet: str = "0123456789/*: )DoublesTakDrpWin=>",
) -> str:
    """One of ``texts`` with lines dropped, swapped, inserted (from ``pool``) or edited (with ``alphabet``)."""
    lines = draw(st.sampled_from(texts)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["drop", "swap", "insert", "edit"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(pool)))
        else:
            lines[i] = draw(mutated([lines[i] or " "], alphabet))
    return "\n".join(lines) + "\n"


@FUZZ
@given(st.one_of(st.text(max_size=200), mutated_mat()))
def test_read_mat(text: str) -> None:
    try:
        record = read_mat(text)
    except InvalidInputError:
        return
    assert all(isinstance(e, str) for e in record.all_errors)


@FUZZ_SLOW
@given(mutated_mat())
def test_replay_mat(text: str) -> None:
    try:
        match = replay(read_mat(text))
    except BackgammonError as exc:
        assert isinstance(exc, InvalidInputError)
        return
    written = write_mat(match)
    again = replay(read_mat(written))
    assert again.log == match.log
    assert write_mat(again) == written


REAL_MATS = [
    (DATA / "real" / name).read_text()
    for name in ("galaxy_match1100068.mat", "galaxy_match2900236.mat", "heroes_mrpurple_lasse_3pt.mat")
]
REAL_LINES = [line for text in REAL_MATS for line in text.splitlines()]


@FUZZ_SLOW
@given(mutated_mat(REAL_MATS, REAL_LINES, "0123456789/*: )?LossesCannotMoveWin=>bar/off"))
def test_load_mat_never_aborts(text: str) -> None:
    """The tolerant reader returns a reading for any such file (or refuses text with no
    'N point match' line, with its one error); its match can be written."""
    try:
        reading = load_mat(text)
    except InvalidInputError:
        return
    assert all(isinstance(m, str) for m in (*reading.all_errors, *reading.all_warnings))
    if reading.match is not None:
        try:
            write_mat(reading.match)
        except InvalidInputError:
            pass


_IDS = [
    line.split(":")[0]
    for line in (DATA / "gnubg" / "ids.txt").read_text().splitlines()[1:200]
    if line and not line.startswith("#")
]


@st.composite
def xgids(draw: st.DrawFn) -> Xgid:
    position = Position.from_position_id(draw(st.sampled_from(_IDS)))
    length = draw(st.sampled_from([0, 1, 3, 5, 7, 11, 25, 64]))
    score = (draw(st.integers(0, max(0, length - 1))), draw(st.integers(0, max(0, length - 1)))) if length else (0, 0)
    crawford = bool(length) and crawford_problem(length, score) is None and draw(st.booleans())
    cube_action = None if crawford else draw(st.sampled_from([None, None, "D", "B", "R"]))
    dice = None if cube_action else draw(st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    return Xgid(
        position=position,
        turn=draw(st.sampled_from([1, -1])),
        cube_exponent=0 if crawford else draw(st.integers(0, 15)),
        cube_owner=0 if crawford else draw(st.sampled_from([-1, 0, 1])),
        dice=dice,
        cube_action=cube_action,
        score=score,
        crawford=crawford,
        jacoby=not length and draw(st.booleans()),
        beaver=not length and draw(st.booleans()),
        match_length=length,
        max_cube_exponent=draw(st.integers(0, 15)),
    )


@FUZZ
@given(xgids())
def test_xgid_fields_round_trip(xgid: Xgid) -> None:
    again = Xgid.parse(str(xgid))
    if xgid.dice is not None:  # written higher die first
        assert again.dice == (max(xgid.dice), min(xgid.dice))
        again = Xgid(**{f: getattr(again, f) for f in Xgid.__dataclass_fields__} | {"dice": xgid.dice})
    assert again == xgid
    position, state = xgid.to_gnubg()
    assert MatchState.from_match_id(state.match_id()) == MatchState(
        **{f: getattr(state, f) for f in MatchState.__dataclass_fields__}
        | {"dice": None if state.dice is None else (max(state.dice), min(state.dice))}
    )
    back = Xgid.from_gnubg(
        position, state, jacoby=xgid.jacoby, beaver=xgid.beaver, max_cube_exponent=xgid.max_cube_exponent
    )
    expected_action = "D" if xgid.cube_action else None  # a Match ID knows only "doubled"
    assert back == Xgid(**{f: getattr(xgid, f) for f in Xgid.__dataclass_fields__} | {"cube_action": expected_action})
