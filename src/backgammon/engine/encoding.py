"""Position to network inputs.

Each side, from the side on roll's view (side 0 = on roll, side 1 = opponent),
in its own numbering:

- for each of the 24 points, a truncated unary code: ``n >= 1``, ``n >= 2``,
  ``n >= 3`` and ``(n - 3) / 2`` for more than three (Tesauro's scheme);
- the bar: ``n >= 1`` and ``n / 2``; checkers off: ``n / 15``;
- hand features: pip count / 167, the longest run of made points / 6, made
  points in the home board / 6.

After both sides' blocks come :data:`EXTRA` tactical features per side (side 0,
then side 1), computed by :func:`side_features`:

- *exposure*: the share of the 36 rolls on which the other side can hit at
  least one of this side's blots (direct and indirect shots, intermediate
  points of combined and doubled moves must be open; a side with checkers on
  the bar hits only from the bar);
- *pip loss*: the pips this side's most costly hit blot loses, averaged over
  the 36 rolls, / 12;
- *escape*: for this side's rearmost checker, the share of the 36 rolls that
  carry it beyond the farthest of the other side's made points among the 11
  points in front of it (1 when nothing blocks it);
- *break contact*: the pips this side needs to move every checker past the
  other side's rearmost checker, / 100;
- *dance*: with checkers on the bar, the chance that one checker fails to
  enter, ``(closed home points / 6) ** 2``.

Version 3 adds :data:`PLAN` game-plan features per side (side 0, then side 1),
computed by :func:`plan_features`; *escapes* from a point are the rolls that
carry a checker there beyond the other side's farthest made point among the 11
in front of it:

- *containment* ``c`` and ``c ** 2``: one less the fewest escapes (/ 36) from
  this side's points 15 to 24, how well the other side's blockade holds it;
- *mobility*: the escapes of this side's checkers outside its home board,
  summed over checkers, / (36 * 15);
- *back anchor*: the rearmost point this side holds among its points 13 to 24,
  (point - 12) / 12, 0 when none;
- *backgame*: 1 when this side holds two or more points in the other side's
  home board;
- *timing*: free pips, the pips of this side's checkers outside its home board
  to their entry and of its home spares (beyond two on a point), / 100;
- *double shots*: the share of the 36 rolls on which the other side can reach
  two or more of this side's blots (each one alone, as for exposure);
- *moment*: the second moment of this side's checkers about their mean point,
  over the checkers beyond the mean, per checker, / 100;
- *bar entry*: with two or more on the bar, the chance that not both enter,
  ``1 - (open home points / 6) ** 2``.

Version 4 gives the race net :data:`RACE` more inputs per side (side 0, then
side 1) after all of the above, computed by :func:`race_features` (the contact
net's inputs stay those of version 3); they let the race net see the
end-of-race gammon and backgammon chances, where most of its error was:

- *home*: 1 when every checker left is in this side's home board;
- *none off*: 1 when this side has borne off no checker (a gammon is still on);
- *crossing*: the pips this side's checkers outside its home board need to
  reach it, / 60, and how many checkers are outside it, / 15;
- *stuck back*: this side's checkers in the other side's home board (or on the
  bar), / 15, and the pips they need to leave it, / 30 (a backgammon is on);
- *checkers left*: ``n <= j`` for ``j`` = 1..8, ``n`` the checkers not off;
- *rolls left*: when home, the rolls needed at least, ``max(ceil(n / 2), pips /
  8.17) / 10``; else 0 and, in the next input, the rolls to bring every checker
  home and one to its lowest point, ``(crossing pips + 6 * outside) / 8.17 / 10``.

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

from backgammon.engine.movegen import CONTACT, back_index
from backgammon.position import Position

NAME = "unary4-hand3-tactics5-plan9-race16"
VERSION = 4
#: the name of encoding version 3 (whose weight files still load: the race net's new inputs get zero weights)
V3_NAME = "unary4-hand3-tactics5-plan9"
PER_SIDE = 24 * 4 + 2 + 1 + 3
EXTRA = 5
PLAN = 9
RACE = 16
#: the inputs of encoding version 1, which version 2 extends (for warm starts)
V1_INPUTS = 2 * PER_SIDE
#: the inputs of encoding version 2, which version 3 extends
V2_INPUTS = V1_INPUTS + 2 * EXTRA
NUM_INPUTS = V2_INPUTS + 2 * PLAN
#: the race net's inputs: the contact net's, then :data:`RACE` per side
RACE_INPUTS = NUM_INPUTS + 2 * RACE


def _roll_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 21 rolls' dice, and for each distance 1..24 the rolls that can move a checker that far."""
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]
    table = np.zeros((25, 22), dtype=np.int64)
    for d in range(1, 25):
        fits = [
            i
            for i, (d1, d2) in enumerate(rolls)
            if (d1 != d2 and d in (d1, d2, d1 + d2)) or (d1 == d2 and d % d1 == 0 and d // d1 <= 4)
        ]
        table[d, 0] = len(fits)
        table[d, 1 : 1 + len(fits)] = fits
    return (np.array([r[0] for r in rolls], dtype=np.int64), np.array([r[1] for r in rolls], dtype=np.int64), table)


_ROLL_D1, _ROLL_D2, _ROLLS_FOR = _roll_tables()


@njit(cache=True, nogil=True)
def _reaches(hitter: np.ndarray, blocker: np.ndarray, q: int, d: int, d1: int, d2: int) -> bool:
    """Whether a checker at ``q`` (hitter's index, 24 = bar) can travel exactly ``d`` pips with dice
    ``d1, d2``, landing points other than the last needing to be open (``blocker``'s own numbering)."""
    if d1 != d2:
        if d == d1 or d == d2:
            return True
        if d == d1 + d2:
            m1 = q - d1
            m2 = q - d2
            if blocker[23 - m1] < 2 or blocker[23 - m2] < 2:
                return True
        return False
    if d % d1 != 0:
        return False
    k = d // d1
    if k > 4:
        return False
    for m in range(1, k):
        if blocker[23 - (q - m * d1)] >= 2:
            return False
    return True


@njit(cache=True, nogil=True)
def _open_mask(blocker: np.ndarray) -> int:
    """Bit ``t`` (0..23) set where the other side may land or pass: ``blocker`` has fewer than two checkers on
    the point that is ``t`` in the other side's numbering (its own ``23 - t``)."""
    m = 0
    for t in range(24):
        if blocker[23 - t] < 2:
            m |= 1 << t
    return m


@njit(cache=True, nogil=True)
def _reach_masks(src: int, open_points: int, masks: np.ndarray) -> None:
    """``masks[r]``: the points one checker from the bitmask ``src`` (bit ``q``: index ``q``, 24 = the bar)
    can travel to with roll ``r`` of the 21, moving one die's count or, through open intermediate points
    (``open_points``), the sum of both or two to four times a double's: bitwise, as :func:`_reaches` says
    it for one source and distance (the last landing point is not checked)."""
    for r in range(21):
        d1 = _ROLL_D1[r]
        d2 = _ROLL_D2[r]
        if d1 != d2:
            a = src >> d1
            b = src >> d2
            masks[r] = a | b | ((a & open_points) >> d2) | ((b & open_points) >> d1)
        else:
            cur = src
            m = 0
            for _ in range(4):
                cur >>= d1
                m |= cur
                cur &= open_points
            masks[r] = m


@njit(cache=True, nogil=True)
def _hit_masks(own: np.ndarray, opp: np.ndarray, masks: np.ndarray) -> None:
    """``masks[r]``: bit ``t`` set when ``opp`` can reach its index ``t`` (own's ``23 - t``) with roll ``r``
    from one of its checkers (from the bar alone when it has checkers there), intermediate points open in
    ``own``: ``(masks[r] >> (23 - b)) & 1`` is whether ``opp`` hits own's blot at ``b`` with roll ``r``."""
    src = 0
    if opp[24] > 0:
        src = 1 << 24
    else:
        for q in range(24):
            if opp[q] > 0:
                src |= 1 << q
    _reach_masks(src, _open_mask(own), masks)


@njit(cache=True, nogil=True)
def _escapes(own: np.ndarray, opp: np.ndarray, r: int, masks: np.ndarray) -> int:
    """The rolls (of 36) that carry a checker of ``own`` at index ``r`` beyond the farthest of ``opp``'s
    made points among the 11 points in front of it, landing on an open point (36 when none is made);
    ``masks`` (21 int64) is scratch."""
    if r < 0:
        return 36
    far = 0
    for t in range(1, 12):
        i = r - t
        if i < 0:
            break
        if opp[23 - i] >= 2:
            far = t
    if far == 0:
        return 36
    open_points = _open_mask(opp)
    _reach_masks(1 << r, open_points, masks)
    beyond = open_points & ((1 << (r - far)) - 1)  # open landing points farther than the blockade
    esc = 0
    for k in range(21):
        if masks[k] & beyond:
            esc += 1 if _ROLL_D1[k] == _ROLL_D2[k] else 2
    return esc


@njit(cache=True, nogil=True)
def _blot_rolls(own: np.ndarray, opp: np.ndarray, b: int, hit: np.ndarray) -> None:
    """``hit[r]`` = whether ``opp`` can hit ``own``'s blot at index ``b`` with roll ``r`` (of the 21)."""
    hit[:] = False
    target = 23 - b  # the blot's index in opp's numbering
    for q in range(24 if opp[24] > 0 else target + 1, 25):
        d = q - target
        if opp[q] == 0 or d > 24:
            continue
        for j in range(_ROLLS_FOR[d, 0]):
            r = _ROLLS_FOR[d, 1 + j]
            if not hit[r] and _reaches(opp, own, q, d, _ROLL_D1[r], _ROLL_D2[r]):
                hit[r] = True


@njit(cache=True, nogil=True)
def side_features(own: np.ndarray, opp: np.ndarray, out: np.ndarray) -> None:
    """The :data:`EXTRA` tactical features of the side ``own`` against ``opp`` (each in its own numbering)."""
    _side_features(own, opp, out, np.zeros(21, dtype=np.int64))


@njit(cache=True, nogil=True)
def _side_features(own: np.ndarray, opp: np.ndarray, out: np.ndarray, reach: np.ndarray) -> None:
    """:func:`side_features`; also adds to ``reach[r]`` the number of own's blots opp can hit with roll ``r``."""
    # exposure and pip loss: opp hits own's blots; own's blot at index b sits at opp index 23 - b
    hits = 0
    loss = 0
    best = np.full(21, -1, dtype=np.int64)  # per roll: pips lost by the costliest blot it hits
    masks = np.empty(21, dtype=np.int64)
    have_masks = False
    any_hit = False
    for b in range(24):
        if own[b] != 1:
            continue
        if not have_masks:
            _hit_masks(own, opp, masks)  # what _blot_rolls finds, for every blot at once
            have_masks = True
        target = 23 - b
        for r in range(21):
            if (masks[r] >> target) & 1:
                reach[r] += 1
                if best[r] < 24 - b:
                    best[r] = 24 - b
                    any_hit = True
    if any_hit:
        for r in range(21):
            if best[r] >= 0:
                w = 1 if _ROLL_D1[r] == _ROLL_D2[r] else 2
                hits += w
                loss += w * best[r]
    out[0] = hits / 36.0
    out[1] = loss / (36.0 * 12.0)
    # escape of the rearmost checker
    out[2] = _escapes(own, opp, back_index(own), masks) / 36.0
    # break contact: pips to bring every checker past opp's rearmost checker
    orear = back_index(opp)
    pips = 0
    if orear >= 0:
        line = 23 - orear  # own index of opp's rearmost checker (-1 when it is on the bar)
        for i in range(25):
            if own[i] > 0 and i >= line:
                pips += own[i] * (i - line + 1)
    out[3] = pips / 100.0
    # dance
    if own[24] > 0:
        closed = 0
        for i in range(6):
            if opp[i] >= 2:
                closed += 1
        out[4] = (closed / 6.0) ** 2
    else:
        out[4] = 0.0


@njit(cache=True)
def _escape_table() -> np.ndarray:
    """For each 12-bit mask of blocked points at distances 1..12 in front of a checker, the rolls (of 36)
    that carry it beyond the farthest blocked point among distances 1..11 (36 when there is none).

    A landing point must be open, and so must one of the two intermediate points of a combined
    move or every one of a doubled move; points beyond distance 12 count as open.
    """
    table = np.zeros(4096, dtype=np.int64)
    for mask in range(4096):
        far = 0
        for dist in range(1, 12):
            if (mask >> (dist - 1)) & 1:
                far = dist
        if far == 0:
            table[mask] = 36
            continue
        esc = 0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                ok = False
                if d1 != d2:
                    b1 = (mask >> (d1 - 1)) & 1
                    b2 = (mask >> (d2 - 1)) & 1
                    s = d1 + d2
                    bs = (mask >> (s - 1)) & 1 if s <= 12 else 0
                    ok = (
                        (d1 > far and b1 == 0)
                        or (d2 > far and b2 == 0)
                        or (s > far and bs == 0 and (b1 == 0 or b2 == 0))
                    )
                else:
                    for k in range(1, 5):
                        d = k * d1
                        if d <= 12 and (mask >> (d - 1)) & 1:
                            break
                        if d > far:
                            ok = True
                            break
                if ok:
                    esc += 1 if d1 == d2 else 2
        table[mask] = esc
    return table


_ESCAPES = _escape_table()


@njit(cache=True, nogil=True)
def plan_features(own: np.ndarray, opp: np.ndarray, out: np.ndarray) -> None:
    """The :data:`PLAN` game-plan features of the side ``own`` against ``opp`` (each in its own numbering)."""
    reach = np.zeros(21, dtype=np.int64)
    hit = np.empty(21, dtype=np.bool_)
    blots = 0
    for b in range(24):
        if own[b] == 1:
            blots += 1
    for b in range(24 if blots >= 2 else 0):
        if own[b] == 1:
            _blot_rolls(own, opp, b, hit)
            for r in range(21):
                reach[r] += hit[r]
    _plan_features(own, opp, out, reach)


@njit(cache=True, nogil=True)
def _plan_features(own: np.ndarray, opp: np.ndarray, out: np.ndarray, reach: np.ndarray) -> None:
    """:func:`plan_features` given ``reach[r]``: how many of own's blots opp can hit with roll ``r``."""
    # escapes from every point (the bar too), by the mask of opp's made points in the 12 in front
    esc = np.empty(25, dtype=np.int64)
    mask = 0
    for i in range(25):
        if i > 0:
            mask = ((mask << 1) | (1 if opp[24 - i] >= 2 else 0)) & 4095
        esc[i] = _ESCAPES[mask]
    lo = 36
    for i in range(14, 24):
        lo = min(lo, esc[i])
    c = 1.0 - lo / 36.0
    out[0] = c
    out[1] = c * c
    mob = 0
    for i in range(6, 25):
        if own[i] > 0:
            mob += own[i] * esc[i]
    out[2] = mob / (36.0 * 15.0)
    anchor = 0
    for i in range(23, 11, -1):
        if own[i] >= 2:
            anchor = i - 11
            break
    out[3] = anchor / 12.0
    home_anchors = 0
    for i in range(18, 24):
        if own[i] >= 2:
            home_anchors += 1
    out[4] = 1.0 if home_anchors >= 2 else 0.0
    free = 0
    for i in range(25):
        if i >= 6:
            free += own[i] * (i - 5)
        elif own[i] > 2:
            free += (own[i] - 2) * i
    out[5] = free / 100.0
    # double shots: rolls on which opp can reach two or more of own's blots (each one on its own)
    double = 0
    for r in range(21):
        if reach[r] >= 2:
            double += 1 if _ROLL_D1[r] == _ROLL_D2[r] else 2
    out[6] = double / 36.0
    # second moment of own's checkers beyond their mean position (points 1..24, the bar 25)
    n = 0
    pips = 0
    for i in range(25):
        n += own[i]
        pips += own[i] * (i + 1)
    m2 = 0.0
    if n > 0:
        mean = pips / n
        for i in range(25):
            if own[i] > 0 and i + 1 > mean:
                m2 += own[i] * (i + 1 - mean) ** 2
        m2 /= n
    out[7] = m2 / 100.0
    # two or more on the bar: the chance that not both enter
    if own[24] >= 2:
        open_points = 0
        for i in range(6):
            if opp[i] < 2:
                open_points += 1
        out[8] = 1.0 - (open_points / 6.0) ** 2
    else:
        out[8] = 0.0


@njit(cache=True, nogil=True)
def encode_sparse(board: np.ndarray, idx: np.ndarray, val: np.ndarray) -> int:
    """Write the non-zero inputs of ``board`` into ``idx``/``val``; return how many."""
    k = encode_side(board[0], 0, idx, val, 0)
    k = encode_side(board[1], PER_SIDE, idx, val, k)
    return encode_features(board, idx, val, k)


@njit(cache=True, nogil=True)
def encode_side(side: np.ndarray, base: int, idx: np.ndarray, val: np.ndarray, k: int) -> int:
    """Append the non-zero inputs of one side's block (points, bar, off, hand; inputs ``base`` to
    ``base + PER_SIDE - 1``), which depend on that side's checkers alone, after the first ``k``; return the
    new count."""
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


@njit(cache=True, nogil=True)
def encode_features(board: np.ndarray, idx: np.ndarray, val: np.ndarray, k: int) -> int:
    """Append the non-zero tactical and game-plan inputs of both sides (:data:`EXTRA` and :data:`PLAN` per
    side) after the first ``k``; return the new count."""
    feats = np.empty(EXTRA)
    reach = np.zeros((2, 21), dtype=np.int64)  # per side: its blots the other side hits with each roll
    for s in range(2):
        _side_features(board[s], board[1 - s], feats, reach[s])
        k = _append_nonzero(feats, V1_INPUTS + s * EXTRA, idx, val, k)
    plan = np.empty(PLAN)
    for s in range(2):
        _plan_features(board[s], board[1 - s], plan, reach[s])
        k = _append_nonzero(plan, V2_INPUTS + s * PLAN, idx, val, k)
    return k


@njit(cache=True, nogil=True)
def _append_nonzero(feats: np.ndarray, base: int, idx: np.ndarray, val: np.ndarray, k: int) -> int:
    """Append the non-zero entries of ``feats`` as the sparse inputs ``base + f``; return the new count."""
    for f in range(feats.shape[0]):
        if feats[f] != 0.0:
            idx[k] = base + f
            val[k] = feats[f]
            k += 1
    return k


MAX_NONZERO = 2 * (24 * 4 + 6 + EXTRA + PLAN + RACE)


@njit(cache=True, nogil=True)
def race_features(side: np.ndarray, out: np.ndarray) -> None:
    """The :data:`RACE` race inputs of one side (its own numbering) into ``out`` (see the module's notes)."""
    on = 0
    outside = 0
    cross = 0
    back = 0
    exits = 0
    home_pips = 0
    for i in range(24):
        n = side[i]
        p = i + 1
        on += n
        if p > 6:
            outside += n
            cross += n * (p - 6)
        else:
            home_pips += n * p
        if p > 18:
            back += n
            exits += n * (p - 18)
    nb = side[24]
    on += nb
    outside += nb
    cross += 19 * nb
    back += nb
    exits += 7 * nb
    out[0] = 1.0 if outside == 0 else 0.0
    out[1] = 1.0 if on == 15 else 0.0
    out[2] = cross / 60.0
    out[3] = outside / 15.0
    out[4] = back / 15.0
    out[5] = exits / 30.0
    for j in range(8):
        out[6 + j] = 1.0 if on <= j + 1 else 0.0
    if outside == 0:
        out[14] = max((on + 1) // 2, home_pips / 8.17) / 10.0
        out[15] = 0.0
    else:
        out[14] = 0.0
        out[15] = (cross + 6 * outside) / 8.17 / 10.0


@njit(cache=True, nogil=True)
def encode_race_sparse(board: np.ndarray, idx: np.ndarray, val: np.ndarray) -> int:
    """:func:`encode_sparse`, then the :data:`RACE` race inputs of each side (the race net's encoding)."""
    return encode_race_features(board, idx, val, encode_sparse(board, idx, val))


@njit(cache=True, nogil=True)
def encode_race_features(board: np.ndarray, idx: np.ndarray, val: np.ndarray, k: int) -> int:
    """Append the non-zero :data:`RACE` race inputs of each side after the first ``k``; return the new count."""
    feats = np.empty(RACE)
    for s in range(2):
        race_features(board[s], feats)
        k = _append_nonzero(feats, NUM_INPUTS + s * RACE, idx, val, k)
    return k


@njit(cache=True, nogil=True)
def encode_for(board: np.ndarray, ph: int, idx: np.ndarray, val: np.ndarray) -> int:
    """The sparse inputs of the net that values ``board`` in phase ``ph``: the contact net's
    (:func:`encode_sparse`) in contact, else the race net's (:func:`encode_race_sparse`)."""
    if ph == CONTACT:
        return encode_sparse(board, idx, val)
    return encode_race_sparse(board, idx, val)


@njit(cache=True, nogil=True)
def encode_dense(board: np.ndarray, x: np.ndarray) -> None:
    """Write all inputs of ``board`` into ``x``: the contact net's (length :data:`NUM_INPUTS`), or with
    ``x`` of length :data:`RACE_INPUTS` the race net's."""
    idx = np.empty(MAX_NONZERO, dtype=np.int64)
    val = np.empty(MAX_NONZERO, dtype=np.float64)
    x[:] = 0.0
    if x.shape[0] == RACE_INPUTS:
        k = encode_race_sparse(board, idx, val)
    else:
        k = encode_sparse(board, idx, val)
    for j in range(k):
        x[idx[j]] = val[j]


def encode_board(board: np.ndarray, race: bool = False) -> np.ndarray:
    """The input vector of a raw ``(2, 25)`` int8 board (the race net's with ``race``)."""
    x = np.zeros(RACE_INPUTS if race else NUM_INPUTS, dtype=np.float64)
    encode_dense(np.ascontiguousarray(board, dtype=np.int8), x)
    return x


def encode(position: Position, race: bool = False) -> np.ndarray:
    """The input vector of a position (the side on roll's view; the race net's with ``race``)."""
    return encode_board(np.array([position.mine, position.theirs], dtype=np.int8), race)
