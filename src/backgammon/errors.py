"""The one exception hierarchy of the backgammon package.

Every error the library raises on purpose is a :class:`BackgammonError`.
Errors caused by bad input also subclass :class:`ValueError`, so callers that
only care about "the input was wrong" can catch that.

Messages are lowercase, say what was expected and quote the offending value.
"""

from __future__ import annotations


class BackgammonError(Exception):
    """Root of every error raised on purpose by this package."""


class InvalidInputError(BackgammonError, ValueError):
    """Input that could not be parsed: a malformed ID, move text, dice, file."""


class InvalidPositionError(InvalidInputError):
    """A well-formed position that cannot exist (16 checkers, a shared point, ...)."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class IllegalPlayError(BackgammonError, ValueError):
    """A play that is well-formed but not legal for this position and roll."""


class AmbiguousPlayError(IllegalPlayError):
    """Move text that describes more than one legal play."""


class IllegalActionError(BackgammonError):
    """An action against the flow of the game: out of turn, cube not available, game over."""


class NotYourTurnError(IllegalActionError):
    """An action by a side that is not the one to act now."""


class GameOverError(IllegalActionError):
    """An action on a game (or match) that has already ended."""


class EngineError(BackgammonError, RuntimeError):
    """The engine cannot work: missing or mismatched weights, a broken table."""


__all__ = [
    "AmbiguousPlayError",
    "BackgammonError",
    "EngineError",
    "GameOverError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidInputError",
    "InvalidPositionError",
    "NotYourTurnError",
]
