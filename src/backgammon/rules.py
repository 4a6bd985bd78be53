"""Who plays and under what rules: the sides (:class:`Player`), the rules of a game or match
(:class:`Rules`, with the one check of a match length and of when a Crawford game can be played)
and who holds the cube, seen from a side.

Everything here is also importable from :mod:`backgammon.game`, the state machine that plays by
these rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from backgammon.errors import InvalidInputError
from backgammon.safejson import shorten

MAX_MATCH_LENGTH = 64
"""The longest match the project plays, reads and writes (gnubg's longest match): the one limit
for :class:`Rules`, the Match ID, XGID and ``.mat`` readers, the server and the CLI."""
MAX_CUBE = 1 << 15  # log2 of the cube fits in the Match ID's 4 bits


def check_match_length(length: object, limit: int = MAX_MATCH_LENGTH) -> int:
    """Validate a match length: an integer from 0 (money play) to ``limit``.

    The one home of this check (issue 19): the rules, the Match ID, XGID and ``.mat`` readers,
    the server's rules and the CLI all call it, so they give the same message. ``limit`` is
    :data:`MAX_MATCH_LENGTH` except where the computer plays: the server's tables and ``play``
    pass the engine's match equity table size (25 points, ``backgammon.engine.met.MAX_AWAY``).

    >>> check_match_length(7)
    7

    Raises:
        InvalidInputError: naming the value, otherwise.
    """
    if not _is_int(length) or not 0 <= length <= limit:  # type: ignore[operator]
        raise InvalidInputError(
            f"invalid match length {shorten(length)}: expected an integer from 0 (money) to {limit}"
        )
    return length  # type: ignore[return-value]


# --------------------------------------------------------------------- players
class Player(Enum):
    """A side of the board.

    WHITE is gnubg's player 1 (the bottom player; XGID's X), BLACK is gnubg's
    player 0 (XGID's O).

    >>> Player.WHITE.other
    <Player.BLACK: 'black'>
    """

    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Player:
        """The opponent."""
        return Player.BLACK if self is Player.WHITE else Player.WHITE

    @property
    def gnubg_index(self) -> int:
        """gnubg's player number: 1 for WHITE, 0 for BLACK."""
        return 1 if self is Player.WHITE else 0

    @classmethod
    def from_gnubg_index(cls, index: int) -> Player:
        """The Player for gnubg's player number (0 or 1).

        Raises:
            InvalidInputError: for anything but 0 or 1.
        """
        if index == 1 and not isinstance(index, bool):
            return cls.WHITE
        if index == 0 and not isinstance(index, bool):
            return cls.BLACK
        raise InvalidInputError(f"invalid gnubg player number {index!r}: expected 0 or 1")

    def __str__(self) -> str:
        return self.value.capitalize()


def cube_owner_seen_by(owner: Player | int | None, side: Player | int) -> str:
    """Who holds the cube, seen from ``side``: ``"centred"``, ``"me"`` or ``"opponent"``.

    ``owner`` and ``side`` are both :class:`Player` or both gnubg player numbers (1 = white,
    0 = black); ``owner`` None is a centred cube. The answers are the values of the engine's
    ``CubeOwner``, so ``CubeOwner(cube_owner_seen_by(...))`` converts. The one home of this
    mapping (issue 19): the engine's protocol and the server's computer player use it.

    >>> cube_owner_seen_by(None, Player.WHITE), cube_owner_seen_by(Player.BLACK, Player.WHITE)
    ('centred', 'opponent')
    >>> cube_owner_seen_by(1, 1)
    'me'
    """
    if owner is None:
        return "centred"
    return "me" if owner == side else "opponent"


# ----------------------------------------------------------------------- rules
@dataclass(frozen=True, slots=True)
class Rules:
    """The rules a game (or match) is played under.

    - ``match_length``: points to win the match; 0 for money play.
    - ``cube``: whether the doubling cube is used at all.
    - ``cube_limit``: the highest cube value (a power of two).
    - ``jacoby``: money only; gammons and backgammons count single while the
      cube is centred (not turned during play).
    - ``beavers``: money only; the side doubled may take and redouble at once.
    - ``automatic_doubles``: money only; how many opening ties per game double
      the (centred) cube.
    - ``backgammon_value``: 3 (standard) or 2 (backgammons count as gammons).
    - ``crawford``: match only; no doubling in the game after a side first
      reaches match length - 1.
    - ``casual``: white starts with an ordinary roll (no opening roll), no
      cube, and the players may agree a draw.

    Jacoby, beavers and automatic doubles are accepted with a match length
    but never apply in a match (see :attr:`jacoby_applies` etc.).

    >>> Rules(match_length=5).is_money
    False

    Raises:
        InvalidInputError: for a value of the wrong type or out of range.
    """

    match_length: int = 0
    cube: bool = True
    cube_limit: int = 64
    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: int = 0
    backgammon_value: int = 3
    crawford: bool = True
    casual: bool = False

    def __post_init__(self) -> None:
        for name in ("cube", "jacoby", "beavers", "crawford", "casual"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidInputError(f"invalid rules: {name} must be True or False, got {value!r}")
        check_match_length(self.match_length)
        if not _is_power_of_two(self.cube_limit) or self.cube_limit > MAX_CUBE:
            raise InvalidInputError(
                f"invalid rules: cube_limit must be a power of two from 1 to {MAX_CUBE}, got {self.cube_limit!r}"
            )
        if not _is_int(self.automatic_doubles) or self.automatic_doubles < 0:
            raise InvalidInputError(
                f"invalid rules: automatic_doubles must be a non-negative integer, got {self.automatic_doubles!r}"
            )
        if not _is_int(self.backgammon_value) or self.backgammon_value not in (2, 3):
            raise InvalidInputError(f"invalid rules: backgammon_value must be 2 or 3, got {self.backgammon_value!r}")

    @property
    def is_money(self) -> bool:
        """True for money play (``match_length == 0``)."""
        return self.match_length == 0

    @property
    def uses_cube(self) -> bool:
        """True when the doubling cube may be used (``cube`` and not casual)."""
        return self.cube and not self.casual

    @property
    def jacoby_applies(self) -> bool:
        """True when the Jacoby rule is in force (money play with the cube)."""
        return self.jacoby and self.is_money and self.uses_cube

    @property
    def beavers_apply(self) -> bool:
        """True when beavers are allowed (money play with the cube)."""
        return self.beavers and self.is_money and self.uses_cube

    @property
    def max_automatic_doubles(self) -> int:
        """Automatic doubles allowed per game: 0 unless money play with the cube."""
        return self.automatic_doubles if self.is_money and self.uses_cube else 0

    @property
    def crawford_applies(self) -> bool:
        """True when the Crawford rule is in force (match play with the cube)."""
        return self.crawford and not self.is_money and self.uses_cube


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_power_of_two(value: object) -> bool:
    return _is_int(value) and value > 0 and value & (value - 1) == 0  # type: ignore[operator]


def crawford_problem(match_length: int, score: tuple[int, int]) -> str | None:
    """Why a Crawford game cannot be played at this score, or None.

    The Crawford game is the one game after a side first reaches 1-away, so it needs a match of
    at least 2 points and exactly one side at match length - 1.
    """
    if match_length < 2:
        return f"a {match_length}-point match has no crawford game"
    at_one_away = [s == match_length - 1 for s in score]
    if not any(at_one_away):
        return f"at score {score[0]}-{score[1]} neither side is 1-away from {match_length}"
    if all(at_one_away):
        return f"at score {score[0]}-{score[1]} both sides are 1-away (double match point)"
    return None
