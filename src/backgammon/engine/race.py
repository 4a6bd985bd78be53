"""One-sided race evaluation: each side's distribution of rolls to finish, combined into chances.

In a pure race (no contact) each side's future depends on its own checkers and dice only, so
the race is summed up by three one-sided distributions per side (``P(exactly n rolls)``, n = 0..
:data:`~backgammon.engine.bearoff.MAX_ROLLS` - 1):

- ``dist``: rolls to bear off every checker;
- ``first``: rolls to bear off the first checker (0 if one is off already): gammons;
- ``escape``: rolls until no checker is left in the other side's home board (its points 19..24
  seen from the side itself; 0 if none is there): backgammons.

They come from the exact one-sided database (:class:`~backgammon.engine.bearoff.BearoffDatabase`,
6 points, or a larger one where it is on disk) when every checker of the side is within it, else
from a **one-sided rollout**: many trials of the side alone (first roll stratified over the 36
ordered rolls), each played until every checker is within the database and then finished exactly
from it (the database's distributions, shifted by the rolls played). Outside the database a play
is chosen to minimise the expected rolls (to finish, or to the first off for the gammon distribution: a
second pass over the same dice), estimated as the database's mean for the position with
every checker beyond the database moved down by multiples of 6 pips until it is within it, plus the
pips that move took away over 8.17 (the mean pips of a roll); on positions of the 8-point database
rolled out from the 6-point one this policy needs 0.013 rolls more than the best play on average
(rms 0.019, 60 positions, 2,592 trials each), where moving them to the top point needed 0.086.
Inside the database plays are exact (each distribution's own best play, as in the database). The escape
distribution (backgammons) has a third pass, played to leave the other's home board soonest (fewest pips left
there, then as for the first off); when it shared the first-off pass, a side saving the backgammon was
played as if it aimed at the first off (on the 400 positions of ``benchmarks/races.py``, 288 trials, equity
rms 0.016 with the 6-point database and 0.026 with the 8-point one, against 0.019 and 0.070 before). The
8-point database's remaining excess is in the gammons (wg rms 0.017 against 0.008): the first-off estimate
beyond the database, not the database, which matches the 6-point one and rollouts from it.

:func:`combine` turns two sides' distributions into the five outputs for the side on roll, through
:func:`backgammon.engine.bearoff.race_probs` (win, gammons) and :func:`race_backgammons`; the sides
are independent, the one-sided approximation (no play aims at winning rather than at finishing
fast, nor at saving a gammon while racing).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from backgammon.engine.bearoff import MAX_ROLLS, BearoffDatabase, race_probs, rank
from backgammon.engine.movegen import MAX_PLAYS, new_workspace, successors_ws
from backgammon.errors import InvalidInputError

__all__ = [
    "MEAN_ROLL_PIPS",
    "combine",
    "one_sided",
    "race_backgammons",
    "race_outputs",
]

MEAN_ROLL_PIPS = 49.0 / 6.0  # 8.17: mean pips of a roll (doubles count four times)


@njit(cache=True, nogil=True)
def race_backgammons(a: np.ndarray, ae: np.ndarray, b: np.ndarray, be: np.ndarray, out: np.ndarray) -> None:
    """Backgammon chances into ``out[2]`` and ``out[4]`` (side A on roll): A wins one when it finishes
    on its n-th roll while B still has a checker in A's home board after n - 1 rolls (such a B has
    borne off nothing); A loses one when B finishes on its n-th roll, A having escaped in no fewer than
    n + 1 rolls. Capped by the gammons already in ``out[1]``, ``out[3]``."""
    nr = a.shape[0]
    tbe = np.zeros(nr + 1)
    tae = np.zeros(nr + 1)
    for n in range(nr - 1, -1, -1):
        tbe[n] = tbe[n + 1] + be[n]
        tae[n] = tae[n + 1] + ae[n]
    wb = 0.0
    lb = 0.0
    for n in range(nr):
        wb += a[n] * tbe[n]
        lb += b[n] * tae[n + 1]
    out[2] = min(max(wb, 0.0), out[1])
    out[4] = min(max(lb, 0.0), out[3])


@njit(cache=True, nogil=True)
def combine(
    a: np.ndarray, af: np.ndarray, ae: np.ndarray, b: np.ndarray, bf: np.ndarray, be: np.ndarray, out: np.ndarray
) -> None:
    """The five outputs for side A on roll from both sides' one-sided distributions (finish, first
    off, escape)."""
    race_probs(a, af, b, bf, out)
    race_backgammons(a, ae, b, be, out)


@njit(cache=True, nogil=True)
def _within(side: np.ndarray, points: int) -> bool:
    for i in range(points, 25):
        if side[i] != 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _zone_pips(side: np.ndarray) -> int:
    """Pips the side's checkers in the other's home board (its points 19..24) or on the bar need to leave it."""
    total = 0
    for i in range(18, 25):
        total += side[i] * (i - 17)
    return total


@njit(cache=True, nogil=True)
def _estimate(side: np.ndarray, mean: np.ndarray, ways: np.ndarray, cnt: np.ndarray, step: int) -> float:
    """Expected rolls to finish: exact inside the database; outside it, the mean of the position with
    each checker beyond the database moved down by multiples of 6 pips into it, plus those pips over 8.17."""
    npts = ways.shape[0] - 1
    excess = 0
    for p in range(npts):
        cnt[p] = side[p]
    for i in range(npts, 25):
        if side[i] > 0:
            q = i
            while q >= npts:
                q -= step
            cnt[q] += side[i]
            excess += side[i] * (i - q)
    return mean[rank(cnt, ways)] + excess / (49.0 / 6.0)


@njit(cache=True, nogil=True)
def _add_shifted(src: np.ndarray, shift: int, weight: float, dst: np.ndarray) -> None:
    nr = dst.shape[0]
    for r in range(nr):
        k = r + shift
        if k > nr - 1:
            k = nr - 1
        dst[k] += weight * src[r]


@njit(cache=True)
def rollout_side(
    side: np.ndarray,
    trials: int,
    seed: int,
    dist: np.ndarray,
    first: np.ndarray,
    mean: np.ndarray,
    fmean: np.ndarray,
    ways: np.ndarray,
    out: np.ndarray,
) -> None:
    """One-sided rollout of a side (``side``: 25 counts, its own numbering, index 24 = bar, which must
    be empty) into ``out[0]`` (finish), ``out[1]`` (first off), ``out[2]`` (escape), each a distribution
    over 0..MAX_ROLLS-1, averaged over ``trials`` trials (first roll: trial mod 36 of the ordered rolls).

    Three passes over the same dice, one policy each: the finish is played to finish soonest (``mean``: the
    database's expected rolls), the first off to bear off a first checker soonest (``fmean``: its expected
    rolls to the first off), the escape to leave the other's home board soonest (fewest pips left there,
    then as the first off)."""
    npts = ways.shape[0] - 1
    nr = out.shape[1]
    out[:, :] = 0.0
    board = np.zeros((2, 25), dtype=np.int8)
    res = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
    work, table = new_workspace()
    cnt = np.zeros(npts, dtype=np.int64)
    cur = np.zeros(25, dtype=np.int8)
    w = 1.0 / trials
    total = 0
    for i in range(25):
        total += side[i]
    for goal in range(3):
        np.random.seed(seed)
        est = mean if goal == 0 else fmean
        step = 6  # (moving them to the top point for the first off, step 1, erred more: wg rms 0.029 vs 0.020)
        for t in range(trials):
            for i in range(25):
                cur[i] = side[i]
            rolls = 0
            while True:
                if goal == 2:
                    if _zone_pips(cur) == 0 or rolls >= nr - 1:
                        out[2, rolls] += w
                        break
                elif _within(cur, npts) or rolls >= nr - 1:
                    for p in range(npts):
                        cnt[p] = cur[p]
                    j = rank(cnt, ways)
                    if goal == 0:
                        _add_shifted(dist[j], rolls, w, out[0])
                    elif total < 15:
                        out[1, 0] += w  # one is off already
                    else:
                        _add_shifted(first[j], rolls, w, out[1])
                    break
                if rolls == 0:
                    d1 = (t % 36) // 6 + 1
                    d2 = t % 6 + 1
                else:
                    d1 = np.random.randint(1, 7)
                    d2 = np.random.randint(1, 7)
                board[0, :] = cur
                board[1, :] = 0
                n = successors_ws(board, d1, d2, res, work, table)
                best = 0
                best_v = 1e18
                for c in range(n):
                    v = _estimate(res[c, 1], est, ways, cnt, step)  # results are flipped: the mover is res[c, 1]
                    if goal == 2:  # escape first: the pips still to leave the other's home board, then the first off
                        v += 1000.0 * _zone_pips(res[c, 1])
                    if v < best_v:
                        best_v = v
                        best = c
                for i in range(25):
                    cur[i] = res[best, 1, i]
                rolls += 1


class _Tables:
    """A database's arrays as the kernels take them, with its means."""

    def __init__(self, db: BearoffDatabase) -> None:
        self.points = db.points
        self.dist, self.first, self.ways = db.dist, db.first, db.ways
        self.mean = db.dist @ np.arange(MAX_ROLLS, dtype=np.float64)
        self.fmean = db.first @ np.arange(MAX_ROLLS, dtype=np.float64)


