"""Positions: the checkers on the board, seen from the player on roll.

A :class:`Position` holds two tuples of 25 counts, in the layout GNU Backgammon
uses (its ``TanBoard``): ``mine`` for the player on roll and ``theirs`` for the
opponent, each in that side's *own* numbering. Index 0..23 is the side's 1..24
point (index 0 is its ace point), index 24 its bar. Borne-off checkers are
implied: ``15 - sum(side)``.

My point ``p`` is the opponent's point ``25 - p``: ``mine[i]`` and
``theirs[23 - i]`` describe the same spot of the board.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from backgammon.errors import InvalidInputError, InvalidPositionError

if TYPE_CHECKING:
    from backgammon.moves import LegalPlays

CHECKERS = 15
BAR = 24  # index of the bar in a side's 25 counts
_START_SIDE = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


class Phase(Enum):
    """How far the game has got, for the player on roll."""

    CONTACT = "contact"
    RACE = "race"  # the sides have passed each other
    BEAROFF = "bearoff"  # race, and both sides have all checkers home
    OVER = "over"  # a side has borne off all checkers


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable position, seen from the player on roll.

    >>> p = Position.initial()
    >>> p.position_id()
    '4HPwATDgc/ABMA'
    >>> p.pip_counts()
    (167, 167)

    Raises:
        InvalidPositionError: when built from counts that cannot exist.
    """

    mine: tuple[int, ...]
    theirs: tuple[int, ...]
    # bytes(mine + theirs), the compact value the move generator works on: made once, when first needed
    # (see key()); a position built from a play's result gets its key with it. Not compared or hashed.
    _key: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = _problems(self.mine, self.theirs)
        if problems:
            raise InvalidPositionError("invalid position: " + "; ".join(problems), tuple(problems))

    # ----------------------------------------------------------------- builders
    @classmethod
    def initial(cls) -> Position:
        """The standard starting position."""
        return _INITIAL

    @classmethod
    def _trusted(cls, mine: tuple[int, ...], theirs: tuple[int, ...]) -> Position:
        """Build without validation (internal fast path; the caller guarantees validity)."""
        p = object.__new__(cls)
        _set_mine(p, mine)
        _set_theirs(p, theirs)
        _set_key(p, None)
        return p

    @classmethod
    def _from_key(cls, key: bytes) -> Position:
        """Build from a trusted :meth:`key` (internal fast path: the move generator's results)."""
        p = object.__new__(cls)
        _set_mine(p, tuple(key[:25]))
        _set_theirs(p, tuple(key[25:]))
        _set_key(p, key)
        return p

    @classmethod
    def from_points(
        cls,
        mine: Mapping[int | str, int],
        theirs: Mapping[int | str, int],
    ) -> Position:
        """Build from ``{point: count}`` maps, each in that side's own numbering.

        Points are 1..24; the key ``"bar"`` (or 25) is the bar. Checkers not
        placed are borne off.

        >>> Position.from_points({6: 2, "bar": 1}, {1: 2}).mine[24]
        1

        Raises:
            InvalidPositionError: for a bad point, count or an impossible position.
        """
        return cls(_side_from_map(mine, "mine"), _side_from_map(theirs, "theirs"))

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (14 base64 characters).

        >>> Position.from_position_id("4HPwATDgc/ABMA") == Position.initial()
        True

        Raises:
            InvalidInputError: if the text is not a Position ID.
            InvalidPositionError: if it decodes to an impossible position.
        """
        key = _decode_position_key(position_id)
        bits = int.from_bytes(key, "little")
        sides: list[list[int]] = [[0] * 25, [0] * 25]
        side = slot = 0
        for k in range(80):
            if side == 2:
                break
            if bits >> k & 1:
                sides[side][slot] += 1
            else:
                slot += 1
                if slot == 25:
                    side, slot = side + 1, 0
        if side != 2:
            raise InvalidInputError(f"invalid position id {position_id!r}: it does not describe two complete sides")
        try:
            position = cls(tuple(sides[1]), tuple(sides[0]))
        except InvalidPositionError as exc:
            raise InvalidPositionError(
                f"invalid position id {position_id!r}: " + "; ".join(exc.problems), exc.problems
            ) from None
        canonical = position.position_id()
        if canonical != position_id.strip():
            raise InvalidInputError(
                f"invalid position id {position_id!r}: bits set past the two sides; the canonical id is {canonical!r}"
            )
        return position

    # ------------------------------------------------------------------ queries
    def key(self) -> bytes:
        """The position as 50 bytes, ``bytes(mine + theirs)``: a compact, exact value (made once).

        >>> Position.initial().key()[5], len(Position.initial().key())
        (5, 50)
        """
        key = self._key
        if key is None:
            key = bytes(self.mine + self.theirs)
            _set_key(self, key)
        return key

    def position_id(self) -> str:
        """The GNU Backgammon Position ID (player not on roll encoded first)."""
        bits = 0
        k = 0
        for side in (self.theirs, self.mine):
            for count in side:
                bits |= ((1 << count) - 1) << k
                k += count + 1
        key = bits.to_bytes(10, "little")
        return base64.b64encode(key).decode("ascii")[:14]

    def flip(self) -> Position:
        """The same board seen from the other side (the other player on roll)."""
        return Position._trusted(self.theirs, self.mine)

    def off(self) -> tuple[int, int]:
        """Checkers borne off: (player on roll, opponent)."""
        return CHECKERS - sum(self.mine), CHECKERS - sum(self.theirs)

    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (player on roll, opponent)."""
        return self.mine[BAR], self.theirs[BAR]

    def pip_counts(self) -> tuple[int, int]:
        """Pip counts: (player on roll, opponent). A checker on the bar counts 25."""
        return _pips(self.mine), _pips(self.theirs)

    def is_game_over(self) -> bool:
        """True if either side has borne off all its checkers."""
        return sum(self.mine) == 0 or sum(self.theirs) == 0

    def phase(self) -> Phase:
        """Contact, race, bear-off (race with both sides home) or over."""
        if self.is_game_over():
            return Phase.OVER
        my_back = _back_index(self.mine)
        their_back = _back_index(self.theirs)
        # my rearmost checker at my index a meets theirs at their index b
        # (my index 23-b) when a > 23 - b.
        if my_back + their_back >= 23:
            return Phase.CONTACT
        if my_back < 6 and their_back < 6:
            return Phase.BEAROFF
        return Phase.RACE

    def is_race(self) -> bool:
        """True once no contact is possible any more."""
        return self.phase() in (Phase.RACE, Phase.BEAROFF)

    def legal_plays(self, die1: int, die2: int) -> LegalPlays:
        """The distinct legal plays for a roll, one per resulting position.

        Each play's ``position`` is the position after the play, seen from the
        opponent (who is then on roll). A roll that cannot be played gives a
        single empty play whose position is this one flipped; so does any
        roll once the game is over (a side has borne off all its checkers).

        The result is a :class:`~backgammon.moves.LegalPlays`, a lazy sequence
        of :class:`~backgammon.moves.Play` with ``in`` and ``find`` (by move
        text or resulting position); it is computed by the engine's compiled
        generator when numba is installed (after the first 1,000 calls, see
        :func:`backgammon.moves.use_accelerator`), else in pure Python.

        >>> plays = Position.initial().legal_plays(3, 1)
        >>> len(plays), str(plays.find("8/5 6/5"))
        (16, '8/5 6/5')

        Raises:
            InvalidInputError: if a die is not an integer 1..6.
        """
        return _legal_plays(self, die1, die2)

    # ---------------------------------------------------------------- dunders
    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id()!r})"

    def __str__(self) -> str:
        from backgammon.render import ascii_board

        return ascii_board(self)


