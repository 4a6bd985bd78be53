"""After the game: the move list, every position (for replay) and the match export."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from backgammon.errors import IllegalActionError
from backgammon.formats.mat import write_mat
from backgammon.game import Player
from backgammon.match import Match
from backgammon.server import protocol
from backgammon.server.replay import match_of, replay_match


def history_of(table) -> dict[str, Any]:
    """Every action of a table with the board after it (white's view) for the move list and replay."""
    flow = match_of(table.config)
    entries = [protocol.history_entry(flow, None, 0)]
    for seq, (before, payload, after) in enumerate(replay_match(table.config, list(table.actions)), start=1):
        entry = protocol.history_entry(after, payload, seq, ended=len(after.games) > len(before.games))
        entry["game"] = len(before.games) + 1  # the game this action belongs to
        entries.append(entry)
        flow = after
    return protocol.history_to_wire(table, flow.rules, flow, entries)


_RECENT: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
_RECENT_KEPT = 8
_RECENT_LOCK = threading.Lock()


def _history_cached(table) -> dict[str, Any]:
    """:func:`history_of` at the table's current version, kept for the last few tables asked (a
    replay asks for its entries one by one; a long match takes a tenth of a second to replay).
    Read only: the same dict is handed to every caller."""
    key = (table.id, table.version, len(table.actions), tuple(table.names.values()))
    with _RECENT_LOCK:
        if key in _RECENT:
            _RECENT.move_to_end(key)
            return _RECENT[key]
    doc = history_of(table)
    with _RECENT_LOCK:
        _RECENT[key] = doc
        while len(_RECENT) > _RECENT_KEPT:
            _RECENT.popitem(last=False)
    return doc


MOVE_LIST_KEYS = ("game", "player", "kind", "dice")
"""What the move list shows of every entry; of its action (``raw``), :data:`MOVE_LIST_RAW` by kind."""
MOVE_LIST_RAW = {"opening_roll": ("dice",), "move": ("play",), "resign": ("level",)}


def move_list_of(table) -> dict[str, Any]:
    """:func:`history_of` without the positions: each entry's game, player, kind and dice, and of
    its action (``raw``, left out when empty) an opening roll's dice, a move's text, a resignation's
    level: what the browser's move list reads. A sixth of the size (a finished 3-point match:
    about 490 bytes an entry with the positions, 60 without); the browser fetches one entry's
    position with :func:`history_entry_of` when it is replayed."""
    doc = dict(_history_cached(table))
    doc["entries"] = [_move_list_entry(entry) for entry in doc["entries"]]
    return doc


def _move_list_entry(entry: dict[str, Any]) -> dict[str, Any]:
    brief = {key: entry[key] for key in MOVE_LIST_KEYS if entry.get(key) is not None}
    raw = {key: entry["raw"][key] for key in MOVE_LIST_RAW.get(entry["kind"], ()) if key in entry["raw"]}
    if raw:
        brief["raw"] = raw
    return brief


def history_entry_of(table, seq: int) -> dict[str, Any]:
    """Entry ``seq`` of :func:`history_of` (0: the start), with its board and IDs.

    Raises:
        LookupError: for no such entry.
    """
    entries = _history_cached(table)["entries"]
    if not 0 <= seq < len(entries):
        raise LookupError(f"no history entry {seq}: the table has entries 0 to {len(entries) - 1}")
    return entries[seq]


def export_mat(table) -> str:
    """The table's match as a Jellyfish .mat file (through ``backgammon.formats.mat``).

    Raises:
        IllegalActionError: for a table that started from a set-up position.
    """
    if table.config.start:
        raise IllegalActionError("export is not available for a table that started from a set-up position")
    names = (table.names[Player.WHITE] or "White", table.names[Player.BLACK] or "Black")
    match = Match(
        table.flow.rules, names, table.flow.score, table.flow.games, table.flow.game, table.flow.crawford_done
    )
    return write_mat(match)