_TABLES: dict[int, _Tables] = {}


def _tables(points: int) -> _Tables:
    if points not in _TABLES:
        _TABLES[points] = _Tables(BearoffDatabase.get(points))
    return _TABLES[points]


def one_sided(side: np.ndarray, *, points: int = 6, trials: int = 1296, seed: int = 0) -> tuple[np.ndarray, bool]:
    """The side's ``(3, MAX_ROLLS)`` distributions (finish, first off, escape) and whether they are
    exact (from the database of ``points`` points) rather than rolled out.

    Raises:
        InvalidInputError: for a side that is not 25 counts of at most 15 checkers, or with one on the bar.
    """
    s = np.asarray(side)
    if s.shape != (25,) or (s < 0).any() or s.sum() > 15 or s[24] != 0:
        raise InvalidInputError("expected a side of 25 counts (0..15 checkers, none on the bar)")
    if not isinstance(trials, int) or trials < 1:
        raise InvalidInputError(f"invalid number of trials {trials!r}: expected a positive integer")
    tb = _tables(points)
    cur = s.astype(np.int8)
    out = np.zeros((3, MAX_ROLLS))
    if _within(cur, tb.points):
        j = rank(cur[: tb.points].astype(np.int64), tb.ways)
        out[0], out[1] = tb.dist[j], tb.first[j]
        out[2, 0] = 1.0
        return out, True
    rollout_side(cur, trials, seed, tb.dist, tb.first, tb.mean, tb.fmean, tb.ways, out)
    return out, False


def race_outputs(board: np.ndarray, *, points: int = 6, trials: int = 1296, seed: int = 0) -> np.ndarray:
    """Five outputs (win, wg, wbg, lg, lbg) of a race ``board`` (``(2, 25)``, side on roll first) by
    the one-sided method: each side's distributions (:func:`one_sided`), then :func:`combine`.

    Raises:
        InvalidInputError: for a board with a checker on the bar, or one whose sides are not 0..15 checkers.
    """
    b = np.asarray(board)
    if b.shape != (2, 25):
        raise InvalidInputError(f"expected a board of shape (2, 25), got {b.shape!r}")
    a, _ = one_sided(b[0], points=points, trials=trials, seed=seed)
    o, _ = one_sided(b[1], points=points, trials=trials, seed=seed + 1)
    out = np.zeros(5)
    combine(a[0], a[1], a[2], o[0], o[1], o[2], out)
    return out
