"""Wire formats: every JSON shape the server sends or reads lives here (or in the two modules this
one re-exports, :mod:`backgammon.server.validation` and :mod:`backgammon.server.views`).

- Actions are stored in the database and sent to browsers as small dicts
  (:func:`action_to_wire` / :func:`action_from_wire`); the dice of a roll are part of it.
- A client asks for an action with :func:`parse_client_message` (the typed client messages
  are here); dice are never taken from a client (the server rolls them).
- :func:`state_to_wire` is the full state of a table for one viewer (a seat or a
  spectator): the board from that viewer's side, what they may do now and, for the side
  to move, the legal step sequences as a graph (:func:`move_graph`; the browser runs no
  rules, it only follows these).
- Socket messages (:func:`state_message`, :func:`event_message`, :func:`error_message`): here.
- :mod:`backgammon.server.views`: the JSON views of players, boards, results, history entries,
  hints, accounts and lobby rows. :mod:`backgammon.server.validation`: the checks of what
  clients send (JSON, text, names, settings, pairing requests).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from backgammon.engine.met import MAX_AWAY
from backgammon.errors import InvalidInputError
from backgammon.game import (
    AcceptDraw,
    AcceptResignation,
    Action,
    Beaver,
    Double,
    Game,
    GamePhase,
    Move,
    OfferDraw,
    OpeningRoll,
    Pass,
    Player,
    RejectDraw,
    RejectResignation,
    Resign,
    ResultKind,
    Roll,
    Rules,
    Take,
    check_match_length,
)
from backgammon.moves import Play, StepGraph, step_graph
from backgammon.position import Position
from backgammon.server import game_clock
from backgammon.server.matchflow import last_result
from backgammon.server.table_dice import dice_doc
from backgammon.server.validation import MAX_BODY as MAX_BODY
from backgammon.server.validation import MAX_CHAT as MAX_CHAT
from backgammon.server.validation import MAX_DEPTH as MAX_DEPTH
from backgammon.server.validation import MAX_HELD_SEATS as MAX_HELD_SEATS
from backgammon.server.validation import MAX_NAME as MAX_NAME
from backgammon.server.validation import MAX_NUMBER_CHARS as MAX_NUMBER_CHARS
from backgammon.server.validation import MAX_SHOWN as MAX_SHOWN
from backgammon.server.validation import PAIR_CLOCKS as PAIR_CLOCKS
from backgammon.server.validation import HeldSeat as HeldSeat
from backgammon.server.validation import HeldSeats as HeldSeats
from backgammon.server.validation import PageLimit as PageLimit
from backgammon.server.validation import PageOffset as PageOffset
from backgammon.server.validation import PairRequest as PairRequest
from backgammon.server.validation import SettingsDoc as SettingsDoc
from backgammon.server.validation import check_name as check_name
from backgammon.server.validation import check_steps, parse_json_object, shown, validated
from backgammon.server.validation import check_text as check_text
from backgammon.server.validation import clean_settings as clean_settings
from backgammon.server.validation import held_seats_from_wire as held_seats_from_wire
from backgammon.server.validation import name_key as name_key
from backgammon.server.validation import pair_request_from_wire as pair_request_from_wire
from backgammon.server.validation import settings_from_wire as settings_from_wire
from backgammon.server.validation import validation_message as validation_message
from backgammon.server.views import LAST_MOVE_STAYS as LAST_MOVE_STAYS
from backgammon.server.views import (
    board_to_wire,
    last_move_of,
    match_id_of,
    player_from_wire,
    player_to_wire,
    resign_points,
    result_to_wire,
    xgid_of,
)
from backgammon.server.views import health_to_wire as health_to_wire
from backgammon.server.views import hints_to_wire as hints_to_wire
from backgammon.server.views import history_entry as history_entry
from backgammon.server.views import history_row as history_row
from backgammon.server.views import history_to_wire as history_to_wire
from backgammon.server.views import live_entry as live_entry
from backgammon.server.views import lobby_entry as lobby_entry
from backgammon.server.views import pair_to_wire as pair_to_wire
from backgammon.server.views import public_user as public_user
from backgammon.server.views import unfinished_entry as unfinished_entry
from backgammon.server.views import user_to_wire as user_to_wire

MAX_MESSAGE = 16_000
"""The longest socket message (characters)."""
MAX_AUTOMATIC_DOUBLES = 4
"""The most opening ties per game that may double the cube (``Rules.automatic_doubles``)."""

SIMPLE_ACTIONS: dict[str, Callable[[Player], Action]] = {
    "double": Double,
    "take": Take,
    "pass": Pass,
    "beaver": Beaver,
    "accept_resignation": AcceptResignation,
    "reject_resignation": RejectResignation,
    "offer_draw": OfferDraw,
    "accept_draw": AcceptDraw,
    "reject_draw": RejectDraw,
}
ACTION_KIND = {cls: kind for kind, cls in SIMPLE_ACTIONS.items()} | {
    Roll: "roll",
    OpeningRoll: "opening_roll",
    Move: "move",
    Resign: "resign",
}
CLIENT_KINDS = ("roll", "move", "resign", *SIMPLE_ACTIONS)
RESIGN_LEVELS = {"single": ResultKind.SINGLE, "gammon": ResultKind.GAMMON, "backgammon": ResultKind.BACKGAMMON}


# ------------------------------------------------------------------ rules
def rules_from_wire(doc: object) -> Rules:
    """Rules from a table-creation request.

    Raises:
        InvalidInputError: for unknown keys or bad values (match length 0..25).
    """
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise InvalidInputError(f"invalid rules {shown(doc)}: expected an object")
    allowed = {
        "match_length",
        "cube",
        "jacoby",
        "beavers",
        "automatic_doubles",
        "backgammon_value",
        "crawford",
        "casual",
    }
    unknown = set(doc) - allowed
    if unknown:
        raise InvalidInputError(f"invalid rules: unknown keys {shown(sorted(unknown), 120)}")
    check_match_length(doc.get("match_length", 0), limit=MAX_AWAY)  # the computer's MET ends at 25
    for key in ("cube", "jacoby", "beavers", "crawford", "casual"):
        if key in doc and not isinstance(doc[key], bool):
            raise InvalidInputError(f"invalid rule {key} {shown(doc[key])}: expected true or false")
    autos = doc.get("automatic_doubles", 0)
    if not isinstance(autos, int) or isinstance(autos, bool) or not 0 <= autos <= MAX_AUTOMATIC_DOUBLES:
        raise InvalidInputError(
            f"invalid rule automatic_doubles {shown(autos)}: expected 0 to {MAX_AUTOMATIC_DOUBLES} "
            "(opening ties that double the cube in a money game)"
        )
    value = doc.get("backgammon_value", 3)
    if value not in (2, 3) or isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"invalid rule backgammon_value {shown(value)}: expected 2 or 3")
    return Rules(**doc)


def rules_to_wire(rules: Rules) -> dict[str, Any]:
    return {
        "match_length": rules.match_length,
        "cube": rules.cube,
        "jacoby": rules.jacoby,
        "beavers": rules.beavers,
        "automatic_doubles": rules.automatic_doubles,
        "backgammon_value": rules.backgammon_value,
        "crawford": rules.crawford,
        "casual": rules.casual,
    }


# ---------------------------------------------------------------- actions
def action_to_wire(action: object) -> dict[str, Any]:
    """A stored / broadcast form of a game action."""
    kind = ACTION_KIND[type(action)]
    doc: dict[str, Any] = {"kind": kind, "player": player_to_wire(action.player)}  # type: ignore[attr-defined]
    if isinstance(action, OpeningRoll):
        doc["dice"] = [action.white_die, action.black_die]
        doc.pop("player")
    elif isinstance(action, Roll):
        doc["dice"] = list(action.dice) if action.dice else None
    elif isinstance(action, Move):
        doc["play"] = str(action.play)
        doc["after"] = action.play.position.position_id()
        doc["steps"] = [[step.source, step.destination] for step in action.play.steps]
        doc["dice"] = list(action.play.dice)
    elif isinstance(action, Resign):
        doc["level"] = action.level.name.lower()
    return doc


def action_from_wire(doc: dict[str, Any], game: Game) -> Action:
    """Rebuild a stored action against the game it applies to.

    Raises:
        InvalidInputError: for a malformed record.
        IllegalPlayError: if a stored move does not fit the game.
    """
    kind = doc.get("kind")
    if kind == "opening_roll":
        white, black = doc["dice"]
        return OpeningRoll(white, black)
    player = player_from_wire(doc.get("player"))
    if kind == "roll":
        return Roll(player, tuple(doc["dice"]))
    if kind == "move":
        return Move(player, play_for_position(game, doc["after"]))
    if kind == "resign":
        return Resign(player, RESIGN_LEVELS[doc["level"]])
    if kind in SIMPLE_ACTIONS:
        return SIMPLE_ACTIONS[kind](player)
    raise InvalidInputError(f"invalid stored action {shown(doc, 120)}")


def play_for_position(game: Game, position_id: str) -> Play:
    """The legal play of the game's current roll that leads to ``position_id`` (through the one
    home of that search, :meth:`Game.find_play`).

    Raises:
        InvalidPositionError: for a bad Position ID. IllegalActionError: if no move is awaited.
        IllegalPlayError: if no legal play leads there.
    """
    return game.find_play(Position.from_position_id(position_id))


# ------------------------------------------------------------- client messages
class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class HelloMessage(_Message):
    """The first message on a table's socket: who is connecting (a seat token, or none to watch).

    The seat token travels here, never in the URL (URLs end up in logs and histories)."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=128)


