"""Rollouts: play a position out many times with an evaluator and average the results.

A rollout plays each trial with the evaluator's best play (cubeless greedy
choice) for both sides, chosen at 0-ply by default or at 1-ply with
``ply=1`` (every play scored at 0-ply, the best few kept by
:data:`backgammon.engine.search.DEFAULT_FILTERS`' first filter and
scored again one ply deeper: :func:`backgammon.engine.search.rank_boards`;
about an order of magnitude slower, see ``benchmarks/rollout.py``), then
scores the result from the point of view
of the player on roll at the root: the gnubg outputs (win, win_gammon,
win_backgammon, lose_gammon, lose_backgammon) and the cubeless equity, with
their means and 95% confidence intervals (1.96 standard errors).

Reproducibility and variance reduction:

* every trial ``i`` draws its dice from its own generator seeded with
  ``(seed, i)``, so the result does not depend on how trials are spread over
  workers: same seed, same result;
* the first two rolls are stratified: in every block of 36 trials each of the
  36 ordered rolls comes once as the first roll and once as the second (a
  seeded random Latin square, :func:`backgammon.engine.rollout_dice.stratified_rolls`),
  and 1296 trials cover every pair of first two rolls once; the assignment is random over
  seeds, so rollouts of any number of trials are unbiased. (Before, the second
  roll of trial ``i`` was the ``(i div 36)``-th ordered roll: fewer than 1296
  trials gave the opponent's reply only the first few rolls of the table,
  1-1 to 1-4 for 144 trials, which biased plain rollouts towards the player
  on roll; ``benchmarks/rollout_variance.py`` showed it against the
  variance-reduced means);
* candidate plays are rolled out with the same trials, hence the same dice
  (duplicate dice), so their differences are measured with less noise;
* **luck subtraction** (``variance_reduction=True``, the default), as GNU
  Backgammon's variance-reduced rollouts do: at every roll of a trial, the
  luck of the roll for the side on roll is the value (the evaluator's 0-ply
  outputs) after the best 0-ply play for the rolled dice minus the average of
  that over the 21 rolls (weighted 1/36 and 2/36). Its expectation over the
  dice is exactly zero, whatever happened before, so each trial's result
  minus the luck of both sides' rolls (turned to the root player's side) is
  still an unbiased estimate, and it varies much less: the dice's noise is
  mostly taken out (``benchmarks/rollout_variance.py``). Each of the five
  outputs gets its own luck; the equity's luck is their equity combination.
  The trial plays the same game either way (the same dice and plays: the
  trial's own 0-ply choice is the luck's best play for the rolled dice), so
  it costs about 21 times the evaluations of a plain 0-ply trial. Cubeful
  trials subtract the cubeless equity luck scaled to the cubeful unit by the
  cube value before the roll (money: cube / root cube; match: half the
  match-winning chances between winning and losing that many points): a
  scale known before the roll keeps the correction's mean at zero, so the
  cubeful estimate is unbiased too, if less reduced than a cubeful luck
  would make it.

Every result carries standard errors (the trials' sample standard deviation
over the square root of their number; with stratified first rolls this is
slightly conservative) and 95% intervals (1.96 standard errors).
:func:`rollout_plays` also gives each candidate's difference from the best,
with the 95% interval of the paired difference (same trials, same dice), and
with ``stop_confidence`` stops as soon as the best candidate is separated from
every other one: for each other candidate the interval of the difference at
that confidence excludes zero, checked after each chunk of trials once
``min_trials`` are done (a sequential check: the chance of stopping on a
wrong leader is somewhat above ``1 - stop_confidence``; ``min_trials`` bounds it).

``truncate=N`` stops a trial after N plies (one ply = one side's roll and play)
and scores it with the evaluator's (0-ply) probabilities instead. ``cubeful=True``
also plays the cube in each trial (:mod:`backgammon.engine.cube` on the
evaluator's probabilities: the side on roll doubles when the model says so,
the other takes or passes) and reports the cubeful result: money points per
root cube, or the root player's match-winning chance.

Cubeless trials with 0-ply plays and the network evaluator run compiled
(:func:`backgammon.engine._kernels.rollout_trials.play_trial`), by default
(``float32=True``) with the nets in float32 (:mod:`backgammon.engine._kernels.fastnet`,
about twice as fast: outputs within a few 1e-7 of the evaluator's, so a near-tie
between two plays may go the other way and the trials are statistically, not
exactly, the Python loop's; ``tests/engine/test_fast_rollout.py`` compares the
means), or with ``float32=False`` in the evaluator's own float64 arithmetic (the
Python loop's dice, plays and results, trial by trial). Cubeful and 1-ply trials,
and other evaluators, run in Python.

In the calling process (``workers=1``, the default) the compiled trials of each
chunk are dealt to ``threads`` threads (default: one per usable CPU; the kernel
releases the GIL, so a server's thread can run them). Trials are also spread
over processes (``multiprocessing``, ``workers`` of them, one thread each) or,
given a cluster address, over a Ray cluster (``pip install backgammon[cluster]``;
Ray is imported only then). Every trial's dice come from its own index, so the
result does not depend on threads, processes or chunks. A ``progress(done,
total)`` callback is called in the calling process as chunks of trials finish.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any, Protocol

import numpy as np

from backgammon.dice import ALL_ROLLS
from backgammon.engine._cluster import run_tasks
from backgammon.engine._kernels.fastnet import fast_nets
from backgammon.engine._kernels.rollout_trials import play_trial
from backgammon.engine.cube import CubeInfo, CubeOwner, clip_outputs, cube_decision, cube_efficiency
from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.movegen import MAX_PLAYS, new_workspace
from backgammon.engine.movegen import board_of as position_to_board
from backgammon.engine.movegen import successors_py as successor_boards
from backgammon.engine.rollout_dice import ORDERED_ROLLS, dice_of_trial, more_dice, trial_dice, trial_rolls
from backgammon.engine.search import rank_boards
from backgammon.errors import InvalidInputError
from backgammon.moves import Play
from backgammon.position import Position

OUTPUT_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")
Z95 = 1.96
ROLLS21 = np.array(ALL_ROLLS, dtype=np.int64)
"""The 21 rolls as rows ``(high die, low die, weight out of 36)`` (:data:`backgammon.dice.ALL_ROLLS`)."""
_NO_ROLLS = np.zeros((0, 3), dtype=np.int64)
# columns of a trial's samples: the 5 outputs and the cubeless equity, the cubeful result (nan if
# cubeless), then the luck of the 5 outputs and of the cubeful result (root player's side; 0 without VR)
_COLS = 13
_LUCK = slice(7, 12)
_CUBEFUL_LUCK = 12


class BoardEvaluator(Protocol):
    """What a rollout needs from an evaluator (see :mod:`backgammon.engine.evaluator`)."""

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities (n, 5) of boards (n, 2, 25), each from its own side on roll."""
        ...


ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class RolloutSettings:
    """How to roll out.

    ``trials``: games per candidate; ``truncate``: plies before evaluating
    (None: play to the end); ``seed``; ``stratify``: first two rolls
    stratified over the 36 ordered rolls; ``cubeful`` and ``cube`` (the cube and
    score at the root, money with a centred cube by default); ``workers``:
    processes (1: run here, 0: one per CPU); ``cluster``: a Ray address;
    ``ply``: lookahead of each play choice in the trials (0 or 1);
    ``variance_reduction``: subtract each roll's luck (module docstring);
    ``stop_confidence``: with :func:`rollout_plays`, stop before ``trials``
    once the best candidate is separated from every other one at this
    confidence (e.g. 0.95; None: run every trial), checked after each chunk
    from ``min_trials`` trials on. ``threads``: threads the compiled trials
    of an in-process rollout (``workers=1``) run on (0: one per usable CPU;
    worker processes and cluster tasks run one each); ``float32`` (the default):
    the compiled trials evaluate with the float32 kernels, about twice as fast
    and statistically the same; False: in the evaluator's float64 arithmetic
    (trial by trial the Python loop's games; module docstring).

    Raises:
        InvalidInputError: on non-positive trials, a negative truncation,
            workers or threads, a ply other than 0 or 1, or a confidence not
            between 0 and 1.
    """

    trials: int = 1296
    truncate: int | None = None
    seed: int = 0
    cubeful: bool = False
    cube: CubeInfo = field(default_factory=CubeInfo.money)
    workers: int = 1
    cluster: str | None = None
    chunk: int = 36
    stratify: bool = True
    ply: int = 0
    variance_reduction: bool = True
    stop_confidence: float | None = None
    min_trials: int = 144
    threads: int = 0
    float32: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.trials, int) or self.trials < 1:
            raise InvalidInputError(f"invalid number of trials {self.trials!r}: expected a positive integer")
        if self.truncate is not None and (not isinstance(self.truncate, int) or self.truncate < 0):
            raise InvalidInputError(f"invalid truncation {self.truncate!r}: expected a number of plies >= 0")
        if not isinstance(self.workers, int) or self.workers < 0:
            raise InvalidInputError(f"invalid number of workers {self.workers!r}: expected 0 (all CPUs) or more")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 0:
            raise InvalidInputError(f"invalid number of threads {self.threads!r}: expected 0 (all CPUs) or more")
        if not isinstance(self.float32, bool):
            raise InvalidInputError(f"invalid float32 flag {self.float32!r}: expected True or False")
        if self.ply not in (0, 1) or isinstance(self.ply, bool):
            raise InvalidInputError(f"invalid rollout ply {self.ply!r}: expected 0 or 1")
        if self.chunk < 1:
            raise InvalidInputError(f"invalid chunk size {self.chunk!r}: expected a positive integer")
        c = self.stop_confidence
        if c is not None and (isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 < c < 1.0):
            raise InvalidInputError(f"invalid stop confidence {c!r}: expected a number between 0 and 1, e.g. 0.95")
        if isinstance(self.min_trials, bool) or not isinstance(self.min_trials, int) or self.min_trials < 2:
            raise InvalidInputError(f"invalid minimum trials {self.min_trials!r}: expected an integer >= 2")


