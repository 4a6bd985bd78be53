"""Float32 evaluation for the rollout kernels: the nets' forward pass in single precision, vectorised.

The weights files hold float32, so the weights are the same; what differs from
:func:`backgammon.engine.network.forward_sparse` (float64, ``np.exp``) is the
rounding of the sums and the sigmoid, computed here by a polynomial
exponential that the compiler vectorises (relative error about 1e-7). The
outputs differ from :meth:`NetEvaluator.evaluate_boards`'s by a few 1e-7
(``tests/engine/test_fast_rollout.py`` bounds it), so a play whose equity ties
another's within that may be chosen differently: rollouts with these kernels
are statistically the same as with the float64 evaluator, not trial by trial.

A :data:`FastNets` tuple holds what the kernels take: per net (contact, then
race) ``w1`` ``(inputs, hidden)``, ``b1``, ``w2t`` (the output weights
transposed, ``(5, hidden)``), all float32, and ``b2`` (float64), then the
bear-off database (``dist``, ``first``, ``ways``) and whether to use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from backgammon.engine.encoding import (
    MAX_NONZERO,
    PER_SIDE,
    encode_features,
    encode_for,
    encode_race_features,
    encode_side,
)
from backgammon.engine.evaluator import bearoff_probs, settle, terminal_probs
from backgammon.engine.movegen import BEAROFF, CONTACT, OVER, phase
from backgammon.engine.network import outputs_equity5

FastNets = tuple[Any, ...]

_LN2_HI = np.float32(0.693145751953125)
_LN2_LO = np.float32(1.428606765330187e-06)


def fast_nets(evaluator: Any) -> FastNets:
    """The :data:`FastNets` of a :class:`~backgammon.engine.evaluator.NetEvaluator` (cached on it)."""
    cached = getattr(evaluator, "_fast_nets", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2, dist, first, ways, use_bearoff = evaluator.kernel_args()
    nets: FastNets = (
        np.ascontiguousarray(cw1, dtype=np.float32),
        np.ascontiguousarray(cb1, dtype=np.float32),
        np.ascontiguousarray(np.asarray(cw2).T, dtype=np.float32),
        np.ascontiguousarray(cb2, dtype=np.float64),
        np.ascontiguousarray(rw1, dtype=np.float32),
        np.ascontiguousarray(rb1, dtype=np.float32),
        np.ascontiguousarray(np.asarray(rw2).T, dtype=np.float32),
        np.ascontiguousarray(rb2, dtype=np.float64),
        dist,
        first,
        ways,
        bool(use_bearoff),
    )
    evaluator._fast_nets = nets
    return nets


@njit(cache=True, nogil=True)
def new_scratch(nets: FastNets) -> tuple[np.ndarray, ...]:
    """Work arrays for :func:`fast_evaluate_one`: input indices and values, then for the contact net and for
    the race net a hidden layer and two sigmoid buffers of its size (whole arrays, not slices of one, so that
    the compiler knows them contiguous and vectorises)."""
    nc = nets[1].shape[0]
    nr = nets[5].shape[0]
    return (
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float64),
        np.empty(nc, dtype=np.float32),
        np.empty(nc, dtype=np.float32),
        np.empty(nc, dtype=np.int32),
        np.empty(nr, dtype=np.float32),
        np.empty(nr, dtype=np.float32),
        np.empty(nr, dtype=np.int32),
    )


# error_model="numpy": no zero-division check in the loops (the divisors are >= 1), so that they vectorise
@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def sigmoid32(x: np.ndarray, n: int, frac: np.ndarray, bits: np.ndarray) -> None:
    """``x[:n] = 1 / (1 + exp(-x[:n]))`` in float32, ``exp`` as ``2**i * p(r)`` (``r`` within ln2 / 2,
    ``p`` its degree-6 Taylor polynomial) so that the loops vectorise; ``frac``/``bits`` are scratch."""
    for h in range(n):
        z = min(max(-x[h], np.float32(-87.0)), np.float32(87.0))
        t = np.floor(z * np.float32(1.4426950408889634) + np.float32(0.5))
        r = z - t * _LN2_HI - t * _LN2_LO
        frac[h] = np.float32(1.0) + r * (
            np.float32(1.0)
            + r
            * (
                np.float32(0.5)
                + r
                * (
                    np.float32(1.0 / 6.0)
                    + r * (np.float32(1.0 / 24.0) + r * (np.float32(1.0 / 120.0) + r * np.float32(1.0 / 720.0)))
                )
            )
        )
        bits[h] = (np.int32(t) + np.int32(127)) << np.int32(23)  # 2**t as a float32's bits
    scale = bits.view(np.float32)
    for h in range(n):
        x[h] = np.float32(1.0) / (np.float32(1.0) + frac[h] * scale[h])


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def add_rows(idx, val, k, w1, hid) -> None:
    """``hid += sum of w1[idx[j]] * val[j]`` over the first ``k`` sparse inputs."""
    nh = hid.shape[0]
    j = 0
    while j + 4 <= k:  # four input rows a pass: a quarter of the hidden layer's loads and stores
        a0 = w1[idx[j]]
        a1 = w1[idx[j + 1]]
        a2 = w1[idx[j + 2]]
        a3 = w1[idx[j + 3]]
        v0 = np.float32(val[j])
        v1 = np.float32(val[j + 1])
        v2 = np.float32(val[j + 2])
        v3 = np.float32(val[j + 3])
        for h in range(nh):
            hid[h] += a0[h] * v0 + a1[h] * v1 + a2[h] * v2 + a3[h] * v3
        j += 4
    while j < k:
        a0 = w1[idx[j]]
        v0 = np.float32(val[j])
        for h in range(nh):
            hid[h] += a0[h] * v0
        j += 1


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def finish32(hid, w2t, b2, frac, bits, out) -> None:
    """The rest of the forward pass from the hidden layer's sums ``hid``: sigmoid, outputs into ``out``."""
    nh = hid.shape[0]
    sigmoid32(hid, nh, frac, bits)
    for o in range(5):
        z = np.float32(0.0)
        for h in range(nh):
            z += w2t[o, h] * hid[h]
        out[o] = 1.0 / (1.0 + np.exp(-(np.float64(z) + b2[o])))


@njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def forward32(idx, val, k, w1, b1, w2t, b2, hid, frac, bits, out) -> None:
    """The forward pass of one net from ``k`` sparse inputs (``idx``, ``val``) into ``out`` (five float64);
    ``hid``, ``frac`` and ``bits`` are scratch of the net's hidden size."""
    hid[:] = b1
    add_rows(idx, val, k, w1, hid)
    finish32(hid, w2t, b2, frac, bits, out)


@njit(cache=True, nogil=True)
def fast_evaluate_one(b, nets, scratch, o) -> None:
    """One board into ``o`` (five outputs, its side on roll's view): exact if the game is over, the bear-off
    database when both sides are home (if the nets use it), else the phase's net in float32."""
    ph = phase(b)
    if ph == OVER:
        terminal_probs(b, o)
    elif ph == BEAROFF and nets[11]:
        bearoff_probs(b, nets[8], nets[9], nets[10], o)
    else:
        idx, val, hc, fc, bc, hr, fr, br = scratch
        k = encode_for(b, ph, idx, val)
        if ph == CONTACT:
            forward32(idx, val, k, nets[0], nets[1], nets[2], nets[3], hc, fc, bc, o)
        else:
            forward32(idx, val, k, nets[4], nets[5], nets[6], nets[7], hr, fr, br, o)
        settle(b, ph, o)


@njit(cache=True, nogil=True)
def new_base(nets):
    """A shared first layer for boards whose side on roll is the same (:func:`set_base`): that side's
    checkers, each net's hidden sums of the biases and that side's own inputs (:func:`encode_side`), and
    whether each is computed yet."""
    return (
        np.zeros(25, dtype=np.int8),
        np.empty(nets[1].shape[0], dtype=np.float32),
        np.empty(nets[5].shape[0], dtype=np.float32),
        np.zeros(2, dtype=np.int64),
    )


@njit(cache=True, nogil=True)
def set_base(base, side) -> None:
    """Make ``base`` the shared first layer of boards whose side on roll has the checkers ``side`` (computed
    for each net when first needed)."""
    base[0][:] = side
    base[3][:] = 0


@njit(cache=True, nogil=True)
def fast_evaluate_based(b, nets, scratch, o, base) -> None:
    """:func:`fast_evaluate_one`, starting from ``base``'s hidden sums when the side on roll of ``b`` has its
    checkers: only the other side's inputs and the features of both (which depend on both) are added (the
    boards after every play of a roll share the opponent's side, unless a play hits)."""
    ph = phase(b)
    if ph == OVER or (ph == BEAROFF and nets[11]):
        fast_evaluate_one(b, nets, scratch, o)
        return
    side = base[0]
    for i in range(25):
        if b[0, i] != side[i]:
            fast_evaluate_one(b, nets, scratch, o)
            return
    idx, val, hc, fc, bc, hr, fr, br = scratch
    if ph == CONTACT:
        _based(b, side, idx, val, nets[0], nets[1], nets[2], nets[3], base[1], base[3], 0, False, hc, fc, bc, o)
    else:
        _based(b, side, idx, val, nets[4], nets[5], nets[6], nets[7], base[2], base[3], 1, True, hr, fr, br, o)
    settle(b, ph, o)


@njit(cache=True, nogil=True)
def _based(b, side, idx, val, w1, b1, w2t, b2, shared, ready, c, race, hid, frac, bits, o) -> None:
    """:func:`fast_evaluate_based` for one net (``shared``: its kept sums, computed when ``ready[c]`` is 0)."""
    if ready[c] == 0:
        shared[:] = b1
        add_rows(idx, val, encode_side(side, 0, idx, val, 0), w1, shared)
        ready[c] = 1
    k = encode_side(b[1], PER_SIDE, idx, val, 0)
    k = encode_features(b, idx, val, k)
    if race:
        k = encode_race_features(b, idx, val, k)
    hid[:] = shared
    add_rows(idx, val, k, w1, hid)
    finish32(hid, w2t, b2, frac, bits, o)


@njit(cache=True, nogil=True)
def fast_choose(cand, n, nets, scratch, o, best, base) -> int:
    """The 0-ply play among ``cand[:n]`` (each with the opponent on roll), as
    :func:`backgammon.engine.evaluator.net_choose` picks it: the first of lowest equity for the opponent;
    its outputs (the opponent's view) into ``best``; ``o`` is scratch. Each result is valued by
    :func:`fast_evaluate_based` (``base`` set to the side that is not moving: the plays' results share it)."""
    chosen = 0
    best_eq = np.inf
    for c in range(n):
        fast_evaluate_based(cand[c], nets, scratch, o, base)
        eq = outputs_equity5(o)
        if eq < best_eq:
            best_eq = eq
            chosen = c
            best[:] = o
    return chosen


@njit(cache=True, nogil=True)
def fast_evaluate_batch(boards, nets, out) -> None:
    """Each board of ``boards`` ``(n, 2, 25)`` into the rows of ``out`` ``(n, 5)``."""
    scratch = new_scratch(nets)
    o = np.empty(5)
    for i in range(boards.shape[0]):
        fast_evaluate_one(boards[i], nets, scratch, o)
        out[i, :] = o
