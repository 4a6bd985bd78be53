"""The rollout command's variance reduction, standard errors and early stopping."""

from __future__ import annotations

import json

import pytest

from backgammon.cli import main
from backgammon.position import Position

START = "4HPwATDgc/ABMA"


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_rollout_reports_standard_errors_with_and_without_variance_reduction(capsys, monkeypatch) -> None:
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:FakeEvaluator")
    args = ("rollout", START, "--trials", "36", "--truncate", "2", "--seed", "5", "--workers", "1", "--json")
    code, out, _ = run(capsys, *args)
    doc = json.loads(out)
    assert code == 0 and doc["variance_reduction"] is True and doc["stop_confidence"] is None
    result = doc["results"][0]
    assert result["ci95"]["equity"] == pytest.approx(1.96 * result["se"]["equity"])
    code, out, _ = run(capsys, *args, "--no-variance-reduction")
    plain = json.loads(out)
    assert code == 0 and plain["variance_reduction"] is False
    # the same games: the reduced trials vary less
    assert result["se"]["equity"] < plain["results"][0]["se"]["equity"]
    code, text, _ = run(capsys, *args[:-1])
    assert code == 0 and "s.e." in text and "variance-reduced" in text


def test_rollout_stops_early_on_a_clear_play(capsys) -> None:
    """With the network: bearing off two checkers beats the rest; the command says when it stopped."""
    position = Position.from_points({6: 2, 5: 2, 1: 1}, {6: 3, 5: 2, 4: 2}).position_id()
    base = ("rollout", position, "65", "--trials", "720", "--seed", "7", "--workers", "1", "--min-trials", "72")
    code, out, _ = run(capsys, *base, "--stop-confidence", "0.95", "--json")
    assert code == 0
    doc = json.loads(out)
    used = doc["results"][0]["trials"]
    assert doc["trials_asked"] == 720 and 72 <= used < 720
    assert doc["results"][0]["move"] == "6/off 5/off" and doc["results"][0]["diff"] == 0.0
    assert all(r["diff"] - r["diff_ci95"] > 0 for r in doc["results"][1:])
    code, text, _ = run(capsys, *base, "--stop-confidence", "0.95")
    assert code == 0 and f"stopped after {used} of 720 trials" in text


@pytest.mark.parametrize(
    "args",
    [
        ("rollout", START, "--stop-confidence", "0.95"),  # no roll: nothing to separate
        ("rollout", START, "31", "--stop-confidence", "1.5"),
        ("rollout", START, "31", "--stop-confidence", "0.95", "--min-trials", "1"),
    ],
)
def test_bad_stopping_options(capsys, monkeypatch, args) -> None:
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:FakeEvaluator")
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
