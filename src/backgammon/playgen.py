"""The pure-Python legal-play generator behind :func:`backgammon.moves.legal_plays`.

It finds the positions a roll can lead to as exact integer keys (see below),
each with its first step sequence, applying every rule listed in
:mod:`backgammon.moves`. The engine's compiled generator
(:mod:`backgammon.engine.movegen`, the core's optional accelerator) gives the
same results in the same order. The low-level step helpers here (raw steps,
board keys) are shared with :mod:`backgammon.steps`. Private to the core: use
:func:`backgammon.moves.legal_plays`.
"""

from __future__ import annotations

from collections.abc import Sequence

from backgammon.position import BAR

# A raw step inside the generator: (source index, destination index, hit)
# with indices 0..23 for points 1..24, 24 for the bar and -1 for off.
_RawStep = tuple[int, int, bool]


def _can_step(mine: list[int], theirs: list[int], src: int, die: int) -> int:
    """Destination index for moving from ``src`` by ``die``, or -2 if illegal."""
    dst = src - die
    if dst >= 0:
        if theirs[23 - dst] >= 2:
            return -2
        return dst
    # bearing off: every checker must be home (indices 0..5), none on the bar
    for i in range(6, 25):
        if mine[i]:
            return -2
    if dst == -1:
        return -1
    for i in range(src + 1, 6):  # a higher die only from the highest point
        if mine[i]:
            return -2
    return -1


def _apply(mine: list[int], theirs: list[int], src: int, dst: int) -> bool:
    mine[src] -= 1
    if dst < 0:
        return False
    mine[dst] += 1
    if theirs[23 - dst] == 1:
        theirs[23 - dst] = 0
        theirs[BAR] += 1
        return True
    return False


def _undo(mine: list[int], theirs: list[int], src: int, dst: int, hit: bool) -> None:
    mine[src] += 1
    if dst >= 0:
        mine[dst] -= 1
        if hit:
            theirs[23 - dst] = 1
            theirs[BAR] -= 1


# Resulting positions are found as exact integer keys: byte i (0..24) of the
# key, little-endian, counts the opponent's checkers on their index i and byte
# 25 + i the mover's, so ``key.to_bytes(50, "little")`` is
# ``bytes(after.mine + after.theirs)`` of the position after the play (seen
# from the opponent), the layout of the engine kernel's results. A step only
# adds and subtracts powers of 256, which keeps the key exact and cheap.
_MINE = tuple(1 << 8 * (25 + i) for i in range(25))
_HIT = tuple((1 << 8 * 24) - (1 << 8 * (23 - i)) for i in range(24))  # a blot at my index i goes to their bar
_DESC = tuple(range(24, -1, -1))
_Keys = dict[int, tuple[_RawStep, ...]]


def _key_of(mine: Sequence[int], theirs: Sequence[int]) -> int:
    return int.from_bytes(bytes(theirs) + bytes(mine), "little")


def _generate(mine_t: tuple[int, ...], theirs_t: tuple[int, ...], die1: int, die2: int) -> _Keys:
    """The legal resulting positions as keys (see above), each with its first step sequence, in order.

    Depth-first over the dice orders (``die1`` first), sources from the back
    of the board forwards; deduplicated by resulting position; as many dice as
    possible; when only one die can be used, the higher one if it can be.
    Unchecked: the caller validates the dice.
    """
    mine = list(mine_t)
    theirs = list(theirs_t)
    if die1 == die2:
        return _doubles(mine, theirs, die1)
    return _two_dice(mine, theirs, die1, die2)


