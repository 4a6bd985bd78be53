"""The FastAPI application: REST endpoints, the table WebSocket and the static UI.

``create_app(ServerConfig(...))`` builds an app; ``backgammon serve`` runs it with uvicorn.
All errors go through :func:`error_status` (one mapping): bad input 400, an illegal play
422, an action against the flow of the game 409, no such thing 404, not logged in 401,
anything else 500 (logged, no details sent).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy import or_, select
from starlette.middleware.gzip import GZipMiddleware

from backgammon.errors import BackgammonError, IllegalActionError, InvalidInputError
from backgammon.server import protocol, uploads
from backgammon.server.assets import ASSETS
from backgammon.server.auth import (
    SESSION_DAYS,
    AuthLimits,
    check_password,
    check_username,
    close_all_sessions,
    close_session,
    create_user,
    guest_name,
    hash_password_async,
    open_session,
    session_user,
    verify_password_async,
)
from backgammon.server.bus import bus_for, leases_for
from backgammon.server.chouette_tables import router as chouette_router
from backgammon.server.db import Table, User, database_url_for, open_database
from backgammon.server.history import export_mat, history_entry_of, history_of, move_list_of
from backgammon.server.http_errors import HTTPError, error_info, error_status
from backgammon.server.ownership import Network
from backgammon.server.pairing import PairingManager
from backgammon.server.pairing import make_router as pairing_router
from backgammon.server.player_dice import router as dice_stats_router
from backgammon.server.pools import DB_THREADS, ENGINE_THREADS, configure, install_db_pool, run_engine
from backgammon.server.quotas import (
    ADDRESS_FACTOR,
    CHAT_PER_MINUTE,
    SOCKET_MESSAGES_PER_SECOND,
    SOCKETS_PER_ADDRESS,
    SPECTATORS_PER_TABLE,
    Quotas,
    address_of,
)
from backgammon.server.security import install_body_limit, install_csrf, install_security
from backgammon.server.sockets import serve_connection
from backgammon.server.tables import TableManager

log = logging.getLogger("backgammon.server")
SESSION_COOKIE = "bg_session"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How to run the server: the data folder, the database, and test hooks.

    ``dice_seed`` seeds every table's dice (tests only); ``test_hooks`` allows tables that
    start from a given position (``start`` in the create request), used by the end-to-end
    tests to play a whole game quickly. ``bot_delay`` pauses the computer before it acts.
    """

    data_dir: Path = Path("data")
    database_url: str | None = None
    redis_url: str | None = None  # the bus between processes over Redis instead of PostgreSQL
    dice_seed: int | None = None
    test_hooks: bool = False
    bot_delay: float = 0.4
    warm_engine: bool = True
    auth_attempts_per_minute: int = 10  # logins + registrations per client address
    auth_failures_per_minute: int = 5  # failed logins per (account, address) before the backoff doubles
    registrations_per_hour: int = 20  # new accounts per client address
    rollout_workers: int = 2  # study and review rollouts running at once (more wait in a queue)
    rollout_cluster: str | None = None  # a Ray address: rollouts run their trials on that cluster
    engine_threads: int = ENGINE_THREADS  # the engine pool: thinking, hints, analysis, reviews, dice statistics
    db_threads: int = DB_THREADS  # the database pool (the loop's default executor): sessions, table reads
    budgets: dict[str, list[int | None]] | None = None  # kind -> [per hour, at once]: quotas.BUDGETS overridden
    address_factor: int = ADDRESS_FACTOR  # an address's budgets are this many times a client's
    sockets_per_address: int = SOCKETS_PER_ADDRESS
    spectators_per_table: int = SPECTATORS_PER_TABLE
    chat_per_minute: int = CHAT_PER_MINUTE  # chat lines per client across every table
    socket_messages_per_second: int = SOCKET_MESSAGES_PER_SECOND  # per connection (pings included)


CONFIG_ENV = "BACKGAMMON_SERVER_CONFIG"
"""The environment variable through which ``serve --workers N`` hands its settings to each worker."""


def config_to_env(config: ServerConfig) -> str:
    """The settings as the JSON text :func:`app_from_env` reads."""
    doc = {name: getattr(config, name) for name in ServerConfig.__dataclass_fields__}
    doc["data_dir"] = str(config.data_dir)
    return json.dumps(doc)


def app_from_env() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (settings from :data:`CONFIG_ENV`)."""
    import os

    doc = json.loads(os.environ[CONFIG_ENV])
    doc["data_dir"] = Path(doc["data_dir"])
    return create_app(ServerConfig(**doc))


GC_FREEZE_EVERY = 1.0
"""Seconds between moves of what survived into the collector's permanent generation."""
GC_FULL_EVERY = 600.0
"""Seconds between full collections (of the frozen objects too)."""


