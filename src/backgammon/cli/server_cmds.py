"""Web platform subcommand: ``serve`` (the web app)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from backgammon.cli._files import writable_folder
from backgammon.errors import BackgammonError, InvalidInputError

MAX_BOT_DELAY = 60.0
"""The longest pause of the computer before it acts, in seconds."""

SERVER_EXTRA = "the web server needs the 'server' extra: pip install 'backgammon[server]'"


def _server_modules() -> tuple[Any, Any]:
    """``uvicorn`` and ``backgammon.server.app``.

    Raises:
        BackgammonError: when the 'server' extra is not installed (a module outside this package is missing).
    """
    try:
        import uvicorn

        from backgammon.server import app as server_app
    except ImportError as exc:
        name = getattr(exc, "name", None) or ""
        if name == "backgammon" or name.startswith("backgammon."):
            raise  # a broken install of this package, not a missing extra
        raise BackgammonError(f"{SERVER_EXTRA} (missing module {name or exc!s})") from None
    return uvicorn, server_app


def check_address(host: str, port: int) -> None:
    """Bind ``host:port`` for a moment, so that a busy port or an unknown host is one line, not a failed start.

    Raises:
        InvalidInputError: naming the address and why it cannot be used.
    """
    import socket

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.create_server((host, port), family=family):
            pass
    except OSError as exc:
        raise InvalidInputError(
            f"cannot listen at {host}:{port}: {_reason(exc)}; choose another --host or --port"
        ) from None


def _reason(exc: OSError) -> str:
    """The system's words for an OSError, without the call's details (gai errors have negative numbers)."""
    import os

    if exc.errno and exc.errno > 0:
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


def check_database(database_url: str | None, data_dir: Path) -> None:
    """Open the database the server will use (and bring its schema up to date) before serving.

    Raises:
        BackgammonError: naming the URL (password hidden) and why it cannot be used.
    """
    from backgammon.server.db import StorageError, database_url_for, open_database

    url = database_url if database_url is not None else database_url_for(data_dir)
    hidden = _hide_password(url)
    if database_url is not None:
        what = f"--database-url {hidden!r}"
        advice = "check that the database server is running and the URL, user and password are right"
    else:
        what, advice = f"the database in --data-dir {str(data_dir)!r}", "give another --data-dir"
    try:
        sessions = open_database(url)
    except StorageError:  # in use by another process, empty or damaged: its own message says what to do
        raise
    except BackgammonError as exc:  # not a URL, or no driver for it
        text = str(exc)
        for shown in (url, url.replace("postgresql://", "postgresql+psycopg://", 1)):
            text = text.replace(shown, hidden)
        raise BackgammonError(
            f"{text}; expected sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DB (PostgreSQL needs the "
            "'postgres' extra)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - sqlalchemy.exc.* (cannot connect), OSError, alembic errors
        lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise BackgammonError(f"cannot open {what}: {lines[0] if lines else type(exc).__name__}; {advice}") from None
    bind = getattr(sessions, "kw", {}).get("bind")
    if bind is not None:
        bind.dispose()  # the server opens its own


def _hide_password(url: str) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL SQLAlchemy can read: show it as given
        return url


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    port: int = typer.Option(8000, "--port", help="port to listen on"),
    data_dir: str = typer.Option("data", "--data-dir", help="folder for the SQLite database"),
    database_url: str = typer.Option(
        None, "--database-url", help="e.g. postgresql://user:pw@host/db (default: SQLite in the data folder)"
    ),
    dice_seed: int = typer.Option(None, "--dice-seed", help="seed every table's dice (tests only)"),
    test_hooks: bool = typer.Option(
        False, "--test-hooks", help="allow tables that start from a given position (tests only)"
    ),
    bot_delay: float = typer.Option(0.4, "--bot-delay", help="seconds the computer waits before acting"),
    workers: int = typer.Option(1, "--workers", help="server processes (more than 1 needs PostgreSQL)"),
    redis_url: str = typer.Option(
        None, "--redis-url", help="e.g. redis://host:6379/0: the bus between processes (default: PostgreSQL's)"
    ),
    rollout_workers: int = typer.Option(2, "--rollout-workers", help="web rollouts running at once (the rest wait)"),
    rollout_cluster: str = typer.Option(
        None, "--rollout-cluster", help="Ray cluster address for the web rollouts (needs backgammon[cluster])"
    ),
    forwarded_allow_ips: str = typer.Option(
        None,
        "--forwarded-allow-ips",
        help="proxies whose X-Forwarded-For/-Proto are believed: IPs or networks, comma-separated "
        "(default none, loopback included: the headers are ignored)",
    ),
    timeout_keep_alive: int = typer.Option(5, "--timeout-keep-alive", help="seconds an idle connection stays open"),
    header_timeout: float = typer.Option(
        10.0, "--header-timeout", help="seconds a request's line and headers may take to arrive (slowloris)"
    ),
    limit_concurrency: int = typer.Option(
        None,
        "--limit-concurrency",
        help="open connections and tasks past which requests get 503 (default: the open-file limit less 128)",
    ),
    max_header_bytes: int = typer.Option(
        16 * 1024, "--max-header-bytes", help="the most bytes of a request line and headers"
    ),
    engine_threads: int = typer.Option(
        None,
        "--engine-threads",
        help="threads for engine work (thinking, hints, analysis, reviews, dice statistics); "
        "default: the CPUs less one, 1 to 8",
    ),
    db_threads: int = typer.Option(8, "--db-threads", help="threads for database work (sessions, table reads)"),
    budget: list[str] = typer.Option(
        None,
        "--budget",
        help="KIND=PER_HOUR[/AT_ONCE] per client (repeatable); kinds: tables, listed_tables, ai_tables, hints, "
        "analysis, reviews, rollouts, dice_stats",
    ),
    address_factor: int = typer.Option(4, "--address-factor", help="an address's budgets, in clients' budgets"),
    sockets_per_address: int = typer.Option(40, "--sockets-per-address", help="open table sockets per address"),
    spectators_per_table: int = typer.Option(50, "--spectators-per-table", help="spectator sockets per table"),
    chat_per_minute: int = typer.Option(20, "--chat-per-minute", help="chat lines per client across all tables"),
    socket_messages_per_second: int = typer.Option(
        20, "--socket-messages-per-second", help="messages per socket (pings included) before it is closed"
    ),
) -> None:
    """Start the web app (http://127.0.0.1:8000 by default)."""
    if not 0 < port < 65536:
        raise InvalidInputError(f"invalid port {port!r}: expected 1 to 65535")
    if not 0 <= bot_delay <= MAX_BOT_DELAY:  # also refuses nan
        raise InvalidInputError(f"invalid --bot-delay {bot_delay!r}: expected 0 to {MAX_BOT_DELAY:g} seconds")
    check_workers(workers, database_url)
    if not 1 <= rollout_workers <= 64:
        raise InvalidInputError(f"invalid --rollout-workers {rollout_workers!r}: expected 1 to 64")
    from backgammon.server.pools import ENGINE_THREADS

    engine_threads = ENGINE_THREADS if engine_threads is None else engine_threads
    for option, value in (
        ("--engine-threads", engine_threads),
        ("--db-threads", db_threads),
        ("--address-factor", address_factor),
        ("--sockets-per-address", sockets_per_address),
        ("--spectators-per-table", spectators_per_table),
        ("--chat-per-minute", chat_per_minute),
        ("--socket-messages-per-second", socket_messages_per_second),
    ):
        if not 1 <= value <= 100_000:
            raise InvalidInputError(f"invalid {option} {value!r}: expected 1 to 100000")
    from backgammon.server.quotas import parse_budgets

    budgets = parse_budgets(budget or [])
    uvicorn, server_app = _server_modules()
    ServerConfig, create_app = server_app.ServerConfig, server_app.create_app
    from backgammon.server.serving import ServeOptions, check_serve_options, parse_trusted_proxies

    options = ServeOptions(
        forwarded_allow_ips=parse_trusted_proxies(forwarded_allow_ips),
        timeout_keep_alive=timeout_keep_alive,
        header_timeout=header_timeout,
        limit_concurrency=limit_concurrency,
        max_header_bytes=max_header_bytes,
    )
    check_serve_options(options)
    if database_url is None:
        writable_folder(data_dir, "--data-dir")
    check_database(database_url, Path(data_dir))
    check_address(host, port)
    if redis_url is not None:
        check_redis(redis_url, database_url)
    config = ServerConfig(
        data_dir=Path(data_dir),
        database_url=database_url,
        dice_seed=dice_seed,
        test_hooks=test_hooks,
        bot_delay=bot_delay,
        redis_url=redis_url,
        rollout_workers=rollout_workers,
        rollout_cluster=rollout_cluster,
        engine_threads=engine_threads,
        db_threads=db_threads,
        budgets=budgets or None,
        address_factor=address_factor,
        sockets_per_address=sockets_per_address,
        spectators_per_table=spectators_per_table,
        chat_per_minute=chat_per_minute,
        socket_messages_per_second=socket_messages_per_second,
    )
    print(
        f"backgammon: serving on http://{host}:{port}/" + (f" ({workers} processes)" if workers > 1 else ""), flush=True
    )
    # No permessage-deflate on table sockets (ServeOptions.uvicorn_kwargs): a state is a few kB (20 kB with a
    # double's moves), and compressing every frame took about 4% of the server's CPU under load
    # (benchmarks/web_load.py).
    if workers == 1:
        uvicorn.run(create_app(config), host=host, port=port, log_level="warning", **options.uvicorn_kwargs())
        return
    import os

    from backgammon.server.app import CONFIG_ENV, config_to_env
    from backgammon.server.serving import UVICORN_ENV
    from backgammon.server.workers import Supervisor

    # each worker builds its app from these settings; the parent hands it each table's connections
    env = {**os.environ, CONFIG_ENV: config_to_env(config), UVICORN_ENV: options.to_env()}
    raise typer.Exit(Supervisor(workers, host, port, env=env).run())


def check_redis(redis_url: str, database_url: str | None) -> None:
    """Refuse a Redis URL that cannot serve: without PostgreSQL (one process needs no bus), not a
    redis:// URL, without the redis package, or where no Redis answers.

    Raises:
        InvalidInputError: saying which (the URL's password hidden).
    """
    import asyncio

    from backgammon.server.bus import RedisBus, redacted

    if not database_url or not database_url.startswith("postgresql"):
        raise InvalidInputError("--redis-url needs --database-url postgresql://...: on SQLite one process needs no bus")
    if not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise InvalidInputError(f"invalid --redis-url {redacted(redis_url)!r}: expected redis://host:port/db")

    async def probe() -> None:
        bus = RedisBus(redis_url)
        try:
            await asyncio.wait_for(bus.start(), 10)
        finally:
            await bus.close()

    try:
        asyncio.run(probe())
    except TimeoutError:
        raise InvalidInputError(f"cannot reach Redis at {redacted(redis_url)}: no answer in 10 s") from None


def check_workers(workers: int, database_url: str | None) -> None:
    """Refuse more than one process where the tables cannot be shared.

    Raises:
        InvalidInputError: for fewer than 1 process, or several on SQLite (one process only: several
            processes share tables through PostgreSQL; see README, "Several processes").
    """
    if workers < 1:
        raise InvalidInputError(f"invalid --workers {workers!r}: expected 1 or more")
    if workers > 1 and (not database_url or not database_url.startswith("postgresql")):
        raise InvalidInputError(
            f"--workers {workers} needs PostgreSQL: SQLite serves one process only; "
            "give --database-url postgresql://... or run with --workers 1"
        )


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
