"""The engine line protocol, in process and as a real `backgammon engine` subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.engine.protocol import answer, serve
from backgammon.position import Position

START = "4HPwATDgc/ABMA"


def test_play_request(fake_evaluator) -> None:
    reply = answer(json.dumps({"position_id": START, "dice": [3, 1], "level": "expert"}), fake_evaluator)
    assert set(reply) == {"play", "position_id"}
    plays = {str(p): p.position.position_id() for p in Position.initial().legal_plays(3, 1)}
    assert reply["position_id"] == plays[reply["play"]]


def test_cube_request_money(fake_evaluator) -> None:
    reply = answer(json.dumps({"position_id": START}), fake_evaluator)
    assert reply["action"] == "no double" and reply["double"] is False and reply["take"] is True
    assert set(reply["equities"]) == {"no_double", "double_take", "double_pass", "cubeless"}


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("{not json", "invalid json"),
        ("[1, 2]", "expected a json object"),
        ('{"position_id": "nonsense!!", "dice": [3, 1]}', "position"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": [7, 1]}', "invalid dice"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": "31"}', "invalid dice"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": [3, 1], "level": "god"}', "unknown level"),
        ('{"position_id": "4HPwATDgc/ABMA", "colour": "red"}', "unknown field"),
        ('{"dice": [3, 1]}', "invalid position_id"),
        ('{"position_id": "4HPwATDgc/ABMA", "seed": "x", "dice": [1, 1]}', "invalid seed"),
    ],
)
def test_bad_requests_answer_errors(fake_evaluator, line: str, fragment: str) -> None:
    reply = answer(line, fake_evaluator)
    assert list(reply) == ["error"]
    assert fragment in reply["error"]


def test_seeded_noise_is_reproducible(fake_evaluator) -> None:
    line = json.dumps({"position_id": START, "dice": [6, 2], "level": "beginner", "seed": 4})
    assert answer(line, fake_evaluator) == answer(line, fake_evaluator)


def test_serve_keeps_going(fake_evaluator) -> None:
    lines = ["{bad", "", json.dumps({"position_id": START, "dice": [6, 5], "level": "expert"}), "null"]
    out = io.StringIO()
    assert serve(lines, out, lambda: fake_evaluator) == 3
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert "error" in replies[0] and replies[1]["play"] == "24/13" and "error" in replies[2]


def test_engine_subprocess() -> None:
    here = Path(__file__).parent
    env = dict(os.environ, BACKGAMMON_EVALUATOR="fake_evaluator:FakeEvaluator")
    env["PYTHONPATH"] = os.pathsep.join([str(here), env.get("PYTHONPATH", "")])
    requests = [
        json.dumps({"position_id": START, "dice": [6, 5], "level": "expert"}),
        "this is not json",
        json.dumps({"position_id": "AAAAAAAAAAAAAA", "dice": [1, 2]}),
        json.dumps({"position_id": START, "level": "expert"}),
    ]
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main(['engine'])"],
        input="\n".join(requests) + "\n",
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    replies = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(replies) == 4
    after = {str(p): p.position.position_id() for p in Position.initial().legal_plays(6, 5)}
    assert replies[0] == {"play": "24/13", "position_id": after["24/13"]}
    assert "error" in replies[1] and "error" in replies[2]
    assert replies[3]["action"] == "no double"


def _match_id(**fields) -> str:
    from backgammon.formats.match_id import MatchState

    return MatchState(**fields).match_id()


def test_cube_request_with_match_id(fake_evaluator) -> None:
    # 9-point match, 2-4, player 1 on roll: match-winning chances come back too
    mid = _match_id(match_length=9, score=(2, 4), dice_owner=1, turn=1)
    reply = answer(json.dumps({"position_id": START, "match_id": mid}), fake_evaluator)
    assert reply["may_double"] is True and "mwc" in reply
    from backgammon.engine.met import match_equity

    # player 1 has 4 of 9 (5-away), player 0 has 2 (7-away): a pass leaves 4-away/7-away
    assert reply["mwc"]["double_pass"] == pytest.approx(match_equity(4, 7), abs=1e-5)
    # the Crawford game: no doubling
    crawford = _match_id(match_length=5, score=(4, 1), dice_owner=1, turn=1, crawford=True)
    reply = answer(json.dumps({"position_id": START, "match_id": crawford}), fake_evaluator)
    assert reply["may_double"] is False and reply["action"] == "no double"
    # after it the trailer (player 1, 4-away) doubles at once
    post = _match_id(match_length=5, score=(4, 1), dice_owner=1, turn=1)
    reply = answer(json.dumps({"position_id": START, "match_id": post}), fake_evaluator)
    assert reply["double"] is True


def test_match_id_dice_are_played_and_xgid_works(fake_evaluator) -> None:
    reply = answer(json.dumps({"position_id": START, "match_id": "cIkqAQAAAAAA", "level": "expert"}), fake_evaluator)
    assert "play" in reply  # the Match ID holds the roll 5-2
    assert reply["play"] in {str(p) for p in Position.initial().legal_plays(5, 2)}
    xg = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:9:10"
    reply = answer(json.dumps({"xgid": xg, "dice": [3, 1], "level": "expert"}), fake_evaluator)
    assert reply["play"] in {str(p) for p in Position.initial().legal_plays(3, 1)}
    bad = answer(json.dumps({"xgid": "XGID=nonsense"}), fake_evaluator)
    assert list(bad) == ["error"]
    both = answer(json.dumps({"xgid": xg, "position_id": START}), fake_evaluator)
    assert "either" in both["error"]
