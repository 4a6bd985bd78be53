"""``backgammon play`` (terminal game) and ``backgammon serve`` argument checks."""

from __future__ import annotations

import subprocess
import sys

CMD = [sys.executable, "-c", "from backgammon.cli import main; main()"]


def run(args, stdin=""):
    return subprocess.run(CMD + args, input=stdin, capture_output=True, text=True, timeout=120, check=False)


def test_play_draws_the_board_and_quits():
    out = run(["play", "--seed", "3", "--length", "1"], stdin="\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "Position ID:" in out.stdout and "pips" in out.stdout


def test_play_rejects_a_bad_move_then_goes_on():
    # answer every prompt with an impossible move, then quit
    out = run(["play", "--seed", "5", "--length", "1"], stdin="\n" + "24/1\n" * 3 + "quit\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "error:" in out.stdout or "forced" in out.stdout


def test_play_bad_options():
    out = run(["play", "--length", "30"])
    assert out.returncode == 2 and out.stderr.startswith("error: invalid match length")
    out = run(["play", "--color", "green"])
    assert out.returncode == 2 and "colour" in out.stderr


def test_serve_bad_port():
    out = run(["serve", "--port", "0"])
    assert out.returncode == 2 and out.stderr.strip() == "error: invalid port 0: expected 1 to 65535"


def test_serve_refuses_several_workers_where_tables_cannot_be_shared():
    out = run(["serve", "--workers", "2"])
    assert out.returncode == 2 and out.stderr.startswith("error: --workers 2 needs PostgreSQL: SQLite serves one process")
    assert "Traceback" not in out.stderr
    out = run(["serve", "--workers", "0"])
    assert out.returncode == 2 and "invalid --workers 0" in out.stderr
