"""The format subcommands: ``show`` with a gnubg ID or XGID, ``mat-check``."""

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


def test_show_position_id_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "4HPwATDgc/ABMA")
    assert code == 0 and "Position ID: 4HPwATDgc/ABMA" in out and "cube" not in out


def test_show_gnubg_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert code == 0
    assert "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:4:2:0:9:10" in out
    assert "9-point match; score: player 0 2, player 1 4" in out
    assert "cube: 2, owned by player 0\n" in out
    assert "player 1 to play 5-2" in out


def test_show_xgid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:3:0:10")
    assert code == 0
    assert "GNU BG ID: sGfwATDgc/ABMA:MAEAAAAAAAAA" in out
    assert "money game, jacoby on" in out and "player 0 to roll or double" in out


def test_show_double_and_finished(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "show", "4HPwATDgc/ABMA:MBlgABAAEAAE")
    assert "player 0 doubles to 2; player 1 to answer" in out
    code, out, _ = run(capsys, "show", "AAAA2G0DQGEAAA:EgKgABAAcAAE")
    assert code == 0 and "game state: over" in out and "XGID=" not in out


@pytest.mark.parametrize("text", ["xx:yy", "XGID=nonsense", "4HPwATDgc/ABMA:QYkqASAAIAA"])
def test_show_bad_id(capsys: pytest.CaptureFixture[str], text: str) -> None:
    code, out, err = run(capsys, "show", text)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_mat_check_valid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mat-check", str(DATA / "gnubg" / "match7_seed3.mat"))
    assert code == 0
    assert "7-point match, 4 game(s), gnubg (left) vs root (right)" in out
    assert "final score: gnubg 7, root 2 (match over)" in out
    assert "winner: gnubg" in out and "valid" in out


def test_mat_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mat-check", "--json", str(DATA / "gnubg" / "money_seed7.mat"))
    doc = json.loads(out)
    assert code == 0 and doc["valid"] and doc["match_length"] == 0
    assert doc["final_score"] == [9, 5] and len(doc["games"]) == 7 and doc["winner"] is None


def test_mat_check_reports_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (DATA / "gnubg" / "match3_seed1.mat").read_text()
    lines = text.splitlines()
    lines[9] = lines[9].replace("32: 11/9* 13/10", "32: 11/9* 13/9")
    lines[12] = lines[12] + " Fumbles"
    bad = tmp_path / "bad.mat"
    bad.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "mat-check", str(bad))
    assert code == 1
    assert "error(s):" in out and "line 13" in out


def test_mat_check_illegal_move(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (DATA / "gnubg" / "match3_seed1.mat").read_text().replace("32: 11/9* 13/10", "32: 11/9* 13/9")
    bad = tmp_path / "bad.mat"
    bad.write_text(text)
    code, out, _ = run(capsys, "mat-check", str(bad))
    assert code == 1 and "game 1 line 10: illegal play" in out


def test_mat_check_unreadable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "mat-check", str(tmp_path / "missing.mat"))
    assert code == 2 and err.startswith("error: cannot read")
    empty = tmp_path / "empty.mat"
    empty.write_text("nothing here\n")
    code, _, err = run(capsys, "mat-check", str(empty))
    assert code == 2 and "point match" in err


def test_mat_check_warnings_apart_from_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """A real Heroes file with a corrupt last result: warnings only, exit status 0."""
    code, out, _ = run(capsys, "mat-check", str(DATA / "real" / "heroes_mrpurple_lasse_3pt.mat"))
    assert code == 0
    assert "1 warning(s):\n  game 2 line 58: 'Wins 4016' is more than the match length" in out
    assert "error(s)" not in out and "valid: every move replayed through the rules (see the warnings)" in out
    code, out, _ = run(capsys, "mat-check", "--json", str(DATA / "real" / "heroes_mrpurple_lasse_3pt.mat"))
    doc = json.loads(out)
    assert code == 0 and doc["valid"] and doc["errors"] == [] and len(doc["warnings"]) == 1
    assert doc["games_replayed"] == 1 and doc["finished"] is False


def test_mat_check_warnings_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (DATA / "real" / "galaxy_match1100068.mat").read_text()
    bad = tmp_path / "bad.mat"
    assert "  4) 63: 24/18 18/15             21: 13/11 11/10\n" in text
    bad.write_text(text.replace("63: 24/18 18/15", "63: 24/18 18/12"))  # game 1, line 19
    code, out, _ = run(capsys, "mat-check", str(bad))
    assert code == 1
    warnings, errors = out.split("1 warning(s):\n")[1].split("error(s):\n")
    assert "game 2 line 75: black wins 1 point(s) while white is not the side to act" in warnings
    assert "game 1 line 19: illegal play '24/18 18/12'" in errors
    assert "(replayed up to the first error)" in out


# ``mat-check`` reads gnubg's SGF by the file's extension (formerly test_sgf_cli.py)
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
