"""Position to network inputs.

Each side, from the side on roll's view (side 0 = on roll, side 1 = opponent),
in its own numbering:

- for each of the 24 points, a truncated unary code: ``n >= 1``, ``n >= 2``,
  ``n >= 3`` and ``(n - 3) / 2`` for more than three (Tesauro's scheme);
- the bar: ``n >= 1`` and ``n / 2``; checkers off: ``n / 15``;
- hand features: pip count / 167, the longest run of made points / 6, made
  points in the home board / 6.

The encoding has a :data:`NAME` and :data:`VERSION` that weight files record and
:mod:`backgammon.engine.network` checks when loading.

>>> import numpy as np
>>> from backgammon import Position
>>> encode(Position.initial()).shape == (NUM_INPUTS,)
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.position import Position

NAME = "unary4-hand3"
VERSION = 1
PER_SIDE = 24 * 4 + 2 + 1 + 3
NUM_INPUTS = 2 * PER_SIDE


@njit(cache=True, nogil=True)
def encode_sparse(board: np.ndarray, idx: np.ndarray, val: np.ndarray) -> int:
    """Write the non-zero inputs of ``board`` into ``idx``/``val``; return how many."""
    k = 0
    for s in range(2):
        base = s * PER_SIDE
        side = board[s]
        pips = 0
        total = 0
        for i in range(24):
            n = side[i]
            total += n
            pips += n * (i + 1)
            if n >= 1:
                idx[k] = base + 4 * i
                val[k] = 1.0
                k += 1
                if n >= 2:
                    idx[k] = base + 4 * i + 1
                    val[k] = 1.0
                    k += 1
                    if n >= 3:
                        idx[k] = base + 4 * i + 2
                        val[k] = 1.0
                        k += 1
                        if n > 3:
                            idx[k] = base + 4 * i + 3
                            val[k] = (n - 3) / 2.0
                            k += 1
        nb = side[24]
        total += nb
        pips += 25 * nb
        if nb >= 1:
            idx[k] = base + 96
            val[k] = 1.0
            k += 1
            idx[k] = base + 97
            val[k] = nb / 2.0
            k += 1
        off = 15 - total
        if off > 0:
            idx[k] = base + 98
            val[k] = off / 15.0
            k += 1
        if pips > 0:
            idx[k] = base + 99
            val[k] = pips / 167.0
            k += 1
        run = 0
        longest = 0
        home = 0
        for i in range(24):
            if side[i] >= 2:
                run += 1
                longest = max(longest, run)
                if i < 6:
                    home += 1
            else:
                run = 0
        if longest > 0:
            idx[k] = base + 100
            val[k] = longest / 6.0
            k += 1
        if home > 0:
            idx[k] = base + 101
            val[k] = home / 6.0
            k += 1
    return k


MAX_NONZERO = 2 * (24 * 4 + 6)


@njit(cache=True, nogil=True)
def encode_dense(board: np.ndarray, x: np.ndarray) -> None:
    """Write all inputs of ``board`` into ``x`` (length :data:`NUM_INPUTS`)."""
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float64)
    x[:] = 0.0
    k = encode_sparse(board, idx, val)
    for j in range(k):
        x[idx[j]] = val[j]


def encode_board(board: np.ndarray) -> np.ndarray:
    """The input vector of a raw ``(2, 25)`` int8 board."""
    x = np.zeros(NUM_INPUTS, dtype=np.float64)
    encode_dense(np.ascontiguousarray(board, dtype=np.int8), x)
    return x


def encode(position: Position) -> np.ndarray:
    """The input vector of a position (the side on roll's view)."""
    return encode_board(np.array([position.mine, position.theirs], dtype=np.int8))
