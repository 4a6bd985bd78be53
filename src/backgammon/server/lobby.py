"""The lists of match and money tables, read from the database on a worker thread: the lobby
(listed tables waiting for a second player), live games to watch, and a player's unfinished
tables. A table this process runs, or whose clients here follow it, is listed from its copy in
memory (:meth:`~backgammon.server.tables.TableManager.current`); the others are replayed, not kept.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from backgammon.game import Player
from backgammon.server import protocol
from backgammon.server.auth import token_hash
from backgammon.server.db import Table, User

if TYPE_CHECKING:
    from backgammon.server.tables import TableManager

UNFINISHED_LISTED = 50
"""The most unfinished tables listed for a player."""

MODES = ("ai", "human")
"""The ``mode`` of the tables listed here (a chouette has its own page)."""


async def waiting(manager: TableManager, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
    """Listed tables waiting for a second player, newest first (from the database), each with
    its rules, clock and the host's rating (an account's; a guest has none)."""

    def query() -> list[dict[str, Any]]:
        with manager.sessions() as db:
            rows = db.scalars(
                select(Table)
                .where(Table.listed.is_(True), Table.status == "waiting")
                .order_by(Table.created_at.desc(), Table.id)
                .offset(offset)
                .limit(limit)
            ).all()
            hosts = {r.white_user_id or r.black_user_id for r in rows} - {None}
            ratings: dict[int, float] = dict(db.execute(select(User.id, User.rating).where(User.id.in_(hosts))).all())
            return [
                protocol.lobby_entry(
                    manager.tables.get(row.id) or manager._runtime(row),
                    ratings.get(row.white_user_id or row.black_user_id),
                )
                for row in rows
            ]

    return await asyncio.to_thread(query)


async def live(manager: TableManager, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
    """Listed tables between two people being played now, newest first: games to watch."""

    def query() -> list[dict[str, Any]]:
        with manager.sessions() as db:
            rows = db.scalars(
                select(Table)
                .where(Table.listed.is_(True), Table.status == "playing")
                .order_by(Table.created_at.desc(), Table.id)
                .offset(offset)
                .limit(limit)
            ).all()
            return [protocol.live_entry(manager.current(db, row)) for row in rows]

    return await asyncio.to_thread(query)


async def unfinished(manager: TableManager, seats: list[tuple[str, str]], user_id: int | None) -> list[dict[str, Any]]:
    """The player's unfinished tables, newest first: those where a seat token of ``seats``
    (``(table id, token)`` pairs, what a browser holds) opens a seat, and a logged-in user's
    (``user_id``) from the database. A token that opens no seat is left out, saying nothing."""

    def query() -> list[dict[str, Any]]:
        with manager.sessions() as db:
            found: dict[str, tuple[Table, Player, bool]] = {}
            ids = sorted({table_id for table_id, _ in seats})
            rows = db.scalars(select(Table).where(Table.id.in_(ids), Table.status != "over")).all() if ids else []
            by_id = {row.id: row for row in rows if row.config.get("mode") in MODES}
            for table_id, token in seats:
                row = by_id.get(table_id)
                digest = token_hash(token)
                for seat in (Player.WHITE, Player.BLACK):
                    stored = getattr(row, f"{seat.value}_token") if row is not None else None
                    if row is not None and stored is not None and secrets.compare_digest(stored, digest):
                        found[row.id] = (row, seat, True)
            if user_id is not None:
                mine = db.scalars(
                    select(Table)
                    .where(
                        (Table.white_user_id == user_id) | (Table.black_user_id == user_id),
                        Table.status != "over",
                    )
                    .order_by(Table.created_at.desc(), Table.id)
                    .limit(UNFINISHED_LISTED)
                ).all()
                for row in mine:
                    if row.id not in found and row.config.get("mode") in MODES:
                        seat = Player.WHITE if row.white_user_id == user_id else Player.BLACK
                        found[row.id] = (row, seat, False)
            newest = sorted(found.values(), key=lambda f: (f[0].created_at, f[0].id), reverse=True)
            return [
                protocol.unfinished_entry(manager.current(db, row), seat, held)
                for row, seat, held in newest[:UNFINISHED_LISTED]
            ]

    return await asyncio.to_thread(query)
