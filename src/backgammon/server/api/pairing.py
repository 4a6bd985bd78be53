"""Quick pairing: ask to play, poll, stop waiting (``state["pairing"]``: the
:class:`backgammon.server.pairing.PairingManager`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from backgammon.server import protocol
from backgammon.server.api.common import body, name_for
from backgammon.server.app_state import AppState
from backgammon.server.quotas import address_of

client_address = address_of  # (a trusted proxy's X-Forwarded-For: serve --forwarded-allow-ips)


def router(state: AppState) -> APIRouter:
    """``/api/pair`` and ``/api/pair/{request_id}``."""
    api = APIRouter()

    @api.post("/api/pair")
    async def pair(request: Request) -> dict[str, Any]:
        """Ask to play: ``{"length", "clock", "name"}``; paired at once or waiting (poll it)."""
        choice = protocol.pair_request_from_wire(await body(request))
        name, user_id = await name_for(state, request, {"name": choice.name})
        client = f"user:{user_id}" if user_id is not None else f"address:{client_address(request)}"
        return await state["pairing"].seek(choice, name, user_id, client)

    @api.get("/api/pair/{request_id}")
    async def pair_status(request_id: str, request: Request) -> dict[str, Any]:
        """Where the request stands (``x-seat-token``: the token its answer gave); keeps it waiting."""
        return await state["pairing"].poll(request_id, request.headers.get("x-seat-token"))

    @api.delete("/api/pair/{request_id}")
    async def pair_cancel(request_id: str, request: Request) -> dict[str, Any]:
        """Stop waiting (``x-seat-token`` as for the status)."""
        return await state["pairing"].cancel(request_id, request.headers.get("x-seat-token"))

    return api
