"""Choosing plays: 0-ply, and 1- and 2-ply lookahead with move filters.

*n-ply* evaluation of a position (side X on roll, before rolling):

- 0-ply: the evaluator's own estimate;
- n-ply: the average over X's 21 distinct rolls (weighted 1/36 or 2/36) of
  the value, at (n-1)-ply, of the position after X's best play for that roll,
  the best play being chosen by 0-ply (as gnubg does).

With the network evaluator, 1-ply runs compiled here and 2 and 3 plies on the
engine's compiled n-ply search (:func:`backgammon.engine._kernels.nply.evaluate_nply`,
unpruned): the same plays, the leaves in float32, and a chosen play with both
sides home valued exactly by the bear-off database without looking further.

To rank the plays of a roll at n-ply (:func:`rank_plays`, the one ranking
that the CLI, the engine protocol, match analysis, the study board and the web
player all use), every play is first scored at 0-ply; each
:class:`MoveFilter` then keeps the best few within an equity threshold, and
the survivors are scored one ply deeper, until n. Plays dropped on the way
keep their lower-ply score and rank below the survivors, grouped by the depth
they reached: plays evaluated at different depths are never compared. The
number compared is cubeless money equity, or with a cube in the
:class:`EvalContext` the cubeful equity after the play (money per cube, or
EMG in a match); every :class:`RankedPlay` states its depth and kind.
:func:`decide_cube` is the one home for cube decisions at a depth.

>>> from backgammon import Position
>>> from backgammon.engine.evaluator import NetEvaluator
>>> str(best_play(Position.initial(), 3, 1, NetEvaluator.default()))
'8/5 6/5'
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numba import njit

from backgammon.dice import ALL_ROLLS, check_roll
from backgammon.engine._kernels.nply import evaluate_nply
from backgammon.engine.cube import CubeDecision, CubeInfo, CubeOwner, clip_outputs, cube_decision, cube_efficiency
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
from backgammon.engine.met import match_equity
from backgammon.engine.movegen import MAX_PLAYS, OVER, new_workspace, phase, successors_py, successors_ws
from backgammon.engine.network import flip_outputs
from backgammon.errors import EngineError, InvalidInputError
from backgammon.moves import Play
from backgammon.position import Position

__all__ = [
    "CUBEFUL_MATCH",
    "CUBEFUL_MONEY",
    "CUBELESS",
    "DEFAULT_FILTERS",
    "ROLLS",
    "CubeAnalysis",
    "EvalContext",
    "MoveFilter",
    "RankedPlay",
    "best_board",
    "best_play",
    "decide_cube",
    "equity_label",
    "evaluate_boards_ply",
    "evaluate_play",
    "evaluate_ply",
    "play_cubeful",
    "rank_boards",
    "rank_plays",
]

#: The 21 distinct rolls and their weights (out of 36), low die first (backgammon.dice.ALL_ROLLS in the order the
#: compiled 1-ply kernels sum them).
ROLLS: tuple[tuple[int, int, int], ...] = tuple(sorted((low, high, weight) for high, low, weight in ALL_ROLLS))
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


#: The kinds of equity a number can be (every number shown says which, and its depth).
CUBELESS = "cubeless"
CUBEFUL_MONEY = "cubeful money"
CUBEFUL_MATCH = "cubeful match"


def equity_label(plies: int, kind: str) -> str:
    """How a number is labelled for users: ``"2-ply cubeful money"``, ``"1-ply cubeful match, EMG"``.

    >>> equity_label(1, CUBEFUL_MATCH)
    '1-ply cubeful match, EMG'
    """
    return f"{plies}-ply {kind}" + (", EMG" if kind == CUBEFUL_MATCH else "")


@dataclass(frozen=True, slots=True)
class EvalContext:
    """What a ranking needs besides the position and dice.

    ``evaluator``: the 0-ply evaluator. ``plies``: the search depth (0..4).
    ``cube``: the mover's cube and score; ``None`` ranks by cubeless money
    equity. ``move_filter``: one filter per ply of lookahead (a single filter
    is used at every ply; default :data:`DEFAULT_FILTERS`, the last repeated).

    Raises:
        InvalidInputError: for a bad depth, cube or filter.
    """

    evaluator: Evaluator
    plies: int = 0
    cube: CubeInfo | None = None
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.plies, int) or isinstance(self.plies, bool) or not 0 <= self.plies <= 4:
            raise InvalidInputError(f"expected plies 0..4, got {self.plies!r}")
        if self.cube is not None and not isinstance(self.cube, CubeInfo):
            raise InvalidInputError(f"expected a CubeInfo or None for the cube, got {self.cube!r}")
        _filters(self.move_filter)

    @property
    def kind(self) -> str:
        """The kind of the play equities this context gives (:data:`CUBELESS`, ...)."""
        if self.cube is None:
            return CUBELESS
        return CUBEFUL_MONEY if self.cube.is_money else CUBEFUL_MATCH


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """A candidate play, evaluated from the mover's side at ``plies``.

    ``equity``: the number the ranking compares, of ``kind``: cubeless money
    equity (no cube given), cubeful money equity in points per cube, or
    cubeful match equity as EMG (``mwc`` then holds the match-winning
    chance); for a cubeful kind the opponent, on roll after the play, takes
    its best cube action. ``cubeless``: the cubeless money equity at the same
    depth. ``probabilities``: the mover's five chances at ``plies``.
    """

    play: Play
    probabilities: Probabilities
    equity: float
    plies: int
    kind: str
    cubeless: float
    mwc: float | None = None

    @property
    def label(self) -> str:
        """Depth and kind of ``equity``, as shown to users (``"1-ply cubeful match, EMG"``)."""
        return equity_label(self.plies, self.kind)


@dataclass(frozen=True, slots=True)
class CubeAnalysis:
    """The cube decision of the side on roll, from its chances at ``plies``.

    ``decision``'s equities are cubeful, of ``kind`` (money: points per cube;
    match: EMG, with match-winning chances beside them). ``equity`` (and
    ``mwc``) is the position's one cubeful number at this depth and cube: the
    side on roll's equity after its right cube action (gnubg's "proper cube
    action"). A play's cubeful equity in :func:`rank_plays` is exactly minus
    this number of its resulting position (in a match, one minus its ``mwc``),
    both from :func:`_cube_on_roll`.
    """

    decision: CubeDecision
    probabilities: Probabilities
    plies: int
    kind: str

    @property
    def equity(self) -> float:
        """The cubeful equity of the side on roll after its right cube action (money per cube, or EMG)."""
        return self.decision.best_equity

    @property
    def mwc(self) -> float | None:
        """The match-winning chance of the side on roll after its right cube action (``None`` for money)."""
        return self.decision.best_mwc

    @property
    def label(self) -> str:
        """Depth and kind of the decision's equities (``"2-ply cubeful money"``)."""
        return equity_label(self.plies, self.kind)


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
        out[total : total + n] = tmp[:n]
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
            net_evaluate_one(
                b, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o
            )
            out[i, :] = o
            continue
        acc = np.zeros(5)
        for r in range(rolls.shape[0]):
            n = successors_ws(b, rolls[r, 0], rolls[r, 1], cand, work, table)
            net_choose(
                cand, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o, best
            )
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
    if plies in (2, 3) and type(evaluator) is NetEvaluator and evaluator.use_bearoff:
        # the compiled n-ply search, unpruned: the same plays, leaves in float32 (about 1e-7 from the
        # float64 path), and a chosen play with both sides home valued by the bear-off database at once
        return evaluate_nply(check_boards(boards), evaluator.arrays, plies)
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


