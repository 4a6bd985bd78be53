"""The FIBS rating formula (FORMATS.md 2.5)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from backgammon.errors import InvalidInputError

START_RATING = 1500.0


@dataclass(frozen=True, slots=True)
class RatingChange:
    """How a finished match moves both ratings: ``winner_delta`` >= 0, ``loser_delta`` <= 0."""

    winner_delta: float
    loser_delta: float
    upset_probability: float


def k_factor(experience: int) -> float:
    """K = max(1, 5 - experience / 100)."""
    return max(1.0, 5.0 - experience / 100.0)


def rating_change(
    winner_rating: float, loser_rating: float, length: int, winner_experience: int, loser_experience: int
) -> RatingChange:
    """The FIBS rating change after an ``length``-point match.

    >>> c = rating_change(1500, 1600, 5, 0, 500)
    >>> round(c.winner_delta, 2), round(c.loser_delta, 2)
    (25.22, -5.04)

    Raises:
        InvalidInputError: if ``length`` is not a positive integer.
    """
    if not isinstance(length, int) or length < 1:
        raise InvalidInputError(f"invalid match length {length!r}: expected a positive integer")
    d = abs(winner_rating - loser_rating)
    upset = 1.0 / (10 ** (d * math.sqrt(length) / 2000.0) + 1.0)
    underdog_won = winner_rating < loser_rating
    p = 1.0 - upset if underdog_won else upset
    gain = 4.0 * k_factor(winner_experience) * math.sqrt(length) * p
    loss = 4.0 * k_factor(loser_experience) * math.sqrt(length) * p
    return RatingChange(gain, -loss, upset)
