"""After the game: the move list, every position (for replay) and the match export."""

from __future__ import annotations

from typing import Any

from backgammon.errors import IllegalActionError
from backgammon.game import Player
from backgammon.match import Match
from backgammon.server import protocol
from backgammon.server.matchflow import StartPosition, new_match


def _describe(payload: dict[str, Any]) -> str:
    kind = payload["kind"]
    if kind == "opening_roll":
        w, b = payload["dice"]
        return f"opening roll {w}-{b}"
    if kind == "roll":
        return f"rolls {payload['dice'][0]}{payload['dice'][1]}"
    if kind == "move":
        return payload["play"] or "cannot move"
    if kind == "double":
        return "doubles"
    if kind == "timeout":
        return "loses on time"
    if kind == "resign":
        return f"resigns ({payload['level']})"
    return kind.replace("_", " ")


def xgid_of(game) -> str | None:
    """The XGID of a game's current position (None before the opening roll or after the end).

    WHITE is XGID's X (see :mod:`backgammon.game`).
    """
    from backgammon.formats.xgid import Xgid
    from backgammon.game import GamePhase

    if game.on_roll is None or game.phase in (GamePhase.OPENING, GamePhase.OVER):
        return None
    rules = game.rules
    owner = {None: 0, Player.WHITE: 1, Player.BLACK: -1}[game.cube_owner]
    try:
        return Xgid(
            position=game.position,
            turn=1 if game.on_roll is Player.WHITE else -1,
            cube_exponent=game.cube_value.bit_length() - 1,
            cube_owner=owner,
            dice=tuple(game.dice) if game.phase is GamePhase.MOVE and game.dice else None,
            cube_action="D" if game.phase is GamePhase.DOUBLED else None,
            score=tuple(game.score) if rules.match_length else (0, 0),
            crawford=bool(game.crawford_game),
            jacoby=bool(rules.jacoby and not rules.match_length),
            beaver=bool(rules.beavers and not rules.match_length),
            match_length=rules.match_length,
            max_cube_exponent=min(15, rules.cube_limit.bit_length() - 1),
        ).text()
    except Exception:  # noqa: BLE001 - a state XGID cannot express (e.g. a resignation pending): no XGID
        return None


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
    entries = [_entry(flow, None, 0)]
    for seq, payload in enumerate(table.actions, start=1):
        number = len(flow.games) + 1  # the game this action belongs to
        if payload["kind"] != "timeout":
            flow = flow.apply(protocol.action_from_wire(payload, flow.game))
        entry = _entry(flow, payload, seq)
        entry["game"] = number
        entries.append(entry)
    return {
        "names": {p.value: table.names[p] for p in Player},
        "length": rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "entries": entries,
    }


def _entry(flow: Match, payload: dict[str, Any] | None, seq: int) -> dict[str, Any]:
    game = flow.game if not flow.is_over else flow.games[-1]
    white = game.board_for(Player.WHITE)
    return {
        "seq": seq,
        "game": len(flow.games) + (0 if flow.is_over else 1),
        "player": payload.get("player") if payload else None,
        "kind": payload["kind"] if payload else "start",
        "text": _describe(payload) if payload else "start",
        "raw": payload or {},
        "board": protocol.board_to_wire(white),
        "dice": list(game.dice) if game.dice else None,
        "cube": game.cube_value,
        "cube_owner": protocol.player_to_wire(game.cube_owner),
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "position_id": game.position.position_id(),
        "on_roll": protocol.player_to_wire(game.on_roll),
        "xgid": xgid_of(game),
    }


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
