"""A match or money table's settings, typed: :class:`TableConfig`.

The ``tables`` row stores them as a JSON object (``Table.config``) whose form does not change:
:meth:`TableConfig.from_stored` reads any stored object (old rows included: keys it does not know
are kept as they were) and :meth:`TableConfig.to_stored` gives the same object back. In memory a
table (:class:`~backgammon.server.tables.TableRuntime`) holds the typed form, read by attribute.
A chouette's settings (its seats) are the chouette's own (:mod:`backgammon.server.chouette_tables`).

>>> doc = {"mode": "ai", "rules": {"match_length": 3}, "ai_seat": "black", "level": "expert"}
>>> config = TableConfig.from_stored(doc)
>>> config.mode, config.level, config.clock
('ai', 'expert', None)
>>> config.to_stored() == doc
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from backgammon.errors import InvalidInputError
from backgammon.server.protocol import shown

MODES = ("ai", "human")
"""A table against the computer, or between two people."""


class Clock(TypedDict):
    """A match clock: a reserve of ``minutes`` per player, and ``delay`` free seconds per move."""

    minutes: float
    delay: float


class HeldSeat(TypedDict):
    """A rematch's free seat, kept for the other player (``user_id``) until ``until`` (Unix time)."""

    seat: str
    user_id: int | None
    until: float


class Start(TypedDict):
    """A set-up first position (tests only: the server's ``--test-hooks``)."""

    position_id: str
    on_roll: str


_FIELDS = ("mode", "rules", "ai_seat", "level", "start", "clock", "dice", "rematch", "held")
"""The stored keys this version knows, in the order it writes them."""

REMATCH_KEPT = ("mode", "rules", "ai_seat", "level", "clock", "start")
"""The settings a rematch takes over from its match."""


@dataclass(frozen=True)
class TableConfig(Mapping[str, Any]):
    """A match or money table's settings.

    ``mode``: ``"ai"`` or ``"human"``; ``rules``: the rules as on the wire
    (``protocol.rules_to_wire``); ``ai_seat`` and ``level``: the computer's seat and level
    (``ai`` only); ``start``: a set-up first position; ``clock``; ``dice``: the verifiable dice
    (``{"seed", "commitment"}``, both hex, :mod:`backgammon.server.table_dice`; rows older than
    verifiable dice have none); ``rematch``: the id of the rematch's table, once a player asked
    for it; ``held``: a rematch's seat kept for the other player. ``extra``: stored keys this
    version does not know, kept as they were.

    Read-only mapping access (``config["rules"]``, ``config.get("clock")``) gives the stored
    object's values, for code that reads the stored form.
    """

    mode: str
    rules: dict[str, Any]
    ai_seat: str | None = None
    level: str | None = None
    start: Start | None = None
    clock: Clock | None = None
    dice: dict[str, str] | None = None
    rematch: str | None = None
    held: HeldSeat | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_stored(cls, doc: Mapping[str, Any]) -> TableConfig:
        """The settings of a stored ``Table.config`` object (any row's, old ones included)."""
        known = {key: doc[key] for key in _FIELDS if key in doc}
        extra = {key: value for key, value in doc.items() if key not in _FIELDS}
        known.setdefault("mode", "human")
        known.setdefault("rules", {})
        return cls(**known, extra=extra)

    def to_stored(self) -> dict[str, Any]:
        """The object stored in ``Table.config`` (a key without a value is left out, as always)."""
        doc: dict[str, Any] = {}
        for key in _FIELDS:
            value = getattr(self, key)
            if value is not None:
                doc[key] = value
        doc.update(self.extra)
        return doc

    def replace(self, **changes: Any) -> TableConfig:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes)

    def for_rematch(self) -> TableConfig:
        """The settings a rematch of this table starts with (:data:`REMATCH_KEPT`; new dice)."""
        return TableConfig.from_stored({k: v for k, v in self.to_stored().items() if k in REMATCH_KEPT})

    @property
    def against_computer(self) -> bool:
        return self.mode == "ai"

    # the stored form, read-only (one key read without building the whole stored object)
    def __getitem__(self, key: str) -> Any:
        if key in _FIELDS:
            value = getattr(self, key)
            if value is None:
                raise KeyError(key)
            return value
        return self.extra[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_stored())

    def __len__(self) -> int:
        return len(self.to_stored())


def check_clock(clock: object) -> Clock:
    """Validate ``{"minutes": 0.05..120, "delay": 0..60}`` (delay defaults to 10 s).

    Raises:
        InvalidInputError: for anything else.
    """
    if not isinstance(clock, dict) or set(clock) - {"minutes", "delay"}:
        raise InvalidInputError(f"invalid clock {shown(clock)}: expected {{'minutes': 1..120, 'delay': 0..60}}")
    minutes, delay = clock.get("minutes"), clock.get("delay", 10)
    ok_minutes = isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and 0.05 <= minutes <= 120
    ok_delay = isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= 60
    if not ok_minutes or not ok_delay:
        raise InvalidInputError(f"invalid clock {shown(clock)}: expected minutes 0.05..120 and delay 0..60 seconds")
    assert isinstance(minutes, (int, float)) and isinstance(delay, (int, float))
    return {"minutes": minutes, "delay": delay}
