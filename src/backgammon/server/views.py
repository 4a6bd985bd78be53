"""JSON views of the game's values and the server's records: players, boards, results, the last
move, a table's history, Match IDs and XGIDs, accounts, lobby and history rows, pairing, health and
hints.

Part of the wire formats of :mod:`backgammon.server.protocol` (which builds a table's full state with
these, and re-exports everything here).
"""

from __future__ import annotations

from typing import Any

from backgammon.errors import InvalidInputError
from backgammon.game import (
    Beaver,
    Double,
    Game,
    Move,
    OfferDraw,
    Player,
    RejectDraw,
    RejectResignation,
    Resign,
    ResultKind,
    Rules,
    Take,
)
from backgammon.position import Position
from backgammon.server.validation import clean_settings, shown


def player_from_wire(value: object) -> Player:
    """``"white"`` / ``"black"`` to a Player.

    Raises:
        InvalidInputError: for anything else.
    """
    if value == "white":
        return Player.WHITE
    if value == "black":
        return Player.BLACK
    raise InvalidInputError(f"invalid seat {shown(value)}: expected 'white' or 'black'")


def player_to_wire(player: Player | None) -> str | None:
    return None if player is None else player.value


# ---------------------------------------------------------- boards and results
def board_to_wire(position: Position) -> dict[str, list[int]]:
    return {"mine": list(position.mine), "theirs": list(position.theirs)}


def result_to_wire(result) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "winner": player_to_wire(result.winner),
        "points": result.points,
        "kind": result.kind.name.lower() if result.kind else None,
        "ending": result.ending.value,
        "text": str(result),
    }


def resign_points(game: Game) -> dict[str, int]:
    """What a resignation at each level would give the opponent now (cube, Jacoby, backgammon value)."""
    levels = {"single": ResultKind.SINGLE, "gammon": ResultKind.GAMMON, "backgammon": ResultKind.BACKGAMMON}
    return {name: game.cube_value * game.multiplier(kind) for name, kind in levels.items()}


LAST_MOVE_STAYS = frozenset({Double, Take, Beaver, Resign, RejectResignation, OfferDraw, RejectDraw})
"""Actions after a move that leave it the last move shown (nothing moved, nobody rolled)."""


def last_move_of(game: Game) -> dict[str, Any] | None:
    """The move to show on the board as the last one: the latest move of this game, until the
    next roll (``{"player", "dice", "steps", "play"}``, steps in the mover's numbering), or None."""
    for action in reversed(game.log):
        if isinstance(action, Move):
            return {
                "player": player_to_wire(action.player),
                "dice": list(action.play.dice),
                "steps": [[step.source, step.destination] for step in action.play.steps],
                "play": str(action.play),
            }
        if type(action) not in LAST_MOVE_STAYS:
            return None
    return None


# ----------------------------------------------------------------- history
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
    if kind == "end_session":
        return "ends the session"
    if kind == "resign":
        return f"resigns ({payload['level']})"
    return kind.replace("_", " ")


def history_entry(flow: Any, payload: dict[str, Any] | None, seq: int, ended: bool = False) -> dict[str, Any]:
    """One entry of a table's history: the action and the board after it (white's view); for an
    action that ended a game (``ended``), that game's final position, not the next game's start."""
    game = flow.games[-1] if ended or flow.is_over else flow.game
    white = game.board_for(Player.WHITE)
    return {
        "seq": seq,
        "game": len(flow.games) + (0 if flow.is_over else 1),
        "player": payload.get("player") if payload else None,
        "kind": payload["kind"] if payload else "start",
        "text": _describe(payload) if payload else "start",
        "raw": payload or {},
        "board": board_to_wire(white),
        "dice": list(game.dice) if game.dice else None,
        "cube": game.cube_value,
        "cube_owner": player_to_wire(game.cube_owner),
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "position_id": game.position.position_id(),
        "on_roll": player_to_wire(game.on_roll),
        "xgid": xgid_of(game),
        "match_id": match_id_of(game),
    }


