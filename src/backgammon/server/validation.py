"""Checks of what clients send: the one reader of JSON from clients, pydantic's errors as one
readable message, user text and names, display settings, steps, pairing requests and page
parameters. Bad input raises :class:`~backgammon.errors.InvalidInputError` naming what is wrong.

Part of the wire formats of :mod:`backgammon.server.protocol`, which re-exports everything here.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from backgammon import safejson
from backgammon.errors import InvalidInputError

MAX_BODY = 64 * 1024
"""The largest HTTP request body (bytes); :mod:`backgammon.server.security` answers 413 past it."""
MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a JSON document may have."""
MAX_NUMBER_CHARS = 40
"""The longest number literal (integers of more digits are refused before Python converts them)."""
MAX_SHOWN = 40
"""The most characters of a user's value quoted in an error message."""
MAX_NAME = 24
"""The longest player name (characters, after normalisation)."""
MAX_CHAT = 300
"""Characters in one line of table chat."""


# ---------------------------------------------------------- client input
def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """A user's value as quoted in an error message (:func:`backgammon.safejson.shorten`)."""
    return safejson.shorten(value, limit)


def parse_json_object(raw: bytes | str, what: str = "request", limit: int = MAX_BODY) -> dict[str, Any]:
    """The one reader of JSON from clients (HTTP bodies and socket messages): a JSON object,
    through :func:`backgammon.safejson.loads` (the project's one decoder of untrusted JSON).

    Refuses more than ``limit`` bytes (characters for ``str``), bytes that are not UTF-8,
    nesting deeper than :data:`MAX_DEPTH`, number literals longer than
    :data:`MAX_NUMBER_CHARS` (Python refuses to convert integers past 4,300 digits),
    ``NaN``/``Infinity`` and numbers out of range, lone surrogates (``"\ud800"``) in any
    string or key, and any top level but an object.

    Raises:
        InvalidInputError: naming ``what`` and the problem.
    """
    doc: dict[str, Any] = safejson.loads(
        raw,
        what=what,
        max_length=limit,
        max_bytes=limit,
        max_depth=MAX_DEPTH,
        max_digits=MAX_NUMBER_CHARS,
        expect_object=True,
    )
    return doc


# ------------------------------------------------------------- validation
def validation_message(errors: Sequence[Mapping[str, Any]], what: str = "request") -> str:
    """One readable line for pydantic's (or FastAPI's) validation errors: the first one, its
    field, the value (cut to :data:`MAX_SHOWN` characters) and what was expected."""
    if not errors:
        return f"invalid {what}"
    err = errors[0]
    loc = [str(part) for part in err.get("loc", ()) if part not in ("body",)]
    if loc and loc[0] in ("query", "path", "header", "cookie"):
        where = f"{loc[0]} parameter {'.'.join(loc[1:])}"
    else:
        where = f"{what} {'.'.join(loc)}" if loc else what
    message = str(err.get("msg", "not valid"))
    if "input" in err and err.get("type") != "missing":
        return f"invalid {where} {shown(err['input'])}: {message[:120]}"
    return f"invalid {where}: {message[:120]}"


def validated(model: type[BaseModel], doc: object, what: str = "request") -> BaseModel:
    """``model`` read from ``doc``; pydantic's errors become one :class:`InvalidInputError` (400).

    Raises:
        InvalidInputError: naming the first bad field.
    """
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        raise InvalidInputError(validation_message(exc.errors(include_url=False), what)) from None


_ALLOWED_FORMAT = {"\u200c", "\u200d"}  # zero-width (non-)joiners: parts of emoji and scripts, kept


def check_text(value: object, what: str, max_length: int, min_length: int = 1) -> str:
    """User-visible text (a name, a setting): NFC-normalised and stripped, ``min_length`` to
    ``max_length`` characters, without control, format (bidi overrides and such), private-use,
    unassigned or surrogate code points, or line separators.

    Raises:
        InvalidInputError: naming ``what`` and the problem.
    """
    if not isinstance(value, str):
        raise InvalidInputError(f"invalid {what} {shown(value)}: expected text")
    if len(value) > 4 * max_length + 16:
        raise InvalidInputError(f"invalid {what} {shown(value)}: longer than {max_length} characters")
    for char in value:
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp") or (category == "Cf" and char not in _ALLOWED_FORMAT):
            raise InvalidInputError(
                f"invalid {what} {shown(value)}: the character {char!a} is not allowed (control or unprintable)"
            )
    text = unicodedata.normalize("NFC", value).strip()
    if not min_length <= len(text) <= max_length:
        raise InvalidInputError(f"invalid {what} {shown(value)}: expected {min_length} to {max_length} characters")
    return text


def check_name(name: object, default: str = "Guest") -> str:
    """A player's name at a table (``default`` when None): see :func:`check_text`, 1 to 24 characters.

    Raises:
        InvalidInputError: for anything else.
    """
    if name is None:
        return default
    return check_text(name, "name", MAX_NAME)


