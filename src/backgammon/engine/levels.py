"""Difficulty levels: how strong the engine plays, from beginner to world class.

A level is a frozen :class:`Level`: the search depth (plies, see
:mod:`backgammon.engine.search`) and the standard deviation of Gaussian noise
added to each candidate's equity before picking the best one. The noise makes
weaker levels choose worse plays more often, more so when the candidates are
close, as human players do. ``benchmarks/levels.py`` measures each level's
average equity loss per decision against the strongest level (README,
"Difficulty levels").

>>> LEVELS["beginner"].noise > LEVELS["expert"].noise
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from backgammon.errors import InvalidInputError
from backgammon.moves import Play
from backgammon.position import Position


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength: search plies and equity noise (standard deviation, in money equity)."""

    name: str
    plies: int
    noise: float


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 0, 0.30),
        Level("casual", 0, 0.15),
        Level("intermediate", 0, 0.07),
        Level("advanced", 0, 0.03),
        Level("expert", 0, 0.0),
        Level("world_class", 1, 0.0),
        Level("supremo", 2, 0.0),
    )
}
"""The levels by name, weakest first."""

STRONGEST = "world_class"
"""The level used when none is given (2-ply ``supremo`` is stronger but slower)."""


def get_level(name: str | Level) -> Level:
    """The level of that name.

    Raises:
        InvalidInputError: for an unknown name.
    """
    if isinstance(name, Level):
        return name
    try:
        return LEVELS[str(name).strip().lower().replace("-", "_").replace(" ", "_")]
    except KeyError:
        raise InvalidInputError(f"unknown level {name!r}: expected one of {', '.join(LEVELS)}") from None


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """A candidate play with its evaluation from the mover's side (cubeless)."""

    play: Play
    probabilities: tuple[float, float, float, float, float]
    equity: float


def _outputs_of(probs: Any) -> tuple[float, float, float, float, float]:
    if hasattr(probs, "win_gammon"):
        return (probs.win, probs.win_gammon, probs.win_backgammon, probs.lose_gammon, probs.lose_backgammon)
    w, wg, wb, lg, lb = (float(v) for v in probs)
    return w, wg, wb, lg, lb


def rank_plays(position: Position, dice: tuple[int, int], evaluator: Any, plies: int = 0) -> list[RankedPlay]:
    """Every legal play for the roll, best first, evaluated from the mover's side.

    A thin layer over :func:`backgammon.engine.search.rank_plays` (its move
    filters) giving the probabilities as a plain 5-tuple.

    Raises:
        InvalidInputError: on bad dice, bad plies or a finished game.
    """
    from backgammon.engine import search

    ranked = search.rank_plays(position, dice[0], dice[1], evaluator, plies=plies)
    return [RankedPlay(r.play, _outputs_of(r.probabilities), float(r.equity)) for r in ranked]


def choose_play(
    position: Position,
    dice: tuple[int, int],
    level: str | Level,
    rng: random.Random | None,
    evaluator: Any,
) -> Play:
    """The play a player of this level makes: best by equity plus the level's noise.

    ``rng`` draws the noise (seed it for reproducible games); it is not used
    by noiseless levels.

    Raises:
        InvalidInputError: on an unknown level or bad dice.
    """
    lv = get_level(level)
    ranked = rank_plays(position, dice, evaluator, lv.plies)
    if len(ranked) == 1 or lv.noise == 0:
        return ranked[0].play
    rng = rng or random.Random()
    noisy = [(r.equity + rng.gauss(0.0, lv.noise), -i) for i, r in enumerate(ranked)]
    best = max(range(len(ranked)), key=lambda i: noisy[i])
    return ranked[best].play


__all__ = ["LEVELS", "STRONGEST", "Level", "RankedPlay", "choose_play", "get_level", "rank_plays"]