class ActionBody(_Message):
    """A client's action, the same from a REST body (``POST .../actions``) and a socket message
    (:class:`ActionMessage`). ``version``: the state it answers (stale ones are refused)."""

    action: str = Field(max_length=32)
    version: int | None = Field(default=None, ge=0, le=10**9)
    steps: list[Annotated[list[Annotated[int, Field(ge=0, le=25)]], Field(min_length=2, max_length=2)]] | None = Field(
        default=None, max_length=4
    )
    play: str | None = Field(default=None, max_length=200)
    level: str | None = Field(default=None, max_length=16)


class ActionMessage(ActionBody):
    """An action of the connection's seat on its socket (:class:`ActionBody`)."""

    type: Literal["action"]


class RequestMessage(_Message):
    """``resync`` (send the full state again), ``hint`` (ranked plays, games against the computer)
    or ``ping`` (answered by ``pong``)."""

    type: Literal["resync", "hint", "ping"]


class ChatLine(_Message):
    """A line of chat from a seated player (at most :data:`MAX_CHAT` characters; checked as
    user text by :func:`check_text`)."""

    type: Literal["chat"]
    text: str = Field(max_length=4 * 300 + 16)


CLIENT_MESSAGES: dict[str, type[_Message]] = {
    "hello": HelloMessage,
    "chat": ChatLine,
    "action": ActionMessage,
    "resync": RequestMessage,
    "hint": RequestMessage,
    "ping": RequestMessage,
}
"""Every message a client may send on a table's socket, by ``type`` (see docs/web-protocol.md)."""


