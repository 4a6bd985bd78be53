"""The engine's compiled n-ply search (numba): 1-, 2- and 3-ply values of raw boards, fast.

:func:`label_fast` (and :func:`label_range`, its one-thread form) values boards at 1, 2 or 3 plies
as :mod:`backgammon.engine.search` defines it (the 0-ply best play of each roll, valued one ply less
deep): the nets' leaves in float32, the exact bear-off database wherever both sides are home (at
the root, the chosen plays and the leaves), and at the inner plies optionally only the replies a
cheap pruning model ranks best (:func:`choose_pruned`; ``keep`` 0 keeps them all, which is what the
search uses). :func:`evaluate_nply` is the entry point from Python. The label shards
(:mod:`backgammon.training.labels`, labels version 2) are made with the same kernels, pruned.

Weights are passed as :func:`backgammon.engine.network.kernel_arrays` gives them:
``cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2``; the leaves as :func:`leaf_arrays` gives them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from backgammon.engine.bearoff import WAYS, BearoffDatabase
from backgammon.engine.encoding import MAX_NONZERO, encode_for
from backgammon.engine.evaluator import bearoff_probs, settle, terminal_probs
from backgammon.engine.movegen import BEAROFF, CONTACT, MAX_PLAYS, OVER, RACE, new_workspace, phase, successors_ws
from backgammon.engine.network import NUM_OUTPUTS, NetArrays, flip_outputs, forward_sparse32, outputs_equity5
from backgammon.errors import InvalidInputError

# --- the fast labeller (labels v2): float32 leaves, the bear-off database, 0-ply pruning of the candidates ---

#: Features of the pruning model: per side and point (the bar too) a one-hot of the count (1..15; an empty
#: point has none), then per side the longest run of made points / 6 and the made home points / 6.
PRUNE_FEATURES = 2 * 25 * 16 + 4


@njit(cache=True, nogil=True)
def prune_features(board, idx, val) -> int:
    """The non-zero :data:`PRUNE_FEATURES` of ``board`` into ``idx``/``val`` (54 slots); returns how many."""
    k = 0
    for s in range(2):
        side = board[s]
        run = 0
        longest = 0
        home = 0
        for i in range(25):
            if side[i] > 0:  # an empty point is the baseline
                idx[k] = s * 400 + i * 16 + side[i]
                val[k] = 1.0
                k += 1
            if i < 24:
                if side[i] >= 2:
                    run += 1
                    longest = max(longest, run)
                    if i < 6:
                        home += 1
                else:
                    run = 0
        if longest > 0:
            idx[k] = 800 + 2 * s
            val[k] = longest / 6.0
            k += 1
        if home > 0:
            idx[k] = 801 + 2 * s
            val[k] = home / 6.0
            k += 1
    return k


@njit(cache=True, nogil=True)
def prune_score(board, pw) -> float:
    """The pruning model's score of ``board`` (``pw``: one model's :data:`PRUNE_FEATURES` weights): the equity
    of its side on roll up to a constant of the roll, for ranking the results of one roll cheaply."""
    s = 0.0
    for side in range(2):
        row = board[side]
        base = side * 400
        run = 0
        longest = 0
        home = 0
        for i in range(25):
            if row[i] > 0:
                s += pw[base + i * 16 + row[i]]
            if i < 24:
                if row[i] >= 2:
                    run += 1
                    longest = max(longest, run)
                    if i < 6:
                        home += 1
                else:
                    run = 0
        s += pw[800 + 2 * side] * (longest / 6.0) + pw[801 + 2 * side] * (home / 6.0)
    return s


@njit(cache=True, nogil=True)
def leaf_value(b, ph, leaf, idx, val, hid, o) -> None:
    """``o`` = the 0-ply value of ``b`` (phase ``ph``) for its side on roll: exact if the game is over, the
    bear-off database if both sides are home, else the phase's net in float32 (:func:`forward_sparse32`),
    sanitised. ``leaf`` is ``(cw1, cb1, cw2t, cb2, rw1, rb1, rw2t, rb2, dist, first, ways)``: the nets as
    :func:`leaf_arrays` lays them out, then the bear-off database's arrays."""
    cw1, cb1, cw2t, cb2, rw1, rb1, rw2t, rb2, dist, first, ways = leaf
    if ph == OVER:
        terminal_probs(b, o)
    elif ph == BEAROFF:
        bearoff_probs(b, dist, first, ways, o)
    else:
        k = encode_for(b, ph, idx, val)
        if ph == CONTACT:
            forward_sparse32(idx, val, k, cw1, cb1, cw2t, cb2, hid, o)
        else:
            forward_sparse32(idx, val, k, rw1, rb1, rw2t, rb2, hid, o)
        settle(b, ph, o)


