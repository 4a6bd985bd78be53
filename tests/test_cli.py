"""The ``backgammon`` command line: ``moves`` and ``show``; bad input gives exit 2 and one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from backgammon import Position
from backgammon.cli import main
from backgammon.cli.core import parse_dice


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_json_shape(capsys) -> None:
    code, out, err = run(capsys, "moves", "4HPwATDgc/ABMA", "31", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"position_id", "dice", "plays"}
    assert doc["position_id"] == "4HPwATDgc/ABMA" and doc["dice"] == [3, 1]
    assert len(doc["plays"]) == 16
    assert all(set(p) == {"move", "position_id"} for p in doc["plays"])
    assert {"move": "8/5 6/5", "position_id": "sGfwATDgc/ABMA"} in doc["plays"]
    expected = {p.position.position_id() for p in Position.initial().legal_plays(3, 1)}
    assert {p["position_id"] for p in doc["plays"]} == expected


def test_moves_text(capsys) -> None:
    code, out, _ = run(capsys, "moves", "4HPwATDgc/ABMA", "3-1")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 16
    assert any(line.split() == ["8/5", "6/5", "sGfwATDgc/ABMA"] for line in lines)


def test_moves_no_legal_move(capsys) -> None:
    p = Position.from_points({"bar": 1, 6: 2}, dict.fromkeys(range(1, 7), 2))
    code, out, _ = run(capsys, "moves", p.position_id(), "65", "--json")
    assert code == 0
    assert json.loads(out)["plays"] == [{"move": "", "position_id": p.flip().position_id()}]
    code, out, _ = run(capsys, "moves", p.position_id(), "65")
    assert code == 0 and "(no legal move)" in out


def test_show(capsys) -> None:
    code, out, _ = run(capsys, "show", "zGbiIQgxH/AAWA")
    assert code == 0
    assert "Position ID: zGbiIQgxH/AAWA" in out and "pips 164" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["moves", "4HPwATDgc/ABMA", "71"],
        ["moves", "4HPwATDgc/ABMA", "3"],
        ["moves", "4HPwATDgc/ABMA", ""],
        ["moves", "4HPwATDgc/ABM", "31"],
        ["moves", "/////////////w", "31"],
        ["moves", "4HPwATDgc/ABMA"],
        ["moves", "4HPwATDgc/ABMA", "31", "--bad"],
        ["show", "not-an-id!!!!!"],
        ["show"],
        ["bogus"],
    ],
)
def test_bad_input_exit_2_one_line(capsys, argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert err[7].islower(), err  # messages are lowercase, click's usage errors included
    assert "Traceback" not in err


def test_bad_input_in_a_real_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main()", "moves", "4HPwATDgc/ABMA", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == "" and proc.stderr.startswith("error: invalid roll '0'")
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "dice"), [("31", (3, 1)), ("3-1", (3, 1)), ("3,1", (3, 1)), ("3 1", (3, 1)), (" 66 ", (6, 6))]
)
def test_parse_dice(text: str, dice: tuple[int, int]) -> None:
    assert parse_dice(text) == dice


@pytest.mark.parametrize("text", ["", "7", "71", "307", "3--1", "a1", "١٣", "3\x001", "3\n1", "31\n"])
def test_parse_dice_rejects(text: str) -> None:
    from backgammon import InvalidInputError

    with pytest.raises(InvalidInputError):
        parse_dice(text)
