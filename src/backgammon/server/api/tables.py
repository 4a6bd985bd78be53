"""Match and money tables: create, the lobby, join, actions, rematch, the history, hints and the
table socket."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import PlainTextResponse, Response

from backgammon.errors import IllegalActionError
from backgammon.server import lobby as listings
from backgammon.server import protocol
from backgammon.server.api.common import body, current_user, name_for, require_user
from backgammon.server.app_state import AppState
from backgammon.server.history import export_mat, history_entry_of, history_of, move_list_of
from backgammon.server.pools import run_engine
from backgammon.server.quotas import Quotas, address_of
from backgammon.server.sockets import serve_connection
from backgammon.server.tables import TableManager

client_address = address_of  # (a trusted proxy's X-Forwarded-For: serve --forwarded-allow-ips)


def router(state: AppState) -> APIRouter:
    """The tables' REST routes and the table socket (``state["manager"]``: the :class:`TableManager`)."""
    api = APIRouter()
    quotas: Quotas = state["quotas"]

    @api.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        doc = await body(request)
        name, user_id = await name_for(state, request, doc)
        manager: TableManager = state["manager"]
        address, mode = client_address(request), doc.get("mode", "ai")
        holding = None
        if mode == "ai":  # unfinished ones at once (a place taken now, named after the table), and per hour
            holding = quotas.hold("ai_tables", address, user_id, lambda table_id: _live(manager, table_id))
        try:
            if holding is not None:
                quotas.charge("ai_tables", address, user_id)
            elif doc.get("listed"):
                quotas.charge("listed_tables", address, user_id)
            quotas.charge("tables", address, user_id)
            table, seat, token = await manager.create(
                mode=doc.get("mode", "ai"),
                rules_doc=doc.get("rules"),
                seat=doc.get("seat", "white"),
                level=doc.get("level", "intermediate"),
                name=name,
                user_id=user_id,
                listed=bool(doc.get("listed", False)),
                start=doc.get("start"),
                clock=doc.get("clock"),
            )
        except BaseException:
            if holding is not None:
                holding.drop()
            raise
        if holding is not None:
            holding.name(table.id)
        return protocol.seat_to_wire(table, seat, token)

    @api.get("/api/tables")
    async def lobby(limit: protocol.PageLimit = 50, offset: protocol.PageOffset = 0) -> list[dict[str, Any]]:
        """Listed tables waiting for a second player, newest first (``limit`` rows from ``offset``)."""
        return await listings.waiting(state["manager"], limit=limit, offset=offset)

    @api.get("/api/live")
    async def live_tables(limit: protocol.PageLimit = 20, offset: protocol.PageOffset = 0) -> list[dict[str, Any]]:
        """Listed tables between two people being played now, newest first: games to watch."""
        return await listings.live(state["manager"], limit=limit, offset=offset)

    @api.post("/api/unfinished")
    async def unfinished(request: Request) -> list[dict[str, Any]]:
        """The player's unfinished tables: those the seat tokens sent open (``{"seats": [{"id",
        "token"}]}``, what the browser holds) and a logged-in user's."""
        seats = protocol.held_seats_from_wire(await body(request))
        user = await current_user(state, request)
        return await listings.unfinished(state["manager"], seats, user.id if user else None)

    @api.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        name, user_id = await name_for(state, request, doc)
        table, seat, token = await state["manager"].join(table_id, name, user_id)
        return protocol.seat_to_wire(table, seat, token)

    @api.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        table = await state["manager"].get(table_id)
        return protocol.state_to_wire(table, table.seat_for(request.headers.get("x-seat-token")))

    @api.post("/api/tables/{table_id}/actions")
    async def post_action(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        manager: TableManager = state["manager"]
        table = await manager.get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        await manager.act(table, seat, doc)
        return protocol.state_to_wire(table, seat)

    @api.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: str, request: Request) -> dict[str, Any]:
        """A new match with the same settings (``x-seat-token``: a player of the finished one)."""
        table, seat, token = await state["manager"].rematch(table_id, request.headers.get("x-seat-token"))
        return protocol.seat_to_wire(table, seat, token)

    @api.post("/api/tables/{table_id}/seat")
    async def reseat(table_id: str, request: Request) -> dict[str, Any]:
        """A logged-in player's own seat, opened from a browser that holds no token for it: a new
        token (the old one stops opening the seat)."""
        user = await require_user(state, request)
        table, seat, token = await state["manager"].reseat(table_id, user.id)
        return protocol.seat_to_wire(table, seat, token)

    _add_history_and_hints(api, state, quotas)
    _add_socket(api, state, quotas)
    return api


