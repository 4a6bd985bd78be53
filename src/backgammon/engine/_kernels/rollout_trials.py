"""The compiled rollout trial: a cubeless game with 0-ply plays, optionally with the luck of each roll.

:func:`play_trial` is the one home of the compiled trial (``backgammon.engine.rollout`` runs it, in
threads over the cores, and documents the trials). It evaluates with the float64 nets (the
evaluator's own arithmetic, the same plays and results as the rollout's Python loop) or, with
``fast``, with the float32 nets of :mod:`.fastnet` (about twice as fast, outputs within a few 1e-7).
:func:`play_trial64` is the float64 trial with the nets as separate arguments (the tests call it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.engine._kernels.fastnet import (
    fast_choose,
    fast_evaluate_one,
    new_base,
    new_scratch,
    set_base,
)
from backgammon.engine.encoding import MAX_NONZERO
from backgammon.engine.evaluator import net_choose, net_evaluate_one, terminal_probs
from backgammon.engine.movegen import OVER, phase, successors_ws
from backgammon.engine.network import flip_outputs


@njit(cache=True, nogil=True)
def _evaluate(board, fast, net64, nets32, s64, s32, o) -> None:
    if fast:
        fast_evaluate_one(board, nets32, s32, o)
    else:
        idx, val, hid = s64
        cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff = net64
        net_evaluate_one(
            board, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o
        )


@njit(cache=True, nogil=True)
def _choose(cand, n, fast, net64, nets32, s64, s32, o, best, base) -> int:
    if fast:  # the plays' results share the side not moving: its inputs' part of the first layer is kept in base
        return fast_choose(cand, n, nets32, s32, o, best, base)
    idx, val, hid = s64
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff = net64
    return net_choose(
        cand, n, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff, idx, val, hid, o, best
    )


@njit(cache=True, nogil=True)
def play_trial(board, state, dice, truncate, fast, net64, nets32, cand, work, table, rolls, luck, out) -> bool:
    """A cubeless trial with 0-ply plays, as ``rollout._play_trial`` plays it.

    ``net64``: the evaluator's kernel arguments (``NetEvaluator.kernel_args()``); ``nets32``: its
    :data:`.fastnet.FastNets`; ``fast`` picks which evaluates. ``board`` (the side on roll's view)
    and ``state`` (ply, and 1 when the opponent of the root is on roll) advance in place;
    ``dice[ply]`` is the roll of each ply. Returns True with the root side's five outputs in ``out``
    when the trial ends (or is truncated, ``truncate >= 0``), False when it needs more dice than
    ``dice`` holds (call again with more). With ``rolls`` (``rollout.ROLLS21``; an empty array: no
    variance reduction) each roll's luck, as ``rollout._choose_with_luck`` measures it, is added to
    ``luck`` (the root side's 5 outputs; the caller zeroes it before the trial).
    """
    s64 = (
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float64),
        np.empty(max(net64[1].shape[0], net64[5].shape[0])),
    )
    s32 = new_scratch(nets32)
    base = new_base(nets32)
    o = np.empty(5)
    best = np.empty(5)
    mine = np.empty(5)
    mover = np.empty(5)
    acc = np.empty(5)
    chosen = np.empty((2, 25), dtype=np.int8)
    vr = rolls.shape[0] > 0
    while True:
        if truncate >= 0 and state[0] >= truncate:
            _evaluate(board, fast, net64, nets32, s64, s32, o)
            break
        if state[0] >= dice.shape[0]:
            return False
        ply = state[0]
        d1 = dice[ply, 0]
        d2 = dice[ply, 1]
        n = successors_ws(board, d1, d2, cand, work, table)
        if fast:
            set_base(base, board[1])  # the side not moving: the side on roll of every result of this ply's rolls
        c = 0
        if n > 1 or vr:
            c = _choose(cand, n, fast, net64, nets32, s64, s32, o, best, base)
        if vr:
            chosen[:, :] = cand[c]
            flip_outputs(best, mine)  # the mover's view
            hi = max(d1, d2)
            lo = min(d1, d2)
            acc[:] = 0.0
            for r in range(rolls.shape[0]):
                if rolls[r, 0] == hi and rolls[r, 1] == lo:  # the rolled dice: the trial's own evaluations
                    for k in range(5):
                        acc[k] += rolls[r, 2] * mine[k]
                    continue
                m = successors_ws(board, rolls[r, 0], rolls[r, 1], cand, work, table)
                _choose(cand, m, fast, net64, nets32, s64, s32, o, best, base)
                flip_outputs(best, mover)
                for k in range(5):
                    acc[k] += rolls[r, 2] * mover[k]
            for k in range(5):
                mine[k] = mine[k] - acc[k] / 36.0
            if state[1] == 0:
                for k in range(5):
                    luck[k] += mine[k]
            else:  # the opponent's luck, seen from the root side
                luck[0] += -mine[0]
                luck[1] += mine[3]
                luck[2] += mine[4]
                luck[3] += mine[1]
                luck[4] += mine[2]
            board[:, :] = chosen
        else:
            board[:, :] = cand[c]
        state[0] += 1
        state[1] ^= 1
        if phase(board) == OVER:  # the side that just moved is off: the result of the side on roll
            terminal_probs(board, o)
            break
    if state[1] == 0:
        out[:] = o
    else:
        flip_outputs(o, out)
    return True


@njit(cache=True, nogil=True)
def play_trial64(
    board,
    state,
    dice,
    truncate,
    cw1,
    cb1,
    cw2,
    cb2,
    rw1,
    rb1,
    rw2,
    rb2,
    dist,
    first,
    ways,
    use_bearoff,
    cand,
    work,
    table,
    rolls,
    luck,
    out,
) -> bool:
    """A cubeless trial with 0-ply plays, as ``rollout._play_trial`` plays it, compiled, in the evaluator's
    float64 arithmetic: :func:`play_trial` with these nets, spread out as arguments.

    ``board`` (the side on roll's view) and ``state`` (ply, and 1 when the opponent of the root is on
    roll) advance in place; ``dice[ply]`` is the roll of each ply. Returns True with the root side's five
    outputs in ``out`` when the trial ends (or is truncated, ``truncate >= 0``), False when it needs
    more dice than ``dice`` holds (call again with more). With ``rolls`` (``rollout.ROLLS21``; an empty
    array: no variance reduction) each roll's luck, as ``rollout._choose_with_luck`` measures it, is added
    to ``luck`` (the root side's 5 outputs; the caller zeroes it before the trial).
    """
    net64 = (cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff)
    w = np.zeros((1, 1), dtype=np.float32)
    b = np.zeros(1, dtype=np.float32)
    w2t = np.zeros((5, 1), dtype=np.float32)
    b2 = np.zeros(5)
    unused32 = (w, b, w2t, b2, w, b, w2t, b2, dist, first, ways, use_bearoff)
    return play_trial(board, state, dice, truncate, False, net64, unused32, cand, work, table, rolls, luck, out)
