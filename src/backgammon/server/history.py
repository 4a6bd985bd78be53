"""After the game: the move list, every position (for replay) and the match export."""

from __future__ import annotations

from typing import Any

from backgammon.errors import IllegalActionError
from backgammon.game import Player
from backgammon.match import Match
from backgammon.server import protocol
from backgammon.server.matchflow import StartPosition, new_match


def history_of(table) -> dict[str, Any]:
    """Every action of a table with the board after it (white's view) for the move list and replay."""
    config = table.config
    rules = protocol.rules_from_wire(config.get("rules", {}))
    start = None
    if config.get("start"):
        from backgammon.position import Position

        start = StartPosition(
            Position.from_position_id(config["start"]["position_id"]),
            protocol.player_from_wire(config["start"].get("on_roll", "white")),
        )
    flow = new_match(rules, start)
    entries = [protocol.history_entry(flow, None, 0)]
    for seq, payload in enumerate(table.actions, start=1):
        number = len(flow.games) + 1  # the game this action belongs to
        if payload["kind"] != "timeout":
            flow = flow.apply(protocol.action_from_wire(payload, flow.game))
        entry = protocol.history_entry(flow, payload, seq)
        entry["game"] = number
        entries.append(entry)
    return protocol.history_to_wire(table, rules, flow, entries)


def export_mat(table) -> str:
    """The table's match as a Jellyfish .mat file (through ``backgammon.formats.mat``).

    Raises:
        IllegalActionError: when the formats package or the match model is not available yet.
    """
    try:
        from backgammon.formats.mat import write_mat  # type: ignore[attr-defined]
    except ImportError:
        raise IllegalActionError("export is not available: backgammon.formats.mat is not installed") from None
    if table.config.get("start"):
        raise IllegalActionError("export is not available for a table that started from a set-up position")
    names = (table.names[Player.WHITE] or "White", table.names[Player.BLACK] or "Black")
    match = Match(
        table.flow.rules, names, table.flow.score, table.flow.games, table.flow.game, table.flow.crawford_done
    )
    return write_mat(match)
