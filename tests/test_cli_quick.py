"""The quick start of one-shot commands (``backgammon.cli._fastpath``): the same answers and the
same errors as the full typer command line, which it leaves everything it does not recognise to."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.cli import _fastpath, engine_cmds, main

POS = "4HPwATDgc/ABMA"
MATCHES = Path(__file__).parent / "data" / "gnubg"
MATCH1, MATCH3 = str(MATCHES / "match1_seed6.mat"), str(MATCHES / "match3_seed1.mat")


@pytest.fixture(autouse=True)
def fake_engine(monkeypatch) -> None:
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:FakeEvaluator")
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "engine"))


def run(capsys, monkeypatch, quick: bool, *args: str) -> tuple[int, str, str]:
    with monkeypatch.context() as m:
        if not quick:
            m.setattr(_fastpath, "try_quick", lambda argv: False)
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "args",
    [
        ["hint", POS, "31"],
        ["hint", POS, "3-1", "--json"],
        ["hint", "--plies", "1", POS, "66", "--cubeless"],
        ["hint", POS, "52", "--plies=1", "--jacoby", "--json"],
        ["hint", POS, "43", "--match-id", "cAkgASAAIAAA", "--json"],
        ["hint", POS, "31", "--rollout", "36", "--candidates", "2", "--truncate", "2", "--seed", "4", "--json"],
        ["hint", POS, "31", "--plies", "3"],  # an error of the command itself
        ["hint", "nonsense", "31"],
        ["analyze", MATCH1],
        ["analyze", MATCH1, MATCH3, "--json"],
        ["analyze", "--plies", "1", MATCH1, "--errors", MATCH3],
        ["analyze", MATCH1, "/no/such/file.mat"],
        ["analyze", MATCH1, "--plies", "3"],
    ],
)
def test_quick_path_answers_as_typer_does(capsys, monkeypatch, args) -> None:
    quick = run(capsys, monkeypatch, True, *args)
    full = run(capsys, monkeypatch, False, *args)
    if args[0] == "analyze":  # the table of several files ends each row with the seconds it took
        quick, full = (
            (code, re.sub(r" +\d+\.\d\d$", "", out, flags=re.MULTILINE), err) for code, out, err in (quick, full)
        )
    assert quick == full and (quick[1] or quick[2])


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        [POS, "31", "--help"],
        [POS],  # a missing argument: typer's message
        [POS, "31", "extra"],
        [POS, "31", "--plies"],
        [POS, "31", "--plies", "one"],
        [POS, "31", "--plies", "-1"],
        [POS, "31", "--json=yes"],
        [POS, "31", "--bogus"],
        [POS, "31", "-h"],
        ["--", POS, "31"],
    ],
)
def test_quick_reader_declines_what_it_does_not_know(args) -> None:
    with pytest.raises(_fastpath._Decline):
        _fastpath.parse(engine_cmds.hint, args)


def test_quick_reader_reads_the_declarations() -> None:
    got = _fastpath.parse(engine_cmds.hint, [POS, "31", "--plies", "2", "--json", "--seed=7"])
    assert got["position_id"] == POS and got["dice"] == "31" and got["plies"] == 2 and got["seed"] == 7
    assert got["as_json"] is True and got["cubeless"] is False and got["match_id"] is None and got["rollout"] == 0
    assert _fastpath.parse(engine_cmds.engine, []) == {}
    got = _fastpath.parse(engine_cmds.analyze, ["a.mat", "--plies", "2", "b.mat", "--json"])
    assert got["paths"] == ["a.mat", "b.mat"] and got["plies"] == 2 and got["as_json"] is True
    with pytest.raises(_fastpath._Decline):
        _fastpath.parse(engine_cmds.analyze, ["--json"])  # no file: typer's message


@pytest.mark.slow
def test_a_fresh_hint_process_skips_typer_and_pydantic() -> None:
    code = (
        "import sys; from backgammon.cli import main\n"
        "try: main(['hint', '4HPwATDgc/ABMA', '31'])\n"
        "except SystemExit: pass\n"
        "skipped = ('pydantic', 'backgammon.cli.play_cmd', 'backgammon.cli.server_cmds')\n"
        "print(sorted(m for m in skipped if m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items() if k != "BACKGAMMON_EVALUATOR"}  # the shipped net
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300, env=env
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "8/5 6/5" in done.stdout
