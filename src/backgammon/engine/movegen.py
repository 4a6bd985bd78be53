"""Compiled legal-play generation (numba), for the engine's hot loops.

Boards are ``np.int8`` arrays of shape ``(2, 25)``: row 0 is the side on roll,
row 1 the opponent, each in its own numbering (index 0..23 = points 1..24,
24 = bar), the layout of :class:`backgammon.position.Position`.

:func:`successors` writes every distinct legal resulting board, already
flipped so that the opponent is on roll (as ``Play.position``), and returns how
many. It applies the same rules as :mod:`backgammon.moves` (which stays the
reference implementation with steps and notation): it works level by level,
a depth-first search that keeps a Zobrist hash of the board up to date step
by step and removes duplicate results with a hash table (full compare on a hash
match); doubles take their sources in non-increasing order, which reaches every
play while avoiding most permutations.

:func:`phase` classifies a board as :data:`CONTACT`, :data:`RACE`,
:data:`BEAROFF` or :data:`OVER` (the rule of ``Position.phase``).

The engine (``backgammon.engine``) uses it for all its move generation, and the
rules core's ``Position.legal_plays`` calls :func:`resulting_keys` when numba is
installed (the core's one optional accelerator, discovered at run time: the one
import from the core into the engine, which the layer contracts allow by name).
It is unchecked: the caller passes a valid board and dice 1..6; players of the
library call ``Position.legal_plays``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit

MAX_PLAYS = 4096
_TABLE_BITS = 13
_TABLE_SIZE = 1 << _TABLE_BITS


CONTACT = 0
RACE = 1
BEAROFF = 2
OVER = 3

_ZOBRIST = np.random.default_rng(20261129).integers(0, 2**63 - 1, size=(2, 25, 16), dtype=np.int64).astype(np.uint64)


@njit(cache=True)
def new_workspace() -> tuple[np.ndarray, np.ndarray]:
    """Scratch memory for :func:`successors_ws` (reuse it across calls in one thread).

    Returns ``(work, table)``: a working board plus per-result flags, and the
    hash table (stamps, rows, hashes).
    """
    # Only the stamps need clearing: every other cell is written before it is read.
    work = np.empty((MAX_PLAYS + 2, 25), dtype=np.int8)
    table = np.empty((3, _TABLE_SIZE + 4), dtype=np.int64)
    table[0, :] = 0
    table[0, _TABLE_SIZE] = 1
    return work, table


@njit(cache=True, nogil=True)
def back_index(side: np.ndarray) -> int:
    """Index of a side's rearmost checker (24 = bar), -1 if it has none left."""
    for i in range(24, -1, -1):
        if side[i] > 0:
            return i
    return -1


@njit(cache=True, nogil=True)
def phase(board: np.ndarray) -> int:
    """:data:`CONTACT`, :data:`RACE`, :data:`BEAROFF` or :data:`OVER`: the rule of ``Position.phase``."""
    a = back_index(board[0])
    b = back_index(board[1])
    if a < 0 or b < 0:
        return OVER
    if a + b >= 23:  # my rearmost checker (index a) has not passed theirs (my index 23 - b)
        return CONTACT
    if a < 6 and b < 6:
        return BEAROFF
    return RACE


@njit(cache=True, nogil=True)
def _pips(side: np.ndarray) -> int:
    total = 0
    for i in range(25):
        total += side[i] * (i + 1)
    return total


@njit(cache=True, nogil=True)
def _holds_back(side: np.ndarray, other: np.ndarray) -> bool:
    """``side`` plays a back game: two or more points held in the other's home board, 30 pips behind."""
    held = 0
    for i in range(18, 24):
        if side[i] >= 2:
            held += 1
    return held >= 2 and _pips(side) - _pips(other) >= 30


