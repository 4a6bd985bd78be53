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
>>> str(choose_play(Position.initial(), (3, 1), "world_class", None))
'8/5 6/5'
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from backgammon.engine.cube import CubeInfo, CubeOwner, clip_outputs, cube_decision, cube_efficiency
from backgammon.engine.met import match_equity
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
    """A candidate play with its evaluation from the mover's side.

    ``equity``: cubeless money equity. ``cubeful``: with a cube given to
    :func:`rank_plays`, the cubeful equity after the play (money: points per
    cube; match: EMG), else None. ``cubeful_mwc``: the match-winning chance
    (match play only).
    """

    play: Play
    probabilities: tuple[float, float, float, float, float]
    equity: float
    cubeful: float | None = None
    cubeful_mwc: float | None = None

    @property
    def score(self) -> float:
        """What the ranking compares: the cubeful equity when known, else the cubeless one."""
        return self.equity if self.cubeful is None else self.cubeful


def _outputs_of(probs: Any) -> tuple[float, float, float, float, float]:
    if hasattr(probs, "win_gammon"):
        return (probs.win, probs.win_gammon, probs.win_backgammon, probs.lose_gammon, probs.lose_backgammon)
    w, wg, wb, lg, lb = (float(v) for v in probs)
    return w, wg, wb, lg, lb


def rank_plays(
    position: Position, dice: tuple[int, int], evaluator: Any, plies: int = 0, cube: CubeInfo | None = None
) -> list[RankedPlay]:
    """Every legal play for the roll, best first, evaluated from the mover's side.

    A layer over :func:`backgammon.engine.search.rank_plays` (its move
    filters), with the probabilities as a plain 5-tuple. With ``cube`` (the
    mover's cube and score), each play is also given its cubeful equity: the
    opponent, on roll after it, takes its best cube action by
    :func:`backgammon.engine.cube.cube_decision`; plays are then ranked by
    cubeful equity (match-winning chance in a match, so gammons count only
    as much as the score makes them worth) within each search depth.

    Raises:
        InvalidInputError: on bad dice, bad plies or a finished game.
    """
    from backgammon.engine import search

    ranked = search.rank_plays(position, dice[0], dice[1], evaluator, plies=plies)
    out = [RankedPlay(r.play, _outputs_of(r.probabilities), float(r.equity)) for r in ranked]
    if cube is None:
        return out
    # search ranks deeper-searched plays first, each group by equity: recover the groups
    groups, group = [], 0
    for i, r in enumerate(out):
        if i and r.equity > out[i - 1].equity + 1e-12:
            group += 1
        groups.append(group)
    scored = [(groups[i], _with_cube(r, cube)) for i, r in enumerate(out)]
    scored.sort(key=lambda gr: (gr[0], -gr[1].score))
    return [r for _, r in scored]


def _with_cube(ranked: RankedPlay, cube: CubeInfo) -> RankedPlay:
    """Add the cubeful equity after the play (the opponent on roll chooses its best cube action)."""
    w, wg, wb, lg, lb = ranked.probabilities
    theirs = (1.0 - w, lg, lb, wg, wb)
    after = ranked.play.position
    if after.is_game_over():
        if cube.is_money:
            jacoby = cube.jacoby and cube.owner is CubeOwner.CENTRED
            return replace(ranked, cubeful=1.0 if jacoby else ranked.equity)
        points = 3 if wb >= 1.0 else 2 if wg >= 1.0 else 1
        mwc = _match_value(cube, points * cube.value)
        return replace(ranked, cubeful=_emg(cube, mwc), cubeful_mwc=mwc)
    decision = cube_decision(clip_outputs(theirs), cube.flip(), cube_efficiency(after))
    if cube.is_money:
        return replace(ranked, cubeful=-decision.best_equity)
    their_mwc = decision.best_mwc
    assert their_mwc is not None
    mwc = 1.0 - their_mwc
    return replace(ranked, cubeful=_emg(cube, mwc), cubeful_mwc=mwc)


def _match_value(cube: CubeInfo, points: int) -> float:
    """The mover's match-winning chance after winning ``points`` now."""
    assert cube.away is not None
    a, b = cube.away
    return match_equity(a - points, b, cube.crawford or cube.post_crawford)


def _emg(cube: CubeInfo, mwc: float) -> float:
    """A match-winning chance as EMG for the mover (losing the cube value: -1, winning it: +1)."""
    assert cube.away is not None
    a, b = cube.away
    post = cube.crawford or cube.post_crawford
    lo, hi = match_equity(a, b - cube.value, post), match_equity(a - cube.value, b, post)
    return 2 * (mwc - lo) / (hi - lo) - 1 if hi > lo else 0.0


def choose_play(
    position: Position,
    dice: tuple[int, int],
    level: str | Level,
    rng: random.Random | None,
    evaluator: Any = None,
    cube: CubeInfo | None = None,
) -> Play:
    """The play a player of this level makes: best by equity plus the level's noise.

    ``rng`` draws the noise (seed it for reproducible games); it is not used
    by noiseless levels. ``evaluator``: the engine's network
    (:meth:`NetEvaluator.default`) when omitted. ``cube``: the mover's cube
    and score, to rank by cubeful equity (see :func:`rank_plays`).

    Raises:
        InvalidInputError: on an unknown level or bad dice.
    """
    lv = get_level(level)
    if evaluator is None:
        from backgammon.engine.evaluator import NetEvaluator

        evaluator = NetEvaluator.default()
    ranked = rank_plays(position, dice, evaluator, lv.plies, cube)
    if len(ranked) == 1 or lv.noise == 0:
        return ranked[0].play
    rng = rng or random.Random()
    noisy = [(r.score + rng.gauss(0.0, lv.noise), -i) for i, r in enumerate(ranked)]
    best = max(range(len(ranked)), key=lambda i: noisy[i])
    return ranked[best].play


__all__ = ["LEVELS", "STRONGEST", "Level", "RankedPlay", "choose_play", "get_level", "rank_plays"]