# slot setters: build positions without the frozen dataclass's __setattr__ (see Position._trusted)
_set_mine = Position.__dict__["mine"].__set__
_set_theirs = Position.__dict__["theirs"].__set__
_set_key = Position.__dict__["_key"].__set__


def _legal_plays(position: Position, die1: int, die2: int) -> LegalPlays:
    """Bind :func:`backgammon.moves.legal_plays` here on first use (moves imports this module)."""
    global _legal_plays
    from backgammon.moves import legal_plays

    _legal_plays = legal_plays
    return legal_plays(position, die1, die2)


def _pips(side: tuple[int, ...]) -> int:
    return sum(count * (i + 1) for i, count in enumerate(side))


def _back_index(side: tuple[int, ...]) -> int:
    for i in range(24, -1, -1):
        if side[i]:
            return i
    return -1


def _side_from_map(points: Mapping[int | str, int], name: str) -> tuple[int, ...]:
    side = [0] * 25
    for key, count in points.items():
        if isinstance(key, str):
            if key.lower() != "bar":
                raise InvalidPositionError(f"invalid point {key!r} for {name}: expected 1..24 or 'bar'")
            index = BAR
        elif isinstance(key, int) and not isinstance(key, bool) and 1 <= key <= 25:
            index = key - 1
        else:
            raise InvalidPositionError(f"invalid point {key!r} for {name}: expected 1..24 or 'bar'")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidPositionError(f"invalid checker count {count!r} on point {key!r} for {name}")
        side[index] += count
    return tuple(side)


def _problems(mine: object, theirs: object) -> list[str]:
    problems: list[str] = []
    for name, side in (("mine", mine), ("theirs", theirs)):
        if not isinstance(side, tuple) or len(side) != 25:
            problems.append(f"{name} must be a tuple of 25 counts, got {side!r}")
            continue
        if any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in side):
            problems.append(f"{name} has a count that is not a non-negative integer: {side!r}")
            continue
        if sum(side) > CHECKERS:
            problems.append(f"{name} has {sum(side)} checkers on the board, at most {CHECKERS} allowed")
    if problems:
        return problems
    assert isinstance(mine, tuple) and isinstance(theirs, tuple)
    for i in range(24):
        if mine[i] and theirs[23 - i]:
            problems.append(f"point {i + 1} (of the player on roll) holds checkers of both sides")
    if sum(mine) == 0 and sum(theirs) == 0:
        problems.append("both sides have borne off all their checkers")
    if mine[BAR] and theirs[BAR] and all(mine[i] >= 2 for i in range(6)) and all(theirs[i] >= 2 for i in range(6)):
        problems.append("both sides are on the bar against closed boards")
    return problems


def _decode_position_key(position_id: str) -> bytes:
    if not isinstance(position_id, str):
        raise InvalidInputError(f"invalid position id {position_id!r}: expected a string of 14 characters")
    text = position_id.strip()
    if len(text) != 14 or any(ch not in _B64 for ch in text):
        raise InvalidInputError(f"invalid position id {position_id!r}: expected 14 characters from A-Z a-z 0-9 + /")
    try:
        key = base64.b64decode(text + "==", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInputError(f"invalid position id {position_id!r}: not base64") from None
    return key


_INITIAL = Position(_START_SIDE, _START_SIDE)
