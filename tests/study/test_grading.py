"""Grading by equity loss."""

from __future__ import annotations

import math

import pytest

from backgammon.errors import InvalidInputError
from backgammon.grading import DEFAULT_THRESHOLDS, Grade, Thresholds, grade, grade_millipoints


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        (0.0, Grade.GOOD),
        (-1e-12, Grade.GOOD),  # rounding noise of a difference
        (0.0199, Grade.GOOD),
        (0.020, Grade.INACCURACY),
        (0.0399, Grade.INACCURACY),
        (0.040, Grade.ERROR),  # gnubg "doubtful"
        (0.0799, Grade.ERROR),
        (0.080, Grade.BLUNDER),  # gnubg "bad"
        (0.1599, Grade.BLUNDER),
        (0.160, Grade.VERY_BAD),  # gnubg "very bad"
        (1.5, Grade.VERY_BAD),
    ],
)
def test_bands(loss: float, expected: Grade) -> None:
    assert grade(loss) is expected
    assert grade_millipoints(loss * 1000) is expected


def test_bands_cover_and_order() -> None:
    previous_high = 0.0
    for g in Grade:
        low, high = DEFAULT_THRESHOLDS.bounds(g)
        assert low == previous_high
        assert grade(low) is g
        previous_high = high
    assert previous_high == math.inf
    assert [g.severity for g in Grade] == [0, 1, 2, 3, 4]
    assert [g.mark for g in Grade] == ["", "", "?!", "?", "??"]


def test_labels_in_both_languages() -> None:
    en = [g.label("en") for g in Grade]
    ja = [g.label("ja") for g in Grade]
    assert en == ["good", "inaccuracy", "error", "blunder", "very bad"]
    assert len(set(ja)) == 5
    assert all(any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in label) for label in ja)
    with pytest.raises(InvalidInputError):
        Grade.GOOD.label("fr")


def test_custom_thresholds() -> None:
    strict = Thresholds(inaccuracy=0.005, error=0.01, blunder=0.02, very_bad=0.05)
    assert grade(0.015, strict) is Grade.ERROR
    assert grade(0.015) is Grade.GOOD


@pytest.mark.parametrize(
    "kwargs",
    [
        {"inaccuracy": 0.05},  # not increasing
        {"error": 0.02},  # equal to the previous bound
        {"inaccuracy": 0.0},
        {"very_bad": math.inf},
        {"blunder": "0.08"},
    ],
)
def test_bad_thresholds(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        Thresholds(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-0.01, math.nan, math.inf, "0.1", None, True])
def test_bad_losses(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        grade(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        grade_millipoints(bad)  # type: ignore[arg-type]
