"""After the game: the move list, every position (for replay) and the match export."""

from __future__ import annotations

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
        entry = protocol.history_entry(after, payload, seq)
        entry["game"] = len(before.games) + 1  # the game this action belongs to
        entries.append(entry)
        flow = after
    return protocol.history_to_wire(table, flow.rules, flow, entries)


def export_mat(table) -> str:
    """The table's match as a Jellyfish .mat file (through ``backgammon.formats.mat``).

    Raises:
        IllegalActionError: for a table that started from a set-up position.
    """
    if table.config.get("start"):
        raise IllegalActionError("export is not available for a table that started from a set-up position")
    names = (table.names[Player.WHITE] or "White", table.names[Player.BLACK] or "Black")
    match = Match(
        table.flow.rules, names, table.flow.score, table.flow.games, table.flow.game, table.flow.crawford_done
    )
    return write_mat(match)
