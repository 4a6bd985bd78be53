"""Accounts: register, log in and out, the account's settings and history, a player's public page."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import or_, select

from backgammon.errors import InvalidInputError
from backgammon.server import protocol
from backgammon.server.api.common import SESSION_COOKIE, body, require_user
from backgammon.server.app_state import AppState
from backgammon.server.auth import (
    SESSION_DAYS,
    AuthLimits,
    check_password,
    check_username,
    close_all_sessions,
    close_session,
    create_user,
    hash_password_async,
    open_session,
    verify_password_async,
)
from backgammon.server.db import Table, User
from backgammon.server.http_errors import HTTPError
from backgammon.server.quotas import address_of
from backgammon.server.tables import TableManager

client_address = address_of  # (a trusted proxy's X-Forwarded-For: serve --forwarded-allow-ips)


async def login_response(state: AppState, request: Request, user: User) -> JSONResponse:
    """The user's wire form, with a new session's cookie."""
    token = await asyncio.to_thread(open_session, state["sessions"], user.id)
    response = JSONResponse(protocol.user_to_wire(user))
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="lax",
        max_age=60 * 60 * 24 * SESSION_DAYS,
        secure=request.url.scheme == "https",  # over TLS (or a trusted proxy's X-Forwarded-Proto: https)
    )
    return response


def count_attempt(auth_limits: AuthLimits, request: Request, registration: bool = False) -> None:
    """Count a login or registration from the client's address (429 past the limit)."""
    address = client_address(request)
    wait = auth_limits.registration(address) if registration else auth_limits.attempt(address)
    if wait:
        what = "registrations" if registration else "login attempts"
        raise HTTPError(
            429,
            f"too many {what} from your address: try again in {int(wait) + 1} s",
            "too_many_requests",
            {"seconds": int(wait) + 1},
        )


def router(state: AppState, auth_limits: AuthLimits) -> APIRouter:
    """``/api/register``, ``/api/login``, ``/api/logout``, ``/api/logout-all``, ``/api/me`` (and its
    settings and history) and ``/api/users/{username}``; ``auth_limits`` counts the attempts."""
    api = APIRouter()

    @api.post("/api/register")
    async def register(request: Request) -> JSONResponse:
        count_attempt(auth_limits, request, registration=True)
        doc = await body(request)
        username = check_username(doc.get("username"))
        password = check_password(doc.get("password"), username)
        password_hash = await hash_password_async(password)
        user = await asyncio.to_thread(create_user, state["sessions"], username, password_hash)
        return await login_response(state, request, user)

    @api.post("/api/login")
    async def login(request: Request) -> JSONResponse:
        count_attempt(auth_limits, request)
        doc = await body(request)
        username, password = doc.get("username"), doc.get("password")
        if not isinstance(username, str) or not 1 <= len(username) <= 64:
            raise InvalidInputError(f"invalid username {protocol.shown(username)}: expected your username")
        if not isinstance(password, str) or len(password) > 200:
            raise InvalidInputError("invalid password: expected text of at most 200 characters")

        def lookup() -> User | None:
            with state["sessions"]() as db:
                return db.scalar(select(User).where(User.username == username))

        user = await asyncio.to_thread(lookup)
        if user is None:  # (unknown accounts are not tracked: that would be memory for the asking)
            raise HTTPError(401, "wrong username or password", "bad_login")
        address = client_address(request)
        wait = auth_limits.start_login(user.username, address)  # counted before the hash, in one step
        if wait:
            raise HTTPError(
                429,
                f"too many failed logins for {username!r} from your address: try again in {int(wait) + 1} s",
                "too_many_requests",
                {"seconds": int(wait) + 1},
            )
        if not await verify_password_async(password, user.password_hash):
            raise HTTPError(401, "wrong username or password", "bad_login")
        auth_limits.login_succeeded(user.username, address)
        return await login_response(state, request, user)

    @api.post("/api/logout")
    async def logout(request: Request) -> JSONResponse:
        await asyncio.to_thread(close_session, state["sessions"], request.cookies.get(SESSION_COOKIE))
        response = JSONResponse({"ok": True})
        response.delete_cookie(SESSION_COOKIE)
        return response

    @api.post("/api/logout-all")
    async def logout_all(request: Request) -> JSONResponse:
        """End every session of the logged-in user (on every device), this one included, and revoke
        the account's seat tokens (their seated connections closed: :meth:`TableManager.revoke_seats`,
        and at chouettes :func:`backgammon.server.chouette_seats.revoke_seats`)."""
        user = await require_user(state, request)
        count = await asyncio.to_thread(close_all_sessions, state["sessions"], user.id)
        seats = await state["manager"].revoke_seats(user.id)
        seats += await state["revoke_chouette_seats"](user.id)
        response = JSONResponse({"ok": True, "sessions": count, "seats": seats})
        response.delete_cookie(SESSION_COOKIE)
        return response

    @api.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        return protocol.user_to_wire(await require_user(state, request))

    @api.put("/api/me/settings")
    async def put_settings(request: Request) -> dict[str, Any]:
        user = await require_user(state, request)
        changes = protocol.settings_from_wire(await body(request))

        def write() -> dict[str, Any]:
            with state["sessions"]() as db:
                row = db.get(User, user.id)
                if row is None:  # the account was deleted meanwhile
                    raise LookupError(f"no account {protocol.shown(user.username)}")
                row.settings = {**protocol.clean_settings(row.settings), **changes}
                db.commit()
                return protocol.user_to_wire(row)

        return await asyncio.to_thread(write)

    @api.get("/api/me/history")
    async def my_history(
        request: Request, limit: protocol.PageLimit = 50, offset: protocol.PageOffset = 0
    ) -> list[dict[str, Any]]:
        """The logged-in user's tables, newest first (``limit`` rows from ``offset``)."""
        user = await require_user(state, request)

        def query() -> list[Table]:
            with state["sessions"]() as db:
                return list(
                    db.scalars(
                        select(Table)
                        .where(or_(Table.white_user_id == user.id, Table.black_user_id == user.id))
                        .order_by(Table.created_at.desc(), Table.id)
                        .offset(offset)
                        .limit(limit)
                    ).all()
                )

        rows = await asyncio.to_thread(query)
        manager: TableManager = state["manager"]
        return [protocol.history_row(row, await manager.get(row.id), user.id) for row in rows]

    @api.get("/api/users/{username}")
    async def user_info(username: str) -> dict[str, Any]:
        def query() -> User | None:
            with state["sessions"]() as db:
                return db.scalar(select(User).where(User.username == username))

        user = await asyncio.to_thread(query)
        if user is None:
            raise LookupError(f"no user {protocol.shown(username)}")
        return protocol.public_user(user)

    return api
