"""Numba kernels for self-play training and fast duels (private).

Everything here works on raw boards (see :mod:`backgammon.engine.movegen`)
and on the weight arrays of the two nets (contact and race), passed as
``cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2``.

Randomness: each game ``g`` seeds numba's generator with ``game_seed(seed, g)``,
so a run cut into chunks (checkpoints) plays exactly the same games as one
uninterrupted run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.engine.encoding import MAX_NONZERO, encode_for
from backgammon.engine.movegen import CONTACT, MAX_PLAYS, new_workspace, phase, successors_ws
from backgammon.engine.network import NUM_OUTPUTS, flip_outputs, forward_sparse
from backgammon.engine.pubeval import pubeval_score

INITIAL = np.zeros((2, 25), dtype=np.int8)
for _s in range(2):
    INITIAL[_s, 5] = 5
    INITIAL[_s, 7] = 3
    INITIAL[_s, 12] = 5
    INITIAL[_s, 23] = 2


@njit(cache=True, nogil=True)
def game_seed(seed: int, game: int) -> int:
    return (seed * 1000003 + game * 7919 + 12345) % 4294967291


@njit(cache=True, nogil=True)
def equity5(o: np.ndarray) -> float:
    """Cubeless equity of five outputs."""
    return 2.0 * o[0] - 1.0 + o[1] - o[3] + o[2] - o[4]


@njit(cache=True, nogil=True)
def mover_won_result(after: np.ndarray, res: np.ndarray) -> float:
    """The mover (``after[1]``) has borne off all: fill its outcome vector, return points."""
    opp = after[0]
    opp_left = 0
    for i in range(25):
        opp_left += opp[i]
    res[:] = 0.0
    res[0] = 1.0
    pts = 1.0
    if opp_left == 15:
        res[1] = 1.0
        pts = 2.0
        # backgammon: a loser checker on the bar or in the winner's home board
        for i in range(18, 25):
            if opp[i] > 0:
                res[2] = 1.0
                pts = 3.0
                break
    return pts


@njit(cache=True, nogil=True)
def side_done(side: np.ndarray) -> bool:
    for i in range(25):
        if side[i] > 0:
            return False
    return True


@njit(cache=True, nogil=True)
def net_eval(board, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, idx, val, hid, out) -> int:
    """Evaluate a (non-terminal) board for its side on roll; return the phase used."""
    ph = phase(board)
    k = encode_for(board, ph, idx, val)
    if ph == CONTACT:
        forward_sparse(idx, val, k, cw1, cb1, cw2, cb2, hid, out)
    else:
        forward_sparse(idx, val, k, rw1, rb1, rw2, rb2, hid, out)
    return ph


@njit(cache=True, nogil=True)
def choose_net(
    board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, out, best_out, work, table
) -> int:
    """0-ply choice: index in ``cand`` of the best result; ``best_out`` gets the target (mover's view)."""
    n = successors_ws(board, d1, d2, cand, work, table)
    best = -1
    best_eq = -1e9
    tmp = np.empty(NUM_OUTPUTS)
    for c in range(n):
        if side_done(cand[c, 1]):
            eq = mover_won_result(cand[c], tmp)
            eq += 10.0  # always take a win
        else:
            net_eval(cand[c], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, idx, val, hid, out)
            flip_outputs(out, tmp)
            eq = equity5(tmp)
        if eq > best_eq:
            best_eq = eq
            best = c
            best_out[:] = tmp
    return best


@njit(cache=True, nogil=True)
def choose_near(
    board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, out, eqs, work, table, near
) -> int:
    """A play drawn uniformly among those within ``near`` equity of the 0-ply best (valued as
    :func:`choose_net` values them, a finished game at its result plus 10); ``eqs`` (``MAX_PLAYS``) is scratch."""
    n = successors_ws(board, d1, d2, cand, work, table)
    tmp = np.empty(NUM_OUTPUTS)
    best_eq = -1e9
    for c in range(n):
        if side_done(cand[c, 1]):
            eqs[c] = mover_won_result(cand[c], tmp) + 10.0
        else:
            net_eval(cand[c], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, idx, val, hid, out)
            flip_outputs(out, tmp)
            eqs[c] = equity5(tmp)
        if eqs[c] > best_eq:
            best_eq = eqs[c]
    count = 0
    for c in range(n):
        if eqs[c] >= best_eq - near:
            count += 1
    k = np.random.randint(0, count)
    for c in range(n):
        if eqs[c] >= best_eq - near:
            if k == 0:
                return c
            k -= 1
    return 0  # not reached


@njit(cache=True, nogil=True)
def choose_pubeval(board, d1, d2, wc, wr, cand, work, table) -> int:
    n = successors_ws(board, d1, d2, cand, work, table)
    race = phase(board) != CONTACT
    best = 0
    best_s = -1e18
    for c in range(n):
        s = pubeval_score(cand[c], race, wc, wr)
        if s > best_s:
            best_s = s
            best = c
    return best


@njit(cache=True, nogil=True)
def roll() -> tuple:
    """Two dice from numba's generator."""
    return np.random.randint(1, 7), np.random.randint(1, 7)


@njit(cache=True, nogil=True)
def _opening_roll() -> tuple:
    while True:
        d1, d2 = roll()
        if d1 != d2:
            return d1, d2


@njit(cache=True, nogil=True)
def new_game(seed: int, game: int, board: np.ndarray) -> tuple:
    """Start game ``game`` of a run: seed the dice with ``game_seed(seed, game)``, set ``board`` to the
    starting position and return the opening roll."""
    np.random.seed(game_seed(seed, game))
    board[:, :] = INITIAL
    return _opening_roll()


@njit(cache=True, nogil=True, fastmath=True)
def td_train_games(cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, seed, game0, ngames, alpha, stats):
    """Play ``ngames`` self-play games (numbered from ``game0``), updating the nets by TD(0).

    ``stats`` (float64[8]) accumulates: games, plies, squared TD error summed,
    wins of the first player, gammons, backgammons, contact updates, race updates.
    """
    cand = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = new_workspace()
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float64)
    cidx = np.empty(MAX_NONZERO, dtype=np.int64)  # the current board's inputs, kept for the update
    cval = np.empty(MAX_NONZERO, dtype=np.float64)
    nh_c = cb1.shape[0]
    nh_r = rb1.shape[0]
    hid_c = np.empty(nh_c)
    hid_r = np.empty(nh_r)
    hid = np.empty(max(nh_c, nh_r))
    out = np.empty(NUM_OUTPUTS)
    cur = np.empty(NUM_OUTPUTS)
    target = np.empty(NUM_OUTPUTS)
    delta = np.empty(NUM_OUTPUTS)
    board = np.empty((2, 25), dtype=np.int8)
    for g in range(game0, game0 + ngames):
        d1, d2 = new_game(seed, g, board)
        ply = 0
        while True:
            # current evaluation with hidden activations kept for the gradient
            ph = phase(board)
            k = encode_for(board, ph, cidx, cval)
            contact = ph == CONTACT
            if contact:
                forward_sparse(cidx, cval, k, cw1, cb1, cw2, cb2, hid_c, cur)
            else:
                forward_sparse(cidx, cval, k, rw1, rb1, rw2, rb2, hid_r, cur)
            if ply > 0:
                d1, d2 = roll()
            c = choose_net(
                board, d1, d2, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, cand, idx, val, hid, out, target, work, table
            )
            over = side_done(cand[c, 1])
            if over:
                pts = mover_won_result(cand[c], target)
                if ply % 2 == 0:
                    stats[3] += 1.0
                if pts >= 2.0:
                    stats[4] += 1.0
                if pts >= 3.0:
                    stats[5] += 1.0
            err = 0.0
            for o in range(NUM_OUTPUTS):
                delta[o] = target[o] - cur[o]
                err += delta[o] * delta[o]
            stats[2] += err
            # backprop (cross-entropy gradient at the sigmoid outputs)
            if contact:
                stats[6] += 1.0
                _update(cidx, cval, k, cw1, cb1, cw2, cb2, hid_c, delta, alpha)
            else:
                stats[7] += 1.0
                _update(cidx, cval, k, rw1, rb1, rw2, rb2, hid_r, delta, alpha)
            ply += 1
            if over:
                break
            board[:, :] = cand[c]
        stats[0] += 1.0
        stats[1] += ply