@njit(cache=True, nogil=True)
def choose_pruned(cand, n, keep, pw, leaf, shared, o, best) -> int:
    """The 0-ply play among ``cand[:n]`` (each with the opponent on roll), as ``net_choose`` picks it (the
    first of lowest equity for the opponent), its five outputs (the opponent's view) into ``best``.

    With ``keep > 0``, of the results in a net's phase (contact, race) only the ``keep`` that the pruning
    model ``pw`` (``(2, PRUNE_FEATURES)``: contact, race) ranks best are evaluated by the net (gnubg's
    pruning idea); finished games and bear-offs are always evaluated, exactly. ``shared`` is the scratch of
    :func:`fast_scratch`; after the call its ``phs[c]`` is the phase of ``cand[c]`` (or -1: pruned).
    """
    idx, val, hid, score, phs = shared
    for c in range(n):
        phs[c] = phase(cand[c])
    if keep > 0 and n > keep:
        for ph in (CONTACT, RACE):
            m = 0
            for c in range(n):
                if phs[c] == ph:
                    m += 1
            if m <= keep:
                continue
            for c in range(n):
                if phs[c] == ph:
                    score[c] = prune_score(cand[c], pw[ph])
            for _ in range(keep):  # move the best `keep` out of the phase (marked ph + 4: evaluate them)
                j = -1
                lo = np.inf
                for c in range(n):
                    if phs[c] == ph and score[c] < lo:
                        lo = score[c]
                        j = c
                phs[j] = ph + 4
            for c in range(n):  # the rest: skipped (-1)
                if phs[c] == ph:
                    phs[c] = -1
                elif phs[c] == ph + 4:
                    phs[c] = ph
    chosen = 0
    best_eq = np.inf
    for c in range(n):
        if phs[c] < 0:
            continue
        leaf_value(cand[c], phs[c], leaf, idx, val, hid, o)
        eq = outputs_equity5(o)
        if eq < best_eq:
            best_eq = eq
            chosen = c
            best[:] = o
    return chosen


@njit(cache=True, nogil=True)
def fast_scratch(cb1, rb1):
    """Scratch arrays of one thread of the fast labeller: ``(levels, shared)``, where ``levels[p]`` is the
    ``(cand, work, table)`` of the ply searched with ``p + 1`` plies below it (0, 1, 2) and ``shared`` is
    ``(idx, val, hid, score, phs)``, used by one call at a time."""
    work0, table0 = new_workspace()
    work1, table1 = new_workspace()
    work2, table2 = new_workspace()
    levels = (
        (np.empty((MAX_PLAYS, 2, 25), dtype=np.int8), work0, table0),
        (np.empty((MAX_PLAYS, 2, 25), dtype=np.int8), work1, table1),
        (np.empty((MAX_PLAYS, 2, 25), dtype=np.int8), work2, table2),
    )
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float32)
    hid = np.empty(max(cb1.shape[0], rb1.shape[0]), dtype=np.float32)
    score = np.empty(MAX_PLAYS)
    phs = np.empty(MAX_PLAYS, dtype=np.int64)
    return levels, (idx, val, hid, score, phs)


