"""JSON from untrusted sources: bounded, strict, and with errors a user can act on.

:func:`loads` is the one decoder for text that comes from outside (the engine's line protocol,
the web server's requests and socket messages). Besides malformed JSON it refuses, each with
an :class:`~backgammon.errors.InvalidInputError` naming the problem:

- text longer than ``max_length`` characters, or bytes that are not UTF-8;
- integers of more than ``max_digits`` digits (Python's int parser would otherwise spend
  quadratic time, or raise a ValueError past 4,300 digits), ``NaN``, ``Infinity`` and floats
  that overflow;
- nesting deeper than ``max_depth`` (deep nesting would raise RecursionError);
- strings or keys with lone surrogates (``"\\ud800"``), which cannot be stored or sent on.

:func:`shorten` is how an error message quotes a value: ``repr`` cut to a few dozen
characters, so an error never echoes a large input back.
"""

from __future__ import annotations

import json
import math
from typing import Any

from backgammon.errors import InvalidInputError

MAX_DEPTH = 32
MAX_DIGITS = 40


def shorten(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters (with an ellipsis when cut).

    Never raises: an integer too long to print, say, is described instead.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"<an integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails still needs a name
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return text[: max(1, limit - 1)] + "…"


def _parse_int(text: str, max_digits: int) -> int:
    digits = len(text.lstrip("-"))
    if digits > max_digits:
        raise InvalidInputError(f"an integer of {digits} digits (at most {max_digits})")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 64:
        raise InvalidInputError(f"a number of {len(text)} characters (at most 64)")
    value = float(text)
    if not math.isfinite(value):
        raise InvalidInputError(f"the number {shorten(text)} is out of range")
    return value


def _parse_constant(text: str) -> Any:
    raise InvalidInputError(f"{text} is not a JSON number")


def _check_text(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(f"the string {shorten(value)} holds a lone surrogate; expected Unicode text") from None


def _check_tree(doc: Any, max_depth: int) -> None:
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_text(node)
        elif isinstance(node, dict | list):
            if depth > max_depth:
                raise InvalidInputError(f"nested deeper than {max_depth} levels")
            if isinstance(node, dict):
                for key, value in node.items():
                    _check_text(key)
                    stack.append((value, depth + 1))
            else:
                stack.extend((value, depth + 1) for value in node)


def loads(
    text: str | bytes | bytearray | memoryview,
    *,
    what: str = "json",
    max_length: int = 65_536,
    max_bytes: int | None = None,
    max_depth: int = MAX_DEPTH,
    max_digits: int = MAX_DIGITS,
    expect_object: bool = False,
) -> Any:
    """Decode untrusted JSON (see the module docstring for what is refused).

    ``what`` names the input in error messages (``invalid <what>: ...``); ``max_length`` bounds
    text in characters and ``max_bytes`` (by default four bytes a character) bytes before they
    are decoded; ``expect_object`` refuses any top level but an object.

    >>> loads('{"dice": [3, 1]}')
    {'dice': [3, 1]}
    >>> loads('[' * 40 + ']' * 40)
    Traceback (most recent call last):
    ...
    backgammon.errors.InvalidInputError: invalid json: nested deeper than 32 levels

    Raises:
        InvalidInputError: for anything but bounded, well-formed JSON.
    """
    if isinstance(text, bytes | bytearray | memoryview):
        limit = max_length * 4 if max_bytes is None else max_bytes
        if len(text) > limit:
            raise InvalidInputError(f"invalid {what}: longer than {limit} bytes")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"invalid {what}: not UTF-8 text (byte {exc.start})") from None
    if not isinstance(text, str):
        raise InvalidInputError(f"invalid {what}: expected text, got {type(text).__name__}")
    if len(text) > max_length:
        raise InvalidInputError(f"invalid {what}: longer than {max_length} characters")
    try:
        doc = json.loads(
            text,
            parse_int=lambda s: _parse_int(s, max_digits),
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
        _check_tree(doc, max_depth)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"invalid {what}: malformed JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise InvalidInputError(f"invalid {what}: nested deeper than {max_depth} levels") from None
    except InvalidInputError as exc:
        raise InvalidInputError(f"invalid {what}: {exc}") from None
    if expect_object and not isinstance(doc, dict):
        raise InvalidInputError(f"invalid {what} {shorten(doc)}: expected a JSON object")
    return doc


__all__ = ["MAX_DEPTH", "MAX_DIGITS", "loads", "shorten"]
