"""Difficulty levels: how strong the engine plays, from beginner to world class.

A level is a frozen :class:`Level`: the search depth (plies, see
:mod:`backgammon.engine.search`) and the standard deviation of Gaussian noise
added to each candidate's equity before picking the best one. The noise makes
weaker levels choose worse plays more often, more so when the candidates are
close, as human players do. ``benchmarks/levels.py`` measures each level's
average equity loss per decision against the strongest level (README,
"Difficulty levels").

Each level's depth, noise and measured error rate: the mean error per checker
decision (cubeless money equity, ± standard error) on the fixed decision
benchmark ``benchmarks/decisions.py`` (20,000 decisions from varied play,
refereed by GNU Backgammon 2-ply; measured 2026-12-05, the noisy levels with the stage-9 nets,
expert and world_class with stage 16 (2026-12-06), supremo with stage 6; world_class
on an evenly spread 2,000 of them, supremo on 300)::

    level          plies  noise   error / decision
    beginner         0    0.30    0.0898 +- 0.0009
    casual           0    0.15    0.0516 +- 0.0006
    intermediate     0    0.07    0.0256 +- 0.0003
    advanced         0    0.03    0.0127 +- 0.0002
    expert           0    0       0.0049 +- 0.0001   (stage 16)
    world_class      2    0       0.0029 +- 0.0003   (the default; stage 16)
    supremo          3    0       0.0040 +- 0.0011   (stage 6)

(gnubg 0-ply: 0.0039 +- 0.0001, gnubg 1-ply: 0.0019 +- 0.0001 on the same
benchmark, whose referee leans their way: README, "Decision benchmark".) The
noise applies to checker plays only; every level's cube decisions are its
depth's noiseless ones.

>>> LEVELS["beginner"].noise > LEVELS["expert"].noise
True
>>> str(choose_play(Position.initial(), (3, 1), "world_class", None))
'8/5 6/5'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backgammon.engine.cube import CubeInfo
from backgammon.engine.search import EvalContext, RankedPlay, rank_plays
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
        Level("world_class", 2, 0.0),
        Level("supremo", 3, 0.0),
    )
}
"""The levels by name, weakest first. ``world_class`` searches 2 plies with the move filters, as
gnubg's world class does (about 0.07 s per decision here, 0.4 s at most, with the stage-16 nets);
``supremo`` 3 plies (about 0.9 s, 5.2 s at most; against gnubg 0-ply no stronger than ``world_class``).
Each one's measured loss per decision: ``benchmarks/levels.py`` and the README's "Difficulty levels"."""

STRONGEST = "world_class"
"""The level used when none is given (3-ply ``supremo`` is deeper, about 14 times slower, and not measurably
stronger)."""


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


def pick(ranked: Sequence[RankedPlay], level: str | Level, rng: random.Random | None) -> RankedPlay:
    """The candidate a player of this level picks from a ranking (best first): the best by
    equity plus the level's noise (none for noiseless levels, which take the first). Only the
    candidates evaluated at the top one's depth are compared.

    Raises:
        InvalidInputError: on an unknown level or an empty ranking.
    """
    lv = get_level(level)
    if not ranked:
        raise InvalidInputError("no candidates to choose from")
    if len(ranked) == 1 or lv.noise == 0:
        return ranked[0]
    rng = rng or random.Random()
    ranked = [r for r in ranked if r.plies == ranked[0].plies]
    noisy = [(r.equity + rng.gauss(0.0, lv.noise), -i) for i, r in enumerate(ranked)]
    return ranked[max(range(len(ranked)), key=lambda i: noisy[i])]


def choose_play(
    position: Position,
    dice: tuple[int, int],
    level: str | Level,
    rng: random.Random | None,
    evaluator: Any = None,
    cube: CubeInfo | None = None,
) -> Play:
    """The play a player of this level makes: best by equity plus the level's noise
    (:func:`backgammon.engine.search.rank_plays` at the level's depth, then :func:`pick`).

    ``rng`` draws the noise (seed it for reproducible games); it is not used
    by noiseless levels. ``evaluator``: the engine's network
    (:meth:`NetEvaluator.default`) when omitted. ``cube``: the mover's cube
    and score, to rank by cubeful equity (None: cubeless).

    Raises:
        InvalidInputError: on an unknown level or bad dice.
    """
    lv = get_level(level)
    if evaluator is None:
        from backgammon.engine.evaluator import NetEvaluator

        evaluator = NetEvaluator.default()
    return pick(rank_plays(position, dice, EvalContext(evaluator, lv.plies, cube)), lv, rng).play


__all__ = ["LEVELS", "STRONGEST", "Level", "choose_play", "get_level", "pick"]
