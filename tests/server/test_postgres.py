"""The same app on PostgreSQL (runs only when BACKGAMMON_TEST_DATABASE_URL names a scratch database).

Example: ``BACKGAMMON_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:55432/bgtest``.
The test drops every table in that database first.
"""

from __future__ import annotations

import os

import pytest

from ._wire import moves_of
from .conftest import make_client
from .test_api import act, human_table, state

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database")


def _migration_head() -> str:
    """The newest revision among the shipped Alembic migrations."""
    from pathlib import Path

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from backgammon.server import db

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    return ScriptDirectory.from_config(cfg).get_current_head()


def test_postgres_migrate_play_restart(tmp_path, fresh_database):
    from sqlalchemy import create_engine, text

    URL = fresh_database
    with make_client(tmp_path, database_url=URL) as client:
        assert client.post("/api/register", json={"username": "pguser", "password": "pw-123456"}).status_code == 200
        tid, w, b = human_table(client)
        tokens = {"white": w, "black": b}
        st = state(client, tid)
        tok = tokens[st["game"]["turn"]]
        assert act(client, tid, tok, action="move", steps=moves_of(state(client, tid, tok))[0]).status_code == 200
        before = state(client, tid)
    with make_client(tmp_path, database_url=URL) as client:  # migrations run again: a no-op
        after = state(client, tid)
        assert after["version"] == before["version"] and after["game"]["board"] == before["game"]["board"]
        assert client.post("/api/login", json={"username": "pguser", "password": "pw-123456"}).status_code == 200
    engine = create_engine(URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == _migration_head()
        assert (
            conn.execute(text("SELECT count(*) FROM actions WHERE table_id = :t"), {"t": tid}).scalar()
            == before["version"]
        )
    engine.dispose()
