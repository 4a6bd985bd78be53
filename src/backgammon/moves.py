"""Steps, plays and legal-play generation.

Glossary: a *step* moves one checker by one die; a *play* is all the steps of
a roll. Plays are identified by the position they produce, so two step
sequences that end in the same position are one play.

Rules enforced here: each die is a separate step (intermediate points must be
open), doubles give four steps, as many dice as possible must be used, when
only one die can be used the higher one must be if it can, checkers on the bar
enter before anything else, blocked points (2+ opposing checkers), hits, and
bearing off (exact die, a higher die from the highest point, only with every
checker home).

:func:`legal_plays` (``Position.legal_plays``) returns a :class:`LegalPlays`
view; :func:`find_play` is the one place that turns what a user gives (move
text, a resulting position, a clicked path) into a :class:`Play`. The plays
come from the pure-Python generator here or, when numba is installed, from
the engine's compiled one (:func:`use_accelerator`), with the same results in
the same order.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import overload

from backgammon.dice import check_dice
from backgammon.errors import IllegalPlayError, InvalidInputError
from backgammon.position import BAR, Position

BAR_POINT = 25  # point number of the bar in notation
OFF_POINT = 0  # point number of "off" in notation


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die, in the mover's point numbers.

    ``source`` is 1..24 or 25 for the bar; ``destination`` is 1..24 or 0 for
    borne off; ``hit`` is True when a blot was sent to the bar.
    """

    source: int
    destination: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_point_text(self.source)}/{_point_text(self.destination)}{'*' if self.hit else ''}"


class Play:
    """A legal play: its steps and the position it produces.

    ``position`` is the position after the play, seen from the opponent, who
    is now on roll. Two plays are equal when they produce the same position
    from the same position. Immutable.

    ``str(play)`` is the standard move notation, e.g. ``'24/18 13/11*'``; a
    roll that cannot be played gives the empty play, whose text is ``''``.
    A play from :func:`legal_plays` is a compact value (its list's shared
    record and its index there): its ``position`` is built when first asked
    for, its ``steps`` (and so its text) too.
    """

    # _source: what the plays of one list share (origin, dice, resulting keys, steps); _index: this play's
    # place there; _position and _steps: built when first asked for (unset until then)
    __slots__ = ("_index", "_position", "_source", "_steps")

    _source: _Source
    _index: int
    _position: Position
    _steps: tuple[Step, ...]

    def __init__(self, origin: Position, dice: tuple[int, int], steps: tuple[Step, ...], position: Position) -> None:
        self._source = _Source(origin, dice, position.key(), None)
        self._index = 0
        self._position = position
        self._steps = tuple(steps)

    @property
    def origin(self) -> Position:
        """The position the play is made from (the mover on roll)."""
        return self._source.origin

    @property
    def dice(self) -> tuple[int, int]:
        """The roll, in the order given to :func:`legal_plays`."""
        return self._source.dice

    @property
    def position(self) -> Position:
        """The position after the play, seen from the opponent (now on roll)."""
        try:
            return self._position
        except AttributeError:
            position = self._position = Position._from_key(self._source.key(self._index))
            return position

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, in the order played (one of the sequences that give ``position``)."""
        try:
            return self._steps
        except AttributeError:
            steps = self._steps = self._source.steps_of(self._index)
            return steps

    def _key(self) -> bytes:
        """The resulting position's :meth:`Position.key` (without building the position)."""
        return self._source.key(self._index)

    def __reduce__(self) -> tuple[type[Play], tuple[Position, tuple[int, int], tuple[Step, ...], Position]]:
        return (Play, (self.origin, self.dice, self.steps, self.position))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key() == other._key() and self.origin == other.origin

    def __hash__(self) -> int:
        return hash((self.origin, self.position))

    def __str__(self) -> str:
        from backgammon.notation import format_steps

        return format_steps(self.steps)

    def __repr__(self) -> str:
        return f"<Play {str(self) or '(no move)'!r} dice={self.dice[0]}{self.dice[1]}>"

    @property
    def dice_used(self) -> int:
        """How many dice the play uses (0 when the roll cannot be played)."""
        return len(self.steps)

    @property
    def hits(self) -> int:
        """How many opposing checkers the play sends to the bar."""
        return sum(1 for step in self.steps if step.hit)


