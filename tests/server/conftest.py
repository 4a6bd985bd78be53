"""Fixtures for the web platform's tests: an app on a temporary data folder."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi.testclient import TestClient  # noqa: E402 - after the warnings filter

from backgammon.server.app import ServerConfig, create_app  # noqa: E402


def make_client(data_dir: Path, **kwargs) -> TestClient:
    kwargs.setdefault("warm_engine", False)
    config = ServerConfig(data_dir=data_dir, bot_delay=0.0, dice_seed=kwargs.pop("dice_seed", 7), **kwargs)
    return TestClient(create_app(config))


@contextmanager
def table_socket(client: TestClient, table: str, token: str | None = None):
    """A test client's connection to a table, introduced with its hello message (the seat token)."""
    with client.websocket_connect(f"/ws/tables/{table}") as ws:
        ws.send_json({"type": "hello", "token": token})
        yield ws


def receive(ws) -> dict:
    """The next message on a table socket that is not a presence notice."""
    while True:
        doc = ws.receive_json()
        if doc.get("type") != "presence":
            return doc


@pytest.fixture
def client(tmp_path: Path):
    with make_client(tmp_path, test_hooks=True) as c:
        yield c


@pytest.fixture
def fresh_database() -> str:
    """A new, empty PostgreSQL database of its own for one test (on the server that
    BACKGAMMON_TEST_DATABASE_URL names; dropped afterwards), so that tests running at the same
    time (pytest-xdist) never share tables, locks or NOTIFY channels. Its URL."""
    import os
    import uuid

    import psycopg

    base = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
    if not base:
        pytest.skip("set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL server")
    name = f"bgtest_{uuid.uuid4().hex[:12]}"
    server, _, _db = base.rpartition("/")
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield f"{server}/{name}"
    with psycopg.connect(base, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def receive_within(ws, seconds: float = 10.0) -> dict:
    """The next JSON message of a test socket, failing (not hanging) when none comes in ``seconds``."""
    import json as _json

    import anyio

    async def next_message():
        with anyio.fail_after(seconds):
            return await ws._send_rx.receive()

    message = ws.portal.call(next_message)
    ws._raise_on_close(message)
    return _json.loads(message["text"])
