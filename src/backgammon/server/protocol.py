"""Wire formats: every JSON shape the server sends or reads lives here.

- Actions are stored in the database and sent to browsers as small dicts
  (:func:`action_to_wire` / :func:`action_from_wire`); the dice of a roll are part of it.
- A client asks for an action with :func:`parse_client_message`; dice are never taken
  from a client (the server rolls them).
- :func:`state_to_wire` is the full state of a table for one viewer (a seat or a
  spectator): the board from that viewer's side, what they may do now and, for the side
  to move, the legal step sequences as a graph (:func:`move_graph`; the browser runs no
  rules, it only follows these).
- Socket messages (:func:`state_message`, :func:`event_message`, :func:`error_message`),
  history entries, hints, accounts, lobby rows: also here, and only here.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from backgammon import safejson
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

MAX_MESSAGE = 16_000
"""The longest socket message (characters)."""
MAX_BODY = 64 * 1024
"""The largest HTTP request body (bytes); :mod:`backgammon.server.security` answers 413 past it."""
MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a JSON document may have."""
MAX_NUMBER_CHARS = 40
"""The longest number literal (integers of more digits are refused before Python converts them)."""
MAX_SHOWN = 40
"""The most characters of a user's value quoted in an error message."""
MAX_NAME = 24
MAX_CHAT = 300
"""Characters in one line of table chat."""
"""The longest player name (characters, after normalisation)."""
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


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class HelloMessage(_Message):
    """The first message on a table's socket: who is connecting (a seat token, or none to watch).

    The seat token travels here, never in the URL (URLs end up in logs and histories)."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=128)


class ActionMessage(_Message):
    """An action of the connection's seat. ``version``: the state it answers (stale ones are refused)."""

    type: Literal["action"]
    action: str = Field(max_length=32)
    version: int | None = Field(default=None, ge=0, le=10**9)
    steps: list[Annotated[list[Annotated[int, Field(ge=0, le=25)]], Field(min_length=2, max_length=2)]] | None = Field(
        default=None, max_length=4
    )
    play: str | None = Field(default=None, max_length=200)
    level: str | None = Field(default=None, max_length=16)


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


# ------------------------------------------------------------------ state
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


# ------------------------------------------------------------- table state
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
            "mode": table.config.get("mode"),
            "level": table.config.get("level"),
            "ai_seat": table.config.get("ai_seat"),
            "status": table.status,
            "rules": table.config["rules"],
            "names": {p.value: table.names[p] for p in Player},
            "seated": {p.value: table.tokens[p] is not None for p in Player},
            "test_start": bool(table.config.get("start")),
            "rematch": table.config.get("rematch"),  # the id of the rematch's table, once a player asked
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
        "fair_dice": dice_doc(table.id, table.config.get("dice"), table.actions, table.is_over, table.draw_count),
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


def _last_opening(table: Any) -> list[int] | None:
    for payload in reversed(table.actions[-6:]):
        if payload.get("kind") == "opening_roll":
            return payload["dice"]
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
        "rules": table.config["rules"],
        "clock": table.config.get("clock"),
        "free_seat": seat.other.value,
    }


def live_entry(table: Any) -> dict[str, Any]:
    """A table between two people being played now, to watch: the players' names, the score."""
    flow = table.flow
    return {
        "id": table.id,
        "white": table.names[Player.WHITE],
        "black": table.names[Player.BLACK],
        "rules": table.config["rules"],
        "clock": table.config.get("clock"),
        "length": flow.rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "game": len(flow.games) + (0 if flow.is_over else 1),
    }


def unfinished_entry(table: Any, seat: Player, held: bool) -> dict[str, Any]:
    """One of the player's unfinished tables (``held``: the asking browser holds its seat token)."""
    flow = table.flow
    return {
        "id": table.id,
        "mode": table.config.get("mode"),
        "seat": seat.value,
        "opponent": table.names[seat.other] or None,
        "status": table.status,
        "length": flow.rules.match_length,
        "score": {"white": flow.score[0], "black": flow.score[1]},
        "your_turn": table.status == "playing" and not table.is_over and flow.game.turn is seat,
        "clock": table.config.get("clock"),
        "created": table.created_at.isoformat() if table.created_at else None,
        "held": held,
    }


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


# ---------------------------------------------------------------- messages
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