@njit(cache=True, nogil=True)
def choose_per_roll(board, keep, pw, leaf, level, shared):
    """``(chosen, values, same)``: for each of the 21 rolls ``r`` of ``board`` (d1 ≤ d2, in order),
    ``chosen[r]`` = the 0-ply best play (:func:`choose_pruned`, ``keep``) and ``same[r]``: -2 if it has both
    sides home or the game over (``values[r]`` then holds its exact value, the mover's view), the first earlier
    roll that chose the same position, or -1 (the caller puts its value in ``values[r]``). ``level`` is this
    ply's ``(cand, work, table)``."""
    chosen = np.empty((21, 2, 25), dtype=np.int8)
    values = np.empty((21, NUM_OUTPUTS))
    same = np.empty(21, dtype=np.int64)
    cand, work, table = level
    phs = shared[4]
    o = np.empty(NUM_OUTPUTS)
    best = np.empty(NUM_OUTPUTS)
    r = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = successors_ws(board, d1, d2, cand, work, table)
            c = choose_pruned(cand, n, keep, pw, leaf, shared, o, best)
            chosen[r] = cand[c]
            same[r] = -1
            if phs[c] >= BEAROFF:  # best holds the exact value (the opponent's view)
                flip_outputs(best, values[r])
                same[r] = -2
            else:
                for q in range(r):
                    if np.array_equal(chosen[q], chosen[r]):
                        same[r] = q
                        break
            r += 1
    return chosen, values, same


@njit(cache=True, nogil=True)
def average_rolls(values, same, out) -> None:
    """``out`` = the average over the 36 rolls of ``values`` (21 rolls as :func:`choose_per_roll` orders
    them; a roll with ``same[r] >= 0`` takes that roll's value)."""
    acc = np.zeros(NUM_OUTPUTS)
    r = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            q = same[r] if same[r] >= 0 else r
            for j in range(NUM_OUTPUTS):
                acc[j] += w * values[q, j]
            r += 1
    for j in range(NUM_OUTPUTS):
        out[j] = acc[j] / 36.0


@njit(cache=True, nogil=True)
def one_ply_fast(board, keep, pw, leaf, level, shared, out) -> None:
    """``out`` = the 1-ply value of ``board`` (not over) for its side on roll: per roll the best play by
    :func:`choose_pruned`, valued by :func:`leaf_value`."""
    cand, work, table = level
    o = np.empty(NUM_OUTPUTS)
    best = np.empty(NUM_OUTPUTS)
    acc = np.zeros(NUM_OUTPUTS)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = successors_ws(board, d1, d2, cand, work, table)
            choose_pruned(cand, n, keep, pw, leaf, shared, o, best)
            w = 1.0 if d1 == d2 else 2.0
            flip_outputs(best, o)  # the mover's view
            for j in range(NUM_OUTPUTS):
                acc[j] += w * o[j]
    for j in range(NUM_OUTPUTS):
        out[j] = acc[j] / 36.0


@njit(cache=True, nogil=True)
def two_ply_fast(board, keep, keep_inner, pw, leaf, scratch, out) -> None:
    """``out`` = the 2-ply value of ``board`` (not over) for its side on roll, the labels of version 2.

    As :mod:`backgammon.engine.search` defines it (per roll the 0-ply best play, valued at 1-ply), with the
    leaves valued by :func:`leaf_value` (float32 nets, the bear-off database where both sides are home, exact
    results), a chosen position with both sides home valued by the database at once, the same chosen position
    reached by two rolls valued once (:func:`choose_per_roll`), and the candidates of a roll pruned to ``keep``
    (the top ply) and ``keep_inner`` (the replies) by :func:`choose_pruned` (0 keeps them all).
    """
    levels, shared = scratch
    chosen, values, same = choose_per_roll(board, keep, pw, leaf, levels[1], shared)
    inner = np.empty(NUM_OUTPUTS)
    for r in range(21):
        if same[r] == -1:
            one_ply_fast(chosen[r], keep_inner, pw, leaf, levels[0], shared, inner)
            flip_outputs(inner, values[r])
    average_rolls(values, same, out)


@njit(cache=True, nogil=True)
def three_ply_fast(board, keep, keep_inner, pw, leaf, scratch, out) -> None:
    """``out`` = the 3-ply value of ``board`` (not over) for its side on roll: per roll the 0-ply best play
    (pruned to ``keep``, 0 keeps all), valued at 2 plies by :func:`two_ply_fast` with ``keep_inner`` replies
    kept at both of its plies; chosen positions as in :func:`two_ply_fast`."""
    levels, shared = scratch
    chosen, values, same = choose_per_roll(board, keep, pw, leaf, levels[2], shared)
    inner = np.empty(NUM_OUTPUTS)
    for r in range(21):
        if same[r] == -1:
            two_ply_fast(chosen[r], keep_inner, keep_inner, pw, leaf, scratch, inner)
            flip_outputs(inner, values[r])
    average_rolls(values, same, out)