class _ListedPlay(Play):
    """A play of a :class:`LegalPlays`, made with its shared record and index only (the cheapest object
    Python can make: two slots set, nothing built until asked for)."""

    __slots__ = ()

    def __init__(self, source: _Source, index: int) -> None:  # (not the public constructor)
        self._source = source
        self._index = index


def _point_text(point: int) -> str:
    if point == BAR_POINT:
        return "bar"
    if point == OFF_POINT:
        return "off"
    return str(point)


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


def _make_step(raw: _RawStep) -> Step:
    src, dst, hit = raw
    return Step(src + 1, dst + 1 if dst >= 0 else OFF_POINT, hit)


class _StepCache(dict[_RawStep, Step]):
    """Steps are immutable values: build each one once, when first met, and share it."""

    def __missing__(self, raw: _RawStep) -> Step:
        step = self[raw] = _make_step(raw)
        return step


_to_step = _StepCache().__getitem__


class _PairCache(dict[_RawStep, tuple[int, int]]):
    """A raw step as ``(from, to)`` point numbers, each built once and shared."""

    def __missing__(self, raw: _RawStep) -> tuple[int, int]:
        pair = self[raw] = (raw[0] + 1, raw[1] + 1 if raw[1] >= 0 else OFF_POINT)
        return pair


_to_pair = _PairCache().__getitem__


class _Source:
    """What the plays of one position and roll share: the origin, the dice, the resulting positions as
    compact keys (:meth:`Position.key`) and, found all at once when first asked, the steps.

    Shared by a :class:`LegalPlays` and its plays, and referring to neither, so that a list of
    plays and its plays are freed as soon as they are dropped (a play that pointed back at its list
    made every list a reference cycle, left to the garbage collector's pauses)."""

    __slots__ = ("dice", "origin", "rows", "steps")

    def __init__(self, origin: Position, dice: tuple[int, int], rows: bytes | list[int], steps: _Keys | None) -> None:
        # rows: the 50-byte keys concatenated (the kernel's, or one play's), or the pure-Python generator's integers
        self.origin = origin
        self.dice = dice
        self.rows = rows
        self.steps = steps

    def key(self, i: int) -> bytes:
        """The resulting position of play ``i`` as :meth:`Position.key`."""
        rows = self.rows
        if type(rows) is bytes:
            return rows[50 * i : 50 * i + 50]
        return rows[i].to_bytes(50, "little")

    def keys(self) -> list[bytes]:
        """Every play's :meth:`key`, in order."""
        rows = self.rows
        if type(rows) is bytes:
            return [rows[k : k + 50] for k in range(0, len(rows), 50)]
        return [row.to_bytes(50, "little") for row in rows]

    def steps_of(self, i: int) -> tuple[Step, ...]:
        steps = self.steps
        if steps is None:
            if self.origin.is_game_over():
                steps = {_key_of(self.origin.mine, self.origin.theirs): ()}
            else:
                steps = _generate(self.origin.mine, self.origin.theirs, *self.dice)
            self.steps = steps
        return tuple(map(_to_step, steps[int.from_bytes(self.key(i), "little")]))


