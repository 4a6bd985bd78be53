"""Choosing plays: 0-ply, and 1- and 2-ply lookahead with move filters.

*n-ply* evaluation of a position (side X on roll, before rolling):

- 0-ply: the evaluator's own estimate;
- n-ply: the average over X's 21 distinct rolls (weighted 1/36 or 2/36) of
  the value, at (n-1)-ply, of the position after X's best play for that roll,
  the best play being chosen by 0-ply (as gnubg does).

To rank the plays of a roll at n-ply, every play is first scored at 0-ply;
each :class:`MoveFilter` then keeps the best few within an equity threshold,
and the survivors are scored one ply deeper, until n. Plays dropped on the way
keep their lower-ply score and rank below the survivors.

>>> from backgammon import Position
>>> from backgammon.engine.evaluator import NetEvaluator
>>> str(best_play(Position.initial(), 3, 1, NetEvaluator.default()))
'8/5 6/5'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from backgammon.engine._movegen import MAX_PLAYS, OVER, new_workspace, phase, successors_py, successors_ws
from backgammon.engine.encoding import MAX_NONZERO
from backgammon.engine.evaluator import (
    Evaluator,
    NetEvaluator,
    Probabilities,
    board_of,
    check_boards,
    equities,
    flip_array,
    net_choose,
    net_evaluate_one,
)
from backgammon.engine.network import flip_outputs
from backgammon.errors import InvalidInputError
from backgammon.moves import Play
from backgammon.position import Position

__all__ = [
    "DEFAULT_FILTERS",
    "ROLLS",
    "MoveFilter",
    "RankedPlay",
    "best_board",
    "best_play",
    "evaluate_boards_ply",
    "evaluate_ply",
    "rank_boards",
    "rank_plays",
]

#: The 21 distinct rolls and their weights (out of 36).
ROLLS: tuple[tuple[int, int, int], ...] = tuple(
    (d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(d1, 7)
)
_ROLL_ARRAY = np.array(ROLLS, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """Keep at most ``keep`` plays, and only those within ``threshold`` equity of the best."""

    keep: int
    threshold: float

    def __post_init__(self) -> None:
        if self.keep < 1 or self.threshold < 0:
            raise InvalidInputError(f"expected keep >= 1 and threshold >= 0, got {self.keep!r}, {self.threshold!r}")


#: Filters applied before each ply of lookahead (like gnubg's defaults: wide, then narrow).
DEFAULT_FILTERS: tuple[MoveFilter, ...] = (MoveFilter(8, 0.16), MoveFilter(3, 0.04))


class RankedPlay(NamedTuple):
    """A play with its chances and cubeless equity, from the mover's view."""

    play: Play
    probabilities: Probabilities
    equity: float


@njit(cache=True, nogil=True)
def _roll_successors(board: np.ndarray, rolls: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """All results of all 21 rolls, concatenated; ``starts[r]..starts[r+1]`` belong to roll ``r``."""
    tmp = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = new_workspace()
    cap = 1024
    out = np.empty((cap, 2, 25), dtype=np.int8)
    total = 0
    for r in range(rolls.shape[0]):
        starts[r] = total
        n = successors_ws(board, rolls[r, 0], rolls[r, 1], tmp, work, table)
        if total + n > cap:
            while total + n > cap:
                cap *= 2
            bigger = np.empty((cap, 2, 25), dtype=np.int8)
            bigger[:total] = out[:total]
            out = bigger
        out[total:total + n] = tmp[:n]
        total += n
    starts[rolls.shape[0]] = total
    return out[:total]


@njit(cache=True, nogil=True)
def _one_ply_net(boards, rolls, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, out) -> None:
    """1-ply outputs of each board with the network evaluator, compiled: what :func:`evaluate_boards_ply`
    computes in Python for other evaluators (the same plays; sums in another order, so equal to ~1e-16)."""
    cand = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = new_workspace()
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float64)
    hid = np.empty(max(cb1.shape[0], rb1.shape[0]))
    o = np.empty(5)
    best = np.empty(5)
    for i in range(boards.shape[0]):
        b = boards[i]
        if phase(b) == OVER:
            net_evaluate_one(b, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff,
                             idx, val, hid, o)
            out[i, :] = o
            continue
        acc = np.zeros(5)
        for r in range(rolls.shape[0]):
            n = successors_ws(b, rolls[r, 0], rolls[r, 1], cand, work, table)
            net_choose(cand, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff,
                       idx, val, hid, o, best)
            flip_outputs(best, o)  # the mover's view
            for k in range(5):  # weights out of 36: summed whole, divided once, so sure results stay exact
                acc[k] += rolls[r, 2] * o[k]
        for k in range(5):
            out[i, k] = acc[k] / 36.0