@dataclass(frozen=True, slots=True)
class RolloutResult:
    """Means, standard errors and 95% confidence half-widths, from the root player's point of view.

    ``mean`` / ``se`` / ``ci95``: the 5 gnubg outputs and the cubeless equity (see
    :data:`OUTPUT_NAMES`); ``cubeful`` / ``cubeful_se`` / ``cubeful_ci95``: the cubeful
    result (money points per root cube, or match-winning chance), None if cubeless;
    ``trials``: the trials the figures rest on (fewer than asked when a rollout
    stopped early); ``variance_reduced``: whether the luck was subtracted.
    """

    trials: int
    mean: tuple[float, ...]
    ci95: tuple[float, ...]
    cubeful: float | None = None
    cubeful_ci95: float | None = None
    se: tuple[float, ...] = ()
    cubeful_se: float | None = None
    variance_reduced: bool = False

    @property
    def probabilities(self) -> tuple[float, float, float, float, float]:
        """The 5 gnubg outputs."""
        return self.mean[:5]  # type: ignore[return-value]

    @property
    def equity(self) -> float:
        """Mean cubeless equity."""
        return self.mean[5]

    @property
    def equity_ci95(self) -> float:
        """95% confidence half-width of the cubeless equity."""
        return self.ci95[5]

    @property
    def equity_se(self) -> float:
        """Standard error of the cubeless equity."""
        return self.se[5]

    @property
    def equity_interval(self) -> tuple[float, float]:
        """95% confidence interval of the cubeless equity."""
        return self.mean[5] - self.ci95[5], self.mean[5] + self.ci95[5]

    @property
    def cubeful_interval(self) -> tuple[float, float] | None:
        """95% confidence interval of the cubeful result (None if cubeless)."""
        if self.cubeful is None or self.cubeful_ci95 is None:
            return None
        return self.cubeful - self.cubeful_ci95, self.cubeful + self.cubeful_ci95


