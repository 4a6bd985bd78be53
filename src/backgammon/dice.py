"""Dice: where rolls come from, and the table of all rolls.

The game never rolls dice itself: the caller (the server, a bot, a test) gets
them from a :class:`DiceSource` and passes them in an action, and the game
only checks them. Two sources are provided:

- :class:`RandomDice`: seeded (``random.Random``) for reproducible play, or
  cryptographically random (``secrets``) when the seed is ``None``;
- :class:`ScriptedDice`: a fixed script, for tests and replays.

>>> dice = ScriptedDice([(3, 1), (6, 6)])
>>> dice.die(), dice.die(), dice.roll()
(3, 1, (6, 6))
>>> sum(weight for _, _, weight in ALL_ROLLS)
36
"""

from __future__ import annotations

import random
import re
import secrets
from collections import deque
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.safejson import shorten

__all__ = [
    "ALL_36",
    "ALL_ROLLS",
    "DiceSource",
    "RandomDice",
    "ScriptedDice",
    "check_dice",
    "check_die",
    "check_roll",
    "parse_roll",
]


def check_die(die: object) -> int:
    """Validate one die.

    Raises:
        InvalidInputError: if ``die`` is not an integer from 1 to 6.
    """
    if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
        raise InvalidInputError(f"invalid die {shorten(die)}: expected an integer from 1 to 6")
    return die


def check_dice(die1: object, die2: object) -> tuple[int, int]:
    """Validate two dice given apart and return them as a tuple.

    Raises:
        InvalidInputError: if a die is not an integer from 1 to 6 (the message names it).
    """
    return check_die(die1), check_die(die2)


def check_roll(dice: object) -> tuple[int, int]:
    """Validate a roll of two dice (a pair) and return it as a tuple.

    This is the one home of dice validation: the game, the move generator,
    the formats, the engine, the CLI and the server all call it (or
    :func:`check_die`, :func:`check_dice`, :func:`parse_roll`), so a bad die
    gets the same message everywhere.

    >>> check_roll([6, 4])
    (6, 4)

    Raises:
        InvalidInputError: if ``dice`` is not two integers from 1 to 6.
    """
    if not isinstance(dice, (tuple, list)) or len(dice) != 2:
        raise InvalidInputError(f"invalid roll {shorten(dice)}: expected two dice, e.g. (6, 4)")
    return check_die(dice[0]), check_die(dice[1])


_ROLL_TEXT = re.compile(r"^[ \t]*([0-9])[ \t]*[-,/ ]?[ \t]*([0-9])[ \t]*\Z")


def parse_roll(text: object) -> tuple[int, int]:
    """Read a roll written ``31``, ``3-1``, ``3,1``, ``3/1`` or ``3 1``.

    >>> parse_roll("6-4")
    (6, 4)

    Raises:
        InvalidInputError: if the text is not two dice; a digit out of 1..6
            gets :func:`check_die`'s message, naming that die.
    """
    m = _ROLL_TEXT.match(text) if isinstance(text, str) else None
    if not m:
        raise InvalidInputError(f"invalid roll {shorten(text)}: expected two dice from 1 to 6, as in '31' or '3-1'")
    return check_die(int(m.group(1))), check_die(int(m.group(2)))


ALL_ROLLS: tuple[tuple[int, int, int], ...] = tuple(
    (high, low, 1 if high == low else 2) for high in range(1, 7) for low in range(1, high + 1)
)
"""The 21 distinct rolls as ``(high die, low die, weight)``; weights (1 for
doubles, 2 otherwise) sum to 36."""

ALL_36: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
"""The 36 equally likely ordered rolls."""


@runtime_checkable
class DiceSource(Protocol):
    """Anything that rolls dice."""

    def roll(self) -> tuple[int, int]:
        """Two dice for an ordinary roll."""
        ...

    def die(self) -> int:
        """One die (each side rolls one for the opening roll)."""
        ...


class RandomDice:
    """Random dice: seeded and reproducible, or from ``secrets`` when ``seed`` is None.

    >>> RandomDice(7).roll() == RandomDice(7).roll()
    True
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng: random.Random = random.Random(seed) if seed is not None else secrets.SystemRandom()

    def die(self) -> int:
        """One die, 1..6."""
        return self._rng.randint(1, 6)

    def roll(self) -> tuple[int, int]:
        """Two dice."""
        return self.die(), self.die()

    def __repr__(self) -> str:
        return f"RandomDice({self.seed!r})"


class ScriptedDice:
    """Dice that follow a script, for tests and replays.

    The script is a sequence of rolls ``(d1, d2)`` (single ints are accepted
    too); it is consumed one die at a time, so an opening roll taken with two
    calls of :meth:`die` uses up one scripted pair (white's die first).

    Raises:
        InvalidInputError: if the script holds something that is not a die.
        BackgammonError: when the script runs out (from :meth:`roll` or :meth:`die`).
    """

    def __init__(self, script: Iterable[tuple[int, int] | int]) -> None:
        dice: deque[int] = deque()
        for item in script:
            if isinstance(item, int) and not isinstance(item, bool):
                dice.append(check_die(item))
            else:
                dice.extend(check_roll(item))
        self._dice = dice

    @property
    def remaining(self) -> int:
        """How many single dice are left in the script."""
        return len(self._dice)

    def die(self) -> int:
        """The next scripted die."""
        if not self._dice:
            raise BackgammonError("scripted dice exhausted: the script has no more dice")
        return self._dice.popleft()

    def roll(self) -> tuple[int, int]:
        """The next two scripted dice."""
        if len(self._dice) < 2:
            raise BackgammonError("scripted dice exhausted: the script has fewer than two dice left")
        return self._dice.popleft(), self._dice.popleft()

    def __repr__(self) -> str:
        return f"ScriptedDice({list(self._dice)!r})"
