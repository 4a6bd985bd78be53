"""The one replay of a table's stored actions: recovery, history, dice statistics and review.

A table's truth is its list of stored actions (the dice are inside the rolls). Everything that
needs the table's states (resuming a table after a restart or on another process, the move list,
the per-player dice statistics, the export and the engine's review) walks them here:
:func:`replay_match` for matches and money sessions, :func:`replay_chouette` for chouettes.
Each yields ``(before, payload, after)`` for every stored action, in order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, cast

from backgammon.chouette import Chouette
from backgammon.game import Game, Player, Rules
from backgammon.match import Match
from backgammon.position import Position
from backgammon.server import protocol
from backgammon.server.matchflow import StartPosition, new_match

CHOUETTE_BOX = Player.WHITE
"""The box's side of a chouette's game (the team plays the other)."""
END_SESSION = "end_session"
"""A stored action that ends a money session (a player's choice); it changes no game state."""
TABLE_ENDS = ("timeout", END_SESSION)
"""Stored actions of a match or money table that end it without changing the game."""
CHOUETTE_NOTES = ("suggest", "chat")
"""Stored chouette entries that are not moves of the game."""


def start_of(config: Mapping[str, Any]) -> StartPosition | None:
    """A table's set-up first position (the server's ``--test-hooks``), or None."""
    start = config.get("start")
    if not start:
        return None
    return StartPosition(
        Position.from_position_id(start["position_id"]), protocol.player_from_wire(start.get("on_roll", "white"))
    )


def match_of(config: Mapping[str, Any]) -> Match:
    """A match or money table's state before its first action."""
    return new_match(protocol.rules_from_wire(config.get("rules", {})), start_of(config))


def replay_match(config: Mapping[str, Any], payloads: Iterable[dict[str, Any]]) -> Iterator[tuple[Match, dict, Match]]:
    """``(before, payload, after)`` for each stored action of a match or money table. A clock's
    ``timeout`` and a money session's ``end_session`` change no game state (``after is before``);
    they end the table."""
    flow = match_of(config)
    for payload in payloads:
        before = flow
        if payload.get("kind") not in TABLE_ENDS:
            flow = flow.apply(protocol.action_from_wire(payload, flow.game))
        yield before, payload, flow


def chouette_of(config: dict[str, Any]) -> Chouette:
    """A chouette's state before its first action (its seats all taken)."""
    chouette = Chouette.new([s["name"] for s in config["seats"]], Rules())
    if config.get("start"):  # test hook: the first game from a set-up position, box on roll
        game = Game.from_position(
            Position.from_position_id(config["start"]), on_roll=CHOUETTE_BOX, rules=chouette.rules
        )
        chouette = replace(chouette, game=game)
    return chouette


def chouette_action(doc: dict[str, Any], chouette: Chouette) -> object:
    """A stored chouette entry as the action it records."""
    from backgammon.chouette import Consent, Refuse

    kind = doc.get("kind")
    if kind == "consent":
        return Consent()
    if kind == "refuse":
        return Refuse()
    return protocol.action_from_wire(doc, chouette.game)


def replay_chouette(
    config: dict[str, Any], payloads: Iterable[dict[str, Any]]
) -> Iterator[tuple[Chouette, dict, Chouette]]:
    """``(before, payload, after)`` for each stored entry of a chouette (notes such as suggestions
    change nothing: ``after is before``)."""
    chouette = chouette_of(config)
    for payload in payloads:
        before = chouette
        if payload["kind"] not in CHOUETTE_NOTES:
            chouette = chouette.apply(payload["by"], cast(Any, chouette_action(payload, chouette)))
        yield before, payload, chouette


CHOUETTE_LOGGED = ("move", "double", "consent", "refuse", "take", "pass", "beaver")
"""Stored chouette entries the move list shows (a roll is shown with the move that uses it)."""


def chouette_moves(payloads: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The move list of a chouette game from its stored entries: each play once, in the notation
    of :mod:`backgammon.notation` (as stored with the move), with its dice; every cube action;
    and who acted (``by``: the seat name; ``side``: ``box`` or ``team``). Rolls, suggestions and
    chat are not entries: a roll shows as the dice of the move after it."""
    out: list[dict[str, Any]] = []
    for p in payloads:
        kind = p.get("kind")
        if kind not in CHOUETTE_LOGGED:
            continue
        entry: dict[str, Any] = {
            "kind": kind,
            "by": p.get("by"),
            "side": "box" if p.get("player") == CHOUETTE_BOX.value else "team",
        }
        if kind == "move":
            entry["dice"] = p.get("dice")
            entry["play"] = p.get("play") or ""
        out.append(entry)
    return out
