"""The one exception hierarchy of the backgammon package.

Every error the library raises on purpose is a :class:`BackgammonError`.
Errors caused by bad input also subclass :class:`ValueError`, so callers that
only care about "the input was wrong" can catch that.

Messages are lowercase, say what was expected and quote the offending value.
"""

from __future__ import annotations


class BackgammonError(Exception):
    """Root of every error raised on purpose by this package.

    Besides its English message, each error has a stable ``code`` (its class's, or a more precise
    one given where it is raised) and ``params``, the values a message in another language needs
    (the web client words errors in the player's language from these). Codes are lowercase words
    joined by underscores and never change meaning.

    >>> e = IllegalPlayError("illegal play '24/2' for roll 6-5", code="illegal_play_for_roll",
    ...                      params={"play": "24/2", "dice": "6-5"})
    >>> e.code, e.params["dice"], str(e)
    ('illegal_play_for_roll', '6-5', "illegal play '24/2' for roll 6-5")
    >>> GameOverError("the game is over").code
    'game_over'
    """

    code: str = "error"

    def __init__(self, *args: object, code: str | None = None, params: dict[str, object] | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code
        self.params: dict[str, object] = dict(params or {})


class InvalidInputError(BackgammonError, ValueError):
    """Input that could not be parsed: a malformed ID, move text, dice, file."""

    code = "invalid_input"


class InvalidPositionError(InvalidInputError):
    """A well-formed position that cannot exist (16 checkers, a shared point, ...)."""

    code = "invalid_position"

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class IllegalPlayError(BackgammonError, ValueError):
    """A play that is well-formed but not legal for this position and roll."""

    code = "illegal_play"


class AmbiguousPlayError(IllegalPlayError):
    """Move text that describes more than one legal play."""

    code = "ambiguous_play"


class IllegalActionError(BackgammonError):
    """An action against the flow of the game: out of turn, cube not available, game over."""

    code = "illegal_action"


class NotYourTurnError(IllegalActionError):
    """An action by a side that is not the one to act now."""

    code = "not_your_turn"


class GameOverError(IllegalActionError):
    """An action on a game (or match) that has already ended."""

    code = "game_over"


class EngineError(BackgammonError, RuntimeError):
    """The engine cannot work: missing or mismatched weights, a broken table."""

    code = "engine_error"


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