class RolloutCancelMessage(_Message):
    """On a rollout's socket: stop the job (``token``: the one its start answered with)."""

    type: Literal["cancel"]
    token: str | None = Field(default=None, max_length=128)


ROLLOUT_MESSAGES: dict[str, type[_Message]] = {"cancel": RolloutCancelMessage}
"""Every message a client may send on a rollout's socket (``/ws/study/rollouts/{id}``)."""

SERVER_MESSAGES = ("state", "event", "error", "hint", "pong", "presence", "chat")
"""Every message type the server sends on a table's socket (see docs/web-protocol.md)."""


def parse_client_message(text: str | bytes, messages: Mapping[str, type[_Message]] | None = None) -> dict[str, Any]:
    """Decode and validate one message from a browser (see :func:`parse_json_object`) against
    ``messages`` (default :data:`CLIENT_MESSAGES`); returns it with the fields it leaves out set to None.

    Raises:
        InvalidInputError: for malformed or hostile JSON, an unknown message type or a bad field.
    """
    messages = CLIENT_MESSAGES if messages is None else messages
    doc = parse_json_object(text, "message", MAX_MESSAGE)
    kind = doc.get("type")
    model = messages.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise InvalidInputError(
            f"invalid message type {shown(kind)}: expected one of {', '.join(repr(k) for k in messages)}"
        )
    message = validated(model, doc, "message")
    return {k: v for k, v in message.model_dump().items() if k in doc}


