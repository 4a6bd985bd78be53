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

import numpy as np

from backgammon.engine.rollout import outputs_equity, position_to_board, terminal_outputs
from backgammon.errors import EngineError, InvalidInputError
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

    Uses :func:`backgammon.engine.search.rank_plays` when the engine has it
    (any depth); without it, a 0-ply evaluation of each resulting position.
    Finished games are scored exactly.

    Raises:
        InvalidInputError: on bad dice.
        EngineError: if ``plies > 0`` and the search module is missing.
    """
    d1, d2 = dice
    try:
        from backgammon.engine import search  # type: ignore[attr-defined]
    except ImportError:
        search = None
    if search is not None:
        ranked = search.rank_plays(position, d1, d2, evaluator, plies=plies)
        return [RankedPlay(play, _outputs_of(probs), float(eq)) for play, probs, eq in ranked]
    if plies:
        raise EngineError(f"a {plies}-ply search needs backgammon.engine.search, which is not installed")
    plays = position.legal_plays(d1, d2)
    boards = np.array([position_to_board(p.position) for p in plays], dtype=np.int8)
    out: list[RankedPlay] = []
    live = [i for i, b in enumerate(boards) if terminal_outputs(b) is None]
    probs = np.asarray(evaluator.evaluate_boards(boards[live]), dtype=float) if live else np.zeros((0, 5))
    by_index = dict(zip(live, probs))
    for i, play in enumerate(plays):
        theirs = by_index.get(i)
        if theirs is None:
            theirs = terminal_outputs(boards[i])
        w, wg, wb, lg, lb = (float(v) for v in theirs)  # type: ignore[union-attr]
        mine = (1.0 - w, lg, lb, wg, wb)
        out.append(RankedPlay(play, mine, outputs_equity(np.array(mine))))
    out.sort(key=lambda r: -r.equity)
    return out


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
        EngineError: if the level's depth needs a search module that is missing.
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