class LegalPlays(Sequence[Play]):
    """The distinct legal plays of a position for a roll: a lazy, immutable sequence of :class:`Play`.

    What :meth:`Position.legal_plays` returns. ``len``, truth and ``in`` (a
    :class:`Play` or a resulting :class:`Position`) need no :class:`Play`
    objects; they are made on first iteration or indexing, each a compact value
    whose resulting position, steps and notation are built when first asked
    for. The order is the generator's (see :func:`legal_plays`), the same with
    or without the accelerator.

    >>> from backgammon.position import Position
    >>> plays = Position.initial().legal_plays(3, 1)
    >>> len(plays), str(plays.find("8/5 6/5")), plays.find("8/5 6/5").position in plays
    (16, '8/5 6/5', True)
    """

    __slots__ = ("_keys", "_n", "_plays", "_some", "_source")

    def __init__(self, origin: Position, dice: tuple[int, int], rows: bytes | list[int], steps: _Keys | None) -> None:
        # rows: the resulting positions' 50-byte keys concatenated (the kernel), or integer keys (pure Python)
        self._source = _Source(origin, dice, rows, steps)  # (the plays hold it, not this: no reference cycle)
        self._n = len(rows) // 50 if type(rows) is bytes else len(rows)
        self._plays: list[Play] | None = None
        self._some: dict[int, Play] | None = None  # plays made one by one (get) before _all made them all
        self._keys: dict[bytes, int] | None = None

    @property
    def origin(self) -> Position:
        """The position the plays are made from."""
        return self._source.origin

    @property
    def dice(self) -> tuple[int, int]:
        """The roll, in the order given."""
        return self._source.dice

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return True  # a roll always has at least the empty play

    def _all(self) -> list[Play]:
        plays = self._plays
        if plays is None:
            n = self._n
            plays = list(map(_ListedPlay, repeat(self._source, n), range(n)))
            some = self._some
            if some:
                for i, play in some.items():
                    plays[i] = play
            self._plays, self._some = plays, None
        return plays

    def _one(self, i: int) -> Play:
        """Play ``i`` without making the others (``_all`` keeps it)."""
        if self._plays is not None:
            return self._plays[i]
        if self._some is None:
            self._some = {}
        play = self._some.get(i)
        if play is None:
            play = self._some[i] = _ListedPlay(self._source, i)
        return play

    def _index(self) -> dict[bytes, int]:
        keys = self._keys
        if keys is None:
            keys = self._keys = {row: i for i, row in enumerate(self._source.keys())}
        return keys

    def __iter__(self) -> Iterator[Play]:
        plays = self._plays
        return iter(self._all() if plays is None else plays)

    @overload
    def __getitem__(self, index: int) -> Play: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Play, ...]: ...

    def __getitem__(self, index: int | slice) -> Play | tuple[Play, ...]:
        if isinstance(index, slice):
            return tuple(self._all()[index])
        return self._all()[index]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            if item.origin != self.origin:
                return False
            return item._key() in self._index()
        if not isinstance(item, Position):
            return False
        return item.key() in self._index()

    def get(self, after: Position) -> Play | None:
        """The play that gives ``after`` (seen from the opponent, as ``Play.position``), or None."""
        i = self._index().get(after.key())
        return None if i is None else self._one(i)

    def find(self, query: str | Position | Sequence[tuple[int, int]]) -> Play:
        """The play a user means: move text, a resulting position or a clicked path (see :func:`find_play`).

        Raises:
            InvalidInputError: for a malformed query.
            IllegalPlayError: when no legal play matches.
            AmbiguousPlayError: when move text matches several.
        """
        return find_play(self.origin, self.dice[0], self.dice[1], query, self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalPlays):
            return self._all() == other._all()
        if isinstance(other, tuple | list):
            return tuple(self._all()) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._all()))

    def __reduce__(self) -> tuple[type[LegalPlays], tuple[Position, tuple[int, int], bytes | list[int], None]]:
        rows = self._source.rows
        return (
            LegalPlays,
            (self.origin, self.dice, rows if type(rows) is bytes else b"".join(self._source.keys()), None),
        )

    def __repr__(self) -> str:
        return f"<LegalPlays {len(self)} plays for {self.dice[0]}{self.dice[1]} in {self.origin.position_id()}>"


