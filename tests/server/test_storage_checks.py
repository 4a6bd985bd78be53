"""Storage that refuses to start broken (issue 42, item 7): a damaged or empty SQLite file, a second
process on one SQLite data folder, and migrations of several processes at once on PostgreSQL."""

from __future__ import annotations

import gc
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

from backgammon.server.db import StorageError, database_url_for, open_database

from ._servers import BACKGAMMON, free_port

DB_NAME = "backgammon.sqlite3"


def _serve(data_dir: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``backgammon serve`` on ``data_dir``, expected to refuse to start."""
    cmd = [BACKGAMMON, "serve", "--port", str(free_port()), "--data-dir", str(data_dir)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _release(*factories) -> None:
    """Drop the engines of these session factories (the caller drops its names of them too), and so
    this process's lock of their file."""
    for sessions in factories:
        sessions.kw["bind"].dispose()
    gc.collect()


def test_a_damaged_database_refuses_to_start(tmp_path):
    path = tmp_path / DB_NAME
    with sqlite3.connect(path) as db:  # a database of some pages
        db.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, data TEXT)")
        db.executemany("INSERT INTO filler (data) VALUES (?)", [("x" * 500,) for _ in range(200)])
    db.close()
    page = 4096
    assert path.stat().st_size > 10 * page
    with open(path, "r+b") as f:  # one page of the table's b-tree overwritten
        f.seek(5 * page)
        f.write(b"\xa5" * page)
    with pytest.raises(StorageError, match=r"is damaged \(SQLite's quick_check: .+\); restore it from a backup"):
        open_database(database_url_for(tmp_path))
    gc.collect()
    done = _serve(tmp_path)
    assert done.returncode == 2 and "is damaged" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_file_that_is_not_a_database_refuses_to_start(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StorageError, match=r"is damaged .*not a database"):
        open_database(database_url_for(tmp_path))


def test_an_empty_database_file_refuses_to_start_but_a_new_site_starts(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / DB_NAME).touch()
    with pytest.raises(StorageError, match=r"is empty \(0 bytes\).*delete it to start a new site"):
        open_database(database_url_for(tmp_path / "old"))
    gc.collect()
    done = _serve(tmp_path / "old")
    assert done.returncode == 2 and "is empty (0 bytes)" in done.stderr, done.stderr
    (tmp_path / "new").mkdir()
    sessions = open_database(database_url_for(tmp_path / "new"))  # no file yet: a new site
    with sessions() as db:
        assert db.execute(text("SELECT count(*) FROM users")).scalar() == 0
    _release(sessions)


def test_a_second_process_on_one_sqlite_folder_is_refused(tmp_path):
    url = database_url_for(tmp_path)
    sessions = open_database(url)  # this process serves the folder
    again = open_database(url)  # (another app of the same process may: tests, serve's check before it serves)
    done = _serve(tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"is in use by another server process (pid {os.getpid()})" in done.stderr, done.stderr
    assert "one process per SQLite data folder" in done.stderr
    _release(again, sessions)
    del again, sessions
    gc.collect()
    # once this process has let go, another one may serve it
    script = f"from backgammon.server.db import open_database; open_database({url!r}); print('opened')"
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert other.stdout.strip() == "opened", other.stderr


def test_the_lock_goes_with_a_killed_process(tmp_path):
    url = database_url_for(tmp_path)
    script = textwrap.dedent(f"""
        import sys, time
        from backgammon.server.db import open_database
        s = open_database({url!r})
        print("holding", flush=True)
        time.sleep(120)
    """)
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        with pytest.raises(StorageError, match=f"in use by another server process \\(pid {holder.pid}\\)"):
            open_database(url)
    finally:
        holder.kill()
        holder.wait()
    sessions = open_database(url)  # kill -9 leaves no stale lock
    _release(sessions)


@pytest.mark.slow
@pytest.mark.parametrize("processes", [2, 3])
def test_concurrent_migrations_on_postgresql_are_serialised(fresh_database, processes):
    """Two or three processes migrate one new PostgreSQL database at once, three times: all succeed
    (the advisory lock of db.run_migrations; without it one of three died in 2 of 3 trials, and one
    of two in 3 of 3)."""
    import psycopg

    script = "import sys; from backgammon.server.db import open_database; open_database(sys.argv[1]); print('ok')"
    for trial in range(3):
        with psycopg.connect(fresh_database, autocommit=True) as conn:  # a new database each trial
            conn.execute("DROP SCHEMA public CASCADE")
            conn.execute("CREATE SCHEMA public")
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", script, fresh_database],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(processes)
        ]
        results = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0] * processes, (trial, [err[-500:] for _out, err in results])
        assert all(out.strip() == "ok" for out, _err in results)