async def _age_garbage_scans() -> None:
    """Keep the cyclic garbage collector's pauses short under load.

    A busy server makes tens of long-lived objects per action (each table's games, actions and
    states), and the collector scanned them again and again as they aged: collections of the older
    generations took 0.3-0.5 s, long enough to show in the round trips' p99. Every
    :data:`GC_FREEZE_EVERY` seconds what survived is frozen (``gc.freeze``: reference counting
    still frees it, the cyclic collector no longer scans it), so a collection only sees the last
    second's objects; every :data:`GC_FULL_EVERY` seconds one full collection (frozen objects
    included) frees any reference cycles that became garbage meanwhile."""
    loop = asyncio.get_running_loop()
    last_full = loop.time()
    while True:
        await asyncio.sleep(GC_FREEZE_EVERY)
        if loop.time() - last_full >= GC_FULL_EVERY:
            gc.unfreeze()
            gc.collect()
            last_full = loop.time()
        gc.freeze()


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The web application for ``config`` (database opened and migrated at start)."""
    config = config or ServerConfig()
    state: dict[str, Any] = {"config": config}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # engine work on its own bounded pool; everything asyncio.to_thread runs (sessions, reads) on another
        configure(config.engine_threads)
        db_pool = install_db_pool(asyncio.get_running_loop(), config.db_threads)
        url = config.database_url
        if url is None:
            config.data_dir.mkdir(parents=True, exist_ok=True)
            url = database_url_for(config.data_dir)
        sessions = open_database(url)
        manager = TableManager(
            sessions,
            dice_seed=config.dice_seed,
            test_hooks=config.test_hooks,
            network=Network(bus_for(url, config.redis_url), leases_for(url)),
        )
        manager.bot_delay = config.bot_delay
        await manager.start()
        state["sessions"], state["manager"] = sessions, manager
        state["pairing"] = PairingManager(manager)
        state["pairing"].start()
        count = await manager.load()
        log.info("resumed %d table(s)", count)
        # The modules and tables loaded so far live as long as the server: keep them out of the
        # garbage collector's scans, and collect young objects less often (states are short-lived
        # dicts, made by the thousand per second under load).
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
        state["gc"] = asyncio.create_task(_age_garbage_scans(), name="gc-freeze")
        if config.warm_engine:
            from backgammon.server.agents import warm_up

            async def warm() -> bool:
                # Compiling the kernels holds the GIL for up to a minute: do it in a child process,
                # which fills the on-disk cache, so this process only loads them and keeps answering.
                child = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-c",
                    "from backgammon.server.agents import warm_up; warm_up()",
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.DEVNULL,
                )
                try:
                    await child.wait()
                except asyncio.CancelledError:
                    child.kill()
                    raise
                return await asyncio.to_thread(warm_up)

            state["warm"] = asyncio.create_task(warm())
        yield
        state["gc"].cancel()
        if "warm" in state:
            state["warm"].cancel()
        if "chouettes" in state:
            await state["chouettes"].close()
        if "rollouts" in state:
            state["rollouts"].close()
        await state["pairing"].close()
        await manager.close()
        db_pool.shutdown(wait=False)

    app = FastAPI(title="backgammon", lifespan=lifespan, docs_url=None, redoc_url=None)
    install_csrf(app)  # innermost: a body declared too large is 413 first; the refusals get the headers
    install_body_limit(app, protocol.MAX_BODY, uploads.BODY_LIMITS)  # inside the security headers: a 413 gets them too
    install_security(app)
    auth_limits = AuthLimits(
        config.auth_attempts_per_minute, config.auth_failures_per_minute, config.registrations_per_hour
    )
    quotas = state["quotas"] = Quotas(
        config.budgets,
        address_factor=config.address_factor,
        sockets_per_address=config.sockets_per_address,
        spectators_per_table=config.spectators_per_table,
        chat_per_minute=config.chat_per_minute,
        socket_messages_per_second=config.socket_messages_per_second,
    )
    # JSON and pages above 1 kB gzipped for clients that accept it (static files come gzipped already,
    # the WebSockets pass through); level 6: nearly level 9's size at a fraction of its time
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)

    async def _errors(request: Request, exc: Exception) -> JSONResponse:
        status, message, code, params = error_info(exc)
        return JSONResponse(protocol.error_body(message, code, params), status_code=status)

    # Exception's handler runs in Starlette's outermost middleware (which re-raises after answering); the
    # kinds named beside it are answered by the inner one, as ordinary responses
    for kind in (Exception, BackgammonError, HTTPError, LookupError):
        app.add_exception_handler(kind, _errors)

    @app.exception_handler(RequestValidationError)  # bad query or path parameters: 400, one readable line
    async def _validation_errors(request: Request, exc: Exception) -> JSONResponse:
        status, message = error_status(exc)
        return JSONResponse(protocol.error_body(message, "invalid_input"), status_code=status)

    # ------------------------------------------------------------ helpers
    async def body(request: Request) -> dict[str, Any]:
        """The request's JSON object ({} for an empty body); see :func:`protocol.parse_json_object`."""
        raw = await request.body()  # at most protocol.MAX_BODY bytes (BodyLimitMiddleware)
        if not raw.strip():
            return {}
        return protocol.parse_json_object(raw, "request body")

    async def current_user(request: Request) -> User | None:
        """The logged-in user (a session lookup on a worker thread), or None."""
        return await asyncio.to_thread(session_user, state["sessions"], request.cookies.get(SESSION_COOKIE))

    async def require_user(request: Request) -> User:
        user = await current_user(request)
        if user is None:
            raise HTTPError(401, "not logged in", "not_logged_in")
        return user

    async def login_response(request: Request, user: User) -> JSONResponse:
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

    client_address = address_of  # (a trusted proxy's X-Forwarded-For: serve --forwarded-allow-ips)

    def count_attempt(request: Request, registration: bool = False) -> None:
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

    async def name_for(request: Request, doc: dict[str, Any]) -> tuple[str, int | None]:
        """The name and user id a table seat is taken under: the account's, or a guest's name
        (checked, and not a registered user's)."""
        user = await current_user(request)
        if user is not None:
            return user.username, user.id
        return await asyncio.to_thread(guest_name, state["sessions"], doc.get("name")), None

    from backgammon.server.study import make_router

    app.include_router(make_router(state, body))
    from backgammon.server.puzzles import make_router as puzzles_router

    app.include_router(puzzles_router(state, body))
    app.include_router(uploads.make_router(state))  # analyse my matches

    # ------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    @app.get("/t/{table_id}", include_in_schema=False)
    async def index(request: Request, table_id: str | None = None) -> Response:
        return ASSETS.response("index.html", request, page=True)

    @app.api_route("/static/{name:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def static_file(name: str, request: Request) -> Response:
        """A static file; under its versioned URL (``?v=<hash>``, what the pages refer to) cached for a year."""
        return ASSETS.response(name, request)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/api/health")
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

    # ----------------------------------------------------------- accounts
    @app.post("/api/register")
    async def register(request: Request) -> JSONResponse:
        count_attempt(request, registration=True)
        doc = await body(request)
        username = check_username(doc.get("username"))
        password = check_password(doc.get("password"), username)
        password_hash = await hash_password_async(password)
        user = await asyncio.to_thread(create_user, state["sessions"], username, password_hash)
        return await login_response(request, user)

    @app.post("/api/login")
    async def login(request: Request) -> JSONResponse:
        count_attempt(request)
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
        return await login_response(request, user)

    @app.post("/api/logout")
    async def logout(request: Request) -> JSONResponse:
        await asyncio.to_thread(close_session, state["sessions"], request.cookies.get(SESSION_COOKIE))
        response = JSONResponse({"ok": True})
        response.delete_cookie(SESSION_COOKIE)
        return response

    @app.post("/api/logout-all")
    async def logout_all(request: Request) -> JSONResponse:
        """End every session of the logged-in user (on every device), this one included, and revoke
        the account's seat tokens (their seated connections closed: :meth:`TableManager.revoke_seats`,
        and at chouettes :func:`backgammon.server.chouette_seats.revoke_seats`)."""
        user = await require_user(request)
        count = await asyncio.to_thread(close_all_sessions, state["sessions"], user.id)
        seats = await state["manager"].revoke_seats(user.id)
        seats += await state["revoke_chouette_seats"](user.id)
        response = JSONResponse({"ok": True, "sessions": count, "seats": seats})
        response.delete_cookie(SESSION_COOKIE)
        return response

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        return protocol.user_to_wire(await require_user(request))

    @app.put("/api/me/settings")
    async def put_settings(request: Request) -> dict[str, Any]:
        user = await require_user(request)
        changes = protocol.settings_from_wire(await body(request))

        def write() -> dict[str, Any]:
            with state["sessions"]() as db:
                row = db.get(User, user.id)
                row.settings = {**protocol.clean_settings(row.settings), **changes}
                db.commit()
                return protocol.user_to_wire(row)

        return await asyncio.to_thread(write)

    @app.get("/api/me/history")
    async def my_history(
        request: Request, limit: protocol.PageLimit = 50, offset: protocol.PageOffset = 0
    ) -> list[dict[str, Any]]:
        """The logged-in user's tables, newest first (``limit`` rows from ``offset``)."""
        user = await require_user(request)

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

    @app.get("/api/users/{username}")
    async def user_info(username: str) -> dict[str, Any]:
        def query() -> User | None:
            with state["sessions"]() as db:
                return db.scalar(select(User).where(User.username == username))

        user = await asyncio.to_thread(query)
        if user is None:
            raise LookupError(f"no user {protocol.shown(username)}")
        return protocol.public_user(user)

    # ------------------------------------------------------------- tables
    app.include_router(chouette_router(state, config, body, current_user))
    app.include_router(dice_stats_router(state))

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        doc = await body(request)
        name, user_id = await name_for(request, doc)
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

    @app.get("/api/tables")
    async def lobby(limit: protocol.PageLimit = 50, offset: protocol.PageOffset = 0) -> list[dict[str, Any]]:
        """Listed tables waiting for a second player, newest first (``limit`` rows from ``offset``)."""
        return await state["manager"].lobby(limit=limit, offset=offset)

    app.include_router(pairing_router(state, body, name_for, client_address))

    @app.get("/api/live")
    async def live_tables(limit: protocol.PageLimit = 20, offset: protocol.PageOffset = 0) -> list[dict[str, Any]]:
        """Listed tables between two people being played now, newest first: games to watch."""
        return await state["manager"].live(limit=limit, offset=offset)

    @app.post("/api/unfinished")
    async def unfinished(request: Request) -> list[dict[str, Any]]:
        """The player's unfinished tables: those the seat tokens sent open (``{"seats": [{"id",
        "token"}]}``, what the browser holds) and a logged-in user's."""
        seats = protocol.held_seats_from_wire(await body(request))
        user = await current_user(request)
        return await state["manager"].unfinished(seats, user.id if user else None)

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        name, user_id = await name_for(request, doc)
        table, seat, token = await state["manager"].join(table_id, name, user_id)
        return protocol.seat_to_wire(table, seat, token)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        table = await state["manager"].get(table_id)
        return protocol.state_to_wire(table, table.seat_for(request.headers.get("x-seat-token")))

    @app.post("/api/tables/{table_id}/actions")
    async def post_action(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        manager: TableManager = state["manager"]
        table = await manager.get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        await manager.act(table, seat, doc)
        return protocol.state_to_wire(table, seat)

    @app.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: str, request: Request) -> dict[str, Any]:
        """A new match with the same settings (``x-seat-token``: a player of the finished one)."""
        table, seat, token = await state["manager"].rematch(table_id, request.headers.get("x-seat-token"))
        return protocol.seat_to_wire(table, seat, token)

    @app.post("/api/tables/{table_id}/seat")
    async def reseat(table_id: str, request: Request) -> dict[str, Any]:
        """A logged-in player's own seat, opened from a browser that holds no token for it: a new
        token (the old one stops opening the seat)."""
        user = await require_user(request)
        table, seat, token = await state["manager"].reseat(table_id, user.id)
        return protocol.seat_to_wire(table, seat, token)

    @app.get("/api/tables/{table_id}/history")
    async def table_history(table_id: str, positions: bool = True) -> dict[str, Any]:
        """Every action with the board after it; ``positions=false``: the move list only (a tenth
        of the size), each entry's board and IDs then from ``/history/{seq}``."""
        table = await state["manager"].get(table_id)
        return await asyncio.to_thread(history_of if positions else move_list_of, table)

    @app.get("/api/tables/{table_id}/history/{seq}")
    async def table_history_entry(table_id: str, seq: int) -> dict[str, Any]:
        """One entry of the history (``seq``: its index, 0 the start) with its board and IDs."""
        table = await state["manager"].get(table_id)
        return await asyncio.to_thread(history_entry_of, table, seq)

    @app.get("/api/tables/{table_id}/export.mat")
    async def table_mat(table_id: str) -> Response:
        text = await asyncio.to_thread(export_mat, await state["manager"].get(table_id))
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="backgammon-{table_id}.mat"'}
        )

    @app.post("/api/tables/{table_id}/hint")
    async def hint(table_id: str, request: Request) -> dict[str, Any]:
        table = await state["manager"].get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        return await hint_within_budget(table, seat, client_address(request))

    async def hint_within_budget(table, seat, address: str) -> dict[str, Any]:
        """:func:`hints_for` on the engine pool, counted against the seat's account (else the address)."""
        with quotas.start("hints", address, table.user_ids.get(seat) if seat is not None else None):
            return await run_engine(hints_for, table, seat)

    # ------------------------------------------------------------ sockets
    @app.websocket("/ws/tables/{table_id}")
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
                reply(await hint_within_budget(table, seat, address))
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

    return app


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
    from backgammon.game import GamePhase
    from backgammon.server.agents import EngineAgent, heuristic
    from backgammon.server.computer import cube_for

    game = table.flow.game
    if seat is None or game.turn is not seat or game.phase is not GamePhase.MOVE:
        raise IllegalActionError("no hint now: hints are for the side to move")
    if table.config.get("mode") != "ai":
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
