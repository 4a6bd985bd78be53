"""Fuzzing the text parsers: Position ID, move notation, dice.

Random and mutated text must either parse or raise a ``BackgammonError``
(never another exception), quickly (hypothesis' deadline flags a hang), and a
Position ID that parses must print back to the same 14 characters when it is
canonical. ``BG_FUZZ_EXAMPLES`` raises the number of examples.
"""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import BackgammonError, Position
from backgammon.cli.core import parse_dice
from backgammon.notation import parse_move_text, parse_play

EXAMPLES = int(os.environ.get("BG_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=2000, suppress_health_check=[HealthCheck.too_slow])

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
SEED_IDS = ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "zGbiIQgxH/AAWA", "jGfkASjg8wcBMA", "AAAAAAAAAAAAAA", "//////////////"]
SEED_MOVES = ["24/18 13/11*", "bar/22", "6/off", "8/5(2) 6/3(2)", "13/7*/4", "bar/20 6/off(3)", "25/0", ""]
MOVE_ALPHABET = "0123456789/*()barofBAROF ,-\t\n"


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str], alphabet: str) -> str:
    text = list(draw(st.sampled_from(seeds)))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(1, 6))):
        op = rng.randrange(4)
        pos = rng.randrange(len(text) + 1)
        if op == 0 and text:  # delete
            del text[min(pos, len(text) - 1)]
        elif op == 1:  # insert
            text.insert(pos, rng.choice(alphabet))
        elif op == 2 and text:  # replace
            text[min(pos, len(text) - 1)] = rng.choice(alphabet)
        else:  # duplicate a slice
            a, b = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
            text[pos:pos] = text[a:b]
    return "".join(text)


def _position_id(text: object) -> None:
    try:
        p = Position.from_position_id(text)  # type: ignore[arg-type]
    except BackgammonError:
        return
    assert Position.from_position_id(p.position_id()) == p
    assert sum(p.mine) <= 15 and sum(p.theirs) <= 15


@FUZZ
@given(
    st.one_of(
        st.text(max_size=20), st.text(alphabet=B64, min_size=14, max_size=14), mutated(SEED_IDS, B64 + "=-_ \x00é")
    )
)
def test_position_id_parser(text: str) -> None:
    _position_id(text)


@FUZZ
@given(st.binary(min_size=10, max_size=10))
def test_every_10_byte_key(key: bytes) -> None:
    """Any 10-byte key, base64-encoded, is either a valid position or a BackgammonError."""
    import base64

    _position_id(base64.b64encode(key).decode()[:14])


@FUZZ
@given(st.one_of(st.none(), st.integers(), st.binary(max_size=14), st.lists(st.integers(), max_size=3)))
def test_position_id_parser_non_strings(value: object) -> None:
    _position_id(value)


@FUZZ
@given(
    st.one_of(st.text(max_size=40), st.text(alphabet=MOVE_ALPHABET, max_size=40), mutated(SEED_MOVES, MOVE_ALPHABET))
)
def test_move_text_parser(text: str) -> None:
    try:
        segments = parse_move_text(text)
    except BackgammonError:
        return
    assert len(segments) <= 4
    for seg in segments:
        assert len(seg.points) == len(seg.hits) >= 2
        assert all(0 <= p <= 25 for p in seg.points)


POSITIONS = [
    Position.initial(),
    Position.from_position_id("zGbiIQgxH/AAWA"),
    Position.from_position_id("jGfkASjg8wcBMA"),
    Position.from_points({6: 3, 5: 2, 1: 1}, {1: 2, 23: 1}),
    Position.from_points({"bar": 2, 13: 4}, {1: 2, 2: 2, 4: 1}),
]


@FUZZ
@given(
    st.sampled_from(POSITIONS),
    st.integers(1, 6),
    st.integers(1, 6),
    st.one_of(st.text(alphabet=MOVE_ALPHABET, max_size=40), mutated(SEED_MOVES, MOVE_ALPHABET)),
)
def test_parse_play_on_positions(p: Position, d1: int, d2: int, text: str) -> None:
    try:
        play = parse_play(p, d1, d2, text)
    except BackgammonError:
        return
    assert play in p.legal_plays(d1, d2)


@FUZZ
@given(st.one_of(st.text(max_size=8), mutated(["31", "3-1", "6 6"], "0123456789-, /")))
def test_dice_parser(text: str) -> None:
    try:
        d1, d2 = parse_dice(text)
    except BackgammonError:
        return
    assert 1 <= d1 <= 6 and 1 <= d2 <= 6


@FUZZ
@given(st.one_of(st.integers(), st.floats(), st.text(max_size=3), st.none(), st.booleans()), st.integers(1, 6))
def test_bad_dice_values(die: object, other: int) -> None:
    try:
        Position.initial().legal_plays(die, other)  # type: ignore[arg-type]
    except BackgammonError:
        return
    assert isinstance(die, int) and 1 <= die <= 6
