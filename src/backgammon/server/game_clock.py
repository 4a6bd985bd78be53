"""A table's match clock: a reserve per player, spent beyond a delay a turn; out of time loses.

Within a process the clock runs on ``time.monotonic``, so a step of the wall clock (an NTP
correction, a changed time zone setting, an operator's ``date -s``) neither stops a player's
clock nor spends a day of it. What survives a restart is stored with every action of a table with
a clock (its payload's :data:`KEY` entry): each human seat's reserve after the action, as the
owner measured it, and the *deadline*, the wall-clock time at which the player now to act runs out
(``null`` when nobody's clock runs). A process that did not see the turn begin (it has just
started, or read the table from the database) takes the turn's start from that deadline once,
then runs on its monotonic clock from there; the time a server was down counts, as it would on a
clock on the wall. Actions stored before these entries existed are charged, as they were, the
wall-clock time between their stamps.

The table is duck-typed (:class:`backgammon.server.tables.TableRuntime`): ``clock`` (the settings
``{"minutes", "delay"}`` or None), ``clock_running``, ``ai_seat``, ``actions``, ``turns``,
``stamps``, ``version`` and ``clock_anchor`` (``(version, monotonic start of that version's turn)``,
kept by this module).
"""

from __future__ import annotations

import datetime as _dt
import math
import time
from typing import Any

from backgammon.game import Player
from backgammon.server.db import utcnow

KEY = "clock"
"""The entry of a stored action's payload that holds the clock after it."""


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def reserves(table: Any) -> dict[Player, float]:
    """Each human seat's reserve (seconds) when the turn under way began: from the last stored
    entry, then, for actions stored without one, the wall-clock time between stamps beyond the delay."""
    clock = table.clock
    if not clock:
        return {}
    left = {p: clock["minutes"] * 60.0 for p in Player if p is not table.ai_seat}
    actions = table.actions
    start = 1
    for i in range(len(actions) - 1, -1, -1):
        stored = actions[i].get(KEY)
        if isinstance(stored, dict):
            for p in left:
                value = _seconds(stored.get(p.value))
                if value is not None:
                    left[p] = value
            start = i + 1
            break
    delay = clock["delay"]
    for i in range(max(start, 1), len(actions)):  # stored before the entries: the wall clock's stamps
        who = table.turns[i]
        if who in left and actions[i].get("kind") != "opening_roll":
            left[who] -= max(0.0, (table.stamps[i] - table.stamps[i - 1]).total_seconds() - delay)
    return left


def _deadline(table: Any) -> _dt.datetime | None:
    stored = table.actions[-1].get(KEY) if table.actions else None
    if isinstance(stored, dict) and isinstance(stored.get("deadline"), str):
        try:
            return _dt.datetime.fromisoformat(stored["deadline"])
        except ValueError:
            return None
    return None


def elapsed(table: Any, now: float | None = None) -> float:
    """Seconds since the turn under way began, on this process's monotonic clock (``now``:
    ``time.monotonic()``). A turn this process did not see begin is pinned, on first look, to the
    stored deadline (else the last action's stamp) against the wall clock."""
    now = time.monotonic() if now is None else now
    anchor = table.clock_anchor
    if anchor is None or anchor[0] != table.version:
        since = 0.0
        if table.stamps:
            wall = utcnow()
            deadline = _deadline(table)
            running = table.clock_running
            left = reserves(table)
            if deadline is not None and running in left:
                since = left[running] + table.clock["delay"] - (deadline - wall).total_seconds()
            else:
                since = (wall - table.stamps[-1]).total_seconds()
        anchor = table.clock_anchor = (table.version, now - max(0.0, since))
    return max(0.0, now - anchor[1])


def remaining(table: Any, now: float | None = None) -> dict[Player, float]:
    """Seconds left on each human seat's clock (reserve after the delay), the turn under way charged."""
    left = reserves(table)
    running = table.clock_running
    if running in left and table.actions:
        left[running] -= max(0.0, elapsed(table, now) - table.clock["delay"])
    return left


def stored_entry(table: Any, runner: Player | None, stamp: _dt.datetime, now: float) -> dict[str, Any]:
    """The :data:`KEY` entry of the action being stored at ``stamp`` (wall) and ``now``
    (monotonic): each human seat's reserve after it (the turn that ends charged) and the wall-clock
    deadline of ``runner``, the seat whose clock runs after it (None: nobody's)."""
    left = remaining(table, now)
    entry: dict[str, Any] = {p.value: round(v, 3) for p, v in left.items()}
    deadline = None
    if runner in left:
        deadline = stamp + _dt.timedelta(seconds=left[runner] + table.clock["delay"])
    entry["deadline"] = deadline.isoformat() if deadline is not None else None
    return entry