MAX_PLIES = 2000


@njit(cache=True, nogil=True, fastmath=True)
def td_lambda_games(cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, seed, game0, ngames, alpha, lam, stats):
    """Like :func:`td_train_games` but TD(lambda) by offline lambda-returns, applied after each game.

    During a game the weights stay fixed; at its end each position ``s_t`` is
    moved towards ``G_t = (1 - lam) * V(s_t+1) + lam * G_t+1`` (each in the
    view of the side on roll at ``s_t``), ``G`` of the last position being the
    game's result. Same dice as :func:`td_train_games` for the same seed.
    """
    cand, idx, val, hid, out, _, work, table = choice_scratch(cb1, rb1)
    _, _, hid_c, hid_r, cur, delta = fit_scratch(cb1, rb1)
    boards = np.empty((MAX_PLIES, 2, 25), dtype=np.int8)
    targets = np.empty((MAX_PLIES, NUM_OUTPUTS))
    board = np.empty((2, 25), dtype=np.int8)
    for g in range(game0, game0 + ngames):
        d1, d2 = new_game(seed, g, board)
        ply = 0
        while True:
            if ply > 0:
                d1, d2 = roll()
            boards[ply] = board
            c = choose_net(
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
                out,
                targets[ply],
                work,
                table,
            )
            over = side_done(cand[c, 1])
            if over:
                pts = mover_won_result(cand[c], targets[ply])
                if ply % 2 == 0:
                    stats[3] += 1.0
                if pts >= 2.0:
                    stats[4] += 1.0
                if pts >= 3.0:
                    stats[5] += 1.0
            ply += 1
            if over or ply >= MAX_PLIES:
                break
            board[:, :] = cand[c]
        # lambda-returns, backwards: targets[t] becomes G_t
        for t in range(ply - 2, -1, -1):
            nxt = targets[t + 1]
            g0 = 1.0 - nxt[0]
            g1 = nxt[3]
            g2 = nxt[4]
            g3 = nxt[1]
            g4 = nxt[2]
            targets[t, 0] = (1.0 - lam) * targets[t, 0] + lam * g0
            targets[t, 1] = (1.0 - lam) * targets[t, 1] + lam * g1
            targets[t, 2] = (1.0 - lam) * targets[t, 2] + lam * g2
            targets[t, 3] = (1.0 - lam) * targets[t, 3] + lam * g3
            targets[t, 4] = (1.0 - lam) * targets[t, 4] + lam * g4
        for t in range(ply):
            stats[2] += fit_board(
                boards[t], targets[t], cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, alpha, idx, val, hid_c, hid_r, cur, delta
            )
            if phase(boards[t]) == CONTACT:
                stats[6] += 1.0
            else:
                stats[7] += 1.0
        stats[0] += 1.0
        stats[1] += ply


