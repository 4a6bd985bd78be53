"""Numba kernels for training (private): sampling self-play positions and games, lambda returns, the
pruning models' least squares and refinement's fit.

Self-play TD moves each position's evaluation towards the value after one
sampled roll. Refinement (:mod:`backgammon.training.refine`) and the label shards
(:mod:`backgammon.training.labels`) instead label positions with their n-ply value
(the engine's compiled search, :mod:`backgammon.engine._kernels.nply`): a target
without the dice's noise, deeper than the nets themselves. This module samples
the positions to label and fits the pruning models and the nets.

Weights are passed as in :mod:`backgammon.training._selfplay`:
``cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.engine._kernels.nply import PRUNE_FEATURES, fast_scratch, leaf_value, prune_features
from backgammon.engine.movegen import CONTACT, MAX_PLAYS, OVER, RACE, hard_contact, phase, successors_ws
from backgammon.engine.network import NUM_OUTPUTS, flip_outputs
from backgammon.training._selfplay import (
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


@njit(cache=True, nogil=True)
def sample_positions(
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, seed, game0, explore, out, keep=1.0, near=0.0, focus=0.0
) -> int:
    """Fill ``out`` (``(n, 2, 25)`` int8) with positions, side on roll first, from 0-ply self-play games.

    With probability ``explore`` a move is a random legal one instead of the best,
    so the sample strays from the nets' own lines; with ``near`` above 0 that move is instead drawn among the
    plays within ``near`` equity of the best (plausible lines, not blunders). Each position met is kept with
    probability ``keep`` (below 1, a sample of the same size spans more games), or with probability ``focus``
    if that is above 0 and the position is a back game or a crashed one (:func:`movegen.hard_contact`).
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
                p = focus if focus > 0.0 and hard_contact(board) else keep
                if p >= 1.0 or np.random.random() < p:
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
def prune_fit_sums(boards, leaf, a, b) -> None:
    """Accumulate the normal equations of the pruning models: for each board, roll and net phase, the
    results' :func:`leaf_value` equity (the opponent's view) regressed on their :func:`prune_features`,
    both less their mean over the group (only the ranking within a roll matters). ``a``:
    ``(2, F, F)``, ``b``: ``(2, F)`` (F = :data:`PRUNE_FEATURES`), per phase (contact, race)."""
    levels, shared = fast_scratch(leaf[1], leaf[5])
    cand, work, table = levels[0]
    idx, val, hid, _, phs = shared
    o = np.empty(NUM_OUTPUTS)
    fi = np.empty((MAX_PLAYS, 54), dtype=np.int64)
    fv = np.empty((MAX_PLAYS, 54))
    fk = np.empty(MAX_PLAYS, dtype=np.int64)
    eq = np.empty(MAX_PLAYS)
    mean = np.zeros(PRUNE_FEATURES)
    used = np.zeros(PRUNE_FEATURES, dtype=np.bool_)
    nz = np.empty(PRUNE_FEATURES, dtype=np.int64)
    for i in range(boards.shape[0]):
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                n = successors_ws(boards[i], d1, d2, cand, work, table)
                for c in range(n):
                    phs[c] = phase(cand[c])
                for ph in (CONTACT, RACE):
                    m = 0
                    ybar = 0.0
                    for c in range(n):
                        if phs[c] == ph:
                            m += 1
                            leaf_value(cand[c], ph, leaf, idx, val, hid, o)
                            eq[c] = 2.0 * o[0] - 1.0 + o[1] - o[3] + o[2] - o[4]
                            ybar += eq[c]
                            fk[c] = prune_features(cand[c], fi[c], fv[c])
                    if m < 2:
                        continue
                    ybar /= m
                    nnz = 0
                    for c in range(n):
                        if phs[c] != ph:
                            continue
                        for p in range(fk[c]):
                            f = fi[c, p]
                            if not used[f]:
                                used[f] = True
                                nz[nnz] = f
                                nnz += 1
                            mean[f] += fv[c, p] / m
                            b[ph, f] += fv[c, p] * (eq[c] - ybar)
                            for q in range(fk[c]):
                                a[ph, f, fi[c, q]] += fv[c, p] * fv[c, q]
                    for p in range(nnz):
                        for q in range(nnz):
                            a[ph, nz[p], nz[q]] -= m * mean[nz[p]] * mean[nz[q]]
                    for p in range(nnz):
                        mean[nz[p]] = 0.0
                        used[nz[p]] = False


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
    "lambda_returns",
    "mover_won_result",
    "prune_fit_sums",
    "sample_games",
    "sample_positions",
]
