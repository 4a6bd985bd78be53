"""What the tests read of the server's wire formats."""

from __future__ import annotations

from typing import Any

from backgammon.server.protocol import graph_sequences


def moves_of(state: dict[str, Any]) -> list[list[list[int]]]:
    """Every legal step sequence of a state's move graph (``[]`` when this viewer may not move,
    ``[[]]`` when the roll cannot be played), in the graph's depth-first order."""
    return graph_sequences(state.get("move_graph"))