@njit(cache=True, nogil=True)
def choice_scratch(cb1, rb1):
    """Work arrays for :func:`choose_net`: candidates, sparse inputs, hidden units, two output vectors and the
    move generator's workspace."""
    work, table = new_workspace()
    return (
        np.empty((MAX_PLAYS, 2, 25), dtype=np.int8),
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float64),
        np.empty(max(cb1.shape[0], rb1.shape[0])),
        np.empty(NUM_OUTPUTS),
        np.empty(NUM_OUTPUTS),
        work,
        table,
    )


@njit(cache=True, nogil=True)
def fit_scratch(cb1, rb1):
    """Work arrays for :func:`fit_board`: sparse inputs, both nets' hidden units, outputs, errors."""
    return (
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float64),
        np.empty(cb1.shape[0]),
        np.empty(rb1.shape[0]),
        np.empty(NUM_OUTPUTS),
        np.empty(NUM_OUTPUTS),
    )


@njit(cache=True, nogil=True, fastmath=True)
def fit_board(
    board, target, cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, alpha, idx, val, hid_c, hid_r, cur, delta
) -> float:
    """One gradient step of the net for ``board``'s phase towards ``target``; return the squared error."""
    ph = phase(board)
    k = encode_for(board, ph, idx, val)
    contact = ph == CONTACT
    if contact:
        forward_sparse(idx, val, k, cw1, cb1, cw2, cb2, hid_c, cur)
    else:
        forward_sparse(idx, val, k, rw1, rb1, rw2, rb2, hid_r, cur)
    err = 0.0
    for o in range(NUM_OUTPUTS):
        delta[o] = target[o] - cur[o]
        err += delta[o] * delta[o]
    if contact:
        _update(idx, val, k, cw1, cb1, cw2, cb2, hid_c, delta, alpha)
    else:
        _update(idx, val, k, rw1, rb1, rw2, rb2, hid_r, delta, alpha)
    return err


@njit(cache=True, nogil=True, fastmath=True)
def _update(idx, val, k, w1, b1, w2, b2, hid, delta, alpha) -> None:
    nh = b1.shape[0]
    dh = np.empty(nh)
    for h in range(nh):
        s = 0.0
        for o in range(NUM_OUTPUTS):
            s += w2[h, o] * delta[o]
        dh[h] = s * hid[h] * (1.0 - hid[h]) * alpha
    for h in range(nh):
        for o in range(NUM_OUTPUTS):
            w2[h, o] += alpha * delta[o] * hid[h]
    for o in range(NUM_OUTPUTS):
        b2[o] += alpha * delta[o]
    for h in range(nh):
        b1[h] += dh[h]
    for j in range(k):
        row = idx[j]
        v = val[j]
        for h in range(nh):
            w1[row, h] += dh[h] * v


@njit(cache=True, nogil=True)
def duel_pubeval(cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, wc, wr, seed, npairs, results):
    """Net (0-ply) against pubeval: ``npairs`` dice sequences, each played twice with sides swapped.

    ``results[i]`` gets the net's points in game ``i`` (``2 * npairs`` games).
    Cubeless money games.
    """
    cand, idx, val, hid, out, best_out, work, table = choice_scratch(cb1, rb1)
    res = np.empty(NUM_OUTPUTS)
    board = np.empty((2, 25), dtype=np.int8)
    for p in range(npairs):
        for swap in range(2):
            np.random.seed(game_seed(seed, p))
            board[:, :] = INITIAL
            d1, d2 = _opening_roll()
            ply = 0
            while True:
                if ply > 0:
                    d1, d2 = roll()
                net_to_move = (ply % 2 == 0) != (swap == 1)
                if net_to_move:
                    c = choose_net(
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
                        out,
                        best_out,
                        work,
                        table,
                    )
                else:
                    c = choose_pubeval(board, d1, d2, wc, wr, cand, work, table)
                if side_done(cand[c, 1]):
                    pts = mover_won_result(cand[c], res)
                    results[2 * p + swap] = pts if net_to_move else -pts
                    break
                board[:, :] = cand[c]
                ply += 1
