"""The one mapping from an exception to what a client is told: an HTTP status and a short message.

Bad input 400, an illegal play 422, an action against the flow of the game 409, no such thing
404, an :class:`HTTPError`'s own status, anything else 500 (logged, no details sent). Used by the
HTTP handlers, the sockets and the answers one server process gives another.
"""

from __future__ import annotations

import logging

from fastapi.exceptions import RequestValidationError

from backgammon.errors import BackgammonError, IllegalActionError, IllegalPlayError, InvalidInputError
from backgammon.server import protocol

log = logging.getLogger("backgammon.server")

MAX_MESSAGE_CHARS = 300
"""Error messages sent to clients are cut to this many characters (a backstop: messages quote
at most :data:`protocol.MAX_SHOWN` characters of a user's value)."""


class HTTPError(Exception):
    """An error with its own HTTP status, and a stable ``code`` with ``params`` for the client's words."""

    def __init__(self, status: int, message: str, code: str = "error", params: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.params: dict[str, object] = dict(params or {})


def error_info(exc: BaseException) -> tuple[int, str, str, dict[str, object]]:
    """(HTTP status, English message, code, params): what a client is told of an exception. The
    code and params (:class:`backgammon.errors.BackgammonError`'s, or :class:`HTTPError`'s) let the
    browser word it in the player's language; the message is the English text beside them."""
    status, message = error_status(exc)
    if isinstance(exc, BackgammonError | HTTPError):
        return status, message, exc.code, {k: _param(v) for k, v in exc.params.items()}
    codes = {400: "invalid_input", 404: "not_found", 500: "internal_error"}
    return status, message, codes.get(status, "error"), {}


def _param(value: object) -> object:
    """A parameter as sent: numbers as they are, anything else as capped text."""
    if isinstance(value, bool | int | float) or value is None:
        return value
    return capped(str(value))


def error_status(exc: BaseException) -> tuple[int, str]:
    """The one mapping from an exception to (HTTP status, message for the client)."""
    if isinstance(exc, HTTPError):
        return exc.status, capped(str(exc))
    if isinstance(exc, IllegalPlayError):
        return 422, capped(str(exc))
    if isinstance(exc, InvalidInputError):
        return 400, capped(str(exc))
    if isinstance(exc, IllegalActionError):
        return 409, capped(str(exc))
    if isinstance(exc, LookupError):
        return 404, capped(str(exc.args[0])) if exc.args else "not found"
    if isinstance(exc, BackgammonError):
        return 400, capped(str(exc))
    if isinstance(exc, RequestValidationError):
        return 400, capped(protocol.validation_message(list(exc.errors())))
    log.error("internal error", exc_info=exc)
    return 500, "internal error"


def capped(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE_CHARS else message[: MAX_MESSAGE_CHARS - 3] + "..."
