"""The pages, the static files and the health check."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from backgammon.server import protocol
from backgammon.server.app_state import AppState
from backgammon.server.assets import ASSETS
from backgammon.server.tables import TableManager


def router(state: AppState) -> APIRouter:
    """``/``, ``/t/{table_id}``, ``/static/...``, ``/favicon.ico`` and ``/api/health``."""
    api = APIRouter()

    @api.get("/", include_in_schema=False)
    @api.get("/t/{table_id}", include_in_schema=False)
    async def index(request: Request, table_id: str | None = None) -> Response:
        return ASSETS.response("index.html", request, page=True)

    @api.api_route("/static/{name:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def static_file(name: str, request: Request) -> Response:
        """A static file; under its versioned URL (``?v=<hash>``, what the pages refer to) cached for a year."""
        return ASSETS.response(name, request)

    @api.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @api.get("/api/health")
    async def health() -> dict[str, Any]:
        warm = state.get("warm")
        if warm is None:
            engine = "not warmed"
        elif not warm.done():
            engine = "warming"
        else:
            engine = "ready" if not warm.cancelled() and warm.exception() is None and warm.result() else "unavailable"
        manager: TableManager = state["manager"]
        held = [*manager.tables, *(state["chouettes"].tables if "chouettes" in state else ())]
        owned = sum(1 for table_id in held if manager.net.owns(table_id))
        chouettes = len(state["chouettes"].tables) if "chouettes" in state else 0
        return protocol.health_to_wire(len(manager.tables), owned, chouettes, engine, manager.process[:12])

    return api