def _add_history_and_hints(api: APIRouter, state: AppState, quotas: Quotas) -> None:
    """A table's history (whole, one entry, as a .mat file) and its hints."""

    @api.get("/api/tables/{table_id}/history")
    async def table_history(table_id: str, positions: bool = True) -> dict[str, Any]:
        """Every action with the board after it; ``positions=false``: the move list only (a tenth
        of the size), each entry's board and IDs then from ``/history/{seq}``."""
        table = await state["manager"].get(table_id)
        return await asyncio.to_thread(history_of if positions else move_list_of, table)

    @api.get("/api/tables/{table_id}/history/{seq}")
    async def table_history_entry(table_id: str, seq: int) -> dict[str, Any]:
        """One entry of the history (``seq``: its index, 0 the start) with its board and IDs."""
        table = await state["manager"].get(table_id)
        return await asyncio.to_thread(history_entry_of, table, seq)

    @api.get("/api/tables/{table_id}/export.mat")
    async def table_mat(table_id: str) -> Response:
        text = await asyncio.to_thread(export_mat, await state["manager"].get(table_id))
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="backgammon-{table_id}.mat"'}
        )

    @api.post("/api/tables/{table_id}/hint")
    async def hint(table_id: str, request: Request) -> dict[str, Any]:
        table = await state["manager"].get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        return await hint_within_budget(quotas, table, seat, client_address(request))


def _add_socket(api: APIRouter, state: AppState, quotas: Quotas) -> None:
    """``/ws/tables/{table_id}``."""

    @api.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        """A match or money table's connection (:func:`backgammon.server.sockets.serve_connection`)."""
        manager: TableManager = state["manager"]
        address = address_of(websocket)

        async def handle(table, seat, doc: dict[str, Any], reply) -> None:
            if doc["type"] == "action":
                await manager.act(table, seat, doc)
            elif doc["type"] == "resync":
                reply(protocol.state_message(table, seat))
            elif doc["type"] == "hint":
                reply(await hint_within_budget(quotas, table, seat, address))
            elif doc["type"] == "chat":
                await manager.say(table, seat, doc["text"])
            else:
                reply(protocol.PONG)

        async def load():
            table = await manager.get(table_id)
            await manager.claim(table)  # a table whose owner died is taken over before it is shown
            await manager.chat_lines(table)  # read before the connection starts (sent after its state)
            return table

        def greet(table, reply) -> None:
            if table.chat:
                reply(protocol.chat_message(table.chat))

        await serve_connection(
            websocket,
            load=load,
            seat_of=lambda table, token: table.seat_for(token),
            state=protocol.state_message,
            handle=handle,
            join=manager.connect,
            leave=manager.disconnect,
            greet=greet,
            quotas=quotas,
            user_of=lambda table, seat: table.user_ids.get(seat),
        )


async def hint_within_budget(quotas: Quotas, table, seat, address: str) -> dict[str, Any]:
    """:func:`hints_for` on the engine pool, counted against the seat's account (else the address)."""
    with quotas.start("hints", address, table.user_ids.get(seat) if seat is not None else None):
        return await run_engine(hints_for, table, seat)


def _live(manager: TableManager, table_id: str) -> bool:
    """Whether a table is held here and not over (a table nobody used for a while is dropped from memory)."""
    table = manager.tables.get(table_id)
    return table is not None and not table.is_over


def hints_for(table, seat) -> dict[str, Any]:
    """The ranked plays for the side to move (only for a seat playing the computer).

    With the engine: the one ranking (:func:`backgammon.engine.search.rank_plays`
    through :meth:`EngineAgent.ranked_plays`), 1-ply, cubeful at the table's cube
    and score, each candidate labelled with its depth and kind; without it, the
    quick player's heuristic.

    Raises:
        IllegalActionError: when no hint can be given now (not your move, a human game).
    """
    from backgammon.engine.players import EngineAgent, cube_for, heuristic
    from backgammon.game import GamePhase

    game = table.flow.game
    if seat is None or game.turn is not seat or game.phase is not GamePhase.MOVE:
        raise IllegalActionError("no hint now: hints are for the side to move")
    if not table.config.against_computer:
        raise IllegalActionError("no hints in a game between people")
    position, dice = game.position, game.dice
    agent = table.agent if isinstance(table.agent, EngineAgent) else None
    try:
        if agent is None:
            raise RuntimeError("no engine")
        cube = None
        if game.rules.uses_cube:
            cube = cube_for(game, seat, post_crawford=bool(getattr(table.flow, "is_post_crawford", False)))
        ranked = agent.ranked_plays(position, dice, cube)[:8]
        return protocol.hints_to_wire("engine", ranked, position.pip_counts())
    except Exception:  # noqa: BLE001 - no engine (or it failed): hints from the heuristic
        plays = sorted(position.legal_plays(*dice), key=lambda p: -heuristic(p.position))[:8]
        best = heuristic(plays[0].position) if plays else 0.0
        ranked = [(p, heuristic(p.position) - best) for p in plays]
        return protocol.hints_to_wire("heuristic", ranked, position.pip_counts())
