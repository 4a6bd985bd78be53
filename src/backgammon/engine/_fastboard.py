"""Numba kernels on raw boards for the engine's hot loops (private).

A board is an ``np.int8`` array of shape ``(2, 25)``: ``board[0]`` is the side
on roll, ``board[1]`` the opponent, each in its own numbering (index 0..23 =
points 1..24, index 24 = the bar), exactly the layout of
:class:`backgammon.Position`. Borne-off checkers are ``15 - sum(side)``.

:func:`successors` writes the distinct legal results of a roll, already
flipped (the opponent on roll). It is the engine's own generator, used until
and unless the core's ``backgammon._movegen`` kernel replaces it; the tests
check it against ``Position.legal_plays``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_PLAYS = 4096  # comfortably above the largest number of distinct plays of any roll

CONTACT = 0
RACE = 1
BEAROFF = 2
OVER = 3


@njit(cache=True, nogil=True)
def back_index(side: np.ndarray) -> int:
    """Index of a side's rearmost checker (24 = bar), -1 if none left."""
    for i in range(24, -1, -1):
        if side[i] > 0:
            return i
    return -1


@njit(cache=True, nogil=True)
def phase(board: np.ndarray) -> int:
    """CONTACT, RACE, BEAROFF or OVER for a raw board (same rule as ``Position.phase``)."""
    a = back_index(board[0])
    b = back_index(board[1])
    if a < 0 or b < 0:
        return OVER
    if a + b >= 23:
        return CONTACT
    if a < 6 and b < 6:
        return BEAROFF
    return RACE


@njit(cache=True, nogil=True)
def _can_move(b: np.ndarray, src: int, d: int) -> bool:
    """Whether a checker of the side on roll at index ``src`` may move ``d`` pips."""
    if b[0, src] == 0:
        return False
    if b[0, 24] > 0 and src != 24:
        return False
    dst = src - d
    if dst >= 0:
        return b[1, 23 - dst] < 2
    # bearing off: every checker home
    for i in range(6, 25):
        if b[0, i] > 0:
            return False
    if dst == -1:
        return True
    for i in range(src + 1, 6):
        if b[0, i] > 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _apply(b: np.ndarray, src: int, d: int) -> None:
    """Move a checker (legality already checked), hitting a blot if there is one."""
    b[0, src] -= 1
    dst = src - d
    if dst >= 0:
        b[0, dst] += 1
        if b[1, 23 - dst] == 1:
            b[1, 23 - dst] = 0
            b[1, 24] += 1


@njit(cache=True, nogil=True)
def _hash(b: np.ndarray) -> np.int64:
    h = np.int64(1469598103934665603)
    for s in range(2):
        for i in range(25):
            h = (h ^ np.int64(b[s, i])) * np.int64(1099511628211)
    return h


@njit(cache=True, nogil=True)
def _record(b: np.ndarray, out: np.ndarray, hashes: np.ndarray, n: int) -> int:
    """Store ``b`` flipped into ``out[n]`` unless already there; return the new count."""
    h = _hash(b)
    for k in range(n):
        if hashes[k] == h:
            same = True
            for i in range(25):
                if out[k, 1, i] != b[0, i] or out[k, 0, i] != b[1, i]:
                    same = False
                    break
            if same:
                return n
    if n >= out.shape[0]:
        return n
    for i in range(25):
        out[n, 0, i] = b[1, i]
        out[n, 1, i] = b[0, i]
    hashes[n] = h
    return n + 1


@njit(cache=True, nogil=True)
def successors(board: np.ndarray, d1: int, d2: int, out: np.ndarray) -> int:
    """Write the distinct legal results of rolling ``d1``-``d2`` into ``out``.

    Each result is flipped (the opponent on roll). A roll that cannot be
    played gives one result: the board unchanged, flipped. Returns the count.
    """
    hashes = np.empty(out.shape[0], dtype=np.int64)
    n = 0
    if d1 == d2:
        d = d1
        best = 0
        b1 = np.empty((2, 25), dtype=np.int8)
        b2 = np.empty((2, 25), dtype=np.int8)
        b3 = np.empty((2, 25), dtype=np.int8)
        b4 = np.empty((2, 25), dtype=np.int8)
        # four nested moves with non-increasing sources cover every play once
        for s1 in range(24, -1, -1):
            if not _can_move(board, s1, d):
                continue
            b1[:, :] = board
            _apply(b1, s1, d)
            any2 = False
            for s2 in range(s1, -1, -1):
                if not _can_move(b1, s2, d):
                    continue
                any2 = True
                b2[:, :] = b1
                _apply(b2, s2, d)
                any3 = False
                for s3 in range(s2, -1, -1):
                    if not _can_move(b2, s3, d):
                        continue
                    any3 = True
                    b3[:, :] = b2
                    _apply(b3, s3, d)
                    any4 = False
                    for s4 in range(s3, -1, -1):
                        if not _can_move(b3, s4, d):
                            continue
                        any4 = True
                        b4[:, :] = b3
                        _apply(b4, s4, d)
                        if best < 4:
                            best = 4
                            n = 0
                        n = _record(b4, out, hashes, n)
                    if not any4 and best <= 3:
                        if best < 3:
                            best = 3
                            n = 0
                        n = _record(b3, out, hashes, n)
                if not any3 and best <= 2:
                    if best < 2:
                        best = 2
                        n = 0
                    n = _record(b2, out, hashes, n)
            if not any2 and best <= 1:
                best = 1
                n = _record(b1, out, hashes, n)
        if n == 0:
            n = _record(board, out, hashes, 0)
        return n

    tmp = np.empty((2, 25), dtype=np.int8)
    tmp2 = np.empty((2, 25), dtype=np.int8)
    # plays using both dice
    for order in range(2):
        a = d1 if order == 0 else d2
        c = d2 if order == 0 else d1
        for s1 in range(24, -1, -1):
            if not _can_move(board, s1, a):
                continue
            tmp[:, :] = board
            _apply(tmp, s1, a)
            for s2 in range(24, -1, -1):
                if _can_move(tmp, s2, c):
                    tmp2[:, :] = tmp
                    _apply(tmp2, s2, c)
                    n = _record(tmp2, out, hashes, n)
    if n > 0:
        return n
    # only one die can be played: the larger one if possible
    hi = max(d2, d1)
    lo = min(d1, d2)
    for s1 in range(24, -1, -1):
        if _can_move(board, s1, hi):
            tmp[:, :] = board
            _apply(tmp, s1, hi)
            n = _record(tmp, out, hashes, n)
    if n > 0:
        return n
    for s1 in range(24, -1, -1):
        if _can_move(board, s1, lo):
            tmp[:, :] = board
            _apply(tmp, s1, lo)
            n = _record(tmp, out, hashes, n)
    if n > 0:
        return n
    return _record(board, out, hashes, 0)


def successors_py(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """Convenience wrapper: the distinct results of a roll as a new array ``(n, 2, 25)``."""
    out = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    n = successors(np.ascontiguousarray(board, dtype=np.int8), d1, d2, out)
    return out[:n].copy()