class SearchTimeout(EngineError):
    """A search stopped at the deadline of :func:`time_limit` (its caller answers another way)."""


_LIMIT = threading.local()


@contextmanager
def time_limit(deadline: float | None) -> Iterator[None]:
    """Searches on this thread stop at ``deadline`` (``time.monotonic()``; None: no limit) by raising
    :class:`SearchTimeout`: checked before each ply of :func:`rank_plays` and before each candidate
    searched 2 plies or deeper, so a search overruns its deadline by one candidate's search at most."""
    before = getattr(_LIMIT, "deadline", None)
    _LIMIT.deadline = deadline
    try:
        yield
    finally:
        _LIMIT.deadline = before


def _check_time() -> None:
    deadline = getattr(_LIMIT, "deadline", None)
    if deadline is not None and time.monotonic() >= deadline:
        raise SearchTimeout("the search ran out of time")


def _deeper(boards: np.ndarray, evaluator: Evaluator, plies: int) -> np.ndarray:
    """:func:`evaluate_boards_ply`, one board at a time (checking the time before each) under a time
    limit from 2 plies on; all at once otherwise."""
    if plies < 2 or getattr(_LIMIT, "deadline", None) is None:
        return evaluate_boards_ply(boards, evaluator, plies)
    out = np.empty((len(boards), 5))
    for i in range(len(boards)):
        _check_time()
        out[i] = evaluate_boards_ply(boards[i : i + 1], evaluator, plies)[0]
    return out