def action_body(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A client's action (a REST body, or a socket message without its ``type``) checked against
    :class:`ActionBody`, the one model of both; the fields it leaves out are left out.

    Raises:
        InvalidInputError: an unknown or malformed field.
    """
    fields = {k: v for k, v in doc.items() if k != "type"}
    action = validated(ActionBody, fields, "action")
    return {k: v for k, v in action.model_dump().items() if k in fields}


# -------------------------------------------------------------- the move graph
@functools.lru_cache(maxsize=4096)
def _graph(position: Position, die1: int, die2: int) -> tuple[StepGraph, dict[str, Any]]:
    """A roll's :class:`~backgammon.moves.StepGraph` and its wire form, built once per position and
    roll (the mover's state sends it, and the steps sent back are followed through it)."""
    graph = step_graph(position, die1, die2)
    return graph, {"length": graph.length, "nodes": graph.nodes}


def play_from_steps(game: Game, steps: tuple[tuple[int, int], ...]):
    """The legal play made of these steps (in the mover's numbering, 25 = bar, 0 = off).

    Raises:
        IllegalActionError: if the game is not waiting for a move.
        IllegalPlayError: if the steps are not a complete legal play.
    """
    from backgammon.errors import IllegalActionError
    from backgammon.moves import find_play

    if game.phase is not GamePhase.MOVE or game.dice is None:
        raise IllegalActionError(f"cannot move now: {game.describe()}")
    after = _graph(game.position, *game.dice)[0].follow(steps)
    query: Position | tuple[tuple[int, int], ...] = steps if after is None else after
    return find_play(game.position, game.dice[0], game.dice[1], query, plays=game.legal_plays)  # raises if None


def play_of(game: Game, message: Mapping[str, Any]) -> Play:
    """The legal play a client's move names: its ``steps`` (:func:`play_from_steps`) or its
    ``play`` in the standard notation.

    Raises:
        InvalidInputError: neither is given, or the steps are malformed.
        IllegalActionError / IllegalPlayError: no move now, or not a legal play.
    """
    if "steps" in message:
        return play_from_steps(game, check_steps(message["steps"]))
    if isinstance(message.get("play"), str):
        return game.play_from_text(message["play"])
    raise InvalidInputError("invalid move: expected 'steps' or 'play'")


def move_graph(game: Game) -> dict[str, Any] | None:
    """The current roll's legal step sequences as a graph (``{"length": n, "nodes": [[[from, to,
    child], ...], ...]}``, see :class:`~backgammon.moves.StepGraph` and ``docs/web-protocol.md``),
    or None when nobody is to move.

    Cached and shared, and immutable: encoded as it is, never copied into lists."""
    if game.phase is not GamePhase.MOVE or game.dice is None:
        return None
    return _graph(game.position, *game.dice)[1]


def roll_moves(position: Position, die1: int, die2: int) -> dict[str, Any]:
    """What a board that is not a table's needs to move checkers by clicking (the study board, lessons,
    puzzles): ``{"move_graph": ..., "plays": ...}``, the roll's step graph as :func:`move_graph` sends
    it and each legal play once (:func:`plays_to_wire`), whose text the page shows once the clicked
    steps make it. The steps come back to :func:`backgammon.moves.find_play`.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    wire = _graph(position, die1, die2)[1]
    return {"move_graph": wire, "plays": plays_to_wire(position.legal_plays(die1, die2))}


def plays_to_wire(plays: Sequence[Play]) -> list[dict[str, Any]]:
    """Each legal play once: its text in the standard notation and one order of its steps
    (``{"play": "13/11 13/8", "steps": [[13, 11], [13, 8]]}``; ``""`` and ``[]`` for no move)."""
    return [{"play": str(play), "steps": [[step.source, step.destination] for step in play.steps]} for play in plays]


def graph_sequences(graph: dict[str, Any] | None) -> list[list[list[int]]]:
    """Every step sequence of a wire graph (:func:`move_graph`), depth first: what a client that
    wants the plain list (a bot, a test) makes of it. ``[]`` for None; ``[[]]`` when the roll
    cannot be played."""
    if not graph:
        return []
    nodes = graph["nodes"]
    out: list[list[list[int]]] = []

    def walk(node: int, prefix: list[list[int]]) -> None:
        if not nodes[node]:
            out.append(prefix)
        for src, dst, child in nodes[node]:
            walk(child, [*prefix, [src, dst]])  # noqa: F821 (deleted after the search, see below)

    walk(0, [])
    del walk  # (a recursive closure is a reference cycle)
    return out


# ----------------------------------------------------------------- table state
def dead_cube_match(game: Game) -> bool:
    """A 1-point match: the rules allow a double, but it can win nothing more (the site offers none)."""
    return game.rules.match_length == 1


def allowed_for(game: Game, seat: Player | None) -> list[str]:
    """The action kinds ``seat`` may ask for now."""
    if seat is None or game.turn is not seat:
        return []
    kinds: list[str] = []
    for action_type in game.action_types():
        kind = ACTION_KIND[action_type]
        if kind == "opening_roll" or (kind == "double" and dead_cube_match(game)):
            continue
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def state_to_wire(table: Any, seat: Player | None) -> dict[str, Any]:
    """The full state of a table as one viewer sees it."""
    flow = table.flow
    game = flow.game
    shared = _shared_parts(table)
    view = seat or Player.WHITE
    board = game.board_for(view)
    pips_view, pips_other = board.pip_counts()
    off_view, off_other = board.off()
    allowed = allowed_for(game, seat) if table.status == "playing" and not table.is_over else []
    if seat is not None and seat is table.ai_seat:
        allowed = []
    graph = move_graph(game) if "move" in allowed else None
    on_roll = game.on_roll
    return {
        "table": {
            "id": table.id,
            "mode": table.config.mode,
            "level": table.config.level,
            "ai_seat": table.config.ai_seat,
            "status": table.status,
            "rules": table.config.rules,
            "names": {p.value: table.names[p] for p in Player},
            "seated": {p.value: table.tokens[p] is not None for p in Player},
            "test_start": bool(table.config.start),
            "rematch": table.config.rematch,  # the id of the rematch's table, once a player asked
        },
        "version": table.version,
        "you": player_to_wire(seat),
        "view": view.value,
        "match": {
            "length": flow.rules.match_length,
            "score": {"white": flow.score[0], "black": flow.score[1]},
            "crawford": flow.is_crawford_game,
            "post_crawford": flow.is_post_crawford,
            "over": table.is_over,
            "winner": player_to_wire(table.winner),
            "timeout": player_to_wire(table.timeout_loser),
            "ended_by": player_to_wire(getattr(table, "ended_by", None)),  # a money session's end
            "game_number": len(flow.games) + (0 if flow.is_over else 1),
            "last_result": result_to_wire(last_result(flow)),
        },
        "game": {
            "phase": game.phase.value,
            "turn": player_to_wire(game.turn),
            "on_roll": player_to_wire(on_roll),
            "dice": list(game.dice) if game.dice else None,
            "cube": {
                "value": game.cube_value,
                "owner": player_to_wire(game.cube_owner),
                "offered_by": player_to_wire(game.doubled_by),
                "enabled": flow.rules.cube and not flow.rules.casual and not game.crawford_game,
            },
            "resignation": game.resignation.name.lower() if game.resignation else None,
            "board": board_to_wire(board),
            "pips": {view.value: pips_view, view.other.value: pips_other},
            "off": {view.value: off_view, view.other.value: off_other},
            **shared["ids"],
            "result": result_to_wire(game.result),
            "description": game.describe(),
            "last_opening": shared["last_opening"],
            "last_move": shared["last_move"],
        },
        "allowed": allowed,
        "move_graph": graph,
        "plays": len(game.legal_plays) if "move" in allowed else 0,
        "resign_points": resign_points(game) if "resign" in allowed else None,
        "clock": _clock_doc(table),
        "present": table.presence,
        "fair_dice": shared["fair_dice"],
    }


def _shared_parts(table: Any) -> dict[str, Any]:
    """The parts of a table's state that are the same for every viewer, built once per version
    (kept on the table as ``view_cache``; every connection's state at that version shares them)."""
    key = (table.version, table.status, table.is_over)
    cached = getattr(table, "view_cache", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    game = table.flow.game
    parts = {
        "ids": {"position_id": game.position.position_id(), "xgid": xgid_of(game), "match_id": match_id_of(game)},
        "last_opening": _last_opening(table),
        "last_move": last_move_of(game),
        "fair_dice": dice_doc(table.id, table.config.dice, table.actions, table.is_over, table.draw_count),
    }
    table.view_cache = (key, parts)
    return parts


def _clock_doc(table: Any) -> dict[str, Any] | None:
    if not table.clock:
        return None
    left = table.clock_remaining()
    return {
        "minutes": table.clock["minutes"],
        "delay": table.clock["delay"],
        "remaining": {p.value: round(max(0.0, v), 1) for p, v in left.items()},
        "running": player_to_wire(table.clock_running),
        "elapsed": round(game_clock.elapsed(table), 1) if table.stamps else 0.0,  # (monotonic)
    }


def _last_opening(table: Any) -> list[int] | None:
    for payload in reversed(table.actions[-6:]):
        if payload.get("kind") == "opening_roll":
            return payload["dice"]
    return None


# -------------------------------------------------------------------- messages
PONG: dict[str, Any] = {"type": "pong"}
"""The answer to a socket ``{"type": "ping"}``."""


def error_body(message: str, code: str = "error", params: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The body of an HTTP error response: the English message, and a stable code with its
    parameters for a client that words it in the user's language (``docs/web-protocol.md``)."""
    return {"error": message, "code": code, "params": dict(params or {})}


def error_message(
    status: int, message: str, code: str = "error", params: Mapping[str, object] | None = None
) -> dict[str, Any]:
    """A socket error (always followed by the full state), with its code and parameters."""
    return {"type": "error", "status": status, "message": message, "code": code, "params": dict(params or {})}


def chat_message(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """A socket message: lines of a table's chat, oldest first (``{"seat", "name", "text", "at"}``)."""
    return {"type": "chat", "lines": lines}


def presence_message(table: Any) -> dict[str, Any]:
    """A socket message: who is connected to the table now (a seat's player, and how many watch)."""
    return {"type": "presence", "present": table.presence}


def state_message(table: Any, seat: Player | None) -> dict[str, Any]:
    """A socket message with the full state for one viewer."""
    return {"type": "state", "state": state_to_wire(table, seat)}


def event_message(table: Any, seat: Player | None, event: dict[str, Any] | None) -> dict[str, Any]:
    """A socket broadcast: the action just stored (or None) and the new full state."""
    return {"type": "event", "event": event, "state": state_to_wire(table, seat)}


def seat_to_wire(table: Any, seat: Player, token: str) -> dict[str, Any]:
    """The answer to creating or joining a table: the seat and its token (kept by the browser)."""
    return {"id": table.id, "seat": seat.value, "token": token, "state": state_to_wire(table, seat)}
