"""Wire formats: every JSON shape the server sends or reads lives here.

- Actions are stored in the database and sent to browsers as small dicts
  (:func:`action_to_wire` / :func:`action_from_wire`); the dice of a roll are part of it.
- A client asks for an action with :func:`parse_client_message`; dice are never taken
  from a client (the server rolls them).
- :func:`state_for` is the full state of a table for one viewer (a seat or a spectator):
  the board from that viewer's side, what they may do now and, for the side to move,
  the legal step sequences (the browser runs no rules, it only follows these).
"""

from __future__ import annotations

import json
from typing import Any

from backgammon.errors import InvalidInputError
from backgammon.game import (
    AcceptDraw,
    AcceptResignation,
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
)
from backgammon.moves import all_step_sequences
from backgammon.position import Position

MAX_MESSAGE = 16_000

SIMPLE_ACTIONS = {
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
    raise InvalidInputError(f"invalid seat {value!r}: expected 'white' or 'black'")


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
        raise InvalidInputError(f"invalid rules {doc!r}: expected an object")
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
        raise InvalidInputError(f"invalid rules: unknown keys {sorted(unknown)!r}")
    length = doc.get("match_length", 0)
    if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= 25:
        raise InvalidInputError(f"invalid match length {length!r}: expected 0 (money) or 1 to 25")
    for key in ("cube", "jacoby", "beavers", "crawford", "casual"):
        if key in doc and not isinstance(doc[key], bool):
            raise InvalidInputError(f"invalid rule {key} {doc[key]!r}: expected true or false")
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


def action_from_wire(doc: dict[str, Any], game: Game) -> object:
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
    raise InvalidInputError(f"invalid stored action {doc!r}")


def play_for_position(game: Game, position_id: str):
    """The legal play of the game's current roll that leads to ``position_id``.

    Raises:
        IllegalPlayError: if none does.
    """
    from backgammon.errors import IllegalPlayError

    after = Position.from_position_id(position_id)
    for play in game.legal_plays:
        if play.position == after:
            return play
    raise IllegalPlayError(f"illegal move: no legal play leads to position {position_id!r}")


# ---------------------------------------------------------- client input
def parse_client_message(text: str | bytes) -> dict[str, Any]:
    """Decode one message from a browser.

    Raises:
        InvalidInputError: for malformed JSON or an unknown message type.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError:
            raise InvalidInputError("invalid message: expected UTF-8 JSON text") from None
    if len(text) > MAX_MESSAGE:
        raise InvalidInputError(f"invalid message: longer than {MAX_MESSAGE} characters")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"invalid message: malformed JSON ({exc.msg})") from None
    if not isinstance(doc, dict):
        raise InvalidInputError(f"invalid message {doc!r}: expected a JSON object")
    kind = doc.get("type")
    if kind not in ("action", "resync", "ping", "hint"):
        raise InvalidInputError(f"invalid message type {kind!r}: expected 'action', 'resync', 'hint' or 'ping'")
    return doc


def check_steps(value: object) -> tuple[tuple[int, int], ...]:
    """Validate a list of ``[from, to]`` steps sent by a browser.

    Raises:
        InvalidInputError: unless it is a list of up to 4 pairs of point numbers 0..25.
    """
    if not isinstance(value, list) or len(value) > 4:
        raise InvalidInputError(f"invalid steps {value!r}: expected a list of up to 4 [from, to] pairs")
    steps = []
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 25 for x in item)
        ):
            raise InvalidInputError(f"invalid step {item!r}: expected [from, to] with points 0..25")
        steps.append((item[0], item[1]))
    return tuple(steps)


def play_from_steps(game: Game, steps: tuple[tuple[int, int], ...]):
    """The legal play made of these steps (in the mover's numbering, 25 = bar, 0 = off).

    Raises:
        IllegalActionError: if the game is not waiting for a move.
        IllegalPlayError: if the steps are not a complete legal play.
    """
    from backgammon.errors import IllegalActionError, IllegalPlayError

    if game.phase is not GamePhase.MOVE or game.dice is None:
        raise IllegalActionError(f"cannot move now: {game.describe()}")
    for seq, after in all_step_sequences(game.position, *game.dice):
        if tuple((s.source, s.destination) for s in seq) == steps:
            for play in game.legal_plays:
                if play.position == after:
                    return play
    if not steps and len(game.legal_plays) == 1 and not game.legal_plays[0].steps:
        return game.legal_plays[0]
    text = " ".join(f"{a}/{b}" for a, b in steps) or "(no move)"
    raise IllegalPlayError(f"illegal move {text!r} for {game.dice[0]}-{game.dice[1]}: expected a complete legal play")


def move_tree(game: Game) -> list[list[list[int]]]:
    """Every legal step sequence of the current roll as ``[[from, to], ...]`` (deduplicated)."""
    if game.phase is not GamePhase.MOVE or game.dice is None:
        return []
    seen: dict[tuple, None] = {}
    for seq, _after in all_step_sequences(game.position, *game.dice):
        seen[tuple((s.source, s.destination) for s in seq)] = None
    return [[list(step) for step in seq] for seq in seen]


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


def allowed_for(game: Game, seat: Player | None) -> list[str]:
    """The action kinds ``seat`` may ask for now."""
    if seat is None or game.turn is not seat:
        return []
    kinds: list[str] = []
    for action in game.legal_actions():
        kind = ACTION_KIND[type(action)]
        if kind in ("opening_roll",):
            continue
        if kind not in kinds:
            kinds.append(kind)
    return kinds