_ACCELERATOR: list[Callable[[bytes, int, int], bytes] | None] = []  # [] until chosen
_WARM_UP = 1000  # calls answered in pure Python before the kernel is loaded
_calls = [0]


def use_accelerator(enabled: bool = True) -> bool:
    """Choose the generator behind :func:`legal_plays` now; return whether the compiled one is in use.

    ``True``: the engine's numba kernel, when numba is installed. It is the
    core's one optional accelerator, discovered at run time: never imported by
    ``import backgammon``. ``False``: the pure-Python generator. Both give the
    same plays in the same order.

    Without a call to this function the choice is automatic: pure Python if
    the environment variable ``BACKGAMMON_PURE_PYTHON`` is set (to anything
    but ``0``); else the kernel at once if the engine's generator is already
    loaded, otherwise after the first 1,000 calls of the process (loading
    numba costs about as much as 10,000 calls gain, so short scripts and
    single commands never load it).
    """
    kernel: Callable[[bytes, int, int], bytes] | None = None
    if enabled:
        try:
            from backgammon.engine.movegen import resulting_keys
        except ImportError:
            pass
        else:
            kernel = resulting_keys
    _ACCELERATOR[:] = [kernel]
    return kernel is not None


def _warm_up() -> Callable[[bytes, int, int], bytes] | None:
    """The automatic choice of :func:`use_accelerator`, made on the calls before it is settled."""
    if os.environ.get("BACKGAMMON_PURE_PYTHON", "0") not in ("", "0"):
        use_accelerator(False)
    elif _calls[0] >= _WARM_UP or "backgammon.engine.movegen" in sys.modules:
        use_accelerator(True)
    else:
        _calls[0] += 1
        return None
    return _ACCELERATOR[0]