@njit(cache=True, nogil=True)
def board_hash(board) -> np.uint64:
    """A 64-bit FNV-1a hash of a board's 50 counts (the seed of its sampled rolls: a function of the board)."""
    h = np.uint64(14695981039346656037)
    for s in range(2):
        for i in range(25):
            h = (h ^ np.uint64(board[s, i] & 0xFF)) * np.uint64(1099511628211)
    return h


@njit(cache=True, nogil=True)
def sampled_rolls(board, own, n_own, k, pick) -> int:
    """Put ``k`` of the ``n_own`` roll indices ``own[:n_own]`` into ``pick`` (all of them if there are no more
    than ``k``), drawn without replacement by a xorshift generator seeded by :func:`board_hash`; return how
    many."""
    if n_own <= k:
        for j in range(n_own):
            pick[j] = own[j]
        return n_own
    x = board_hash(board) | np.uint64(1)
    for j in range(k):  # a partial Fisher-Yates shuffle of own
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        m = j + int(x % np.uint64(n_own - j))
        own[j], own[m] = own[m], own[j]
        pick[j] = own[j]
    return k


@njit(cache=True, nogil=True)
def three_ply_sampled(board, keep, keep_inner, pw, leaf, scratch, rolls, out) -> None:
    """``out`` = an unbiased estimate of :func:`three_ply_fast`'s value at a fraction of its cost: per roll the
    0-ply best play valued at 1 ply (the 2-ply label's terms), plus the mean of the 2-ply minus 1-ply
    difference of the chosen plays over ``rolls`` of the rolls, drawn per board (:func:`sampled_rolls`; each
    weighted by its own and its repeats' chances, and scaled by the rolls it stands for). The difference is
    small (about 0.02 equity rms per roll), so the estimate is close (about 0.006 rms with 5 of 21 rolls
    against about 0.013 between the 2-ply and 3-ply values); with ``rolls`` of 21 it is the 3-ply value."""
    levels, shared = scratch
    chosen, values, same = choose_per_roll(board, keep, pw, leaf, levels[2], shared)
    inner = np.empty(NUM_OUTPUTS)
    deep = np.empty(NUM_OUTPUTS)
    weight = np.zeros(21)
    own = np.empty(21, dtype=np.int64)
    n_own = 0
    r = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            if same[r] == -1:
                own[n_own] = r
                n_own += 1
                weight[r] += w
                one_ply_fast(chosen[r], keep_inner, pw, leaf, levels[0], shared, inner)
                flip_outputs(inner, values[r])
            elif same[r] >= 0:
                weight[same[r]] += w
            r += 1
    average_rolls(values, same, out)
    pick = np.empty(21, dtype=np.int64)
    m = sampled_rolls(board, own, n_own, rolls, pick)
    scale = n_own / m / 36.0 if m > 0 else 0.0
    for j in range(m):
        q = pick[j]
        two_ply_fast(chosen[q], keep_inner, keep_inner, pw, leaf, scratch, inner)
        flip_outputs(inner, deep)
        for o in range(NUM_OUTPUTS):
            out[o] += scale * weight[q] * (deep[o] - values[q, o])


@njit(cache=True, nogil=True)
def label_range(boards, plies, keep, keep_inner, pw, leaf, targets, lo, hi, rolls) -> None:
    """:func:`label_fast` for ``boards[lo:hi]`` on the calling thread: no parallel launch, so any number of threads
    may call it at once (the search does, from the server's worker threads)."""
    scratch = fast_scratch(leaf[1], leaf[5])
    levels, shared = scratch
    idx, val, hid, _, _ = shared
    for i in range(lo, hi):
        ph = phase(boards[i])
        if ph >= BEAROFF:
            leaf_value(boards[i], ph, leaf, idx, val, hid, targets[i])
        elif plies == 3 and 0 < rolls < 21:
            three_ply_sampled(boards[i], keep, keep_inner, pw, leaf, scratch, rolls, targets[i])
        elif plies == 3:
            three_ply_fast(boards[i], keep, keep_inner, pw, leaf, scratch, targets[i])
        elif plies == 2:
            two_ply_fast(boards[i], keep, keep_inner, pw, leaf, scratch, targets[i])
        else:
            one_ply_fast(boards[i], keep, pw, leaf, levels[0], shared, targets[i])


