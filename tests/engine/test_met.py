"""Match equity table lookups, checked against the XML file itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backgammon.engine.met import default_table, match_equity, parse_met
from backgammon.errors import EngineError, InvalidInputError

XML = Path(__file__).resolve().parents[2] / "src/backgammon/engine/data/Kazaross-XG2.xml"


def _raw_rows(section: str) -> list[list[float]]:
    text = XML.read_text()
    body = text.split(f"<{section}")[1].split(f"</{section}>")[0]
    return [[float(v) for v in re.findall(r"<me>\s*([0-9.]+)\s*</me>", row)] for row in body.split("<row>")[1:]]


def test_table_shape_and_name() -> None:
    table = default_table()
    assert table.length == 25
    assert "Kazaross" in table.name


@pytest.mark.parametrize("a,b", [(1, 2), (2, 1), (3, 5), (5, 3), (7, 7), (11, 4), (25, 25), (2, 25)])
def test_pre_crawford_lookups_match_xml(a: int, b: int) -> None:
    rows = _raw_rows("pre-crawford-table")
    assert match_equity(a, b) == pytest.approx(rows[a - 1][b - 1], abs=0)


@pytest.mark.parametrize("a", [2, 3, 4, 9, 17])
def test_post_crawford_lookups_match_xml(a: int) -> None:
    post = _raw_rows("post-crawford-table")[0]
    assert match_equity(a, 1, post_crawford=True) == post[a - 1]
    assert match_equity(1, a, post_crawford=True) == pytest.approx(1 - post[a - 1])


def test_known_values_and_symmetry() -> None:
    assert match_equity(1, 1) == 0.5
    assert match_equity(1, 2) == pytest.approx(0.67736)  # leader in the Crawford game
    assert match_equity(2, 1, post_crawford=True) == pytest.approx(0.48803)  # free drop territory
    for a in range(1, 26):
        for b in range(1, 26):
            assert match_equity(a, b) + match_equity(b, a) == pytest.approx(1.0, abs=1e-4)
            if a < b:
                assert match_equity(a, b) > 0.5


def test_won_and_lost_matches() -> None:
    assert match_equity(0, 3) == 1.0
    assert match_equity(-2, 3) == 1.0
    assert match_equity(3, 0) == 0.0


def test_out_of_range_and_broken_tables() -> None:
    with pytest.raises(InvalidInputError, match="at most 25"):
        match_equity(26, 3)
    with pytest.raises(EngineError):
        parse_met("<met><info/></met>")
    with pytest.raises(EngineError):
        parse_met("not xml")