def legal_plays(position: Position, die1: int, die2: int) -> LegalPlays:
    """The distinct legal plays of ``position`` for the roll ``die1``-``die2``.

    See :meth:`Position.legal_plays`. Plays are ordered as the depth-first
    generator finds them: ``die1`` first, then ``die2``; sources from the back
    of the board forwards.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    if not (type(die1) is int and type(die2) is int and 0 < die1 < 7 and 0 < die2 < 7):
        check_dice(die1, die2)
    try:
        kernel = _ACCELERATOR[0]
    except IndexError:
        kernel = _warm_up()
    if kernel is not None:
        return LegalPlays(position, (die1, die2), kernel(position.key(), die1, die2), None)
    if position.is_game_over():
        # nothing to play once a side has borne off all its checkers (moving
        # on would build a board with both sides off, which is not a position)
        results: _Keys = {_key_of(position.mine, position.theirs): ()}
    else:
        results = _generate(position.mine, position.theirs, die1, die2)
    return LegalPlays(position, (die1, die2), list(results), results)


def play_from_position(position: Position, die1: int, die2: int, after: Position) -> Play:
    """The legal play of ``position`` and roll that produces ``after`` (seen from the opponent).

    Raises:
        IllegalPlayError: if no legal play produces that position.
    """
    play = legal_plays(position, die1, die2).get(after)
    if play is not None:
        return play
    raise IllegalPlayError(
        f"no legal play for roll {die1}-{die2} in position {position.position_id()} "
        f"gives position {after.position_id()}"
    )


def find_play(
    position: Position,
    die1: int,
    die2: int,
    query: str | Position | Sequence[tuple[int, int]],
    plays: Sequence[Play] | None = None,
) -> Play:
    """The legal play a user means: the one place that turns what a person or program gives
    into a :class:`Play` of ``position`` for the roll.

    ``query`` is one of:

    - move text (``"24/18 13/11*"``; :func:`backgammon.notation.parse_play` rules; the text the
      program prints for a play, ``str(play)``, always finds that play);
    - the resulting :class:`Position` (seen from the opponent, as ``Play.position``);
    - a clicked path: the complete list of ``(from, to)`` steps in the mover's numbering
      (25 = bar, 0 = off), in the order played; ``()`` when the roll cannot be played.

    ``plays`` may pass ``legal_plays(position, die1, die2)`` when the caller has them.

    >>> from backgammon.position import Position
    >>> str(find_play(Position.initial(), 3, 1, [(8, 5), (6, 5)]))
    '8/5 6/5'

    Raises:
        InvalidInputError: for a malformed query.
        IllegalPlayError: when no legal play matches.
        AmbiguousPlayError: when move text matches several.
    """
    dice = check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, *dice)
    if isinstance(query, Position):
        if isinstance(plays, LegalPlays):
            found = plays.get(query)
        else:
            found = next((play for play in plays if play.position == query), None)
        if found is not None:
            return found
        raise IllegalPlayError(
            f"illegal move: no legal play for {dice[0]}-{dice[1]} in position {position.position_id()} "
            f"gives position {query.position_id()}"
        )
    if isinstance(query, str):
        text = query.strip()
        for play in plays:
            if str(play) == text:
                return play
        from backgammon.notation import parse_play

        return parse_play(position, dice[0], dice[1], text)
    steps = _check_path(query)
    if not steps and len(plays) == 1 and not plays[0].steps:
        return plays[0]
    after = step_graph(position, dice[0], dice[1], plays).follow(steps)
    if after is not None:
        return find_play(position, dice[0], dice[1], after, plays)
    text = " ".join(f"{a}/{b}" for a, b in steps) or "(no move)"
    raise IllegalPlayError(f"illegal move {text!r} for {dice[0]}-{dice[1]}: expected a complete legal play")


def _check_path(value: object) -> tuple[tuple[int, int], ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) > 4:
        raise InvalidInputError("invalid steps: expected a list of up to 4 [from, to] pairs")
    steps = []
    for item in value:
        if (
            not isinstance(item, Sequence)
            or isinstance(item, str | bytes)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 25 for x in item)
        ):
            raise InvalidInputError("invalid step: expected [from, to] with points 0..25")
        steps.append((item[0], item[1]))
    return tuple(steps)


def all_step_sequences(
    position: Position, die1: int, die2: int, plays: Sequence[Play] | None = None
) -> list[tuple[tuple[Step, ...], Position]]:
    """Every legal step sequence (not deduplicated), with the position it produces.

    Used to match hand-written move text against the legal plays.
    ``plays`` may pass in ``legal_plays(position, die1, die2)`` if already known.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    return _sequences(position, die1, die2, plays)


@dataclass(frozen=True, slots=True, eq=False)
class StepGraph:
    """The legal step sequences of a roll as a graph: what a user interface needs to offer the
    steps one click at a time, without listing every order of every play.

    ``nodes[0]`` is the start; each node is a tuple of edges ``(from, to, child)``: a step in the
    mover's point numbers (25 = bar, 0 = off) and the index of the node it leads to. Every path
    from the start has ``length`` steps and ends on a node without edges, a complete legal play
    (``ends[node]`` is its resulting position, seen from the opponent as ``Play.position``); each
    node's edges lead only to nodes from which a complete play can still be reached. Paths that
    reach the same intermediate board with the same dice left share their node, so a double's
    thousands of orders of the same steps are a few hundred nodes. The step sequences it holds are
    exactly those of :func:`all_step_sequences` as ``(from, to)`` pairs (each once).

    >>> from backgammon.position import Position
    >>> graph = step_graph(Position.initial(), 3, 1)
    >>> graph.length, len(graph.nodes[0]) > 0
    (2, True)
    >>> str(graph.follow([(8, 5), (6, 5)]).position_id())
    'sGfwATDgc/ABMA'
    """

    length: int
    nodes: tuple[tuple[tuple[int, int, int], ...], ...]
    results: dict[int, bytes]  # complete-play node -> its resulting position's 50-byte key

    @property
    def ends(self) -> dict[int, Position]:
        """Each complete play's node with its resulting position (seen from the opponent)."""
        return {node: self.end(node) for node in self.results}

    def end(self, node: int) -> Position:
        """The resulting position of a complete play's node (seen from the opponent)."""
        row = self.results[node]
        return Position._trusted(tuple(row[:25]), tuple(row[25:]))

    def follow(self, steps: Sequence[tuple[int, int]]) -> Position | None:
        """The position a complete step sequence gives, or None when it is not a legal play's."""
        if len(steps) != self.length:
            return None
        node = 0
        for step in steps:
            for src, dst, child in self.nodes[node]:
                if src == step[0] and dst == step[1]:
                    node = child
                    break
            else:
                return None
        return self.end(node) if node in self.results else None

    def sequences(self) -> Iterator[tuple[tuple[int, int], ...]]:
        """Every step sequence the graph holds (depth first, edges in order)."""

        def walk(node: int, prefix: tuple[tuple[int, int], ...]) -> Iterator[tuple[tuple[int, int], ...]]:
            edges = self.nodes[node]
            if not edges:
                yield prefix
            for src, dst, child in edges:
                yield from walk(child, (*prefix, (src, dst)))

        return walk(0, ())


