"""The engine line protocol, in process and as a real `backgammon engine` subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.position import Position
from backgammon.protocols.jsonlines import answer, serve

START = "4HPwATDgc/ABMA"


def test_play_request(fake_evaluator) -> None:
    reply = answer(json.dumps({"position_id": START, "dice": [3, 1], "level": "expert"}), fake_evaluator)
    assert set(reply) == {"play", "position_id", "plies", "kind", "candidates"} and reply["plies"] == 0
    plays = {str(p): p.position.position_id() for p in Position.initial().legal_plays(3, 1)}
    assert reply["position_id"] == plays[reply["play"]]
    # money with a centred cube unless asked otherwise; every candidate states its depth and kind
    assert reply["kind"] == "cubeful money" and reply["candidates"][0]["play"] == reply["play"]
    assert len(reply["candidates"]) == min(10, len(plays))
    assert all(c["plies"] == 0 and c["kind"] == "cubeful money" for c in reply["candidates"])
    cubeless = answer(
        json.dumps({"position_id": START, "dice": [3, 1], "cubeless": True, "candidates": 100}), fake_evaluator
    )
    assert cubeless["kind"] == "cubeless" and len(cubeless["candidates"]) == len(plays)
    assert all(c["equity"] == c["cubeless"] for c in cubeless["candidates"])
    assert cubeless["candidates"][0]["plies"] == 2  # world_class, the default: 2 plies (the filters keep the best)
    for bad, fragment in (({"cubeless": 1}, "cubeless"), ({"candidates": -1}, "candidates")):
        reply = answer(json.dumps({"position_id": START, "dice": [3, 1], **bad}), fake_evaluator)
        assert fragment in reply["error"]


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
        ('{"position_id": "4HPwATDgc/ABMA", "dice": [7, 1]}', "invalid die 7"),
        ('{"position_id": "4HPwATDgc/ABMA", "dice": "31"}', "invalid roll"),
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
    assert {k: replies[0][k] for k in ("play", "position_id", "plies", "kind")} == {
        "play": "24/13",
        "position_id": after["24/13"],
        "plies": 0,
        "kind": "cubeful money",
    }
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


def test_plies_override_the_level_depth(fake_evaluator) -> None:
    reply = answer(json.dumps({"position_id": START, "dice": [3, 1], "level": "expert", "plies": 1}), fake_evaluator)
    assert reply["plies"] == 1 and "play" in reply
    assert answer(json.dumps({"position_id": START, "plies": 1}), fake_evaluator)["plies"] == 1
    for bad in (-1, 3, "2", True, 1.0):
        reply = answer(json.dumps({"position_id": START, "plies": bad}), fake_evaluator)
        assert reply["error"].startswith("invalid plies"), reply


def _hostile_lines(seed: int, count: int) -> list[str | bytes]:
    """Bad requests of many kinds: broken syntax, hostile numbers, nesting, wrong types, huge values."""
    import random

    rng = random.Random(seed)
    huge = "x" * 100_000
    fixed: list[str | bytes] = [
        "1" * 5000,
        '{"position_id": ' + "9" * 5000 + "}",
        "[" * 10_000 + "]" * 10_000,
        '{"a":' * 3000 + "1" + "}" * 3000,
        '{"position_id": "\\ud800", "dice": [3, 1]}',
        '{"\\udfff": 1}',
        '{"position_id": "4HPwATDgc/ABMA", "dice": [NaN, 1]}',
        '{"position_id": "4HPwATDgc/ABMA", "dice": [1e999, 1]}',
        '{"position_id": "4HPwATDgc/ABMA", "seed": Infinity}',
        json.dumps({"position_id": huge}),
        json.dumps({"xgid": huge}),
        json.dumps({"position_id": START, "level": huge}),
        json.dumps({"position_id": START, "level": ["expert"]}),
        json.dumps({"position_id": START, "dice": [3, 1], "match_id": {"a": 1}}),
        json.dumps({"position_id": START, "match_id": "AAAAAAAAAAAA" * 3}),
        json.dumps({"position_id": START, "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"}),
        b"\xff\xfe{}",
        b'{"position_id": "\xc3\x28"}',
        "null",
        "true",
        '"a string"',
        "{}",
    ]
    atoms = ["null", "true", "-1", "0", "7", "99999999999999999999", '"x"', "[]", "{}", "[3, 1]", '"4HPwATDgc/ABMA"']
    keys = ["position_id", "dice", "level", "plies", "match_id", "xgid", "seed", "jacoby", "other"]
    lines = list(fixed)
    while len(lines) < count:
        kind = rng.random()
        if kind < 0.5:
            fields = rng.sample(keys, rng.randint(1, 4))
            lines.append("{" + ", ".join(f'"{k}": {rng.choice(atoms)}' for k in fields) + "}")
        elif kind < 0.8:
            good = json.dumps({"position_id": START, "dice": [3, 1]})
            cut = rng.randrange(len(good))
            lines.append(good[:cut] + rng.choice(["", "}", "]", ",", ":", '"', "\\", "\x00"]) + good[cut + 1 :])
        else:
            lines.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))))
    return lines


def test_fuzzed_requests_never_stop_the_engine_nor_leak_exception_text(fake_evaluator) -> None:
    lines = _hostile_lines(2026, 500)
    for line in lines:
        reply = answer(line, fake_evaluator)
        assert isinstance(reply, dict) and reply
        text = json.dumps(reply)
        if "candidates" in reply:  # a valid play request: the ranking, at most the default number of candidates
            assert len(reply["candidates"]) <= 10 and all(c["kind"] == reply["kind"] for c in reply["candidates"])
        else:
            assert len(text) < 400, text[:200]  # a bad request is never echoed back whole
        if "error" in reply:
            for leak in ("Traceback", "internal error", "RecursionError", "ValueError", "KeyError", "TypeError"):
                assert leak not in reply["error"], (line[:80], reply)


def test_engine_subprocess_survives_hostile_bytes_under_a_strict_locale() -> None:
    here = Path(__file__).parent
    env = dict(os.environ, BACKGAMMON_EVALUATOR="fake_evaluator:FakeEvaluator", LC_ALL="C", LANG="C")
    env["PYTHONIOENCODING"] = "ascii:strict"
    env["PYTHONPATH"] = os.pathsep.join([str(here), env.get("PYTHONPATH", "")])
    good = json.dumps({"position_id": START, "dice": [6, 5], "level": "expert"}).encode()
    stdin = (
        b"\n".join(
            [
                b"\xff\xfe not utf-8",
                b'{"position_id": "\xe3\x81\x82"}',
                b"x" * 200_000,  # longer than a request line may be
                b"[" * 10_000,
                good,
            ]
        )
        + b"\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main(['engine'])"],
        input=stdin,
        check=False,
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    replies = [json.loads(x) for x in proc.stdout.decode("ascii").splitlines()]
    assert len(replies) == 5
    assert "not UTF-8" in replies[0]["error"]
    assert "error" in replies[1] and "longer than" in replies[2]["error"] and "nested" in replies[3]["error"]
    assert replies[4]["play"] == "24/13"
    assert b"Traceback" not in proc.stderr
