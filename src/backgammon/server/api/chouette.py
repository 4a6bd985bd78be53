"""Chouettes: create, join, a seat, the state, a game's moves, actions and the chouette socket
(``state["chouettes"]``: the :class:`backgammon.server.chouette_tables.ChouetteManager`)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request, WebSocket

from backgammon.errors import IllegalActionError
from backgammon.server import chouette_seats, protocol
from backgammon.server.api import common
from backgammon.server.api.common import body
from backgammon.server.app_state import AppState
from backgammon.server.auth import guest_name
from backgammon.server.chouette_tables import ChouetteManager, ChouetteRuntime, game_log, state_to_wire
from backgammon.server.http_errors import HTTPError
from backgammon.server.quotas import address_of
from backgammon.server.sockets import serve_connection

if TYPE_CHECKING:
    from backgammon.server.app import ServerConfig


def router(state: AppState, config: ServerConfig) -> APIRouter:
    """The chouette API; ``state`` is the app's (``sessions``, ``manager``, ``quotas``); the
    :class:`ChouetteManager` is made at the first use and kept in ``state["chouettes"]``."""
    api = APIRouter()
    current_user = partial(common.current_user, state)

    def manager() -> ChouetteManager:
        if "chouettes" not in state:
            state["chouettes"] = ChouetteManager(
                state["sessions"],
                config.dice_seed,
                config.test_hooks,
                config.bot_delay,
                state["manager"].store,
                state["manager"].net,
            )
        return state["chouettes"]

    @api.post("/api/chouette")
    async def create(request: Request) -> dict[str, Any]:
        doc = await body(request)
        user = await current_user(request)
        state["quotas"].charge("tables", address_of(request), user.id if user else None)
        name = user.username if user else await asyncio.to_thread(guest_name, state["sessions"], doc.get("name"))
        table, token = await manager().create(
            name, doc.get("seats"), doc.get("seat", 0), doc.get("start"), user.id if user else None
        )
        me = table.name_for(token)
        return {"id": table.id, "token": token, "name": me, "state": state_to_wire(table, me)}

    @api.post("/api/chouette/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        user = await current_user(request)
        name = user.username if user else await asyncio.to_thread(guest_name, state["sessions"], doc.get("name"))
        table, seat, token = await manager().join(table_id, name, user.id if user else None)
        return {"id": table.id, "token": token, "name": seat}

    @api.post("/api/chouette/{table_id}/seat")
    async def reseat(table_id: str, request: Request) -> dict[str, Any]:
        """A logged-in player's own seat (after logout-all, or from a browser that holds no token):
        a new token; the old one stops opening it (:func:`chouette_seats.reseat`)."""
        user = await current_user(request)
        if user is None:
            raise HTTPError(401, "not logged in", "not_logged_in")
        table, name, token = await chouette_seats.reseat(manager(), table_id, user.id)
        return {"id": table.id, "token": token, "name": name, "state": state_to_wire(table, name)}

    # logout-all revokes the account's chouette seats too (api/accounts.py)
    state["revoke_chouette_seats"] = lambda user_id: chouette_seats.revoke_seats(manager(), user_id)

    @api.get("/api/chouette/{table_id}")
    async def get(table_id: str, request: Request) -> dict[str, Any]:
        table = await manager().get(table_id)
        manager().resume(table)  # e.g. after a restart: the computer players go on (never twice)
        return state_to_wire(table, table.name_for(request.headers.get("x-seat-token")))

    @api.get("/api/chouette/{table_id}/games/{number}")
    async def get_game(table_id: str, number: int) -> dict[str, Any]:
        """One game's move list (finished games stay readable after the state moves on to the next)."""
        table = await manager().get(table_id)
        return {"number": number, "log": game_log(table, number)}

    @api.websocket("/ws/chouette/{table_id}")
    async def socket(websocket: WebSocket, table_id: str) -> None:
        """A chouette's connection: as a match table's (:func:`backgammon.server.sockets.serve_connection`),
        each seat (by name) sent its own view after every change."""

        def view(table: ChouetteRuntime, you: str | None) -> dict[str, Any]:
            return {"type": "state", "state": state_to_wire(table, you)}

        async def handle(table: ChouetteRuntime, you: str | None, doc: dict[str, Any], reply) -> None:
            if doc["type"] == "action":
                await manager().act(table, you, doc)
            elif doc["type"] == "resync":
                reply(view(table, you))
            elif doc["type"] == "hint":
                raise IllegalActionError("no hints at a chouette table")
            else:
                reply(protocol.PONG)

        await serve_connection(
            websocket,
            load=lambda: manager().get(table_id),
            seat_of=lambda table, token: table.name_for(token),
            state=view,
            handle=handle,
            join=manager().connect,
            leave=manager().disconnect,
            quotas=state["quotas"],
        )

    @api.post("/api/chouette/{table_id}/actions")
    async def post_action(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        table = await manager().get(table_id)
        name = table.name_for(request.headers.get("x-seat-token"))
        await manager().act(table, name, doc)
        return state_to_wire(table, name)

    return api