def step_graph(position: Position, die1: int, die2: int, plays: Sequence[Play] | None = None) -> StepGraph:
    """The legal step sequences of a roll as a :class:`StepGraph`.

    Edges are in the order of the dice as rolled, then of the sources from the back (the bar
    first); a step that two dice make alike (bearing off the same checker with either die) is one
    edge, to a node that joins both continuations. ``plays`` may pass in ``legal_plays(...)``: the
    resulting positions are read from it (the higher-die rule), no :class:`Play` is built.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    if isinstance(plays, LegalPlays):
        rows = plays._source.keys()
    else:
        rows = [p._key() for p in plays]
    ends = {int.from_bytes(row, "little"): row for row in rows}  # the legal results, as board keys
    mine = list(position.mine)
    theirs = list(position.theirs)
    memo: dict[tuple[int, tuple[int, ...]], tuple[int, int]] = {}  # (board key, dice left) -> (node, reach)
    joined: dict[tuple[int, ...], int] = {}
    edges_of: list[tuple[tuple[int, int, int], ...]] = []
    end_of: dict[int, bytes] = {}

    def node(key: int, left: tuple[int, ...]) -> tuple[int, int]:
        """This board's node (-1 when no legal play ends through it) and how many more steps it can
        make (its reach: the rules demand as many dice as can be played, so only the children that
        reach furthest count)."""
        known = memo.get((key, left))
        if known is not None:
            return known
        edges: list[tuple[int, int, int]] = []
        reach = 0
        sources = (BAR,) if mine[BAR] else [src for src in range(23, -1, -1) if mine[src]]
        for i, die in enumerate(left):
            if die in left[:i]:
                continue
            rest = left[:i] + left[i + 1 :]
            for src in sources:
                if not mine[src]:
                    continue
                dst = _can_step(mine, theirs, src, die)
                if dst == -2:
                    continue
                hit = _apply(mine, theirs, src, dst)
                key2 = key - _MINE[src] + (_MINE[dst] + (_HIT[dst] if hit else 0) if dst >= 0 else 0)
                child, further = node(key2, rest) if rest else _leaf(key2)  # noqa: F821 (deleted after the search, see below)  # noqa: F821 (deleted after the search, see below)
                _undo(mine, theirs, src, dst, hit)
                if further + 1 > reach:  # a longer way: the shorter ones found so far are not legal
                    reach, edges = further + 1, []
                if further + 1 == reach and child >= 0:
                    edges.append((*_to_pair((src, dst, hit)), child))
        if reach == 0:
            found = _leaf(key)  # noqa: F821 (deleted after the search, see below)
        elif edges:
            if len({(src, dst) for src, dst, _child in edges}) < len(edges):  # the same step by either die
                edges = _joined_edges(edges, join)  # noqa: F821 (deleted after the search, see below)
            edges_of.append(tuple(edges))
            found = (len(edges_of) - 1, reach)
        else:
            found = (-1, reach)
        memo[(key, left)] = found
        return found

    def _leaf(key: int) -> tuple[int, int]:
        """No step left: a complete play if its result is legal (the higher-die rule), else dead."""
        row = ends.get(key)
        if row is None:
            return -1, 0
        index = memo.get((key, ()), (None, 0))[0]
        if index is None:
            index = len(edges_of)
            edges_of.append(())
            end_of[index] = row
            memo[(key, ())] = (index, 0)
        return index, 0

    def join(children: list[int]) -> int:
        ids = tuple(sorted(set(children)))
        if len(ids) == 1:
            return ids[0]
        index = joined.get(ids)
        if index is None:
            index = joined[ids] = len(edges_of)
            edges_of.append(())
            edges_of[index] = tuple(_joined_edges([e for i in ids for e in edges_of[i]], join))  # noqa: F821 (deleted after the search, see below)
        return index

    root = _key_of(mine, theirs)
    start, length = node(root, (die1,) * 4 if die1 == die2 else (die1, die2))
    del node, _leaf, join  # (break the closures' reference cycles: see _doubles)
    if start < 0:  # no step leads to a legal play (the game is over): the empty play
        row = ends.get(root)
        return StepGraph(0, ((),), {0: row} if row else {})
    # number the nodes depth first from the start (index 0), edges in order
    number: dict[int, int] = {}
    stack = [start]
    while stack:
        at = stack.pop()
        if at in number:
            continue
        number[at] = len(number)
        stack.extend(child for _src, _dst, child in reversed(edges_of[at]))
    nodes: list[tuple[tuple[int, int, int], ...]] = [()] * len(number)
    for old, new in number.items():
        nodes[new] = tuple((src, dst, number[child]) for src, dst, child in edges_of[old])
    return StepGraph(length, tuple(nodes), {number[old]: row for old, row in end_of.items() if old in number})


def _joined_edges(edges: list[tuple[int, int, int]], join: Callable[[list[int]], int]) -> list[tuple[int, int, int]]:
    """Edges with each step once, in first-seen order; a step's several children joined by ``join``."""
    children: dict[tuple[int, int], list[int]] = {}
    for src, dst, child in edges:
        children.setdefault((src, dst), []).append(child)
    return [(src, dst, join(kids)) for (src, dst), kids in children.items()]


