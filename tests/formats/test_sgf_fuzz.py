"""Fuzz test for the SGF reader: only InvalidInputError escapes, naming the place; anything readable
replays without a crash (like tests/formats/test_fuzz.py for the other formats)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.formats.sgf import load_sgf

DATA = Path(__file__).parent.parent / "data"
_SCALE = max(1, int(os.environ.get("BG_FUZZ_SCALE", "1")))
FUZZ = settings(max_examples=60 * _SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SGFS = [(DATA / "sgf" / name).read_text() for name in ("match1_seed6.sgf", "heroes_solnze_lasse_3pt.sgf")]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A gnubg SGF file with a few random edits: replace, delete, insert or duplicate."""
    text = draw(st.sampled_from(SGFS))
    chars = st.sampled_from("()[];\\:+ WBPLDIREMabcdexyz0123456789\n")
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["replace", "delete", "insert", "duplicate"]))
        i = draw(st.integers(0, max(0, len(text) - 1)))
        if op == "replace" and text:
            text = text[:i] + draw(chars) + text[i + 1 :]
        elif op == "delete" and text:
            text = text[:i] + text[draw(st.integers(i, min(len(text), i + 5))) :]
        elif op == "insert":
            text = text[:i] + draw(st.text(chars, max_size=5)) + text[i:]
        else:
            j = draw(st.integers(i, min(len(text), i + 10)))
            text = text[:i] + text[i:j] + text[i:]
    return text


@FUZZ
@given(st.one_of(st.text(max_size=200), st.text(alphabet="()[];\\ WBGMIRE:+abcyz0123456", max_size=80), mutated()))
def test_load_sgf(text: str) -> None:
    try:
        reading = load_sgf(text)
    except BackgammonError as exc:
        assert isinstance(exc, InvalidInputError)
        assert "SGF" in str(exc)
        return
    assert reading.ok == (not reading.all_errors)
