"""``backgammon serve``: every unusable setting is one line on stderr and exit status 2, before serving."""

from __future__ import annotations

import subprocess
import sys

import pytest

from backgammon.cli import main

CMD = [sys.executable, "-c", "from backgammon.cli import main; main()"]


def run(args, stdin=""):
    return subprocess.run(CMD + args, input=stdin, capture_output=True, text=True, timeout=120, check=False)


def serve(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(["serve", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2, (out, err)
    assert out == "" and "Traceback" not in err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_serve_bad_port():
    out = run(["serve", "--port", "0"])
    assert out.returncode == 2 and out.stderr.strip() == "error: invalid port 0: expected 1 to 65535"


def test_serve_refuses_several_workers_where_tables_cannot_be_shared():
    out = run(["serve", "--workers", "2"])
    assert out.returncode == 2 and out.stderr.startswith(
        "error: --workers 2 needs PostgreSQL: SQLite serves one process"
    )
    assert "Traceback" not in out.stderr
    out = run(["serve", "--workers", "0"])
    assert out.returncode == 2 and "invalid --workers 0" in out.stderr


@pytest.mark.parametrize("delay", ["-1", "-0.5", "nan", "61"])
def test_serve_refuses_a_bad_bot_delay(capsys, tmp_path, delay: str) -> None:
    err = one_line_error(*serve(capsys, "--bot-delay", delay, "--data-dir", str(tmp_path)))
    assert err.startswith(f"error: invalid --bot-delay {float(delay)!r}: expected 0 to 60 seconds")


def test_serve_without_the_server_extra(capsys, monkeypatch, tmp_path) -> None:
    for name in ("uvicorn", "fastapi"):
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ImportError
    err = one_line_error(*serve(capsys, "--data-dir", str(tmp_path)))
    assert err.startswith("error: the web server needs the 'server' extra: pip install 'backgammon[server]'")


def test_serve_with_a_data_dir_that_is_a_file(capsys, tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    err = one_line_error(*serve(capsys, "--data-dir", str(tmp_path / "file")))
    assert "invalid --data-dir" in err and "it is a file, not a folder" in err
    err = one_line_error(*serve(capsys, "--data-dir", str(tmp_path / "file" / "sub")))
    assert err.startswith("error: cannot create --data-dir") and "give another folder" in err


def test_serve_with_a_data_dir_it_cannot_write_in(capsys) -> None:
    # /proc is a folder nobody can create files in, root included
    err = one_line_error(*serve(capsys, "--data-dir", "/proc"))
    assert err.startswith("error: cannot write in --data-dir '/proc'") and "give a folder you can write to" in err


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("foo", "error: invalid database url 'foo'"),
        ("mysql://user:secret@localhost/db", "error: invalid database url 'mysql://user:***@localhost/db'"),
        (
            "postgresql://user:secret@127.0.0.1:1/db",
            "error: cannot open --database-url 'postgresql://user:***@127.0.0.1:1/db'",
        ),
    ],
)
def test_serve_with_a_bad_database_url(capsys, url: str, expected: str) -> None:
    err = one_line_error(*serve(capsys, "--database-url", url))
    assert err.startswith(expected), err
    assert "secret" not in err  # the password is not echoed


def test_serve_with_an_sqlite_file_that_cannot_be_opened(capsys, tmp_path) -> None:
    url = f"sqlite:///{tmp_path}/missing/folder/db.sqlite3"
    err = one_line_error(*serve(capsys, "--database-url", url))
    assert err.startswith(f"error: cannot open --database-url '{url}': unable to open database file")


def test_serve_errors_in_a_real_process(tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    out = run(["serve", "--data-dir", str(tmp_path / "file")])
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.startswith("error: invalid --data-dir") and out.stderr.count("\n") == 1


def test_serve_on_a_busy_port_or_an_unknown_host(capsys, tmp_path) -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        err = one_line_error(*serve(capsys, "--port", str(port), "--data-dir", str(tmp_path)))
    assert err == f"error: cannot listen at 127.0.0.1:{port}: Address already in use; choose another --host or --port\n"
    err = one_line_error(*serve(capsys, "--host", "no-such-host.invalid", "--data-dir", str(tmp_path)))
    assert err.startswith("error: cannot listen at no-such-host.invalid:8000: ") and "Unknown error" not in err


def test_serve_refuses_a_redis_url_it_cannot_use():
    out = run(["serve", "--redis-url", "redis://127.0.0.1:1/0"])  # SQLite: one process, no bus
    assert out.returncode == 2 and "--redis-url needs --database-url postgresql" in out.stderr
    assert "Traceback" not in out.stderr