def rank_plays(position: Position, dice: tuple[int, int], context: EvalContext) -> list[RankedPlay]:
    """The legal plays of a roll, best first: the one ranking every caller uses.

    Like gnubg's move filters: every play is scored at 0-ply; before each ply
    of lookahead the context's :class:`MoveFilter` keeps the best few (by the
    context's number: cubeful when a cube is given), and all the survivors are
    scored one ply deeper, up to ``context.plies``. The list starts with the
    last stage's survivors, ranked among themselves at the full depth; below
    them come the plays dropped at each earlier stage, deepest stage first,
    each group ranked at the depth it reached. Plays evaluated at different
    depths are never compared; each entry states its depth and kind.

    Raises:
        InvalidInputError: if the dice are not two numbers 1..6 or the game is over.
    """
    dice = check_roll(dice)
    if position.is_game_over():
        raise InvalidInputError(f"the game is over in {position!r}: there is no play to choose")
    plays = position.legal_plays(dice[0], dice[1])
    boards = np.stack([board_of(p.position) for p in plays])
    cube = context.cube
    mwc = np.full(len(plays), np.nan)

    def score(idx: np.ndarray, vals: np.ndarray) -> np.ndarray:
        if cube is None:
            return equities(vals)
        out = np.empty(len(idx))
        for k, i in enumerate(idx):
            out[k], m = play_cubeful(plays[i].position, vals[k], cube)
            mwc[i] = np.nan if m is None else m
        return out

    order, vals, depth, scores = _rank(boards, context.evaluator, context.plies, _filters(context.move_filter), score)
    cubeless = equities(vals)
    kind = context.kind
    return [
        RankedPlay(
            plays[j],
            Probabilities.from_array(vals[j]),
            float(scores[j]),
            int(depth[j]),
            kind,
            float(cubeless[j]),
            None if np.isnan(mwc[j]) else float(mwc[j]),
        )
        for j in order
    ]


def evaluate_play(play: Play, context: EvalContext) -> RankedPlay:
    """One play evaluated directly at the context's full depth and cube (no filter): how a
    play the filters dropped is compared with the top of :func:`rank_plays` (as gnubg
    evaluates a played move that is not among its survivors)."""
    vals = flip_array(evaluate_boards_ply(board_of(play.position)[None], context.evaluator, context.plies))[0]
    if context.cube is None:
        equity, mwc = float(equities(vals[None])[0]), None
    else:
        equity, mwc = play_cubeful(play.position, vals, context.cube)
    cubeless = float(equities(vals[None])[0])
    return RankedPlay(play, Probabilities.from_array(vals), equity, context.plies, context.kind, cubeless, mwc)


def play_cubeful(after: Position, mover: np.ndarray | tuple[float, ...], cube: CubeInfo) -> tuple[float, float | None]:
    """The mover's cubeful equity after a play, and its match-winning chance (``None`` for money).

    ``after``: the position after the play (the opponent on roll); ``mover``:
    the mover's five chances there. The opponent takes its best cube action
    (:func:`backgammon.engine.cube.cube_decision`): the number is minus the
    opponent's :attr:`CubeAnalysis.equity` of ``after`` from :func:`decide_cube`
    at the same depth (in a match, the mover's EMG of one minus its ``mwc``).
    Money: points per cube; match: EMG for the mover's cube value.
    """
    w, wg, wb, lg, lb = (float(v) for v in mover)
    if after.is_game_over():  # the mover has just won
        if cube.is_money:
            return (1.0 if cube.jacoby and cube.owner is CubeOwner.CENTRED else 2 * w - 1 + wg - lg + wb - lb), None
        points = 3 if wb >= 1.0 else 2 if wg >= 1.0 else 1
        mwc = _match_value(cube, points * cube.value)
        return _emg(cube, mwc), mwc
    decision = _cube_on_roll(after, (1.0 - w, lg, lb, wg, wb), cube.flip())
    if cube.is_money:
        return -decision.best_equity, None
    their_mwc = decision.best_mwc
    assert their_mwc is not None
    mwc = 1.0 - their_mwc
    return _emg(cube, mwc), mwc


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