@njit(cache=True, nogil=True)
def _crashed(side: np.ndarray) -> bool:
    """``side`` has crashed: at most 7 checkers left in play, not counting the spares buried on its 1 and
    2 points (every checker there beyond the first)."""
    n = 0
    for i in range(25):
        n += side[i]
    n -= max(0, side[0] - 1) + max(0, side[1] - 1)
    return n <= 7


@njit(cache=True, nogil=True)
def hard_contact(board: np.ndarray) -> bool:
    """Whether a contact position is a back game or a crashed one, for either side: the kinds of
    position that 0-ply self-play rarely reaches and the 0-ply nets judge worst, which the label
    sampler can keep more often (``LabelSettings.focus``)."""
    if phase(board) != CONTACT:
        return False
    a = board[0]
    b = board[1]
    return _holds_back(a, b) or _holds_back(b, a) or _crashed(a) or _crashed(b)


@njit(cache=True)
def successors(board: np.ndarray, d1: int, d2: int, out: np.ndarray) -> int:
    """Write the distinct legal resulting boards (flipped) into ``out``; return the count.

    Returns -1 if ``out`` is too small (it never is with ``MAX_PLAYS`` rows).
    Allocates its scratch memory; hot loops use :func:`successors_ws`.
    """
    work, table = new_workspace()
    return successors_ws(board, d1, d2, out, work, table)


@njit(cache=True, inline="always")
def _dest(me: np.ndarray, opp: np.ndarray, s: int, die: int, outside: int) -> int:
    """Destination index of a step from ``s`` by ``die``; -1 = off; -2 = illegal."""
    d = s - die
    if d >= 0:
        if opp[23 - d] >= 2:
            return -2
        return d
    if outside > 0:
        return -2
    if d < -1:
        for i in range(s + 1, 6):
            if me[i] > 0:
                return -2
    return -1


@njit(cache=True, inline="always")
def _step(me: np.ndarray, opp: np.ndarray, s: int, d: int, h: np.uint64) -> tuple[bool, np.uint64]:
    """Move a checker from ``s`` to ``d`` in place; return (hit, new hash)."""
    c = me[s]
    h ^= _ZOBRIST[0, s, c] ^ _ZOBRIST[0, s, c - 1]
    me[s] = c - 1
    hit = False
    if d >= 0:
        c = me[d]
        h ^= _ZOBRIST[0, d, c] ^ _ZOBRIST[0, d, c + 1]
        me[d] = c + 1
        o = 23 - d
        if opp[o] == 1:
            hit = True
            b = opp[24]
            h ^= _ZOBRIST[1, o, 1] ^ _ZOBRIST[1, o, 0] ^ _ZOBRIST[1, 24, b] ^ _ZOBRIST[1, 24, b + 1]
            opp[o] = 0
            opp[24] = b + 1
    return hit, h


@njit(cache=True, inline="always")
def _unstep(me: np.ndarray, opp: np.ndarray, s: int, d: int, hit: bool) -> None:
    me[s] += 1
    if d >= 0:
        me[d] -= 1
        if hit:
            opp[23 - d] = 1
            opp[24] -= 1


@njit(cache=True, inline="always")
def _record(
    work: np.ndarray, out: np.ndarray, table: np.ndarray, state: np.ndarray, depth: int, h: np.uint64, flag: int
) -> None:
    """Store the working board (rows 0 and 1 of ``work``) as a result at ``depth``, flipped (the
    opponent's side first, as the opponent is on roll after the play).

    ``state``: [count, best depth, overflow]. Results shallower than the best
    are dropped; a deeper one restarts the set.
    """
    if depth < state[1]:
        return
    if depth > state[1]:
        state[1] = depth
        state[0] = 0
        table[0, _TABLE_SIZE] += 1
    stamp = table[0, _TABLE_SIZE]
    slot = np.int64(h & np.uint64(_TABLE_SIZE - 1))
    n = state[0]
    while True:
        if table[0, slot] != stamp:
            if n >= out.shape[0] or n >= MAX_PLAYS:
                state[2] = 1
                return
            for i in range(25):  # stored flipped: the opponent (on roll after the play) first
                out[n, 0, i] = work[1, i]
                out[n, 1, i] = work[0, i]
            work[2 + n, 0] = flag
            table[0, slot] = stamp
            table[1, slot] = n
            table[2, slot] = np.int64(h)
            state[0] = n + 1
            return
        if table[2, slot] == np.int64(h):
            row = table[1, slot]
            same = True
            for i in range(25):
                if out[row, 1, i] != work[0, i] or out[row, 0, i] != work[1, i]:
                    same = False
                    break
            if same:
                work[2 + row, 0] |= flag
                return
        slot = (slot + 1) & (_TABLE_SIZE - 1)