@njit(cache=True, nogil=True, parallel=True)
def label_fast(boards, plies, keep, keep_inner, pw, leaf, targets, threads, rolls=0) -> None:
    """``targets[i]`` = the ``plies``-ply value (1, 2 or 3) of ``boards[i]`` by the fast labeller
    (:func:`two_ply_fast`; at 1 ply :func:`one_ply_fast`, at 3 :func:`three_ply_fast`, or with ``rolls`` from 1
    to 20 :func:`three_ply_sampled`; with both sides home or the game over the exact value), over ``threads``
    threads (each label is a function of its board alone). ``pw``: the pruning models (:func:`choose_pruned`);
    ``leaf``: as :func:`leaf_value` takes it."""
    n = boards.shape[0]
    size = (n + threads - 1) // threads
    for t in prange(threads):
        label_range(boards, plies, keep, keep_inner, pw, leaf, targets, t * size, min(n, (t + 1) * size), rolls)


LeafArrays = tuple[np.ndarray, ...]


def leaf_arrays(arrays: NetArrays) -> LeafArrays:
    """What the kernels value their leaves with (:func:`leaf_value`): the nets' arrays in float32, each output
    layer transposed ``(5, h)``, then the bear-off database's ``dist``, ``first`` and ``ways``."""
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2 = arrays

    def f32(a: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(a, dtype=np.float32)

    db = BearoffDatabase.get()
    return f32(cw1), f32(cb1), f32(cw2.T), f32(cb2), f32(rw1), f32(rb1), f32(rw2.T), f32(rb2), db.dist, db.first, WAYS


def evaluate_nply(
    boards: np.ndarray,
    arrays: NetArrays,
    plies: int,
    threads: int = 1,
    prune: int = 0,
    pruner: np.ndarray | None = None,
    rolls: int = 0,
) -> np.ndarray:
    """The ``plies``-ply values (1, 2 or 3) of ``boards`` (``(n, 2, 25)`` int8, each from its side on roll's view)
    as ``(n, 5)`` outputs, by :func:`label_fast`: the nets ``arrays`` (:func:`backgammon.engine.network.kernel_arrays`)
    at the leaves in float32, the bear-off database where both sides are home. ``prune`` above 0 keeps only that
    many replies per roll at the inner plies, ranked by ``pruner`` (``(2, PRUNE_FEATURES)``: contact, race), which
    it then needs. At 3 plies, ``rolls`` from 1 to 20 values the chosen play at 2 plies for only that many of the
    rolls, drawn per board, and at 1 ply for the others, corrected by the sampled rolls' mean difference
    (:func:`three_ply_sampled`: an unbiased estimate of the 3-ply value). Each value is a function of its board,
    so any ``threads`` gives the same values; with one thread (the default, and the search's) no parallel region
    is launched, so threads may call it at once. The caller passes valid boards.

    Raises:
        InvalidInputError: if ``plies`` is not 1, 2 or 3, or ``prune`` is above 0 without a ``pruner``.
    """
    if plies not in (1, 2, 3):
        raise InvalidInputError(f"expected plies 1, 2 or 3, got {plies!r}")
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    targets = np.empty((len(boards), 5))
    if not len(boards):
        return targets
    if pruner is None:
        if prune > 0:
            raise InvalidInputError(f"prune={prune} needs a pruner (the pruning models of the nets)")
        pruner = np.zeros((2, PRUNE_FEATURES))
    leaf = leaf_arrays(arrays)
    if threads <= 1:  # on this thread, without a parallel launch: safe from several threads at once
        label_range(boards, plies, 0, prune, pruner, leaf, targets, 0, len(boards), rolls)
    else:
        label_fast(boards, plies, 0, prune, pruner, leaf, targets, threads, rolls)
    return targets
