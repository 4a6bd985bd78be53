"""Per-player dice statistics from the stored games (``GET /api/dice-stats?name=...``, routed by
:mod:`backgammon.server.api.stats`).

Every stored ``roll`` action of a player (by seat name, on ordinary and chouette tables) is
counted; opening rolls are left out (each side rolls one die of them). A roll made with a
checker on the bar counts for the dancing statistic, with the chance of dancing in that
position. The numbers come from :func:`backgammon.dicestats.dice_report`.

A report replays stored tables, so it is bounded: the newest :data:`MAX_TABLES` tables are looked
at and at most :data:`MAX_REPLAYED` of the player's replayed, on the engine pool, within the
client's ``dice_stats`` budget (:mod:`backgammon.server.quotas`); a report is kept per name while
no action was stored since (or for :data:`CACHE_SECONDS`, whatever was stored), and requests for a
name whose report is being made wait for that one.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from backgammon.dicestats import dice_report
from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.game import Player
from backgammon.position import Position
from backgammon.server import protocol
from backgammon.server.db import Action, Table
from backgammon.server.replay import replay_chouette, replay_match

BAR = 24
MAX_TABLES = 2000
"""The newest stored tables a report looks at."""
MAX_REPLAYED = 200
"""The player's tables among them that a report replays at most (the newest)."""
CACHE_SECONDS = 60.0
"""How long a report is reused even though actions were stored since."""
CACHE_NAMES = 256
"""Reports kept (the least recently asked for go first)."""


def player_name(name: object) -> str:
    """The player's name asked for, stripped.

    Raises:
        InvalidInputError: when it is not 1 to 24 characters.
    """
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 24:
        raise InvalidInputError(f"invalid name {name!r}: expected 1 to 24 characters")
    return name.strip()


def _table_rolls(row: Table, payloads: list[dict[str, Any]], name: str, rolls: list, entries: list) -> None:
    config = row.config
    if config.get("mode") == "chouette":
        names = [s["name"] for s in config["seats"]]
        if name not in names or None in names:
            return
        for state, p, _chouette_after in replay_chouette(config, payloads):
            if p["kind"] == "roll" and p.get("by") == name:
                _count(state.game.board_for(state.side_of(name)), p, rolls, entries)
        return
    sides = [p for p, n in ((Player.WHITE, row.white_name), (Player.BLACK, row.black_name)) if n == name]
    if not sides:
        return
    for flow, p, _match_after in replay_match(config, payloads):
        if p.get("kind") == "roll" and protocol.player_from_wire(p["player"]) in sides:
            _count(flow.game.board_for(protocol.player_from_wire(p["player"])), p, rolls, entries)


def _count(board: Position, payload: dict[str, Any], rolls: list, entries: list) -> None:
    roll = tuple(payload["dice"])
    rolls.append(roll)
    if board.mine[BAR]:
        entries.append((board, roll))


def player_report(sessions, name: str | None) -> dict[str, Any]:
    """The dice statistics of the player seated as ``name`` in every stored table.

    Raises:
        InvalidInputError: for a bad or missing name. LookupError: no stored rolls for that name.
    """
    name = player_name(name)
    rolls: list = []
    entries: list = []
    tables = replayed = 0
    with sessions() as db:
        rows = db.scalars(select(Table).order_by(Table.created_at.desc()).limit(MAX_TABLES)).all()
        for row in rows:
            seated = name in (row.white_name, row.black_name) or any(
                s.get("name") == name for s in row.config.get("seats", [])
            )
            if not seated:
                continue
            if replayed >= MAX_REPLAYED:
                break
            replayed += 1
            payloads = [
                a.payload for a in db.scalars(select(Action).where(Action.table_id == row.id).order_by(Action.seq))
            ]
            before = len(rolls)
            try:
                _table_rolls(row, payloads, name, rolls, entries)
            except BackgammonError:
                continue  # a table whose record does not replay is left out
            tables += len(rolls) > before
    if not rolls:
        raise LookupError(f"no stored rolls for player {name!r}")
    return {"name": name, "tables": tables, "report": dice_report(rolls, entries).as_dict()}


def stored_version(sessions) -> int:
    """A number that changes whenever an action is stored (the newest action's id)."""
    with sessions() as db:
        return db.scalar(select(func.max(Action.id))) or 0
