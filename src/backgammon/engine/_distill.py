"""Numba kernels for refining the nets on 1-ply targets (private).

Self-play TD moves each position's evaluation towards the value after one
sampled roll. Refinement instead labels positions with their *1-ply* value
(the average, over all 21 rolls, of the value after the best play of each
roll) and fits the nets to those labels: a target without the dice's noise,
one ply deeper than the nets themselves. :mod:`backgammon.engine.train` drives
it (``backgammon train --refine``).

Weights are passed as in :mod:`backgammon.engine._selfplay`:
``cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from backgammon.engine._movegen import CONTACT, OVER, phase, successors_ws
from backgammon.engine._selfplay import (
    choice_scratch,
    choose_near,
    choose_net,
    fit_board,
    fit_scratch,
    mover_won_result,
    new_game,
    roll,
    side_done,
)
from backgammon.engine.network import NUM_OUTPUTS, flip_outputs


@njit(cache=True, nogil=True)
def sample_positions(cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, seed, game0, explore, out, keep=1.0, near=0.0) -> int:
    """Fill ``out`` (``(n, 2, 25)`` int8) with positions, side on roll first, from 0-ply self-play games.

    With probability ``explore`` a move is a random legal one instead of the best,
    so the sample strays from the nets' own lines; with ``near`` above 0 that move is instead drawn among the
    plays within ``near`` equity of the best (plausible lines, not blunders). Each position met is kept with
    probability ``keep`` (below 1, a sample of the same size spans more games).
    Games are numbered from ``game0`` (their dice seeded by ``game_seed(seed, g)``);
    returns the games used.
    """
    n = out.shape[0]
    cand, idx, val, hid, o, best, work, table = choice_scratch(cb1, rb1)
    eqs = np.empty(cand.shape[0])
    board = np.empty((2, 25), dtype=np.int8)
    k = 0
    g = game0
    while k < n:
        d1, d2 = new_game(seed, g, board)
        g += 1
        ply = 0
        while k < n:
            if ply > 0:
                d1, d2 = roll()
                if keep >= 1.0 or np.random.random() < keep:
                    out[k] = board
                    k += 1
            if np.random.random() < explore:
                if near > 0.0:
                    c = choose_near(
                        board,
                        d1,
                        d2,
                        cw1,
                        cb1,
                        cw2,
                        cb2,
                        rw1,
                        rb1,
                        rw2,
                        rb2,
                        cand,
                        idx,
                        val,
                        hid,
                        o,
                        eqs,
                        work,
                        table,
                        near,
                    )
                else:
                    m = successors_ws(board, d1, d2, cand, work, table)
                    c = np.random.randint(0, m)
            else:
                c = choose_net(
                    board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table
                )
            if side_done(cand[c, 1]):
                break
            board[:, :] = cand[c]
            ply += 1
    return g - game0


@njit(cache=True, nogil=True)
def sample_games(cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, seed, game0, explore, out, random_move, last):
    """Fill ``out`` with the positions of whole 0-ply self-play games, in order, side on roll first.

    Every position after the opening move is kept. ``random_move[i]`` says whether the move played from
    ``out[i]`` was a random one (probability ``explore``); ``last[i]`` whether that move ended the game.
    Games are numbered from ``game0``; a game that does not fit in ``out`` is dropped. Returns the number of
    positions filled (those of complete games end at the last ``last``; any after it belong to the dropped
    game) and how far the caller advances its game numbers: the complete games plus one.
    """
    n = out.shape[0]
    cand, idx, val, hid, o, best, work, table = choice_scratch(cb1, rb1)
    board = np.empty((2, 25), dtype=np.int8)
    k = 0
    g = game0
    while True:
        d1, d2 = new_game(seed, g, board)
        ply = 0
        while True:
            if ply > 0:
                d1, d2 = roll()
                if k >= n:
                    return k, g - game0 + 1
                out[k] = board
                random_move[k] = False
                last[k] = False
            if np.random.random() < explore:
                m = successors_ws(board, d1, d2, cand, work, table)
                c = np.random.randint(0, m)
                if ply > 0:
                    random_move[k] = True
            else:
                c = choose_net(
                    board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table
                )
            if side_done(cand[c, 1]):
                if ply > 0:
                    last[k] = True
                    k += 1
                break
            board[:, :] = cand[c]
            if ply > 0:
                k += 1
            ply += 1
        g += 1
        if k >= n:
            return k, g - game0 + 1


@njit(cache=True, nogil=True)
def lambda_returns(v1, v0, random_move, last, lam, out) -> None:
    """Targets that carry the games' own course back into the 1-ply labels, without the dice's luck.

    For consecutive positions ``s_t`` of a game (as :func:`sample_games` lays them out), with ``v1`` their
    1-ply values and ``v0`` their 0-ply values (each for its side on roll):
    ``G_t = v1_t + lam * (flip(G_{t+1}) - flip(v0_{t+1}))``, and ``G_t = v1_t`` where the move from
    ``s_t`` ended the game or was random (the game's course is then not the nets' own). Since ``v1_t`` is
    the mean of ``flip(v0_{t+1})`` over the rolls, the luck of each roll cancels: what is left is the sum of
    the later positions' differences between their 1- and 0-ply values, weighted ``lam ** k``. With
    ``lam = 1`` its mean is the result of the game played on; with ``lam = 0`` it is the 1-ply label.
    """
    a = np.empty(NUM_OUTPUTS)
    b = np.empty(NUM_OUTPUTS)
    for i in range(v1.shape[0] - 1, -1, -1):
        if last[i] or random_move[i]:
            out[i] = v1[i]
        else:
            flip_outputs(out[i + 1], a)
            flip_outputs(v0[i + 1], b)
            for j in range(NUM_OUTPUTS):
                out[i, j] = v1[i, j] + lam * (a[j] - b[j])


@njit(cache=True, nogil=True)
def one_ply(board, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table, out) -> None:
    """``out`` = the 1-ply value of ``board`` for its side on roll (best play per roll at 0-ply)."""
    for j in range(NUM_OUTPUTS):
        out[j] = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = (1.0 if d1 == d2 else 2.0) / 36.0
            choose_net(board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table)
            for j in range(NUM_OUTPUTS):
                out[j] += w * best[j]


@njit(cache=True, nogil=True)
def two_ply(
    board, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table, cand2, work2, inner, out
) -> None:
    """``out`` = the 2-ply value of ``board`` for its side on roll, as :mod:`backgammon.engine.search` defines it.

    For each of the 21 rolls the best play is chosen at 0-ply and its result
    valued at 1-ply (the opponent's 21 replies, each best at 0-ply); a play
    that bears off the last checker counts its exact result. ``cand2`` and
    ``work2`` are a second candidate array and move-generator workspace for the
    replies; ``inner`` (5 floats) receives each reply's 1-ply value (``best`` is overwritten).
    """
    for j in range(NUM_OUTPUTS):
        out[j] = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = (1.0 if d1 == d2 else 2.0) / 36.0
            c = choose_net(
                board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table
            )
            if not side_done(cand[c, 1]):  # else best holds the finished game's result
                one_ply(
                    cand[c], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand2, idx, val, hid, o, best, work2, table, inner
                )
                flip_outputs(inner, best)  # the reply's 1-ply value, from the mover's view
            for j in range(NUM_OUTPUTS):
                out[j] += w * best[j]


@njit(cache=True, nogil=True)
def _label_range(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, targets, plies, lo, hi) -> None:
    cand, idx, val, hid, o, best, work, table = choice_scratch(cb1, rb1)
    cand2, _, _, _, inner, _, work2, _ = choice_scratch(cb1, rb1)
    for i in range(lo, hi):
        if plies == 2:
            two_ply(
                boards[i],
                cw1,
                cb1,
                cw2,
                cb2,
                rw1,
                rb1,
                rw2,
                rb2,
                cand,
                idx,
                val,
                hid,
                o,
                best,
                work,
                table,
                cand2,
                work2,
                inner,
                targets[i],
            )
        else:
            one_ply(
                boards[i], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, o, best, work, table, targets[i]
            )


@njit(cache=True, nogil=True)
def label(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, targets, plies=1) -> None:
    """``targets[i]`` = the ``plies``-ply value (1 or 2) of ``boards[i]``."""
    _label_range(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, targets, plies, 0, boards.shape[0])


@njit(cache=True, nogil=True, parallel=True)
def label_parallel(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, targets, threads, plies=1) -> None:
    """:func:`label` split over ``threads`` threads (same labels: each is a function of its board alone)."""
    n = boards.shape[0]
    size = (n + threads - 1) // threads
    for t in prange(threads):
        _label_range(boards, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, targets, plies, t * size, min(n, (t + 1) * size))


@njit(cache=True, nogil=True, fastmath=True)
def fit(boards, targets, order, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, alpha, stats) -> None:
    """One pass of stochastic gradient steps over ``boards`` in the given ``order``.

    ``stats`` (float64[4]) accumulates: squared error summed, contact steps,
    race steps, positions skipped (finished games).
    """
    idx, val, hid_c, hid_r, cur, delta = fit_scratch(cb1, rb1)
    for t in range(order.shape[0]):
        i = order[t]
        ph = phase(boards[i])
        if ph == OVER:
            stats[3] += 1.0
            continue
        stats[0] += fit_board(
            boards[i], targets[i], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, alpha, idx, val, hid_c, hid_r, cur, delta
        )
        stats[1 if ph == CONTACT else 2] += 1.0


__all__ = [
    "fit",
    "label",
    "label_parallel",
    "lambda_returns",
    "mover_won_result",
    "one_ply",
    "sample_games",
    "sample_positions",
    "two_ply",
]
