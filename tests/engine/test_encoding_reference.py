"""The tactical features' bitmask kernels give exactly the values of the encoder the shipped nets were trained
with: the reference here is that encoder's per-blot, per-distance code (encoding version 3 as first shipped)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from backgammon.engine import encoding
from backgammon.engine.encoding import _ROLL_D1, _ROLL_D2, _ROLLS_FOR, EXTRA, _reaches
from backgammon.engine.movegen import back_index, successors_py

INITIAL = np.zeros((2, 25), dtype=np.int8)
INITIAL[:, [5, 7, 12, 23]] = (5, 3, 5, 2)


@njit(cache=False)
def _escapes_ref(own, opp, r):
    far = 0
    for t in range(1, 12):
        i = r - t
        if i < 0:
            break
        if opp[23 - i] >= 2:
            far = t
    if far == 0:
        return 36
    esc = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            ok = False
            if d1 != d2:
                for d in (d1, d2, d1 + d2):
                    if d > far and r - d >= 0 and _reaches(own, opp, r, d, d1, d2) and opp[23 - (r - d)] < 2:
                        ok = True
                        break
            else:
                for k in range(1, 5):
                    d = k * d1
                    if d > far and r - d >= 0 and _reaches(own, opp, r, d, d1, d2) and opp[23 - (r - d)] < 2:
                        ok = True
                        break
            if ok:
                esc += w
    return esc


@njit(cache=False)
def _blot_rolls_ref(own, opp, b, hit):
    hit[:] = False
    target = 23 - b
    for q in range(24 if opp[24] > 0 else target + 1, 25):
        d = q - target
        if opp[q] == 0 or d > 24:
            continue
        for j in range(_ROLLS_FOR[d, 0]):
            r = _ROLLS_FOR[d, 1 + j]
            if not hit[r] and _reaches(opp, own, q, d, _ROLL_D1[r], _ROLL_D2[r]):
                hit[r] = True


@njit(cache=False)
def _side_features_ref(own, opp, out, reach):
    hits = 0
    loss = 0
    best = np.full(21, -1, dtype=np.int64)
    hit = np.empty(21, dtype=np.bool_)
    for b in range(24):
        if own[b] != 1:
            continue
        _blot_rolls_ref(own, opp, b, hit)
        for r in range(21):
            if hit[r]:
                reach[r] += 1
                if best[r] < 24 - b:
                    best[r] = 24 - b
    for r in range(21):
        if best[r] >= 0:
            w = 1 if _ROLL_D1[r] == _ROLL_D2[r] else 2
            hits += w
            loss += w * best[r]
    out[0] = hits / 36.0
    out[1] = loss / (36.0 * 12.0)
    out[2] = _escapes_ref(own, opp, back_index(own)) / 36.0
    orear = back_index(opp)
    pips = 0
    if orear >= 0:
        line = 23 - orear
        for i in range(25):
            if own[i] > 0 and i >= line:
                pips += own[i] * (i - line + 1)
    out[3] = pips / 100.0
    if own[24] > 0:
        closed = 0
        for i in range(6):
            if opp[i] >= 2:
                closed += 1
        out[4] = (closed / 6.0) ** 2
    else:
        out[4] = 0.0


@njit(cache=False)
def _mismatches(boards):
    f1 = np.empty(EXTRA)
    f2 = np.empty(EXTRA)
    bad = 0
    for i in range(boards.shape[0]):
        for s in range(2):
            r1 = np.zeros(21, dtype=np.int64)
            r2 = np.zeros(21, dtype=np.int64)
            _side_features_ref(boards[i, s], boards[i, 1 - s], f1, r1)
            encoding._side_features(boards[i, s], boards[i, 1 - s], f2, r2)
            for j in range(EXTRA):
                bad += f1[j] != f2[j]
            for j in range(21):
                bad += r1[j] != r2[j]
    return bad


def random_game_boards(n: int, seed: int) -> np.ndarray:
    """Positions of games of uniformly random plays: hits, the bar, closed boards and bear-offs."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    while len(out) < n:
        board = INITIAL.copy()
        while len(out) < n:
            cands = successors_py(board, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            board = cands[int(rng.integers(len(cands)))]
            if board[0].sum() == 0 or board[1].sum() == 0:
                break
            out.append(board)
    return np.stack(out)


@pytest.mark.parametrize("seed", [1, 2])
def test_tactical_features_equal_the_reference_encoders(seed) -> None:
    boards = random_game_boards(15000, seed)
    on_bar = (boards[:, :, 24] > 0).any(axis=1)
    blots = ((boards[:, :, :24] == 1).sum(axis=2) >= 2).any(axis=1)
    assert on_bar.mean() > 0.2 and blots.mean() > 0.3  # the hard cases are well represented
    assert _mismatches(boards) == 0
    assert _mismatches(np.ascontiguousarray(boards[:, ::-1])) == 0  # the other side on roll
