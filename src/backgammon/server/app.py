"""The FastAPI application: REST endpoints, the table WebSocket and the static UI.

``create_app(ServerConfig(...))`` builds an app; ``backgammon serve`` runs it with uvicorn.
All errors go through :func:`error_status` (one mapping): bad input 400, an illegal play
422, an action against the flow of the game 409, no such thing 404, not logged in 401,
anything else 500 (logged, no details sent).
"""

from __future__ import annotations

import asyncio
import json
import logging
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import or_, select

from backgammon.errors import BackgammonError, IllegalActionError, IllegalPlayError, InvalidInputError
from backgammon.server import protocol
from backgammon.server.auth import (
    check_password,
    check_username,
    hash_password,
    new_token,
    token_hash,
    verify_password,
)
from backgammon.server.chouette_tables import router as chouette_router
from backgammon.server.db import Session, Table, User, database_url_for, open_database
from backgammon.server.dice_stats import router as dice_stats_router
from backgammon.server.history import export_mat, history_of
from backgammon.server.security import install_security, origin_allowed
from backgammon.server.tables import TableManager

log = logging.getLogger("backgammon.server")
STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "bg_session"
SETTINGS_KEYS = {
    "orientation": str,
    "autoSwitch": bool,
    "lang": str,
    "whiteColor": str,
    "blackColor": str,
    "animation": str,
    "showPips": bool,
    "autoForced": bool,
}


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How to run the server: the data folder, the database, and test hooks.

    ``dice_seed`` seeds every table's dice (tests only); ``test_hooks`` allows tables that
    start from a given position (``start`` in the create request), used by the end-to-end
    tests to play a whole game quickly. ``bot_delay`` pauses the computer before it acts.
    """

    data_dir: Path = Path("data")
    database_url: str | None = None
    dice_seed: int | None = None
    test_hooks: bool = False
    bot_delay: float = 0.4
    warm_engine: bool = True


class HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def error_status(exc: BaseException) -> tuple[int, str]:
    """The one mapping from an exception to (HTTP status, message for the client)."""
    if isinstance(exc, HTTPError):
        return exc.status, str(exc)
    if isinstance(exc, IllegalPlayError):
        return 422, str(exc)
    if isinstance(exc, InvalidInputError):
        return 400, str(exc)
    if isinstance(exc, IllegalActionError):
        return 409, str(exc)
    if isinstance(exc, LookupError):
        return 404, str(exc.args[0]) if exc.args else "not found"
    if isinstance(exc, BackgammonError):
        return 400, str(exc)
    log.error("internal error", exc_info=exc)
    return 500, "internal error"


def create_app(config: ServerConfig | None = None) -> FastAPI:
    """The web application for ``config`` (database opened and migrated at start)."""
    config = config or ServerConfig()
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        url = config.database_url
        if url is None:
            config.data_dir.mkdir(parents=True, exist_ok=True)
            url = database_url_for(config.data_dir)
        sessions = open_database(url)
        manager = TableManager(sessions, dice_seed=config.dice_seed, test_hooks=config.test_hooks)
        manager.bot_delay = config.bot_delay
        count = manager.load()
        log.info("resumed %d table(s)", count)
        state["sessions"], state["manager"] = sessions, manager
        for table in list(manager.tables.values()):
            await manager._after_action(table)
        if config.warm_engine:
            from backgammon.server.agents import warm_up

            state["warm"] = asyncio.create_task(asyncio.to_thread(warm_up))
        yield
        for table in manager.tables.values():
            for task in (table.bot_task, table.clock_task):
                if task:
                    task.cancel()

    app = FastAPI(title="backgammon", lifespan=lifespan, docs_url=None, redoc_url=None)
    install_security(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(Exception)
    async def _errors(request: Request, exc: Exception) -> JSONResponse:
        status, message = error_status(exc)
        return JSONResponse(protocol.error_body(message), status_code=status)

    @app.exception_handler(BackgammonError)
    async def _bg_errors(request: Request, exc: Exception) -> JSONResponse:
        status, message = error_status(exc)
        return JSONResponse(protocol.error_body(message), status_code=status)

    @app.exception_handler(HTTPError)
    async def _http_errors(request: Request, exc: Exception) -> JSONResponse:
        status, message = error_status(exc)
        return JSONResponse(protocol.error_body(message), status_code=status)

    @app.exception_handler(LookupError)
    async def _lookup_errors(request: Request, exc: Exception) -> JSONResponse:
        status, message = error_status(exc)
        return JSONResponse(protocol.error_body(message), status_code=status)

    # ------------------------------------------------------------ helpers
    async def body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if not raw:
            return {}
        if len(raw) > protocol.MAX_MESSAGE:
            raise InvalidInputError("invalid request: body too large")
        try:
            doc = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise InvalidInputError("invalid request: malformed JSON") from None
        if not isinstance(doc, dict):
            raise InvalidInputError(f"invalid request {doc!r}: expected a JSON object")
        return doc

    def current_user(request: Request) -> User | None:
        token = request.cookies.get(SESSION_COOKIE)
        if not token:
            return None
        with state["sessions"]() as db:
            session = db.get(Session, token_hash(token))
            return db.get(User, session.user_id) if session else None

    def require_user(request: Request) -> User:
        user = current_user(request)
        if user is None:
            raise HTTPError(401, "not logged in")
        return user

    def login_response(user: User) -> JSONResponse:
        token = new_token()
        with state["sessions"]() as db:
            db.add(Session(token_hash=token_hash(token), user_id=user.id))
            db.commit()
        response = JSONResponse(protocol.user_to_wire(user))
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", max_age=60 * 60 * 24 * 365)
        return response

    from backgammon.server.study import make_router

    app.include_router(make_router(state, body))

    # ------------------------------------------------------------- pages
    @app.get("/", include_in_schema=False)
    @app.get("/t/{table_id}", include_in_schema=False)
    async def index(table_id: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

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
        return protocol.health_to_wire(len(state["manager"].tables), engine)

    # ----------------------------------------------------------- accounts
    @app.post("/api/register")
    async def register(request: Request) -> JSONResponse:
        doc = await body(request)
        username = check_username(doc.get("username"))
        password = check_password(doc.get("password"))
        with state["sessions"]() as db:
            if db.scalar(select(User).where(User.username == username)):
                raise IllegalActionError(f"username {username!r} is taken")
            user = User(
                username=username, password_hash=hash_password(password), rating=1500.0, experience=0, settings={}
            )
            db.add(user)
            db.commit()
        return login_response(user)

    @app.post("/api/login")
    async def login(request: Request) -> JSONResponse:
        doc = await body(request)
        username, password = doc.get("username"), doc.get("password")
        with state["sessions"]() as db:
            user = db.scalar(select(User).where(User.username == username)) if isinstance(username, str) else None
        if user is None or not isinstance(password, str) or not verify_password(password, user.password_hash):
            raise HTTPError(401, "wrong username or password")
        return login_response(user)

    @app.post("/api/logout")
    async def logout(request: Request) -> JSONResponse:
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            with state["sessions"]() as db:
                session = db.get(Session, token_hash(token))
                if session:
                    db.delete(session)
                    db.commit()
        response = JSONResponse({"ok": True})
        response.delete_cookie(SESSION_COOKIE)
        return response

    @app.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        return protocol.user_to_wire(require_user(request))

    @app.put("/api/me/settings")
    async def put_settings(request: Request) -> dict[str, Any]:
        user = require_user(request)
        doc = await body(request)
        for key, value in doc.items():
            kind = SETTINGS_KEYS.get(key)
            if kind is None or not isinstance(value, kind) or (kind is str and len(value) > 32):
                raise InvalidInputError(f"invalid setting {key!r} = {value!r}")
        with state["sessions"]() as db:
            row = db.get(User, user.id)
            row.settings = {**(row.settings or {}), **doc}
            db.commit()
            return protocol.user_to_wire(row)

    @app.get("/api/me/history")
    async def my_history(request: Request) -> list[dict[str, Any]]:
        user = require_user(request)
        with state["sessions"]() as db:
            rows = db.scalars(
                select(Table)
                .where(or_(Table.white_user_id == user.id, Table.black_user_id == user.id))
                .order_by(Table.created_at.desc())
                .limit(100)
            ).all()
        manager: TableManager = state["manager"]
        out = []
        for row in rows:
            out.append(protocol.history_row(row, manager.get(row.id), user.id))
        return out

    @app.get("/api/users/{username}")
    async def user_info(username: str) -> dict[str, Any]:
        with state["sessions"]() as db:
            user = db.scalar(select(User).where(User.username == username))
        if user is None:
            raise LookupError(f"no user {username!r}")
        return protocol.public_user(user)

    # ------------------------------------------------------------- tables
    app.include_router(chouette_router(state, config, body, current_user))
    app.include_router(dice_stats_router(state))

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        doc = await body(request)
        user = current_user(request)
        manager: TableManager = state["manager"]
        name = user.username if user else doc.get("name", "Guest")
        table, seat, token = manager.create(
            mode=doc.get("mode", "ai"),
            rules_doc=doc.get("rules"),
            seat=doc.get("seat", "white"),
            level=doc.get("level", "intermediate"),
            name=name,
            user_id=user.id if user else None,
            listed=bool(doc.get("listed", False)),
            start=doc.get("start"),
            clock=doc.get("clock"),
        )
        async with table.lock:
            await manager._after_action(table)
        return protocol.seat_to_wire(table, seat, token)

    @app.get("/api/tables")
    async def lobby() -> list[dict[str, Any]]:
        return state["manager"].lobby()

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        user = current_user(request)
        name = user.username if user else doc.get("name", "Guest")
        table, seat, token = await state["manager"].join(table_id, name, user.id if user else None)
        return protocol.seat_to_wire(table, seat, token)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str, request: Request) -> dict[str, Any]:
        table = state["manager"].get(table_id)
        return protocol.state_to_wire(table, table.seat_for(request.headers.get("x-seat-token")))

    @app.post("/api/tables/{table_id}/actions")
    async def post_action(table_id: str, request: Request) -> dict[str, Any]:
        doc = await body(request)
        manager: TableManager = state["manager"]
        table = manager.get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        await manager.act(table, seat, doc)
        return protocol.state_to_wire(table, seat)

    @app.get("/api/tables/{table_id}/history")
    async def table_history(table_id: str) -> dict[str, Any]:
        return history_of(state["manager"].get(table_id))

    @app.get("/api/tables/{table_id}/export.mat")
    async def table_mat(table_id: str) -> Response:
        text = export_mat(state["manager"].get(table_id))
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="backgammon-{table_id}.mat"'}
        )

    @app.post("/api/tables/{table_id}/hint")
    async def hint(table_id: str, request: Request) -> dict[str, Any]:
        table = state["manager"].get(table_id)
        seat = table.seat_for(request.headers.get("x-seat-token"))
        return await asyncio.to_thread(hints_for, table, seat)

    # ------------------------------------------------------------ sockets
    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        manager: TableManager = state["manager"]
        if not origin_allowed(websocket.headers):  # a page of another site may not act for our user
            await websocket.close(code=1008)
            return
        await websocket.accept()
        try:
            table = manager.get(table_id)
        except LookupError as exc:
            await websocket.send_json(protocol.error_message(404, str(exc.args[0])))
            await websocket.close()
            return
        seat = table.seat_for(websocket.query_params.get("token"))
        table.sockets[websocket] = seat
        try:
            await websocket.send_json(protocol.state_message(table, seat))
            while True:
                raw = await websocket.receive_text()
                try:
                    message = protocol.parse_client_message(raw)
                    if message["type"] == "action":
                        await manager.act(table, seat, message)
                    elif message["type"] == "resync":
                        await websocket.send_json(protocol.state_message(table, seat))
                    elif message["type"] == "hint":
                        await websocket.send_json(await asyncio.to_thread(hints_for, table, seat))
                    else:
                        await websocket.send_json(protocol.PONG)
                except WebSocketDisconnect:
                    raise
                except Exception as exc:  # noqa: BLE001 - every error goes through error_status (500s are logged)
                    status, text = error_status(exc)
                    await websocket.send_json(protocol.error_message(status, text))
                    await websocket.send_json(protocol.state_message(table, seat))
        except WebSocketDisconnect:
            pass
        finally:
            table.sockets.pop(websocket, None)

    return app


def hints_for(table, seat) -> dict[str, Any]:
    """The ranked plays for the side to move (only for a seat playing the computer).

    Raises:
        IllegalActionError: when no hint can be given now (not your move, a human game).
    """
    from backgammon.game import GamePhase
    from backgammon.server.agents import EngineAgent, heuristic

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
        return protocol.hints_to_wire("engine", agent.ranked(position, dice), position.pip_counts())
    except Exception:  # noqa: BLE001 - no engine (or it failed): hints from the heuristic
        plays = sorted(position.legal_plays(*dice), key=lambda p: -heuristic(p.position))[:8]
        best = heuristic(plays[0].position) if plays else 0.0
        ranked = [(p, heuristic(p.position) - best, None, None) for p in plays]
        return protocol.hints_to_wire("heuristic", ranked, position.pip_counts())