def history_to_wire(table: Any, rules: Rules, flow: Any, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """A table's history: names, match length, final score and the entries."""
    return {
        "names": {p.value: table.names[p] for p in Player},
        "length": rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "entries": entries,
    }


def match_id_of(game) -> str | None:
    """The gnubg Match ID of a game's current state (None before the opening roll or after the end).

    WHITE is gnubg's player 1, BLACK player 0 (see :mod:`backgammon.game`).
    """
    from backgammon.formats.match_id import MatchState
    from backgammon.game import GamePhase

    if game.on_roll is None or game.turn is None or game.phase in (GamePhase.OPENING, GamePhase.OVER):
        return None
    rules = game.rules
    try:
        return MatchState(
            cube_value=game.cube_value,
            cube_owner=None if game.cube_owner is None else game.cube_owner.gnubg_index,
            dice_owner=game.on_roll.gnubg_index,
            crawford=bool(game.crawford_game),
            turn=game.turn.gnubg_index,
            doubled=game.phase is GamePhase.DOUBLED,
            resignation=game.resignation.value if game.phase is GamePhase.RESIGNATION and game.resignation else 0,
            dice=tuple(game.dice) if game.phase is GamePhase.MOVE and game.dice else None,
            match_length=rules.match_length,
            score=(game.score[1], game.score[0]) if rules.match_length else (0, 0),
        ).match_id()
    except Exception:  # noqa: BLE001 - a state a Match ID cannot express: none shown
        return None


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


# ------------------------------------------------------------ accounts etc.
def user_to_wire(user: Any) -> dict[str, Any]:
    """What the browser learns about the logged-in user."""
    return {
        "username": user.username,
        "rating": round(user.rating, 2),
        "experience": user.experience,
        "settings": clean_settings(user.settings),
    }


def lobby_entry(table: Any, host_rating: float | None = None) -> dict[str, Any]:
    """A listed table waiting for its second player: its host, the host's rating (an account's;
    None for a guest), rules and clock (``{"minutes", "delay"}`` or None)."""
    seat = Player.WHITE if table.tokens[Player.WHITE] else Player.BLACK
    return {
        "id": table.id,
        "host": table.names[seat],
        "host_rating": round(host_rating, 2) if host_rating is not None else None,
        "rules": table.config.rules,
        "clock": table.config.clock,
        "free_seat": seat.other.value,
    }


def live_entry(table: Any) -> dict[str, Any]:
    """A table between two people being played now, to watch: the players' names, the score."""
    flow = table.flow
    return {
        "id": table.id,
        "white": table.names[Player.WHITE],
        "black": table.names[Player.BLACK],
        "rules": table.config.rules,
        "clock": table.config.clock,
        "length": flow.rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "game": len(flow.games) + (0 if flow.is_over else 1),
    }


def unfinished_entry(table: Any, seat: Player, held: bool) -> dict[str, Any]:
    """One of the player's unfinished tables (``held``: the asking browser holds its seat token)."""
    flow = table.flow
    return {
        "id": table.id,
        "mode": table.config.mode,
        "seat": seat.value,
        "opponent": table.names[seat.other] or None,
        "status": table.status,
        "length": flow.rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "your_turn": table.status == "playing" and not table.is_over and flow.game.turn is seat,
        "clock": table.config.clock,
        "created": table.created_at.isoformat() if table.created_at else None,
        "held": held,
    }


def pair_to_wire(
    request_id: str, status: str, *, table: str | None = None, seat: str | None = None, token: str | None = None
) -> dict[str, Any]:
    """Where a quick-pairing request stands: ``waiting``, ``paired`` (at ``table``, in ``seat``),
    ``cancelled`` or ``expired``; ``token`` (the seat token the request's player will sit with)
    only in the answer that made the request."""
    doc: dict[str, Any] = {"id": request_id, "status": status, "table": table, "seat": seat}
    if token is not None:
        doc["token"] = token
    return doc


def history_row(row: Any, table: Any, user_id: int) -> dict[str, Any]:
    """One line of a user's game history."""
    seat = "white" if row.white_user_id == user_id else "black"
    return {
        "id": row.id,
        "created": row.created_at.isoformat(),
        "seat": seat,
        "opponent": row.black_name if seat == "white" else row.white_name,
        "status": table.status,
        "length": table.flow.rules.match_length,
        "score": {"white": table.flow.score[0], "black": table.flow.score[1]},
        "winner": player_to_wire(table.winner),
    }


# ------------------------------------------------------------ health and hints
def health_to_wire(tables: int, owned: int, chouettes: int, engine: str, process: str) -> dict[str, Any]:
    """``/api/health``: tables in this process's memory, how many tables and chouettes this process
    runs (owns), chouettes in memory, the engine's state (ready, warming, unavailable, not warmed) and which
    server process answered (an opaque id)."""
    return {
        "ok": True,
        "tables": tables,
        "owned": owned,
        "chouettes": chouettes,
        "engine": engine,
        "process": process,
    }


def public_user(user: Any) -> dict[str, Any]:
    """What anyone may see of an account."""
    return {"username": user.username, "rating": round(user.rating, 2), "experience": user.experience}


def hints_to_wire(source: str, ranked: list[Any], pips: tuple[int, int]) -> dict[str, Any]:
    """Ranked plays for the hint panel, best first.

    ``source`` "engine": ``ranked`` holds the one ranking's entries
    (:class:`backgammon.engine.search.RankedPlay`), each sent with its equity,
    chances, depth and kind (``plies``, ``kind``, and ``label`` such as
    "1-ply cubeful money" for the browser to show; ``mwc`` in a match).
    ``source`` "heuristic": ``(play, score)`` pairs from the quick player's
    heuristic (no equity, labelled "heuristic score").
    """
    plays = []
    for entry in ranked:
        if source == "engine":
            probs = entry.probabilities
            doc: dict[str, Any] = {
                "play": str(entry.play),
                "steps": [[step.source, step.destination] for step in entry.play.steps],
                "position_id": entry.play.position.position_id(),
                "equity": round(float(entry.equity), 3),
                "win": round(float(probs.win), 3),
                "gammon": round(float(probs.win_gammon), 3),
                "plies": int(entry.plies),
                "kind": entry.kind,
                "label": entry.label,
            }
            if entry.mwc is not None:
                doc["mwc"] = round(float(entry.mwc), 4)
        else:
            play, score = entry
            doc = {
                "play": str(play),
                "steps": [[step.source, step.destination] for step in play.steps],
                "position_id": play.position.position_id(),
                "score": round(float(score), 2),
                "label": "heuristic score",
            }
        plays.append(doc)
    return {"type": "hint", "source": source, "plays": plays, "pips": list(pips)}