@njit(cache=True)
def successors_ws(board: np.ndarray, d1: int, d2: int, out: np.ndarray, work: np.ndarray, table: np.ndarray) -> int:
    """:func:`successors` with scratch memory from :func:`new_workspace`."""
    me = work[0]
    opp = work[1]
    me[:] = board[0]
    opp[:] = board[1]
    return _generate(d1, d2, False, out, work, table)


@njit(cache=True)
def successors_of_key(key: bytes, d1: int, d2: int, out: np.ndarray, work: np.ndarray, table: np.ndarray) -> int:
    """The rules of ``Position.legal_plays``, for the core's :class:`backgammon.moves.LegalPlays`.

    ``key`` is ``bytes(position.mine + position.theirs)``. Unlike
    :func:`successors_ws`, the results come in the order of the pure-Python
    generator in :mod:`backgammon.moves` (``d1`` first, then ``d2``), and a
    finished game gives only the flipped board.
    """
    me = work[0]
    opp = work[1]
    for i in range(25):
        me[i] = key[i]
        opp[i] = key[25 + i]
    return _generate(d1, d2, True, out, work, table)


@njit(cache=True)
def _generate(d1: int, d2: int, as_core: bool, out: np.ndarray, work: np.ndarray, table: np.ndarray) -> int:
    """The flipped resulting boards of the board in rows 0 and 1 of ``work``, into ``out``; their count.

    ``as_core``: dice in the given order (else the higher die first) and a
    finished game has no moves, as ``backgammon.moves`` does.
    """
    me = work[0]
    opp = work[1]
    h = np.uint64(0)
    outside = 0
    mine_total = 0
    theirs_total = 0
    for i in range(25):
        h ^= _ZOBRIST[0, i, me[i]] ^ _ZOBRIST[1, i, opp[i]]
        mine_total += me[i]
        theirs_total += opp[i]
        if i >= 6:
            outside += me[i]
    top = 24
    while top > 0 and me[top] == 0:
        top -= 1
    state = table[1, _TABLE_SIZE : _TABLE_SIZE + 3]  # [count, best depth, overflow], no allocation
    state[0] = 0
    state[1] = -1
    state[2] = 0
    table[0, _TABLE_SIZE] += 1
    if table[0, _TABLE_SIZE] > 1 << 60:
        table[0, :] = 0
        table[0, _TABLE_SIZE] = 1
    if as_core and (mine_total == 0 or theirs_total == 0):
        _record(work, out, table, state, 0, h, 0)
    elif d1 == d2:
        _doubles(me, opp, d1, top, outside, h, work, out, table, state)
    else:
        first = d1 if as_core else max(d1, d2)
        second = d1 + d2 - first
        flag = 1 if first > second else 2  # flag 1 marks one-die results of the higher die
        _two(me, opp, first, second, flag, False, top, outside, h, work, out, table, state)
        _two(me, opp, second, first, 3 - flag, True, top, outside, h, work, out, table, state)
        if state[1] == 1:
            # only one die can be used: the higher one if it can be
            keep = 0
            for r in range(state[0]):
                if work[2 + r, 0] & 1:
                    keep += 1
            if keep > 0:
                k = 0
                for r in range(state[0]):
                    if work[2 + r, 0] & 1:
                        if k != r:
                            out[k, :, :] = out[r]
                            work[2 + k, 0] = work[2 + r, 0]
                        k += 1
                state[0] = k
    if state[2]:
        return -1
    return state[0]  # (each result was stored flipped, by _record)