def evaluate_boards_ply(boards: np.ndarray, evaluator: Evaluator, plies: int) -> np.ndarray:
    """n-ply outputs ``(n, 5)`` for raw boards ``(n, 2, 25)`` (each from its side on roll's view).

    Raises:
        InvalidInputError: if ``plies`` is negative.
    """
    if plies < 0:
        raise InvalidInputError(f"expected plies >= 0, got {plies!r}")
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if plies == 0:
        return evaluator.evaluate_boards(boards)
    out = np.empty((boards.shape[0], 5))
    if plies == 1 and type(evaluator) is NetEvaluator:
        _one_ply_net(check_boards(boards), _ROLL_ARRAY, *evaluator.kernel_args(), out)
        return out
    starts = np.empty(len(ROLLS) + 1, dtype=np.int64)
    weights = _ROLL_ARRAY[:, 2] / 36.0
    for i in range(boards.shape[0]):
        if phase(boards[i]) == OVER:
            out[i] = evaluator.evaluate_boards(boards[i : i + 1])[0]
            continue
        succ = _roll_successors(boards[i], _ROLL_ARRAY, starts)
        vals = evaluator.evaluate_boards(succ)
        eq = -equities(vals)  # the mover's equity after each play
        chosen = np.empty((len(ROLLS), 2, 25), dtype=np.int8)
        chosen_vals = np.empty((len(ROLLS), 5))
        for r in range(len(ROLLS)):
            a, b = starts[r], starts[r + 1]
            k = a + int(np.argmax(eq[a:b]))
            chosen[r] = succ[k]
            chosen_vals[r] = vals[k]
        if plies > 1:
            chosen_vals = evaluate_boards_ply(chosen, evaluator, plies - 1)
        # chosen_vals are from the opponent's view (on roll after the play)
        out[i] = weights @ flip_array(chosen_vals)
    return out


def evaluate_ply(position: Position, evaluator: Evaluator, plies: int = 0) -> Probabilities:
    """n-ply chances of the side on roll in ``position``.

    Raises:
        InvalidInputError: if ``plies`` is negative.
    """
    return Probabilities.from_array(evaluate_boards_ply(board_of(position)[None], evaluator, plies)[0])


def rank_plays(
    position: Position,
    die1: int,
    die2: int,
    evaluator: Evaluator,
    plies: int = 0,
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None,
) -> list[RankedPlay]:
    """The legal plays of a roll, best first, each with chances and equity (the mover's view).

    ``move_filter`` gives one filter per ply of lookahead (a single filter is
    used at every ply; default :data:`DEFAULT_FILTERS`, the last one repeated).

    Raises:
        InvalidInputError: if a die is not 1..6, ``plies`` is not 0..4, or the
            position is already over.
    """
    if not isinstance(plies, int) or not 0 <= plies <= 4:
        raise InvalidInputError(f"expected plies 0..4, got {plies!r}")
    if position.is_game_over():
        raise InvalidInputError(f"the game is over in {position!r}: there is no play to choose")
    plays = position.legal_plays(die1, die2)
    boards = np.stack([board_of(p.position) for p in plays])
    order, vals, _ = rank_boards(boards, evaluator, plies, move_filter)
    eq = equities(vals)
    return [RankedPlay(plays[j], Probabilities.from_array(vals[j]), float(eq[j])) for j in order]


def _filters(move_filter: tuple[MoveFilter, ...] | MoveFilter | None) -> tuple[MoveFilter, ...]:
    if isinstance(move_filter, MoveFilter):
        return (move_filter,)
    filters = DEFAULT_FILTERS if move_filter is None else tuple(move_filter)
    if not filters or not all(isinstance(f, MoveFilter) for f in filters):
        raise InvalidInputError(f"expected one or more MoveFilter, got {move_filter!r}")
    return filters


def rank_boards(
    boards: np.ndarray,
    evaluator: Evaluator,
    plies: int = 0,
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None,
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Rank candidate results (raw boards, opponent on roll) for the mover.

    Returns ``(order, values, depth)``: indices best first, the mover's
    outputs ``(n, 5)`` and the ply each candidate was scored at.

    Raises:
        InvalidInputError: for a bad filter or ``plies``.
    """
    filters = _filters(move_filter)
    vals = flip_array(evaluator.evaluate_boards(boards))  # the mover's view
    depth = np.zeros(len(boards), dtype=np.int64)
    alive = np.arange(len(boards))
    for ply in range(1, plies + 1):
        f = filters[min(ply - 1, len(filters) - 1)]
        eq = equities(vals[alive])
        order = np.argsort(-eq, kind="stable")
        best = eq[order[0]]
        alive = np.array([alive[j] for j in order[: f.keep] if eq[j] >= best - f.threshold], dtype=np.int64)
        vals[alive] = flip_array(evaluate_boards_ply(boards[alive], evaluator, ply))
        depth[alive] = ply
    eq = equities(vals)
    order: list[int] = np.lexsort((-eq, -depth)).tolist()  # deepest first, then best; stable on ties
    return order, vals, depth


def best_board(
    board: np.ndarray,
    die1: int,
    die2: int,
    evaluator: Evaluator,
    plies: int = 0,
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None,
) -> np.ndarray:
    """Fast path on raw boards: the best result (flipped) of a roll. The caller passes a valid board and dice."""
    cands = successors_py(board, die1, die2)
    if len(cands) == 1:
        return cands[0]
    order, _, _ = rank_boards(cands, evaluator, plies, move_filter)
    return cands[order[0]]


def best_play(
    position: Position,
    die1: int,
    die2: int,
    evaluator: Evaluator,
    plies: int = 0,
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None,
) -> Play:
    """The best play of a roll at ``plies`` (see :func:`rank_plays`).

    Raises:
        InvalidInputError: as :func:`rank_plays`.
    """
    return rank_plays(position, die1, die2, evaluator, plies, move_filter)[0].play