def board_to_position(board: np.ndarray) -> Position:
    """The position of a board produced by the engine (not validated again)."""
    return Position._trusted(tuple(int(v) for v in board[0]), tuple(int(v) for v in board[1]))


def terminal_outputs(board: np.ndarray) -> np.ndarray | None:
    """For a finished game (board after the winner's play, loser on roll): the loser's 5 outputs; else None."""
    loser, winner = board[0], board[1]
    if int(winner.sum()) != 0:
        if int(loser.sum()) == 0:  # cannot happen after a legal play, but be exact
            return np.array([1.0, 0, 0, 0, 0])
        return None
    out = np.zeros(5)
    if int(loser.sum()) == 15:  # the loser bore off nothing: gammon
        out[3] = 1.0
        # backgammon: a checker on the bar or in the winner's home board (loser's points 19..24)
        if int(loser[18:25].sum()) > 0:
            out[4] = 1.0
    return out


def flip_outputs(outputs: np.ndarray) -> np.ndarray:
    """The 5 outputs seen from the other side."""
    w, wg, wb, lg, lb = outputs
    return np.array([1.0 - w, lg, lb, wg, wb])


def outputs_equity(outputs: np.ndarray) -> float:
    """Cubeless equity of 5 outputs."""
    w, wg, wb, lg, lb = outputs
    return float(2 * w - 1 + wg - lg + wb - lb)


def _choose(evaluator: BoardEvaluator, board: np.ndarray, d1: int, d2: int, ply: int = 0) -> np.ndarray:
    boards = successor_boards(board, d1, d2)
    chosen: np.ndarray = boards[0]
    if len(boards) > 1 and ply > 0:
        order, _, _ = rank_boards(boards, evaluator, ply)  # type: ignore[arg-type]
        chosen = boards[order[0]]
    elif len(boards) > 1:
        # each board is seen by the opponent: pick the one worst for them
        probs = np.asarray(evaluator.evaluate_boards(boards), dtype=float)
        eq = 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]
        chosen = boards[int(np.argmin(eq))]
    return chosen


def _equities(probs: np.ndarray) -> np.ndarray:
    """Cubeless equities of rows of 5 outputs."""
    return 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3] + probs[:, 2] - probs[:, 4]


def _luck_equity(luck: np.ndarray) -> np.ndarray:
    """The equity change of changes of the 5 outputs (the last axis)."""
    return 2 * luck[..., 0] + luck[..., 1] - luck[..., 3] + luck[..., 2] - luck[..., 4]


def _roll_index(d1: int, d2: int) -> int:
    """The row of :data:`ROLLS21` of a roll in either order."""
    hi, lo = max(d1, d2), min(d1, d2)
    return hi * (hi - 1) // 2 + lo - 1


