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

Modules: this one holds the values (:class:`Step`, :class:`Play`), the list of
legal plays (:class:`LegalPlays`, :func:`legal_plays`, :func:`use_accelerator`)
and :func:`find_play`; the pure-Python generator is :mod:`backgammon.playgen`;
the step sequences (:class:`StepGraph`, :func:`step_graph`,
:func:`all_step_sequences`, :func:`sequences_along`) are :mod:`backgammon.steps`,
importable from here too.
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
from backgammon.playgen import _generate, _key_of, _Keys, _RawStep
from backgammon.position import Position

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


_part = tuple.__getitem__  # a play's (record, index), read past the overrides below that hide them


class Play(tuple):  # type: ignore[type-arg]
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

    # Underneath, the pair (record, index) in a tuple, which C makes without running any Python: a list of
    # plays costs one small object per play. The record (_Source) is shared by the plays of one list and
    # keeps what was built for them (positions, steps). A play is not a sequence: len, iteration, indexing,
    # ordering and concatenation are refused as for any other object.
    __slots__ = ()

    def __new__(cls, origin: Position, dice: tuple[int, int], steps: Sequence[Step], position: Position) -> Play:
        source = _Source(origin, dice, position.key(), None)
        source.made = {0: position}
        source.played = {0: tuple(steps)}
        return tuple.__new__(cls, (source, 0))

    @property
    def origin(self) -> Position:
        """The position the play is made from (the mover on roll)."""
        source: _Source = _part(self, 0)
        return source.origin

    @property
    def dice(self) -> tuple[int, int]:
        """The roll, in the order given to :func:`legal_plays`."""
        source: _Source = _part(self, 0)
        return source.dice

    @property
    def position(self) -> Position:
        """The position after the play, seen from the opponent (now on roll)."""
        source: _Source = _part(self, 0)
        i: int = _part(self, 1)
        made = source.made
        if made is None:
            made = source.made = {}
        else:
            position = made.get(i)
            if position is not None:
                return position
        position = made[i] = Position._from_key(source.key(i))
        return position

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, in the order played (one of the sequences that give ``position``)."""
        source: _Source = _part(self, 0)
        i: int = _part(self, 1)
        played = source.played
        if played is None:
            played = source.played = {}
        else:
            steps = played.get(i)
            if steps is not None:
                return steps
        steps = played[i] = source.steps_of(i)
        return steps

    def _key(self) -> bytes:
        """The resulting position's :meth:`Position.key` (without building the position)."""
        source: _Source = _part(self, 0)
        return source.key(_part(self, 1))

    def __reduce__(self) -> tuple[type[Play], tuple[Position, tuple[int, int], tuple[Step, ...], Position]]:
        return (Play, (self.origin, self.dice, self.steps, self.position))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._key() == other._key() and self.origin == other.origin

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:
        return hash((self.origin, self.position))

    def __str__(self) -> str:
        from backgammon.notation import format_steps

        return format_steps(self.steps)

    def __repr__(self) -> str:
        return f"<Play {str(self) or '(no move)'!r} dice={self.dice[0]}{self.dice[1]}>"

    # not a sequence ---------------------------------------------------------------------------------
    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        raise TypeError("object of type 'Play' has no len()")

    def __iter__(self) -> Iterator[object]:
        raise TypeError("'Play' object is not iterable")

    def __getitem__(self, index: object) -> object:  # type: ignore[override]
        raise TypeError("'Play' object is not subscriptable")

    def __contains__(self, item: object) -> bool:
        raise TypeError("argument of type 'Play' is not iterable")

    def __lt__(self, other: object) -> bool:
        return NotImplemented

    __le__ = __gt__ = __ge__ = __lt__

    def __add__(self, other: object) -> Play:
        return NotImplemented

    def __mul__(self, other: object) -> Play:
        return NotImplemented

    __rmul__ = __mul__

    def count(self, value: object) -> int:
        raise TypeError("'Play' object is not a sequence")

    def index(self, value: object, start: object = 0, stop: object = 0) -> int:
        raise TypeError("'Play' object is not a sequence")

    @property
    def dice_used(self) -> int:
        """How many dice the play uses (0 when the roll cannot be played)."""
        return len(self.steps)

    @property
    def hits(self) -> int:
        """How many opposing checkers the play sends to the bar."""
        return sum(1 for step in self.steps if step.hit)


_new_play = tuple.__new__  # _new_play(Play, (record, index)): a listed play, made in C


def _point_text(point: int) -> str:
    if point == BAR_POINT:
        return "bar"
    if point == OFF_POINT:
        return "off"
    return str(point)


def _make_step(raw: _RawStep) -> Step:
    src, dst, hit = raw
    return Step(src + 1, dst + 1 if dst >= 0 else OFF_POINT, hit)


class _StepCache(dict[_RawStep, Step]):
    """Steps are immutable values: build each one once, when first met, and share it."""

    def __missing__(self, raw: _RawStep) -> Step:
        step = self[raw] = _make_step(raw)
        return step


_to_step = _StepCache().__getitem__


class _Source:
    """What the plays of one position and roll share: the origin, the dice, the resulting positions as
    compact keys (:meth:`Position.key`) and, found all at once when first asked, the steps.

    Shared by a :class:`LegalPlays` and its plays, and referring to neither, so that a list of
    plays and its plays are freed as soon as they are dropped (a play that pointed back at its list
    made every list a reference cycle, left to the garbage collector's pauses)."""

    __slots__ = ("dice", "made", "origin", "played", "rows", "steps")

    def __init__(self, origin: Position, dice: tuple[int, int], rows: bytes | list[int], steps: _Keys | None) -> None:
        # rows: the 50-byte keys concatenated (the kernel's, or one play's), or the pure-Python generator's integers
        self.origin = origin
        self.dice = dice
        self.rows = rows
        self.steps = steps
        self.made: dict[int, Position] | None = None  # the plays' resulting positions, as first asked for
        self.played: dict[int, tuple[Step, ...]] | None = None  # the plays' steps, as first asked for

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
            plays = list(map(_new_play, repeat(Play, n), zip(repeat(self._source), range(n))))
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
            play = self._some[i] = _new_play(Play, (self._source, i))
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


# The step sequences (the click graph, every order of steps, paths along written moves) live in
# backgammon.steps, which builds on the definitions above; they are importable from here too.
from backgammon.steps import StepGraph as StepGraph  # noqa: E402
from backgammon.steps import all_step_sequences as all_step_sequences  # noqa: E402
from backgammon.steps import sequences_along as sequences_along  # noqa: E402
from backgammon.steps import step_graph as step_graph  # noqa: E402
