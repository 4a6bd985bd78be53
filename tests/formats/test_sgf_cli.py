"""``mat-check`` reads gnubg's SGF by the file's extension."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backgammon.cli import main

DATA = Path(__file__).parent.parent / "data"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_mat_check_sgf_like_its_mat(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mat-check", "--json", str(DATA / "sgf" / "money_seed7.sgf"))
    doc = json.loads(out)
    assert code == 0 and doc["valid"] and doc["match_length"] == 0
    assert doc["final_score"] == [9, 5] and len(doc["games"]) == 7 and doc["winner"] is None
    code, out, _ = run(capsys, "mat-check", str(DATA / "sgf" / "match7_seed3.sgf"))
    assert code == 0 and "final score: gnubg 7, root 2 (match over)" in out


def test_mat_check_malformed_sgf(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.SGF"
    bad.write_text("(;GM[6]\nPW[x")
    code, _, err = run(capsys, "mat-check", str(bad))
    assert code == 2 and "invalid SGF" in err and "line 2 column 3" in err
