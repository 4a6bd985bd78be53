"""`backgammon analyze` on gnubg-exported .mat files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.engine.analysis import analyze_mat_file
from backgammon.errors import InvalidInputError

DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg"


def test_analyze_gnubg_match(gnubg_evaluator) -> None:
    report = analyze_mat_file(DATA / "match3_seed1.mat", gnubg_evaluator)
    assert report.match_length == 3
    assert max(report.final_score) >= 3
    plays = [d for d in report.decisions if d.kind == "play"]
    assert len(plays) > 20
    # gnubg played these games itself (at its own settings): with its 0-ply net as judge the errors are small
    for totals in report.totals.values():
        assert totals.unforced > 0
        assert totals.error_per_decision < 0.05
    assert all(d.error >= 0 for d in report.decisions)


def test_analyze_cli_json_and_bad_file(tmp_path: Path) -> None:
    here = Path(__file__).parent
    env = dict(os.environ, BACKGAMMON_EVALUATOR="fake_evaluator:FakeEvaluator")
    env["PYTHONPATH"] = os.pathsep.join([str(here), env.get("PYTHONPATH", "")])
    run = [sys.executable, "-c", "import sys; from backgammon.cli import main; main(sys.argv[1:])"]
    proc = subprocess.run(
        [*run, "analyze", str(DATA / "match1_seed6.mat"), "--json"],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["players"]) == {"White", "Black"}
    assert all("pr" in p for p in doc["players"].values())
    bad = tmp_path / "bad.mat"
    bad.write_text("this is not a match file\n")
    proc = subprocess.run(
        [*run, "analyze", str(bad)], check=False, capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: ")
    with pytest.raises(InvalidInputError):
        analyze_mat_file(tmp_path / "missing.mat", None)


def test_analyze_several_files_in_one_process(capsys, monkeypatch, tmp_path: Path) -> None:
    """``analyze A B`` reports each file as ``analyze A`` alone does, then the total; a file that cannot be
    read is named on stderr, the others are still analysed, and the exit status is 2."""
    from backgammon.cli import main
    from backgammon.engine.analysis import report_json

    here = Path(__file__).parent
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:FakeEvaluator")
    monkeypatch.syspath_prepend(str(here))
    from fake_evaluator import FakeEvaluator

    files = [DATA / "match1_seed6.mat", DATA / "match3_seed1.mat"]
    main(["analyze", *map(str, files), "--json"])
    doc = json.loads(capsys.readouterr().out)
    for path, got in zip(files, doc["files"], strict=True):
        assert got.pop("path") == str(path)
        assert got == json.loads(json.dumps(report_json(analyze_mat_file(path, FakeEvaluator()))))
    counted = sum(p["unforced"] for f in doc["files"] for p in f["players"].values())
    assert doc["total"]["files"] == 2 and doc["total"]["unforced"] == counted and doc["errors"] == []

    missing = tmp_path / "missing.mat"
    with pytest.raises(SystemExit) as stop:
        main(["analyze", str(files[0]), str(missing), str(files[1])])
    out, err = capsys.readouterr()
    assert stop.value.code == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {missing}: ")
    assert out.count("== ") == 2 and "total (2 files)" in out
