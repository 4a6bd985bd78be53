"""No command prints a traceback for a user's mistake.

Every command registered on the typer app is run with bad arguments (an unknown option, and for each
command the mistakes its arguments invite: malformed IDs, files that do not exist, folders that are
files, numbers out of range). Each must end with exit status 2 and one line ``error: ...`` on stderr,
before doing any work. The cases run in-process through :func:`backgammon.cli.main`; a few run in a
real process as well.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.cli import app, main

POS = "4HPwATDgc/ABMA"  # the opening position
WEIGHTS = str(Path(__file__).resolve().parents[1] / "src/backgammon/engine/data/weights.npz")
LESSON = "starting-setup"

# Each command's bad arguments; {tmp} is a fresh folder, {file} a file in it, {missing} a path that does not exist.
BAD: dict[str, list[list[str]]] = {
    "moves": [["zz", "31"], [POS, "71"], [POS], ["4HPwATDgc/ABM", "31"]],
    "show": [["not-an-id!!"], [f"{POS}:zzzz"], ["XGID=nonsense"], []],
    "mat-check": [["{missing}"], ["{tmp}"]],
    "sgf-write": [
        ["{missing}", "{tmp}/out.sgf"],
        ["{tmp}", "{tmp}/out.sgf"],
        ["{file}", "{tmp}/out.sgf", "--plies", "-1"],
    ],
    "hint": [
        ["zz", "31"],
        [POS, "77"],
        [POS, "31", "--plies", "-1"],
        [POS, "31", "--match-id", "!!!"],
        [POS, "31", "--rollout", "-5"],
        [POS, "31", "--candidates", "0"],
    ],
    "eval": [["zz"], [], [POS, "--plies", "-1"], ["--xgid", "XGID=nonsense"], [POS, "--match-id", "!!!"]],
    "rollout": [
        ["zz"],
        [POS, "77"],
        [POS, "--trials", "-5"],
        [POS, "--trials", "0"],
        [POS, "--truncate", "-1"],
        [POS, "--workers", "-1"],
        [POS, "--ply", "-1"],
        [POS, "--match-id", "!!!"],
    ],
    "analyze": [["{missing}"], ["{tmp}"], ["{file}"], ["{file}", "--plies", "-1"]],
    "engine": [["extra"]],
    "external": [
        ["--port", "-1"],
        ["--port", "70000"],
        ["--level", "grandmaster"],
        ["--plies", "-1"],
        ["--socket", "{file}"],
    ],
    "ubgi": [["--level", "grandmaster"], ["--plies", "-1"]],
    "train": [
        ["{file}"],
        ["{file}/sub"],
        ["{tmp}/run", "--games", "-1"],
        ["{tmp}/run", "--init-from", "{missing}"],
        ["{tmp}/run", "--lambda", "2"],
        ["{tmp}/run", "--export", "{tmp}"],
        ["{tmp}/run", "--init-from", "{file}"],
    ],
    "refine": [
        ["{tmp}/run", "--init-from", "{missing}"],
        ["{file}", "--init-from", WEIGHTS],
        ["{tmp}/run", "--init-from", WEIGHTS, "--iterations", "-1"],
        ["{tmp}/run", "--init-from", WEIGHTS, "--positions", "-5"],
        ["{tmp}/run", "--init-from", WEIGHTS, "--threads", "0"],
        ["{tmp}/run", "--init-from", "{file}"],
        ["{tmp}/run"],
    ],
    "label": [
        ["--out", "{file}"],
        ["--out", "{tmp}/l", "--plies", "4"],
        ["--out", "{tmp}/l", "--positions", "-1"],
        ["--out", "{tmp}/l", "--shard-size", "0"],
        ["--out", "{tmp}/l", "--seed", "-1"],
        ["--out", "{tmp}/l", "--weights", "{missing}"],
        ["--out", "{tmp}/l", "--weights", "{file}"],
    ],
    "fit": [
        ["--out", "{tmp}/f", "--epochs", "-1"],
        ["--out", "{tmp}/f", "--holdout", "1.5"],
        ["--out", "{tmp}/f", "--alpha-steps", "x"],
        ["--out", "{tmp}/f", "--init-from", "{missing}"],
        ["--out", "{tmp}/f", "--init-from", "{file}"],
        ["--labels", "{tmp}", "--out", "{tmp}/f"],
        ["--labels", "{file}", "--out", "{tmp}/f"],
    ],
    "ship": [
        ["{missing}", "--stage", "s", "--selected", "s", "--strength", "{file}"],
        ["{tmp}", "--stage", "s", "--selected", "s", "--strength", "{missing}"],
        ["{tmp}", "--stage", "s", "--selected", "s", "--strength", "{file}", "--into", "{missing}"],
        ["{tmp}", "--stage", "s", "--selected", "s", "--strength", "{file}"],
        ["{tmp}", "--stage", "s", "--strength", "{file}"],
    ],
    "serve": [
        ["--port", "0"],
        ["--bot-delay", "-1"],
        ["--workers", "0"],
        ["--data-dir", "{file}"],
        ["--database-url", "foo"],
    ],
    "play": [["--level", "grandmaster"], ["--length", "-1"], ["--color", "red"], ["--seed", "-1"]],
    "verify-dice": [
        ["--seed", "zz", "--commitment", "zz", "--game-id", "g", "--count", "1"],
        ["--seed", "0" * 64, "--commitment", "0" * 64, "--game-id", "g", "--count", "-1"],
        ["--seed", "0" * 64, "--commitment", "0" * 64, "--game-id", "g"],
        ["--commitment", "0" * 64, "--game-id", "g", "--count", "1"],
    ],
    "dice-stats": [["71 22"], [""]],
    "lessons": [["--lang", "fr"]],
    "lesson": [["no-such-lesson"], [LESSON, "--lang", "fr"]],
    "lesson-check": [
        ["no-such-lesson", "1", "1"],
        [LESSON, "-1", "1"],
        [LESSON, "99", "1"],
        [LESSON, "1", "9"],
    ],
}


def commands() -> list[str]:
    return sorted(c.name or c.callback.__name__ for c in app.registered_commands)


def cases() -> list[tuple[str, list[str]]]:
    out = [(name, ["--no-such-option"]) for name in commands()]
    out += [(name, args) for name in commands() for args in BAD.get(name, [])]
    return out


def test_every_command_has_bad_arguments_to_try() -> None:
    assert set(commands()) == set(BAD), "add bad arguments for each new command to BAD"


def fill(args: list[str], tmp: Path) -> list[str]:
    (tmp / "file").write_text("not what the command expects\n")
    paths = {"{tmp}": str(tmp), "{file}": str(tmp / "file"), "{missing}": str(tmp / "missing.file")}
    filled = []
    for arg in args:
        for key, value in paths.items():
            arg = arg.replace(key, value)
        filled.append(arg)
    return filled


def run_in_process(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("name", "args"), cases(), ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_bad_arguments_give_one_line_and_status_2(capsys, monkeypatch, tmp_path, name: str, args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)  # nothing a command might write lands in the checkout
    monkeypatch.setattr(sys, "stdin", open(__import__("os").devnull))
    code, out, err = run_in_process(capsys, [name, *fill(args, tmp_path)])
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    assert out == "", out
    assert err.startswith("error: ") and err.count("\n") == 1 and len(err.strip()) > len("error: "), err


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--level", "grandmaster"],
        ["train", "{file}"],
        ["rollout", POS, "--trials", "-5"],
        ["analyze", "{missing}"],
    ],
)
def test_bad_arguments_in_a_real_process(tmp_path, argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main()", *fill(argv, tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