def _two_dice(mine: list[int], theirs: list[int], die1: int, die2: int) -> _Keys:
    results: _Keys = {}
    singles: dict[int, int] = {}  # one-die results: which dice gave them (bit 1: the higher die)
    best = -1
    key0 = _key_of(mine, theirs)
    bar = mine[BAR]
    outside0 = sum(mine[6:])
    occupied = [i for i in _DESC if mine[i]]
    high_first = 1 if die1 > die2 else 2
    for a, b, flag, second_pass in ((die1, die2, high_first, False), (die2, die1, 3 - high_first, True)):
        # In the second pass, two plain steps (no bar, no bearing off) that the first pass made in the
        # other order give a position already found: skip them (the kernel does the same).
        commute = second_pass and not bar
        moved = False
        for s1 in (BAR,) if bar else occupied:
            t1 = s1 - a
            if t1 >= 0:
                if theirs[23 - t1] >= 2:
                    continue
            elif outside0 or (t1 < -1 and any(mine[s1 + 1 : 6])):
                continue
            else:
                t1 = -1
            moved = True
            mine[s1] -= 1
            key1 = key0 - _MINE[s1]
            hit1 = False
            if t1 >= 0:
                new_point = not mine[t1]
                mine[t1] += 1
                key1 += _MINE[t1]
                if theirs[23 - t1] == 1:
                    theirs[23 - t1] = 0
                    theirs[BAR] += 1
                    key1 += _HIT[t1]
                    hit1 = True
            else:
                new_point = False
            outside1 = outside0 - 1 if s1 >= 6 and t1 < 6 else outside0
            sources: Sequence[int]
            if commute and best == 2 and t1 >= 0 and outside1:
                # only the checker just moved, alone on its point, can give a new position
                t2 = t1 - b
                if new_point and t2 >= 0 and theirs[23 - t2] < 2:
                    key2 = key1 - _MINE[t1] + _MINE[t2]
                    hit2 = theirs[23 - t2] == 1
                    if hit2:
                        key2 += _HIT[t2]
                    if key2 not in results:
                        results[key2] = ((s1, t1, hit1), (t1, t2, hit2))
                sources = ()
            elif mine[BAR]:
                sources = (BAR,)
            elif new_point:
                k = 0
                while k < len(occupied) and occupied[k] > t1:
                    k += 1
                sources = [*occupied[:k], t1, *occupied[k:]]
            else:
                sources = occupied
            moved2 = not sources  # the shortcut above: a second die was played, no one-die result
            for s2 in sources:
                if not mine[s2]:
                    continue
                t2 = s2 - b
                if t2 >= 0:
                    if theirs[23 - t2] >= 2:
                        continue
                    moved2 = True
                    if commute and t1 >= 0 and (s2 != t1 or mine[s2] >= 2):
                        continue
                    key2 = key1 - _MINE[s2] + _MINE[t2]
                    hit2 = theirs[23 - t2] == 1
                    if hit2:
                        key2 += _HIT[t2]
                elif outside1 or (t2 < -1 and any(mine[s2 + 1 : 6])):
                    continue
                else:
                    moved2 = True
                    t2 = -1
                    hit2 = False
                    key2 = key1 - _MINE[s2]
                if best != 2:
                    best = 2
                    results.clear()
                if key2 not in results:
                    results[key2] = ((s1, t1, hit1), (s2, t2, hit2))
            if not moved2 and best <= 1:
                if best < 1:
                    best = 1
                    results.clear()
                if key1 not in results:
                    results[key1] = ((s1, t1, hit1),)
                singles[key1] = singles.get(key1, 0) | flag
            mine[s1] += 1
            if t1 >= 0:
                mine[t1] -= 1
                if hit1:
                    theirs[23 - t1] = 1
                    theirs[BAR] -= 1
        if not moved and best <= 0:
            best = 0
            results[key0] = ()
    if best == 1 and any(f & 1 for f in singles.values()):
        results = {key: steps for key, steps in results.items() if singles[key] & 1}
    return results


def _doubles(mine: list[int], theirs: list[int], die: int) -> _Keys:
    results: _Keys = {}
    best = [-1]
    # every step a checker may make during the play, from the back forwards: (source, destination,
    # key change, the destination in the opponent's numbering, key change of a hit there); steps onto
    # a point the opponent holds are left out (hits never make a point, so it stays held)
    reach = {s - j * die for s in range(25) if mine[s] for j in range(4)}
    candidates = []
    for s in sorted((i for i in reach if i >= 0), reverse=True):
        t = s - die
        if t < 0:
            candidates.append((s, -1, -_MINE[s], -1, 0))
        elif theirs[23 - t] < 2:
            candidates.append((s, t, _MINE[t] - _MINE[s], 23 - t, _HIT[t]))
    last = len(candidates)
    sources = [step[0] for step in candidates]
    on_bar = mine[BAR] > 0
    steps: list[_RawStep] = []

    def rec(depth: int, first: int, key: int, outside: int) -> None:
        """Steps ``depth`` (0..2) and on, from candidates ``first`` and later; the fourth step is inlined."""
        moved = False
        for c in range(first, last):
            if not mine[sources[c]]:
                continue
            s, t, delta, o, hit_delta = candidates[c]
            if on_bar and mine[BAR] and s != BAR:
                break
            if t < 0:
                if outside or (s + 1 < die and any(mine[s + 1 : 6])):  # a higher die: from the highest point only
                    continue
            moved = True
            key2 = key + delta
            hit = t >= 0 and theirs[o] == 1
            if hit:
                key2 += hit_delta
            mine[s] -= 1
            if t >= 0:
                mine[t] += 1
                if hit:
                    theirs[o] = 0
                    theirs[BAR] += 1
            steps.append((s, t, hit))
            outside2 = outside - 1 if s >= 6 and t < 6 else outside
            if depth < 2:
                rec(depth + 1, c, key2, outside2)  # sources never increase  # noqa: F821 (deleted after the search, see below)
            else:  # the fourth step: only keys, no board changes
                moved4 = False
                for c4 in range(c, last):
                    if not mine[sources[c4]]:
                        continue
                    s4, t4, delta4, o4, hit_delta4 = candidates[c4]
                    if on_bar and mine[BAR] and s4 != BAR:
                        break
                    if t4 < 0:
                        if outside2 or (s4 + 1 < die and any(mine[s4 + 1 : 6])):
                            continue
                    moved4 = True
                    key4 = key2 + delta4
                    hit4 = t4 >= 0 and theirs[o4] == 1
                    if hit4:
                        key4 += hit_delta4
                    if best[0] != 4:
                        best[0] = 4
                        results.clear()
                    if key4 not in results:
                        results[key4] = (*steps, (s4, t4, hit4))
                if not moved4 and best[0] <= 3:
                    if best[0] < 3:
                        best[0] = 3
                        results.clear()
                    if key2 not in results:
                        results[key2] = tuple(steps)
            steps.pop()
            mine[s] += 1
            if t >= 0:
                mine[t] -= 1
                if hit:
                    theirs[o] = 1
                    theirs[BAR] -= 1
        if not moved and depth >= best[0]:
            if depth > best[0]:
                best[0] = depth
                results.clear()
            if key not in results:
                results[key] = tuple(steps)

    rec(0, 0, _key_of(mine, theirs), sum(mine[6:]))
    del rec  # (a recursive closure is a reference cycle: break it, so the search's objects go at once)
    return results