def _sequences(
    position: Position, die1: int, die2: int, plays: Sequence[Play] | None
) -> list[tuple[tuple[Step, ...], Position]]:
    """The search behind :func:`all_step_sequences`: every order of steps using as many dice as
    the roll allows that ends on a legal play's position (that play's own :class:`Position`
    object).

    Depth first, sources from the back, in the order of the dice (both orders for a
    non-double); the sequences that continue from an intermediate board are found once per
    distinct board and depth and shared by every path that reaches it (a double's orders of
    the same steps meet on the same boards), so the work grows with the distinct boards, not
    with the number of sequences."""
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = plays[0].dice_used if plays else 0  # (every legal play uses as many dice: the rules' maximum)
    allowed = {(p.position.mine, p.position.theirs): p.position for p in plays}  # (tuples hash fast)
    mine = list(position.mine)
    theirs = list(position.theirs)
    out: list[tuple[tuple[Step, ...], Position]] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    for dice in orders:
        memo: dict[tuple[tuple[int, ...], tuple[int, ...], int], list[tuple[tuple[Step, ...], Position]]] = {}

        def suffixes(depth: int) -> list[tuple[tuple[Step, ...], Position]]:
            if depth == best_len:
                after = allowed.get((tuple(theirs), tuple(mine)))  # the side to move changes
                return [((), after)] if after is not None else []
            key = (tuple(mine), tuple(theirs), depth)
            known = memo.get(key)
            if known is not None:
                return known
            found: list[tuple[tuple[Step, ...], Position]] = []
            die = dice[depth]
            sources = (BAR,) if mine[BAR] else [src for src in range(23, -1, -1) if mine[src]]
            for src in sources:  # (each child restores the board, so the occupied points stay the same)
                dst = _can_step(mine, theirs, src, die)
                if dst == -2:
                    continue
                hit = _apply(mine, theirs, src, dst)
                later = suffixes(depth + 1)  # noqa: F821 (deleted after the search, see below)
                if later:
                    first = (_to_step((src, dst, hit)),)
                    found.extend([(first + rest, after) for rest, after in later])
                _undo(mine, theirs, src, dst, hit)
            memo[key] = found
            return found

        out.extend(suffixes(0))
        del suffixes  # (break the closure's reference cycle: see _doubles)
    return out


