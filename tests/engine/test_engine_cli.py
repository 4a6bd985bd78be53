"""The engine's commands (hint, eval, rollout) in process, with the fake evaluator."""

from __future__ import annotations

import json

import pytest

from backgammon.cli import main
from backgammon.position import Position

START = "4HPwATDgc/ABMA"


@pytest.fixture(autouse=True)
def fake_engine(monkeypatch) -> None:
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:FakeEvaluator")


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_hint_json_lists_every_play(capsys) -> None:
    code, out, _ = run(capsys, "hint", START, "31", "--json")
    assert code == 0
    doc = json.loads(out)
    assert {p["move"] for p in doc["plays"]} == {str(p) for p in Position.initial().legal_plays(3, 1)}
    equities = [p["equity"] for p in doc["plays"]]
    assert equities == sorted(equities, reverse=True)


def test_hint_with_rollout(capsys) -> None:
    code, out, _ = run(capsys, "hint", START, "61", "--rollout", "36", "--truncate", "2", "--candidates", "3", "--json")
    assert code == 0
    doc = json.loads(out)
    assert len(doc["plays"]) == 3 and all(p["trials"] == 36 and p["equity_ci95"] >= 0 for p in doc["plays"])


def test_eval_money_and_match(capsys) -> None:
    code, out, _ = run(capsys, "eval", START, "--json")
    assert code == 0 and "cube" not in json.loads(out)
    code, out, _ = run(capsys, "eval", START, "--match-id", "cAkgASAAIAAA", "--json")
    assert code == 0 and json.loads(out)["cube"]["action"] in ("no double", "double, take", "double, pass")
    code, out, _ = run(capsys, "eval", "--xgid", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:9:10")
    assert code == 0 and "9-away/9-away" in out


def test_rollout_command_is_reproducible(capsys) -> None:
    args = ("rollout", START, "--trials", "36", "--truncate", "3", "--seed", "5", "--workers", "1", "--json")
    code, first, _ = run(capsys, *args)
    code2, second, _ = run(capsys, *args)
    assert code == code2 == 0 and first == second
    assert json.loads(first)["results"][0]["trials"] == 36


def test_one_ply_rollout_command_is_reproducible_and_differs(capsys) -> None:
    args = ("rollout", START, "--trials", "4", "--truncate", "2", "--seed", "5", "--workers", "1", "--json")
    code, first, _ = run(capsys, *args, "--ply", "1")
    code2, second, _ = run(capsys, *args, "--ply", "1")
    code3, zero, _ = run(capsys, *args)
    assert code == code2 == code3 == 0 and first == second
    assert json.loads(first)["results"][0]["trials"] == 4
    assert json.loads(first)["results"][0]["mean"] != json.loads(zero)["results"][0]["mean"]


@pytest.mark.parametrize(
    "args",
    [
        ("hint", START, "71"),
        ("hint", "garbage", "31"),
        ("hint", START, "31", "--plies", "7"),
        ("eval",),
        ("rollout", START, "--trials", "0"),
        ("rollout", START, "--ply", "2"),
        ("analyze", "/nonexistent/match.mat"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1


def test_hint_at_double_match_point_ranks_by_wins(capsys, monkeypatch) -> None:
    monkeypatch.setenv("BACKGAMMON_EVALUATOR", "fake_evaluator:GnubgEvaluator")
    pytest.importorskip("gnubg_nn")
    from backgammon.formats.match_id import MatchState

    dmp = MatchState(match_length=5, score=(4, 4), dice_owner=1, turn=1).match_id()
    code, out, _ = run(capsys, "hint", START, "64", "--match-id", dmp, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["cubeful"] is True
    wins = [p["probabilities"][0] for p in doc["plays"]]
    assert wins == sorted(wins, reverse=True)
    assert all(p["mwc"] == pytest.approx(p["probabilities"][0]) for p in doc["plays"])


def test_cubeful_match_rollout_command(capsys) -> None:
    code, out, _ = run(
        capsys, "rollout", START, "--trials", "36", "--truncate", "2", "--match-id", "cAkgASAAIAAA", "--json"
    )
    assert code == 0
    result = json.loads(out)["results"][0]
    assert result["cubeful_unit"] == "match winning chance" and 0.0 <= result["cubeful"] <= 1.0


def test_hint_states_depth_and_kind_of_every_equity(capsys) -> None:
    code, out, _ = run(capsys, "hint", START, "31", "--plies", "1", "--json")
    assert code == 0
    plays = json.loads(out)["plays"]
    depths = [p["plies"] for p in plays]
    assert depths[0] == 1 and depths == sorted(depths, reverse=True) and 0 in depths  # grouped, deepest first
    assert all(p["kind"] == "cubeful money" and p["label"] == f"{p['plies']}-ply cubeful money" for p in plays)
    code, out, _ = run(capsys, "hint", START, "31", "--plies", "1")
    lines = out.splitlines()
    assert lines[0].endswith("depth and kind") and lines[1].endswith("1-ply cubeful money")
    shallow = next(line for line in lines[1:] if line.endswith("0-ply cubeful money"))
    assert shallow[28:37].strip().startswith(("+", "-")) and not shallow[37:45].strip()  # no diff across depths
    assert lines[1][37:45].strip() == "+0.000"
    code, out, _ = run(capsys, "hint", START, "31", "--cubeless", "--json")
    plays = json.loads(out)["plays"]
    assert code == 0 and all(p["label"] == "0-ply cubeless" and p["equity"] == p["cubeless"] for p in plays)
    code, out, _ = run(capsys, "eval", START, "--plies", "1", "--json")
    doc = json.loads(out)
    assert (doc["plies"], doc["kind"]) == (1, "cubeful money")