@njit(cache=True)
def _two(me, opp, a, b, flag_a, second_pass, top, outside, h, work, out, table, state) -> None:  # type: ignore[no-untyped-def]
    """Non-doubles: die ``a`` then die ``b``. ``flag_a`` marks one-die results of ``a``.

    ``top`` is the highest occupied index: no source lies above it, before or
    after the first step. In the ``second_pass`` (the other die first), two
    plain steps that the first pass also made in the other order are not
    recorded again: with no checker on the bar and neither step bearing off,
    they commute, and both orders are legal when the second step's checker was
    there before the first step (so the result is already recorded).
    """
    lo1 = 24 if me[24] > 0 else 0
    commute = second_pass and me[24] == 0
    moved = False
    for s1 in range(top, lo1 - 1, -1):
        if me[s1] == 0:
            continue
        t1 = _dest(me, opp, s1, a, outside)
        if t1 == -2:
            continue
        moved = True
        out1 = outside - 1 if (s1 >= 6 and t1 < 6) else outside
        hit1, h1 = _step(me, opp, s1, t1, h)
        if commute and state[1] == 2 and t1 >= 0 and out1 > 0:
            # only the checker just moved, alone on its point, can give a new result
            if me[t1] == 1:
                t2 = _dest(me, opp, t1, b, out1)
                if t2 >= 0:
                    hit2, h2 = _step(me, opp, t1, t2, h1)
                    _record(work, out, table, state, 2, h2, 0)
                    _unstep(me, opp, t1, t2, hit2)
            _unstep(me, opp, s1, t1, hit1)
            continue
        moved2 = False
        lo2 = 24 if me[24] > 0 else 0
        for s2 in range(top, lo2 - 1, -1):
            if me[s2] == 0:
                continue
            t2 = _dest(me, opp, s2, b, out1)
            if t2 == -2:
                continue
            moved2 = True
            if commute and t1 >= 0 and t2 >= 0 and (s2 != t1 or me[s2] >= 2):
                continue  # the first pass made the same play in the other order
            hit2, h2 = _step(me, opp, s2, t2, h1)
            _record(work, out, table, state, 2, h2, 0)
            _unstep(me, opp, s2, t2, hit2)
        if not moved2:
            _record(work, out, table, state, 1, h1, flag_a)
        _unstep(me, opp, s1, t1, hit1)
    if not moved:
        _record(work, out, table, state, 0, h, 0)


@njit(cache=True)
def _doubles(me, opp, die, top, outside, h, work, out, table, state) -> None:  # type: ignore[no-untyped-def]
    """Doubles: up to four steps, sources in non-increasing order (this covers every play)."""
    src = np.zeros(4, dtype=np.int64)
    dst = np.zeros(4, dtype=np.int64)
    hits = np.zeros(4, dtype=np.bool_)
    hs = np.zeros(5, dtype=np.uint64)
    outs = np.zeros(5, dtype=np.int64)
    hs[0] = h
    outs[0] = outside
    depth = 0
    src[0] = top + 1  # next source to try at this depth is src[depth] - 1
    moved = np.zeros(4, dtype=np.bool_)
    while depth >= 0:
        # find the next legal step at this depth
        s = src[depth] - 1
        found = False
        lo = 24 if me[24] > 0 else 0
        while s >= lo:
            if me[s] > 0:
                t = _dest(me, opp, s, die, outs[depth])
                if t != -2:
                    found = True
                    break
            s -= 1
        if not found:
            if not moved[depth]:
                _record(work, out, table, state, depth, hs[depth], 0)
            # backtrack
            depth -= 1
            if depth >= 0:
                _unstep(me, opp, src[depth], dst[depth], hits[depth])
            continue
        moved[depth] = True
        src[depth] = s
        dst[depth] = t
        hit, h2 = _step(me, opp, s, t, hs[depth])
        hits[depth] = hit
        outs[depth + 1] = outs[depth] - 1 if (s >= 6 and t < 6) else outs[depth]
        hs[depth + 1] = h2
        if depth == 3:
            _record(work, out, table, state, 4, h2, 0)
            _unstep(me, opp, s, t, hit)
            continue
        depth += 1
        src[depth] = s + 1  # non-increasing sources: the next step starts at s
        moved[depth] = False


