"""mat-check on every format, with the file's analysis beside ours; sgf-write with the engine's analysis."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.cli import main
from backgammon.cli.formats_cmds import engine_analysis
from backgammon.formats.mat import load_mat
from backgammon.formats.sgf import load_sgf, read_sgf_analysis

DATA = Path(__file__).parent.parent / "data"
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_mat_check_reads_xg_with_its_analysis_beside_ours(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mat-check", str(DATA / "xg" / "charlot_7pt.xg"), "--analysis", "--plies", "0")
    assert code == 0, out
    assert "eXtreme Gammon match (.xg)" in out and "winner: charlot1" in out
    assert "the file carries eXtreme Gammon's analysis of" in out
    lines = [line for line in out.splitlines() if line.startswith("game ")]
    judged = [line for line in lines if "play eXtreme Gammon" in line]
    assert len(judged) > 150
    assert sum("| ours (0-ply): best" in line for line in judged) == len(judged)
    # the opening 41 is played 24/23 13/9 by both programs' choice
    first = judged[0]
    assert re.search(r"best 24/23 13/9 [-+]0\.\d{3}, played 24/23 13/9 .*\| ours \(0-ply\): best 24/23 13/9", first)


def test_mat_check_json_of_xg_and_pos(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mat-check", str(DATA / "xg" / "hsbt_paris_2023_job_unger_7pt.xg"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["format"] == "xg" and doc["valid"] and doc["final_score"] == [7, 4]
    assert doc["analysed_decisions"] > 300
    code, out, _ = run(capsys, "mat-check", str(DATA / "pos" / "t1_05.pos"), "--json")
    doc = json.loads(out)
    cases = {c["file"]: c["gnubg_id"] for c in json.loads((DATA / "pos" / "gnubg_ids.json").read_text())}
    assert code == 0 and doc["format"] == "pos"
    assert doc["gnubg_id"].split(":")[0] == cases["t1_05.pos"].split(":")[0]


def test_mat_check_refuses_unknown_data(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "notes.bin"
    path.write_bytes(bytes(range(256)))
    code, out, err = run(capsys, "mat-check", str(path))
    assert code == 2 and out == "" and "not a match or position file" in err


def test_engine_analysis_is_complete() -> None:
    match = load_mat((DATA / "real" / "galaxy_match10013413.mat").read_text()).match
    assert match is not None
    analysis = engine_analysis(match, 0)
    moves = sum(
        1
        for g in list(match.games)
        for a in g.log
        if type(a).__name__ == "Move" and a.play.steps  # type: ignore[attr-defined]
    )
    assert sum(1 for a in analysis if a.play) == moves
    for item in analysis:
        if item.play is not None:
            assert item.play.played is not None and item.play.error() is not None and item.play.error() >= -1e-9
        if item.cube is not None:
            assert item.cube.mwc is not None and item.cube.no_double is not None  # a match: both


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_sgf_write_is_shown_by_gnubg_with_our_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = DATA / "real" / "galaxy_match10013413.mat"
    out_path = tmp_path / "ours.sgf"
    code, out, _ = run(capsys, "sgf-write", str(source), str(out_path), "--plies", "0")
    assert code == 0 and "judged decision(s)" in out
    text = out_path.read_text()
    assert load_sgf(text).match is not None and load_sgf(text).ok
    ours = read_sgf_analysis(text)
    commands = f"load match {out_path}\nexport match text {tmp_path / 'ours.txt'}\n"
    subprocess.run([str(GNUBG), "-t", "-q"], input=commands, capture_output=True, text=True, timeout=300, check=True)
    shown = "".join(p.read_text() for p in sorted(tmp_path.glob("ours*.txt")))
    # every candidate's equity we wrote is shown by gnubg (3 decimals)
    best_shown = [float(x) for x in re.findall(r"^\*?\s+1\. Cubeful 0-ply .* Eq\.: ([-+]\d\.\d{3})\s*$", shown, re.M)]
    best_written = [a.play.plays[0].evaluation.equity for a in ours if a.play is not None]
    assert len(best_shown) == len(best_written) > 100
    assert all(abs(s - w) < 0.0006 for s, w in zip(best_shown, best_written, strict=True))
    # gnubg turns the match-winning chances we wrote back into EMG with its own table (Kazaross-XG2, as ours):
    # its "No double" is our engine's no-double EMG
    match = load_mat(source.read_text()).match
    assert match is not None
    engine = [a.cube for a in engine_analysis(match, 0) if a.cube is not None]
    no_double_shown = [float(x) for x in re.findall(r"^\d\. No (?:re)?double\s+([-+]\d\.\d{3})", shown, re.M)]
    # gnubg shows a double's analysis again at its take or drop, from the receiver's side (negated):
    # walk both lists in order
    nd = [c.no_double for c in engine if c.no_double is not None]
    assert len(nd) == len(engine) > 5
    at = 0
    for value in no_double_shown:
        if at < len(nd) and abs(value - nd[at]) < 0.002:
            at += 1
        else:
            assert at and abs(value + nd[at - 1]) < 0.002, (value, at)
    assert at == len(nd)


def test_sgf_write_refuses_a_match_without_moves(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # a Galaxy file whose only game is a forfeit before the opening roll
    code, _out, err = run(capsys, "sgf-write", str(DATA / "real" / "galaxy_match3831101.mat"), str(tmp_path / "x.sgf"))
    assert code == 2 and "no game with moves" in err and not (tmp_path / "x.sgf").exists()
