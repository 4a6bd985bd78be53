"""The FastAPI application: its settings, start-up and error handling; the routes are in
:mod:`backgammon.server.api` (one module per domain) and in the domains that keep their own.

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
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.middleware.gzip import GZipMiddleware

from backgammon.errors import BackgammonError
from backgammon.server import protocol, uploads
from backgammon.server.api import accounts, chouette, pages, pairing, puzzles, stats, tables
from backgammon.server.api import study as api_study
from backgammon.server.api import uploads as api_uploads
from backgammon.server.app_state import AppState
from backgammon.server.auth import AuthLimits
from backgammon.server.bus import bus_for, leases_for
from backgammon.server.db import database_url_for, open_database
from backgammon.server.http_errors import HTTPError, error_info, error_status
from backgammon.server.ownership import Network
from backgammon.server.pairing import PairingManager
from backgammon.server.pools import DB_THREADS, ENGINE_THREADS, configure, install_db_pool
from backgammon.server.quotas import (
    ADDRESS_FACTOR,
    CHAT_PER_MINUTE,
    SOCKET_MESSAGES_PER_SECOND,
    SOCKETS_PER_ADDRESS,
    SPECTATORS_PER_TABLE,
    Quotas,
)
from backgammon.server.security import install_body_limit, install_csrf, install_security
from backgammon.server.tables import TableManager

log = logging.getLogger("backgammon.server")


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
    """The web application for ``config`` (database opened and migrated at start): the state the
    routers share, the middleware, the error handlers and the routers of :mod:`backgammon.server.api`
    and of the domains that keep their own."""
    config = config or ServerConfig()
    state: AppState = {"config": config}
    app = FastAPI(title="backgammon", lifespan=_lifespan(state, config), docs_url=None, redoc_url=None)
    install_csrf(app)  # innermost: a body declared too large is 413 first; the refusals get the headers
    install_body_limit(app, protocol.MAX_BODY, uploads.BODY_LIMITS)  # inside the security headers: a 413 gets them too
    install_security(app)
    auth_limits = AuthLimits(
        config.auth_attempts_per_minute, config.auth_failures_per_minute, config.registrations_per_hour
    )
    state["quotas"] = Quotas(
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

    app.include_router(api_study.router(state))
    app.include_router(puzzles.router(state))
    app.include_router(api_uploads.router(state))  # analyse my matches
    app.include_router(pages.router(state))
    app.include_router(accounts.router(state, auth_limits))
    app.include_router(chouette.router(state, config))
    app.include_router(stats.router(state))
    app.include_router(tables.router(state))
    app.include_router(pairing.router(state))
    return app


def _lifespan(state: AppState, config: ServerConfig) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's start and stop: the pools, the database, the table manager and pairing (kept in
    ``state``), the garbage collector's policy and the engine's warm-up."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
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
            from backgammon.engine.players import warm_up

            state["warm"] = asyncio.create_task(_warm_engine(warm_up))
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

    return lifespan


async def _warm_engine(warm_up: Callable[[], bool]) -> bool:
    """Load the engine's compiled kernels with ``warm_up`` (True when the engine is ready)."""
    # Compiling the kernels holds the GIL for up to a minute: do it in a child process,
    # which fills the on-disk cache, so this process only loads them and keeps answering.
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from backgammon.engine.players import warm_up; warm_up()",
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
