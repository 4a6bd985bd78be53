"""What the routers share: the request's JSON body, the session cookie and the logged-in user."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Request

from backgammon.server import protocol
from backgammon.server.app_state import AppState
from backgammon.server.auth import guest_name, session_user
from backgammon.server.db import User
from backgammon.server.http_errors import HTTPError

SESSION_COOKIE = "bg_session"


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} for an empty body); see :func:`protocol.parse_json_object`."""
    raw = await request.body()  # at most protocol.MAX_BODY bytes (BodyLimitMiddleware)
    if not raw.strip():
        return {}
    return protocol.parse_json_object(raw, "request body")


async def current_user(state: AppState, request: Request) -> User | None:
    """The logged-in user (a session lookup on a worker thread), or None."""
    return await asyncio.to_thread(session_user, state["sessions"], request.cookies.get(SESSION_COOKIE))


async def require_user(state: AppState, request: Request) -> User:
    """The logged-in user; 401 ``not_logged_in`` without one."""
    user = await current_user(state, request)
    if user is None:
        raise HTTPError(401, "not logged in", "not_logged_in")
    return user


async def name_for(state: AppState, request: Request, doc: dict[str, Any]) -> tuple[str, int | None]:
    """The name and user id a table seat is taken under: the account's, or a guest's name
    (checked, and not a registered user's)."""
    user = await current_user(state, request)
    if user is not None:
        return user.username, user.id
    return await asyncio.to_thread(guest_name, state["sessions"], doc.get("name")), None