_LOCAL = threading.local()


def _buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This thread's output buffer and workspace."""
    try:
        return _LOCAL.buffers  # type: ignore[no-any-return]
    except AttributeError:
        _LOCAL.buffers = (np.empty((MAX_PLAYS, 2, 25), dtype=np.int8), *new_workspace())
        return _LOCAL.buffers  # type: ignore[no-any-return]


def successors_py(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """Convenience wrapper: the flipped resulting boards as a new ``(n, 2, 25)`` array.

    Reuses one buffer and workspace per thread.

    Raises:
        RuntimeError: if the buffer is too small (it never is with ``MAX_PLAYS`` rows).
    """
    out, work, table = _buffers()
    n = successors_ws(np.ascontiguousarray(board, dtype=np.int8), d1, d2, out, work, table)
    if n < 0:
        raise RuntimeError("too many plays for the move generator's buffer")
    result: np.ndarray = out[:n].copy()
    return result


def _entry_point(key: bytes, d1: int, d2: int, out: np.ndarray, work: np.ndarray, table: np.ndarray) -> Any:
    """:func:`successors_of_key`'s compiled code for exactly these argument types, called without the
    dispatcher, which otherwise works out the types of the six arguments on every call (about a tenth of
    the move list's time); the dispatcher itself where numba does not offer it. The types never change:
    the key is ``bytes``, the dice ``int``, the buffers this thread's."""
    successors_of_key(key, d1, d2, out, work, table)  # compiled, or loaded from the cache, for these types
    try:
        signature = successors_of_key.typeof_pyval  # (the dispatcher's own way of typing an argument)
        types = tuple(signature(arg) for arg in (key, d1, d2, out, work, table))
        return successors_of_key.overloads[types].entry_point  # type: ignore[attr-defined]
    except (AttributeError, KeyError):
        return successors_of_key


def resulting_keys(key: bytes, d1: int, d2: int) -> bytes:
    """The core's accelerator (see :class:`backgammon.moves.LegalPlays`): the positions after the legal plays.

    ``key`` is ``bytes(position.mine + position.theirs)``; the result is one
    such 50-byte key per resulting position (seen from the opponent),
    concatenated, in the order of the pure-Python generator in
    :mod:`backgammon.moves`. Unchecked: the caller validates the dice.
    """
    try:
        out, work, table, view, kernel = _LOCAL.keys
    except AttributeError:
        out, work, table = _buffers()
        view = out.data.cast("B")  # the buffer's bytes: slicing it is cheaper than slicing the array
        kernel = _entry_point(key, d1, d2, out, work, table)
        _LOCAL.keys = (out, work, table, view, kernel)
    n = kernel(key, d1, d2, out, work, table)
    if n < 0:
        raise RuntimeError("too many plays for the move generator's buffer")
    return view[: 50 * n].tobytes()  # type: ignore[no-any-return]


def board_of(position: object) -> np.ndarray:
    """The ``(2, 25)`` int8 board of a :class:`~backgammon.position.Position`."""
    return np.array([position.mine, position.theirs], dtype=np.int8)  # type: ignore[attr-defined]
