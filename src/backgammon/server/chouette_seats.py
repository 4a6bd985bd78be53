"""An account's chouette seats: revoked by logout-all, taken back with a new token.

A chouette seat taken by a logged-in player records the account (``"user_id"`` in the seat's
entry of the table's config; seats taken before it was recorded, and guests' seats, have none and
are never touched here). ``POST /api/logout-all`` gives each such seat the hash of a token nobody
holds: the old token opens nothing any more, and the connections seated with it here are closed.
``POST /api/chouette/{id}/seat`` gives a logged-in player's own seat a new token (to go back to it
after logout-all, or from another browser). Both change the seat in its owner's room (forwarded as
``{"kind": "reseat", "user_id", "digest"}`` when another process runs the chouette), as
:meth:`backgammon.server.tables.TableManager.reseat` does for a match table's seat.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import select

from backgammon.errors import InvalidInputError, NotYourTurnError
from backgammon.server.auth import new_token, token_hash
from backgammon.server.db import Table

RESEAT = "reseat"
"""The ``kind`` of a forwarded request that changes an account's seat tokens."""


def account_seats(table: Any, user_id: int) -> list[dict[str, Any]]:
    """The seats of a chouette that ``user_id`` took (its people's seats only)."""
    return [s for s in table.seats if s.get("user_id") == user_id and not s.get("bot")]


async def reseat_here(manager: Any, table: Any, user_id: int, digest: str) -> int:
    """Give every seat of the account at ``table`` the token hash ``digest``, store it, close the
    connections seated there with the old token, show the change. Runs in the owner's room.
    Returns how many seats changed."""
    mine = account_seats(table, user_id)
    if not mine:
        return 0
    for seat in mine:
        seat["token"] = digest
    seats = [dict(s) for s in table.seats]
    table_id = table.id

    def write() -> None:
        with manager.sessions() as db:
            row = db.get(Table, table_id)
            row.config = {**row.config, "seats": seats}
            db.commit()

    await manager.store.run(write)
    names = {seat["name"] for seat in mine}
    for outbox in list(table.outboxes):
        if outbox.seat in names:
            outbox.drop("the seat's token was replaced")
    manager.publish(table)
    return len(mine)


def forwarded(manager: Any, table: Any, message: dict[str, Any]) -> Callable[[], Awaitable[dict[str, Any]]]:
    """The job answering another process's ``reseat`` request (checked here).

    Raises:
        InvalidInputError: for a malformed request.
    """
    user_id, digest = message.get("user_id"), message.get("digest")
    if not isinstance(user_id, int) or isinstance(user_id, bool) or not isinstance(digest, str):
        raise InvalidInputError("invalid forwarded reseat")

    async def job() -> dict[str, Any]:
        return {"seats": await reseat_here(manager, table, user_id, digest)}

    return job


async def _reseat(manager: Any, table: Any, user_id: int, digest: str) -> None:
    request = {"kind": RESEAT, "user_id": user_id, "digest": digest}
    await manager._in_room(table, request, lambda: reseat_here(manager, table, user_id, digest))


async def revoke_seats(manager: Any, user_id: int) -> int:
    """Logout-all: no token given for the account's chouette seats opens them any more, and the
    connections seated with one (in the owner's process) are closed. How many seats."""

    def chouettes() -> list[str]:
        with manager.sessions() as db:
            query = select(Table.id, Table.config).where(
                Table.status != "over", Table.config["mode"].as_string() == "chouette"
            )
            rows = db.execute(query).all()
        return [
            table_id
            for table_id, config in rows
            if config.get("mode") == "chouette"
            and any(s.get("user_id") == user_id and not s.get("bot") for s in config.get("seats", []))
        ]

    revoked = 0
    for table_id in await manager.store.run(chouettes):
        try:
            table = await manager.get(table_id)
        except LookupError:
            continue
        held = len(account_seats(table, user_id))
        if held:
            await _reseat(manager, table, user_id, token_hash(new_token()))  # a token nobody holds
            revoked += held
    return revoked


async def reseat(manager: Any, table_id: str, user_id: int) -> tuple[Any, str, str]:
    """A new token for a logged-in player's own seat at a chouette: the table, the seat's name and
    the token (the old one stops opening it).

    Raises:
        LookupError: no such chouette. NotYourTurnError: the account has no seat there.
    """
    table = await manager.get(table_id)
    mine = account_seats(table, user_id)
    if not mine:
        raise NotYourTurnError("you have no seat at this chouette", code="not_your_seat")
    token = new_token()
    await _reseat(manager, table, user_id, token_hash(token))
    return table, mine[0]["name"], token