def decide_cube(position: Position, context: EvalContext) -> CubeAnalysis:
    """The cube decision of the side on roll at the context's depth and cube (the one home for it).

    The side's chances are evaluated at ``context.plies`` (clipped into a
    consistent order) and judged by :func:`backgammon.engine.cube.cube_decision`
    with the position's cube efficiency. Without a cube in the context: money,
    centred cube.

    Raises:
        InvalidInputError: if the game is over.
    """
    if position.is_game_over():
        raise InvalidInputError(f"the game is over in {position!r}: there is no cube decision")
    _check_time()
    cube = context.cube if context.cube is not None else CubeInfo.money()
    probs = clip_outputs(evaluate_boards_ply(board_of(position)[None], context.evaluator, context.plies)[0])
    kind = CUBEFUL_MONEY if cube.is_money else CUBEFUL_MATCH
    return CubeAnalysis(_cube_on_roll(position, probs, cube), Probabilities.from_array(probs), context.plies, kind)


def _cube_on_roll(position: Position, probs: Sequence[float] | np.ndarray, cube: CubeInfo) -> CubeDecision:
    """The one cube decision of the side on roll in a game not over, from its chances (clipped) and cube:
    what :func:`decide_cube` reports and what :func:`play_cubeful` negates for the player who left the
    position (so a play's cubeful equity is minus :attr:`CubeAnalysis.equity` of its result)."""
    return cube_decision(clip_outputs(probs), cube, cube_efficiency(position))


def _filters(move_filter: tuple[MoveFilter, ...] | MoveFilter | None) -> tuple[MoveFilter, ...]:
    if isinstance(move_filter, MoveFilter):
        return (move_filter,)
    try:
        filters = DEFAULT_FILTERS if move_filter is None else tuple(move_filter)
    except TypeError:
        filters = ()
    if not filters or not all(isinstance(f, MoveFilter) for f in filters):
        raise InvalidInputError(f"expected one or more MoveFilter, got {move_filter!r}")
    return filters


def _rank(
    boards: np.ndarray,
    evaluator: Evaluator,
    plies: int,
    filters: tuple[MoveFilter, ...],
    score: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """The filtered search shared by :func:`rank_plays` and :func:`rank_boards`.

    ``score(indices, mover_values)`` gives the number compared for those
    candidates at the depth of ``mover_values``. Returns ``(order, values,
    depth, scores)``: order deepest first, each depth group best first
    (stable on ties); values, depth and score of each candidate at the depth
    it reached.
    """
    vals = flip_array(evaluator.evaluate_boards(boards))  # the mover's view
    n = len(boards)
    depth = np.zeros(n, dtype=np.int64)
    alive = np.arange(n)
    scores = np.asarray(score(alive, vals), dtype=float).copy()
    for ply in range(1, plies + 1):
        _check_time()
        f = filters[min(ply - 1, len(filters) - 1)]
        s = scores[alive]  # every survivor was scored at ply - 1
        order = np.argsort(-s, kind="stable")
        best = s[order[0]]
        alive = np.array([alive[j] for j in order[: f.keep] if s[j] >= best - f.threshold], dtype=np.int64)
        vals[alive] = flip_array(_deeper(boards[alive], evaluator, ply))
        depth[alive] = ply
        scores[alive] = score(alive, vals[alive])
    order_all: list[int] = np.lexsort((-scores, -depth)).tolist()  # deepest first, then best
    return order_all, vals, depth, scores


def rank_boards(
    boards: np.ndarray,
    evaluator: Evaluator,
    plies: int = 0,
    move_filter: tuple[MoveFilter, ...] | MoveFilter | None = None,
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Rank candidate results (raw boards, opponent on roll) for the mover, cubeless (fast path of
    :func:`rank_plays`, same filters and order).

    Returns ``(order, values, depth)``: indices best first, the mover's
    outputs ``(n, 5)`` and the ply each candidate was scored at.

    Raises:
        InvalidInputError: for a bad filter or ``plies``.
    """
    if not isinstance(plies, int) or not 0 <= plies <= 4:
        raise InvalidInputError(f"expected plies 0..4, got {plies!r}")
    order, vals, depth, _ = _rank(boards, evaluator, plies, _filters(move_filter), lambda _i, v: equities(v))
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
    return rank_plays(position, (die1, die2), EvalContext(evaluator, plies, None, move_filter))[0].play