def _choose_with_luck(
    evaluator: BoardEvaluator, board: np.ndarray, d1: int, d2: int, ply: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The trial's play for ``(d1, d2)`` (as :func:`_choose`) and the roll's luck for the side on roll.

    The luck: the 5 outputs (mover's view) after the best 0-ply play for the rolled dice, minus their
    average over the 21 rolls, weighted by the rolls' chances; every roll's plays in one batch. The
    rolled dice's plays come in their own order, so the trial's 0-ply choice is :func:`_choose`'s.
    """
    actual = _roll_index(d1, d2)
    groups = [
        successor_boards(board, d1, d2) if r == actual else successor_boards(board, int(hi), int(lo))
        for r, (hi, lo, _) in enumerate(ROLLS21)
    ]
    probs = np.asarray(evaluator.evaluate_boards(np.concatenate(groups)), dtype=float)
    acc = np.zeros(5)
    start = 0
    mine = np.zeros(5)
    chosen = groups[actual][0]
    for r, group in enumerate(groups):
        part = probs[start : start + len(group)]
        start += len(group)
        c = int(np.argmin(_equities(part)))  # each board is seen by the opponent: the worst for them
        mover = flip_outputs(part[c])
        acc += ROLLS21[r, 2] * mover
        if r == actual:
            mine = mover
            chosen = group[c]
    if ply > 0 and len(groups[actual]) > 1:
        chosen = _choose(evaluator, board, d1, d2, ply)
    return chosen, mine - acc / 36.0


def roll_luck(position: Position, evaluator: BoardEvaluator) -> dict[tuple[int, int], tuple[float, ...]]:
    """The luck of each of the 21 rolls for the player on roll, as rollouts subtract it.

    For each roll ``(high, low)``: the 5 outputs and the cubeless equity after the best 0-ply play,
    minus their average over the 21 rolls weighted by the rolls' chances (1/36 for doubles, 2/36 for
    the others); so the weighted sum of each column over the 21 rolls is zero.

    Raises:
        InvalidInputError: if the game is already over.
    """
    if position.is_game_over():
        raise InvalidInputError(f"no roll in a finished game: {position.position_id()!r}")
    board = position_to_board(position)
    table = {}
    for hi, lo, _ in ROLLS21:
        luck = _choose_with_luck(evaluator, board, int(hi), int(lo))[1]
        table[(int(hi), int(lo))] = (*(float(v) for v in luck), float(_luck_equity(luck)))
    return table


def _points(outputs: np.ndarray) -> int:
    """Points (1, 2 or 3) of a finished game with exact outputs, from the winner's side."""
    if outputs[0] >= 1.0:
        return 3 if outputs[2] else 2 if outputs[1] else 1
    return 3 if outputs[4] else 2 if outputs[3] else 1


def _root_luck(luck: np.ndarray, sign: int) -> np.ndarray:
    """A luck of the 5 outputs of the side on roll, seen from the root player (``sign`` 1: the opponent)."""
    if sign == 0:
        return luck
    return np.array([-luck[0], luck[3], luck[4], luck[1], luck[2]])


def _luck_scale(root_cube: CubeInfo, cube_value: int) -> float:
    """Cubeful units per cubeless point at a cube value (see the module docstring)."""
    if root_cube.away is None:
        return cube_value / root_cube.value
    return (_score_value(root_cube, cube_value, True) - _score_value(root_cube, cube_value, False)) / 2


def _play_trial(
    evaluator: BoardEvaluator, root: np.ndarray, settings: RolloutSettings, trial: int
) -> tuple[np.ndarray, float | None, np.ndarray, float]:
    """One game from ``root`` (its side on roll rolls first).

    Returns the 5 outputs from the root side, the cubeful value (None if cubeless), the summed luck
    of the 5 outputs (root side; zeros without variance reduction) and the cubeful luck (0.0 if none).
    """
    roll = trial_dice(settings.seed, trial, settings.stratify)
    board = root
    sign = 0  # 0: the side on roll is the root player, 1: the opponent
    cube = settings.cube
    cube_from_root = cube  # kept from the side on roll's view
    ply = 0
    cubeful_value: float | None = None
    luck = np.zeros(5)
    cubeful_luck = 0.0
    while True:
        if settings.truncate is not None and ply >= settings.truncate:
            probs = np.asarray(evaluator.evaluate_boards(board[None]), dtype=float)[0]
            outputs = probs if sign == 0 else flip_outputs(probs)
            if settings.cubeful:
                cubeful_value = _cubeful_truncated(probs, cube_from_root, board, sign, settings.cube)
            return outputs, cubeful_value, luck, cubeful_luck
        if settings.cubeful and cube_from_root.may_double():
            probs = np.asarray(evaluator.evaluate_boards(board[None]), dtype=float)[0]
            decision = cube_decision(clip_outputs(probs), cube_from_root, cube_efficiency(board_to_position(board)))
            if decision.should_double:
                if not decision.take:  # the opponent passes: the side on roll wins the cube value
                    won = np.array([1.0, 0, 0, 0, 0])
                    real = won if sign == 0 else flip_outputs(won)
                    value = _score_value(settings.cube, cube_from_root.value, sign == 0)
                    return real, value, luck, cubeful_luck
                cube_from_root = CubeInfo(
                    value=2 * cube_from_root.value,
                    owner=CubeOwner.OPPONENT,
                    away=cube_from_root.away,
                    crawford=cube_from_root.crawford,
                    post_crawford=cube_from_root.post_crawford,
                    jacoby=cube_from_root.jacoby,
                    limit=cube_from_root.limit,
                )
        d1, d2 = roll(ply)
        if settings.variance_reduction:
            board, mover_luck = _choose_with_luck(evaluator, board, d1, d2, settings.ply)
            step = _root_luck(mover_luck, sign)
            luck += step
            if settings.cubeful:
                cubeful_luck += _luck_scale(settings.cube, cube_from_root.value) * float(_luck_equity(step))
        else:
            board = _choose(evaluator, board, d1, d2, settings.ply)
        ply += 1
        sign ^= 1
        cube_from_root = cube_from_root.flip()
        end = terminal_outputs(board)
        if end is not None:
            outputs = end if sign == 0 else flip_outputs(end)
            if settings.cubeful:
                root_won = outputs[0] >= 1.0
                points = _points(outputs)
                if cube_from_root.jacoby and cube_from_root.owner is CubeOwner.CENTRED:
                    points = 1
                cubeful_value = _score_value(settings.cube, cube_from_root.value * points, root_won)
            return outputs, cubeful_value, luck, cubeful_luck


def _threads(settings: RolloutSettings) -> int:
    """The threads an in-process rollout runs its compiled trials on (``settings.threads``, 0: the usable CPUs)."""
    if settings.threads:
        return settings.threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _run_chunk_compiled(
    evaluator: NetEvaluator, roots: list[np.ndarray], settings: RolloutSettings, start: int, stop: int, threads: int = 1
) -> np.ndarray:
    """:func:`_run_chunk` for cubeless 0-ply trials with the network evaluator: the same trials, compiled
    (:func:`backgammon.engine._kernels.rollout_trials.play_trial`), in float32 if ``settings.float32``;
    ``threads`` threads take the games (a trial of one root) one at a time, the next one free (the kernel
    releases the GIL; each game depends on its trial's index and its root alone)."""
    net64 = evaluator.kernel_args()
    nets32 = fast_nets(evaluator)
    fast = settings.float32
    truncate = -1 if settings.truncate is None else settings.truncate
    rolls = ROLLS21 if settings.variance_reduction else _NO_ROLLS
    out = np.zeros((len(roots), stop - start, _COLS))

    games = (stop - start) * len(roots)
    following = itertools.count()  # game g: trial start + g // len(roots), root g % len(roots); next() is atomic

    def run() -> None:
        cand = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
        work, table = new_workspace()
        res = np.empty(5)
        luck = np.zeros(5)
        state = np.zeros(2, dtype=np.int64)
        trial = -1
        while (g := next(following)) < games:
            t, r = divmod(g, len(roots))
            t += start
            if t != trial:  # the trial's dice, the same for every root
                trial = t
                dice, rng = dice_of_trial(settings.seed, t, settings.stratify, 256)
            board = np.array(roots[r], dtype=np.int8)
            state[:] = 0
            luck[:] = 0.0
            while not play_trial(
                board, state, dice, truncate, fast, net64, nets32, cand, work, table, rolls, luck, res
            ):
                dice = more_dice(dice, rng)
            out[r, t - start, :5] = res
            out[r, t - start, 5] = outputs_equity(res)
            out[r, t - start, 6] = np.nan
            out[r, t - start, _LUCK] = luck
            out[r, t - start, _CUBEFUL_LUCK] = np.nan

    k = max(1, min(threads, games))
    if k == 1:
        run()
    else:
        with ThreadPoolExecutor(k, thread_name_prefix="rollout-trials") as pool:
            for done in [pool.submit(run) for _ in range(k)]:
                done.result()
    return out


def _score_value(root_cube: CubeInfo, points: int, root_won: bool) -> float:
    """The cubeful result of a finished trial for the root player (money per root cube, or match chance)."""
    if root_cube.away is None:
        return (points if root_won else -points) / root_cube.value
    from backgammon.engine.met import match_equity

    a, b = root_cube.away
    post = root_cube.crawford or root_cube.post_crawford
    if root_won:
        return match_equity(a - points, b, post)
    return match_equity(a, b - points, post)


def _cubeful_truncated(
    probs: np.ndarray, cube_now: CubeInfo, board: np.ndarray, sign: int, root_cube: CubeInfo
) -> float:
    decision = cube_decision(clip_outputs(probs), cube_now, cube_efficiency(board_to_position(board)))
    if root_cube.away is None:
        value = decision.no_double * cube_now.value / root_cube.value
        return value if sign == 0 else -value
    mwc = decision.no_double_mwc
    assert mwc is not None
    return mwc if sign == 0 else 1.0 - mwc


_WORKER_EVALUATOR: list[Any] = []


def _init_worker(evaluator: Any) -> None:
    """Pool initializer: keep the evaluator once per worker process (not once per task)."""
    _WORKER_EVALUATOR[:] = [evaluator]


def _run_chunk(args: tuple[Any, list[np.ndarray], RolloutSettings, int, int], threads: int = 1) -> np.ndarray:
    """Trials [start, stop) of every root board: array (roots, trials, 13): outputs, equity, cubeful,
    then the luck of the 5 outputs and of the cubeful result (see ``_COLS``).

    ``args[0]`` is the evaluator, or None in a pool worker (then the one given to the initializer).
    ``threads``: threads for compiled trials (the Python loop runs in the calling thread).
    """
    evaluator, roots, settings, start, stop = args
    if evaluator is None:
        evaluator = _WORKER_EVALUATOR[0]
    if not settings.cubeful and settings.ply == 0 and type(evaluator) is NetEvaluator:
        return _run_chunk_compiled(evaluator, roots, settings, start, stop, threads)
    out = np.zeros((len(roots), stop - start, _COLS))
    for r, root in enumerate(roots):
        for t in range(start, stop):
            outputs, cubeful, luck, cubeful_luck = _play_trial(evaluator, root, settings, t)
            out[r, t - start, :5] = outputs
            out[r, t - start, 5] = outputs_equity(outputs)
            out[r, t - start, 6] = np.nan if cubeful is None else cubeful
            out[r, t - start, _LUCK] = luck
            out[r, t - start, _CUBEFUL_LUCK] = cubeful_luck if settings.cubeful else np.nan
    return out


def _trial_values(samples: np.ndarray, variance_reduction: bool) -> np.ndarray:
    """Each trial's estimate ``(..., 7)``: 5 outputs, equity, cubeful; less the luck with variance reduction."""
    values = samples[..., :7].copy()
    if variance_reduction:
        luck = samples[..., _LUCK]
        values[..., :5] -= luck
        values[..., 5] -= _luck_equity(luck)
        values[..., 6] -= samples[..., _CUBEFUL_LUCK]
    return values


def _standard_errors(values: np.ndarray) -> np.ndarray:
    """Standard errors of the means of the columns of ``values`` (trials along axis 0); inf for one trial."""
    n = values.shape[0]
    if n < 2:
        return np.full(values.shape[1:], math.inf)
    return values.std(axis=0, ddof=1) / math.sqrt(n)


def _summarise(samples: np.ndarray, cubeful: bool, variance_reduction: bool) -> RolloutResult:
    values = _trial_values(samples, variance_reduction)
    n = values.shape[0]
    mean = values.mean(axis=0)
    se = _standard_errors(values)
    ci = Z95 * se
    return RolloutResult(
        trials=n,
        mean=tuple(float(v) for v in mean[:6]),
        ci95=tuple(float(v) for v in ci[:6]),
        cubeful=float(mean[6]) if cubeful else None,
        cubeful_ci95=float(ci[6]) if cubeful else None,
        se=tuple(float(v) for v in se[:6]),
        cubeful_se=float(se[6]) if cubeful else None,
        variance_reduced=variance_reduction,
    )


def _rollout_boards(
    evaluator: BoardEvaluator,
    roots: list[np.ndarray],
    settings: RolloutSettings,
    progress: ProgressCallback | None,
) -> list[RolloutResult]:
    samples = _rollout_samples(evaluator, roots, settings, progress)
    return [_summarise(samples[r], settings.cubeful, settings.variance_reduction) for r in range(len(roots))]


def _rollout_samples(
    evaluator: BoardEvaluator,
    roots: list[np.ndarray],
    settings: RolloutSettings,
    progress: ProgressCallback | None,
    stop: Callable[[np.ndarray], bool] | None = None,
    observe: Callable[[np.ndarray], None] | None = None,
) -> np.ndarray:
    """Every trial of every root: array ``(roots, trials, 13)`` (see :func:`_run_chunk`).

    ``stop(samples so far)`` is asked after each chunk once ``settings.min_trials`` trials are done;
    True ends the rollout there (the trials done so far, in order, are returned). ``observe(samples
    so far)`` is told after each chunk (after ``progress``), the last time with the samples returned.
    """
    total = settings.trials
    bounds = [(s, min(total, s + settings.chunk)) for s in range(0, total, settings.chunk)]
    tasks = [(evaluator, roots, settings, a, b) for a, b in bounds]
    parts: list[np.ndarray] = []
    done = 0

    def advance(part: np.ndarray) -> bool:
        """Keep a chunk's trials; True when the rollout should stop here."""
        nonlocal done
        parts.append(part)
        done += part.shape[1]
        if progress is not None:
            progress(done, total)
        so_far = np.concatenate(parts, axis=1) if stop is not None or observe is not None else part
        halt = stop is not None and done < total and done >= settings.min_trials and stop(so_far)
        if observe is not None:
            observe(so_far)
        return halt

    if settings.cluster is not None:
        for part in _run_on_ray(tasks, settings.cluster):
            if advance(part):
                break
    else:
        workers = settings.workers or os.cpu_count() or 1
        if workers == 1 or len(tasks) == 1:
            threads = _threads(settings)
            for task in tasks:
                if advance(_run_chunk(task, threads)):
                    break
        else:
            ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
            light = [(None, *task[1:]) for task in tasks]
            with ctx.Pool(min(workers, len(tasks)), initializer=_init_worker, initargs=(evaluator,)) as pool:
                for part in pool.imap(_run_chunk, light):
                    if advance(part):
                        break  # leaving the block terminates the pool's remaining chunks
    return np.concatenate(parts, axis=1)


def _run_on_ray(tasks: list[Any], address: str) -> Any:
    """Run the chunks as Ray tasks on the cluster at ``address``; yield their results in order.

    The evaluator is put in the object store once and shared by every task
    (:func:`backgammon.engine._cluster.run_tasks`).

    Raises:
        EngineError: if Ray is missing or the cluster cannot be reached.
    """
    return run_tasks(_run_chunk_with, tasks[0][0], [task[1:] for task in tasks], address, "rollouts")


def _run_chunk_with(evaluator: Any, rest: tuple[Any, ...]) -> np.ndarray:
    """:func:`_run_chunk` with the evaluator given apart (a Ray task: Ray resolves the shared reference)."""
    return _run_chunk((evaluator, *rest))


def rollout_position(
    position: Position,
    evaluator: BoardEvaluator,
    settings: RolloutSettings | None = None,
    progress: ProgressCallback | None = None,
) -> RolloutResult:
    """Roll out a position; the player on roll rolls first. Results from that player's side.

    Raises:
        InvalidInputError: if the game is already over.
        EngineError: if a cluster is asked for and Ray is missing.
    """
    settings = settings or RolloutSettings()
    if position.is_game_over():
        raise InvalidInputError(f"cannot roll out a finished game: {position.position_id()!r}")
    return _rollout_boards(evaluator, [position_to_board(position)], settings, progress)[0]


@dataclass(frozen=True, slots=True)
class RolloutTrials:
    """Every trial of a rollout of one position, for measuring: ``raw`` ``(trials, 7)`` holds each
    trial's result (5 outputs, cubeless equity, cubeful result or nan) from the root player's side,
    ``luck`` ``(trials, 6)`` the luck summed over its rolls (5 outputs, cubeful; zeros when the
    rollout ran without variance reduction)."""

    raw: np.ndarray
    luck: np.ndarray

    def values(self, variance_reduction: bool = True) -> np.ndarray:
        """Each trial's estimate ``(trials, 7)``: the raw result, less its luck if ``variance_reduction``."""
        samples = np.concatenate([self.raw, self.luck], axis=1)
        return _trial_values(samples, variance_reduction)


def rollout_trials(
    position: Position, evaluator: BoardEvaluator, settings: RolloutSettings | None = None
) -> RolloutTrials:
    """The trials of :func:`rollout_position`, one by one (the same games, dice and plays).

    With ``settings.variance_reduction`` both the plain and the variance-reduced estimates of the
    same trials are at hand (``values(False)`` / ``values(True)``).

    Raises:
        InvalidInputError: if the game is already over.
    """
    settings = settings or RolloutSettings()
    if position.is_game_over():
        raise InvalidInputError(f"cannot roll out a finished game: {position.position_id()!r}")
    samples = _rollout_samples(evaluator, [position_to_board(position)], settings, None)[0]
    return RolloutTrials(raw=samples[:, :7].copy(), luck=samples[:, 7:].copy())


@dataclass(frozen=True, slots=True)
class PlayRollout:
    """A candidate play and its rollout, from the mover's side.

    ``diff``: the best candidate's value (cubeful if the rollout is, else cubeless equity) minus
    this one's, averaged over the same trials (0 for the best), and ``diff_ci95`` the 95%
    half-width of that paired difference.
    """

    play: Play
    result: RolloutResult
    diff: float = 0.0
    diff_ci95: float = 0.0

    @property
    def diff_interval(self) -> tuple[float, float]:
        """95% confidence interval of :attr:`diff`."""
        return self.diff - self.diff_ci95, self.diff + self.diff_ci95


def _z(confidence: float) -> float:
    """The two-sided normal quantile of a confidence (1.96 for 0.95)."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def separated(values: np.ndarray, z: float) -> bool:
    """Whether the candidate with the best mean beats every other one with confidence.

    ``values`` ``(candidates, trials)`` holds paired trials (the same dice along each column); the
    best candidate is separated when for every other one the mean of the paired differences exceeds
    ``z`` standard errors (its two-sided interval excludes zero). Needs two trials or more.
    """
    k, n = values.shape
    if k < 2:
        return True
    if n < 2:
        return False
    means = values.mean(axis=1)
    best = int(np.argmax(means))
    diffs = values[best][None, :] - np.delete(values, best, axis=0)
    se = diffs.std(axis=1, ddof=1) / math.sqrt(n)
    return bool(np.all(diffs.mean(axis=1) > z * se))


def rollout_plays(
    position: Position,
    dice: tuple[int, int],
    evaluator: BoardEvaluator,
    settings: RolloutSettings | None = None,
    plays: Sequence[Play] | None = None,
    progress: ProgressCallback | None = None,
    partial: Callable[[list[PlayRollout]], None] | None = None,
) -> list[PlayRollout]:
    """Roll out candidate plays for a roll with duplicate dice, best first (by mean value).

    ``plays``: the candidates (all legal plays if omitted). Each play's
    resulting position is rolled out with the opponent rolling first; results
    are turned back to the mover's side. For cubeful rollouts the cube is
    passed to the opponent's view and back. Candidates are ranked by the
    cubeful result if the rollout is cubeful, else by cubeless equity; with
    ``settings.stop_confidence`` the rollout stops once the best is separated
    from every other candidate (:func:`separated` on paired trials), and each
    result's ``trials`` says how many were used.

    ``partial(results)``, if given, is called in the calling process after each chunk of trials
    with the results of the trials done so far (running means, standard errors and intervals per
    candidate, ranked the same way): the last call has exactly the results returned.

    Raises:
        InvalidInputError: on bad dice or a play that is not legal here.
    """
    settings = settings or RolloutSettings()
    legal = position.legal_plays(*dice)
    candidates = list(legal if plays is None else plays)
    for play in candidates:
        if play not in legal:
            raise InvalidInputError(f"play {str(play)!r} is not legal for {dice!r} in {position.position_id()!r}")
    opp_settings = replace(settings, cube=settings.cube.flip())
    roots = [position_to_board(p.position) for p in candidates]
    # a finished game needs no rollout: score it exactly
    exact: dict[int, tuple[np.ndarray, float | None]] = {}
    for i, root in enumerate(roots):
        end = terminal_outputs(root)
        if end is not None:
            mover = flip_outputs(end)
            cubeful = None
            if settings.cubeful:
                jacoby = settings.cube.jacoby and settings.cube.owner is CubeOwner.CENTRED
                points = 1 if jacoby else _points(mover)
                cubeful = _score_value(settings.cube, settings.cube.value * points, True)
            exact[i] = (mover, cubeful)
    live = [i for i in range(len(roots)) if i not in exact]
    column = 6 if settings.cubeful else 5

    def mover_values(samples: np.ndarray) -> np.ndarray:
        """Each candidate's value per trial ``(candidates, trials)``, from the mover's side."""
        n = samples.shape[1]
        out = np.empty((len(roots), n))
        opp = _trial_values(samples, settings.variance_reduction)[..., column]
        match = settings.cubeful and settings.cube.away is not None
        for j, i in enumerate(live):
            out[i] = 1.0 - opp[j] if match else -opp[j]
        for i, (mover, cubeful) in exact.items():
            out[i] = cubeful if settings.cubeful else outputs_equity(mover)
        return out

    z = _z(settings.stop_confidence) if settings.stop_confidence is not None else math.inf

    def best_is_separated(samples: np.ndarray) -> bool:
        return separated(mover_values(samples), z)

    stop = best_is_separated if settings.stop_confidence is not None and len(roots) > 1 else None

    def results_of(samples: np.ndarray) -> list[PlayRollout]:
        """Every candidate's result over the trials in ``samples``, best first."""
        return _play_results(candidates, exact, live, samples, mover_values(samples), settings)

    def observe(so_far: np.ndarray) -> None:
        if partial is not None:
            partial(results_of(so_far))

    if live:
        samples = _rollout_samples(
            evaluator, [roots[i] for i in live], opp_settings, progress, stop, observe if partial else None
        )
    else:
        samples = np.zeros((0, settings.trials, _COLS))
    results = results_of(samples)
    if partial is not None and not live:
        partial(results)
    return results


def _play_results(
    candidates: list[Play],
    exact: dict[int, tuple[np.ndarray, float | None]],
    live: list[int],
    samples: np.ndarray,
    values: np.ndarray,
    settings: RolloutSettings,
) -> list[PlayRollout]:
    """The candidates' results (see :func:`rollout_plays`) from the trials so far, best first."""
    n = samples.shape[1]
    best = int(np.argmax(values.mean(axis=1))) if len(candidates) else 0
    results: list[PlayRollout] = []
    for i, play in enumerate(candidates):
        if i in exact:
            mover, cubeful = exact[i]
            mean = (*[float(v) for v in mover], outputs_equity(mover))
            zero = (0.0,) * 6
            result = RolloutResult(
                n,
                mean,
                zero,
                cubeful,
                0.0 if settings.cubeful else None,
                zero,
                0.0 if settings.cubeful else None,
                settings.variance_reduction,
            )
        else:
            j = live.index(i)
            result = _flip_result(_summarise(samples[j], settings.cubeful, settings.variance_reduction), settings.cube)
        d = values[best] - values[i]
        diff_se = float(_standard_errors(d[:, None])[0]) if i != best else 0.0
        results.append(PlayRollout(play, result, float(d.mean()) if n else 0.0, Z95 * diff_se))
    results.sort(key=lambda r: (r.diff, -(r.result.cubeful if r.result.cubeful is not None else r.result.equity)))
    return results


def _flip_result(result: RolloutResult, root_cube: CubeInfo) -> RolloutResult:
    w, wg, wb, lg, lb, eq = result.mean
    cw, cwg, cwb, clg, clb, ceq = result.ci95
    sw, swg, swb, slg, slb, seq = result.se
    cubeful = result.cubeful
    if cubeful is not None:
        cubeful = -cubeful if root_cube.away is None else 1.0 - cubeful
    return RolloutResult(
        trials=result.trials,
        mean=(1.0 - w, lg, lb, wg, wb, -eq),
        ci95=(cw, clg, clb, cwg, cwb, ceq),
        cubeful=cubeful,
        cubeful_ci95=result.cubeful_ci95,
        se=(sw, slg, slb, swg, swb, seq),
        cubeful_se=result.cubeful_se,
        variance_reduced=result.variance_reduced,
    )


__all__ = [
    "ORDERED_ROLLS",
    "OUTPUT_NAMES",
    "ROLLS21",
    "BoardEvaluator",
    "PlayRollout",
    "RolloutResult",
    "RolloutSettings",
    "RolloutTrials",
    "board_to_position",
    "position_to_board",
    "roll_luck",
    "rollout_plays",
    "rollout_position",
    "rollout_trials",
    "separated",
    "successor_boards",
    "terminal_outputs",
    "trial_rolls",
]
