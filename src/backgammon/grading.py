"""Grading a decision by the equity it gives up: good, inaccuracy, error, blunder, very bad.

The *equity loss* of a play (or cube action) is the equity of the best
choice minus the equity of the choice made, in normalised money equity (one
point per game at cube 1; in match play, the engine's match-winning chances
converted to equivalent money equity, "EMG"). It is never negative. Analysis
programs often quote it in *millipoints*: thousandths of a point.

Default bands (loss ``x`` in points; lower bound included, upper excluded):

========== ================ ====== ===============================================
grade      loss             mark   why this threshold
========== ================ ====== ===============================================
GOOD       x < 0.020               differences below 20 millipoints are within the
                                   evaluation noise of a 2-ply analysis; treat as
                                   equal choices
INACCURACY 0.020 <= x < 0.040      a small, real error, below GNU Backgammon's first
                                   mark
ERROR      0.040 <= x < 0.080 ?!   GNU Backgammon's default "doubtful" threshold
                                   (-0.040)
BLUNDER    0.080 <= x < 0.160 ?    GNU Backgammon's default "bad" threshold (-0.080)
VERY_BAD   x >= 0.160         ??   GNU Backgammon's default "very bad" threshold
                                   (-0.160)
========== ================ ====== ===============================================

Source for the three GNU Backgammon values: its manual (FAQ, "the default
settings are: -0.040 (doubtful) ?!, -0.080 (bad) ?, -0.160 (very bad) ??"),
shipped as ``/usr/share/doc/gnubg/gnubg.html``. The 0.020 lower bound is our
choice; all thresholds are a :class:`Thresholds` value that callers may
replace.

>>> grade(0.0)
<Grade.GOOD: 'good'>
>>> grade(0.05).label("ja")
'疑問手'
>>> grade_millipoints(170) is Grade.VERY_BAD
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from backgammon.errors import InvalidInputError

__all__ = ["DEFAULT_THRESHOLDS", "Grade", "Thresholds", "grade", "grade_millipoints"]


class Grade(Enum):
    """How bad a decision was, from GOOD to VERY_BAD (compare with :meth:`severity`)."""

    GOOD = "good"
    INACCURACY = "inaccuracy"
    ERROR = "error"
    BLUNDER = "blunder"
    VERY_BAD = "very_bad"

    @property
    def severity(self) -> int:
        """0 for GOOD up to 4 for VERY_BAD."""
        return _ORDER.index(self)

    @property
    def mark(self) -> str:
        """Annotation mark, as GNU Backgammon and chess annotators use (``''`` for none)."""
        return _MARKS[self]

    def label(self, lang: str = "en") -> str:
        """The grade's name for people, in English (``'en'``) or Japanese (``'ja'``).

        Raises:
            InvalidInputError: for another language.
        """
        try:
            return _LABELS[lang][self]
        except KeyError:
            raise InvalidInputError(f"invalid language {lang!r}: expected 'en' or 'ja'") from None


_ORDER = (Grade.GOOD, Grade.INACCURACY, Grade.ERROR, Grade.BLUNDER, Grade.VERY_BAD)
_MARKS = {Grade.GOOD: "", Grade.INACCURACY: "", Grade.ERROR: "?!", Grade.BLUNDER: "?", Grade.VERY_BAD: "??"}
_LABELS = {
    "en": {
        Grade.GOOD: "good",
        Grade.INACCURACY: "inaccuracy",
        Grade.ERROR: "error",
        Grade.BLUNDER: "blunder",
        Grade.VERY_BAD: "very bad",
    },
    "ja": {
        Grade.GOOD: "好手",
        Grade.INACCURACY: "小さなミス",
        Grade.ERROR: "疑問手",
        Grade.BLUNDER: "悪手",
        Grade.VERY_BAD: "大悪手",
    },
}


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Lower bounds of the bands, in points of equity; strictly increasing and positive.

    Raises:
        InvalidInputError: if the bounds are not positive, finite and increasing.
    """

    inaccuracy: float = 0.020
    error: float = 0.040
    blunder: float = 0.080
    very_bad: float = 0.160

    def __post_init__(self) -> None:
        bounds = (self.inaccuracy, self.error, self.blunder, self.very_bad)
        for b in bounds:
            if not isinstance(b, (int, float)) or isinstance(b, bool) or not math.isfinite(b) or b <= 0:
                raise InvalidInputError(f"invalid threshold {b!r}: expected a positive number of points")
        if list(bounds) != sorted(set(bounds)):
            raise InvalidInputError(f"invalid thresholds {bounds!r}: expected strictly increasing bounds")

    def bounds(self, g: Grade) -> tuple[float, float]:
        """The band ``[low, high)`` of a grade, in points (``high`` is infinity for VERY_BAD)."""
        edges = (0.0, self.inaccuracy, self.error, self.blunder, self.very_bad, math.inf)
        i = g.severity
        return edges[i], edges[i + 1]


DEFAULT_THRESHOLDS = Thresholds()
"""The defaults documented in the module docstring."""

_ROUNDING = 1e-9  # equity losses computed as differences may come out at -1e-17


def grade(equity_loss: float, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Grade:
    """The grade of a decision that gave up ``equity_loss`` points (best minus chosen, >= 0).

    Raises:
        InvalidInputError: if the loss is not a finite number >= 0.
    """
    if (
        not isinstance(equity_loss, (int, float))
        or isinstance(equity_loss, bool)
        or not math.isfinite(equity_loss)
        or equity_loss < -_ROUNDING
    ):
        raise InvalidInputError(f"invalid equity loss {equity_loss!r}: expected a finite number >= 0")
    if equity_loss >= thresholds.very_bad:
        return Grade.VERY_BAD
    if equity_loss >= thresholds.blunder:
        return Grade.BLUNDER
    if equity_loss >= thresholds.error:
        return Grade.ERROR
    if equity_loss >= thresholds.inaccuracy:
        return Grade.INACCURACY
    return Grade.GOOD


def grade_millipoints(millipoints: float, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Grade:
    """:func:`grade` for a loss given in millipoints (thousandths of a point).

    Raises:
        InvalidInputError: if the loss is not a finite number >= 0.
    """
    if not isinstance(millipoints, (int, float)) or isinstance(millipoints, bool):
        raise InvalidInputError(f"invalid equity loss {millipoints!r}: expected a number of millipoints")
    return grade(millipoints / 1000, thresholds)