def sequences_along(
    position: Position,
    die1: int,
    die2: int,
    paths: tuple[tuple[tuple[int, ...], tuple[bool, ...]], ...],
    plays: Sequence[Play] | None = None,
) -> list[tuple[tuple[Step, ...], Position, int]]:
    """The legal step sequences that move checkers along written paths.

    Each path is ``(points, hits)``: the points one checker visits in order
    (25 = bar, 0 = off; the first is where it starts, the last where it ends,
    the others must be passed or touched on the way) and, per point, whether a
    hit is marked there (a marked point must be reached by a hitting step).
    Every path must be completed, the sequence must use as many dice as the
    roll allows and produce one of the legal plays. Only steps along the
    paths are tried, so this is fast even for doubles.

    Returns ``(steps, position after, unmarked hits)`` triples, where the last
    counts hits on points that the hitting checker's path does not mark.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = max((p.dice_used for p in plays), default=0)
    allowed = {p.position for p in plays}
    mine = list(position.mine)
    theirs = list(position.theirs)
    at = [points[0] for points, _ in paths]
    nxt = [1] * len(paths)
    marked = [{point for point, hit in zip(points, hits, strict=True) if hit} for points, hits in paths]
    out: list[tuple[tuple[Step, ...], Position, int]] = []
    steps: list[_RawStep] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    def rec(dice: tuple[int, ...], depth: int, unmarked: int) -> None:
        if depth == best_len:
            if all(n == len(points) for n, (points, _) in zip(nxt, paths, strict=True)):
                after = Position._trusted(tuple(theirs), tuple(mine))
                if after in allowed:
                    out.append((tuple(_to_step(s) for s in steps), after, unmarked))
            return
        die = dice[depth]
        for i, (points, hits) in enumerate(paths):
            if nxt[i] >= len(points):
                continue
            here = at[i]
            if mine[BAR] and here != BAR_POINT:
                continue
            src = BAR if here == BAR_POINT else here - 1
            if not 0 <= src <= BAR or not mine[src]:
                continue
            dst = _can_step(mine, theirs, src, die)
            if dst == -2:
                continue
            dst_point = dst + 1 if dst >= 0 else OFF_POINT
            target = points[nxt[i]]
            if dst_point < target:  # overshoots the next written point
                continue
            hit = _apply(mine, theirs, src, dst)
            if dst_point == target and hits[nxt[i]] and not hit:
                _undo(mine, theirs, src, dst, hit)
                continue
            steps.append((src, dst, hit))
            at[i] = dst_point
            nxt[i] += dst_point == target
            rec(dice, depth + 1, unmarked + (hit and dst_point not in marked[i]))  # noqa: F821 (deleted after the search, see below)
            nxt[i] -= dst_point == target
            at[i] = here
            steps.pop()
            _undo(mine, theirs, src, dst, hit)

    for order in orders:
        rec(order, 0, 0)
    del rec  # (break the closure's reference cycle: see _doubles)
    return out