def name_key(name: str) -> str:
    """What two names must not share to be told apart: NFKC, case-folded (``"ＡＬＩＣＥ"`` is ``"alice"``)."""
    return unicodedata.normalize("NFKC", name).casefold()


PageLimit = Annotated[int, Query(ge=1, le=100, description="how many rows (at most 100)")]
"""A list endpoint's ``?limit=`` (declare it ``limit: PageLimit = 50``)."""
PageOffset = Annotated[int, Query(ge=0, le=100_000, description="how many rows to skip")]
"""A list endpoint's ``?offset=``."""

_Colour = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]


class SettingsDoc(BaseModel):
    """An account's display settings (``PUT /api/me/settings``), each key optional."""

    model_config = ConfigDict(extra="forbid", strict=True)

    orientation: Literal["bottom-right", "bottom-left", "top-right", "top-left"] = "bottom-right"
    autoSwitch: bool = False
    lang: Literal["en", "ja", None] = None
    whiteColor: _Colour = "#f4f1e8"
    blackColor: _Colour = "#2b2b2b"
    animation: Literal["off", "fast", "normal", "slow"] = "normal"
    showPips: bool = True
    autoForced: bool = True
    autoRoll: bool = False
    autoConfirm: bool = False
    sound: bool = True
    theme: Literal["classic", "dark", "high-contrast"] = "classic"
    confirmActions: bool = True
    nextGame: Literal["click", "3", "8"] = "click"


def settings_from_wire(doc: object) -> dict[str, Any]:
    """The settings a client sends, checked key by key (only the keys given).

    Raises:
        InvalidInputError: for an unknown key or a bad value (the message names the key).
    """
    return validated(SettingsDoc, doc, "setting").model_dump(exclude_unset=True)


def clean_settings(stored: object) -> dict[str, Any]:
    """Stored settings with every entry that is no longer valid left out (what the browser gets)."""
    if not isinstance(stored, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in stored.items():
        try:
            out.update(SettingsDoc.model_validate({key: value}).model_dump(exclude_unset=True))
        except (ValidationError, TypeError):
            continue
    return out


def check_steps(value: object) -> tuple[tuple[int, int], ...]:
    """Validate a list of ``[from, to]`` steps sent by a browser.

    Raises:
        InvalidInputError: unless it is a list of up to 4 pairs of point numbers 0..25.
    """
    if not isinstance(value, list) or len(value) > 4:
        raise InvalidInputError(f"invalid steps {shown(value)}: expected a list of up to 4 [from, to] pairs")
    steps = []
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 25 for x in item)
        ):
            raise InvalidInputError(f"invalid step {shown(item)}: expected [from, to] with points 0..25")
        steps.append((item[0], item[1]))
    return tuple(steps)


# ------------------------------------------------------------ quick pairing
PAIR_CLOCKS = (0, 1, 5, 10, 20, 30)
"""The clocks a quick-pairing request may ask for: minutes per player (0: none; 10 s delay a move)."""
MAX_HELD_SEATS = 50
"""The most seat tokens one ``POST /api/unfinished`` may ask about."""


class PairRequest(BaseModel):
    """``POST /api/pair``: what a player wants to play; paired with a waiting player who wants the
    same (``length``: points, 0 for a money session; ``clock``: minutes, 0 for none)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    length: int = Field(ge=0, le=25)
    clock: int = Field(default=0, description=f"minutes, one of {PAIR_CLOCKS}")
    name: str | None = Field(default=None, max_length=4 * MAX_NAME + 16)

    @field_validator("clock")
    @classmethod
    def _known_clock(cls, value: int) -> int:
        if value not in PAIR_CLOCKS:
            raise ValueError(f"expected one of {', '.join(map(str, PAIR_CLOCKS))}")
        return value


class HeldSeat(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=128)


class HeldSeats(BaseModel):
    """``POST /api/unfinished``: the seat tokens a browser holds (``bg.seat.<id>``), to learn which
    of those tables are still going."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seats: list[HeldSeat] = Field(default_factory=list, max_length=MAX_HELD_SEATS)


def pair_request_from_wire(doc: object) -> PairRequest:
    """A quick-pairing request, checked.

    Raises:
        InvalidInputError: naming the bad field.
    """
    return validated(PairRequest, doc, "pairing request")  # type: ignore[return-value]


def held_seats_from_wire(doc: object) -> list[tuple[str, str]]:
    """The ``(table id, token)`` pairs of a ``POST /api/unfinished`` body.

    Raises:
        InvalidInputError: naming the bad field.
    """
    seats = validated(HeldSeats, doc, "request").seats  # type: ignore[attr-defined]
    return [(seat.id, seat.token) for seat in seats]
