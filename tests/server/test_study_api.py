"""API tests of the study tools: analysis board, tactical check, rollouts, lessons, coached review.

Engine work at 0-ply, rollouts of a few dozen games. Every endpoint is also fed bad input:
a clear error (400/404/409/422 with a message), and nothing changed.
"""

from __future__ import annotations

import itertools
import time

import pytest

from backgammon.formats.xgid import Xgid
from backgammon.lessons import get_lesson
from backgammon.moves import all_step_sequences
from backgammon.position import Position
from backgammon.server.protocol import graph_sequences

from ._wire import moves_of

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
INITIAL = list(Position.initial().mine)
# white to move in a short bear-off race: there are plays that waste a checker
RACE = Position.from_points({6: 2, 5: 2, 4: 2, 3: 2}, {6: 4, 5: 4, 4: 3}).position_id()


def setup(**extra):
    doc = {
        "mine": INITIAL,
        "theirs": INITIAL,
        "dice": [5, 2],
        "cube": 1,
        "owner": "centre",
        "match_length": 0,
        "score": [0, 0],
        "crawford": False,
        "jacoby": False,
    }
    doc.update(extra)
    return doc


def error_of(r, status):
    assert r.status_code == status, r.text
    message = r.json()["error"]
    assert message and message == message[0].lower() + message[1:]
    return message


# ---------------------------------------------------------------- ids
def test_parse_xgid_gives_setup_and_all_ids(client):
    r = client.post("/api/study/parse", json={"text": OPENING_52})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["mine"] == INITIAL and doc["theirs"] == INITIAL and doc["dice"] == [5, 2]
    assert doc["position_id"] == "4HPwATDgc/ABMA" and doc["xgid"] == OPENING_52
    assert doc["gnubg_id"].startswith("4HPwATDgc/ABMA:")
    # the gnubg ID reads back to the same setup
    again = client.post("/api/study/parse", json={"text": doc["gnubg_id"]}).json()
    assert {k: again[k] for k in ("mine", "theirs", "dice", "cube", "owner", "score")} == {
        k: doc[k] for k in ("mine", "theirs", "dice", "cube", "owner", "score")
    }


def test_parse_match_state_from_xgid(client):
    position = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    xgid = Xgid(position=position, turn=1, cube_exponent=1, cube_owner=-1, score=(2, 3), match_length=7).text()
    doc = client.post("/api/study/parse", json={"text": xgid}).json()
    assert doc["cube"] == 2 and doc["owner"] == "them" and doc["score"] == [2, 3] and doc["match_length"] == 7
    assert doc["dice"] is None and doc["xgid"] == xgid


def test_plain_position_id(client):
    doc = client.post("/api/study/parse", json={"text": RACE}).json()
    assert doc["position_id"] == RACE and doc["dice"] is None and doc["match_length"] == 0


@pytest.mark.parametrize("text", ["", "nonsense", "XGID=zzz", "4HPwATDgc/ABMA:!!!", 42, None, "x" * 300])
def test_parse_bad_text(client, text):
    message = error_of(client.post("/api/study/parse", json={"text": text}), 400)
    assert "invalid" in message


def test_setup_ids_follow_edits(client):
    one = client.post("/api/study/setup", json={"setup": setup()}).json()
    mine = INITIAL.copy()
    mine[5] -= 1
    mine[4] += 1  # one checker from the 6-point to the 5-point
    two = client.post("/api/study/setup", json={"setup": setup(mine=mine)}).json()
    assert one["position_id"] != two["position_id"]
    assert Position.from_position_id(two["position_id"]).mine == tuple(mine)
    assert two["pips"] == [166, 167]


@pytest.mark.parametrize(
    "bad",
    [
        {"mine": [0] * 24},
        {"mine": INITIAL[:-1] + [-1]},
        {"mine": [15] * 25},
        {"dice": [0, 3]},
        {"dice": [1]},
        {"cube": 3},
        {"owner": "nobody"},
        {"match_length": 5, "score": [5, 0]},
        {"score": [1, 0]},
        {"crawford": True},
        {"mine": [0] * 25},
    ],
)
def test_setup_bad_input(client, bad):
    r = client.post("/api/study/setup", json={"setup": setup(**bad)})
    assert r.status_code == 400, r.text
    assert r.json()["error"]


def test_setup_not_an_object(client):
    assert client.post("/api/study/setup", json={"setup": [1, 2]}).status_code == 400
    assert (
        client.post("/api/study/setup", content=b"{not json", headers={"content-type": "application/json"}).status_code
        == 400
    )


# ---------------------------------------------------------- analysis
# the two standard plays of an opening 5-2 (close in gnubg rollouts); which one a net ranks first at
# 0-ply depends on its training
FIVE_TWO_OPENINGS = ("13/11 13/8", "24/22 13/8")


def test_analyze_ranks_plays_and_cube(client):
    r = client.post("/api/study/analyze", json={"setup": setup(), "depth": 0})
    assert r.status_code == 200, r.text
    doc = r.json()
    plays = doc["plays"]
    assert doc["count"] == len(Position.initial().legal_plays(5, 2)) == len(plays)
    assert plays[0]["loss"] == 0 and all(a["equity"] >= b["equity"] for a, b in itertools.pairwise(plays))
    assert plays[0]["play"] in FIVE_TWO_OPENINGS
    assert all(0 <= p["win"] <= 1 and p["win_gammon"] <= p["win"] for p in plays)
    cube = doc["cube"]
    assert cube["action"] == "no double" and cube["double_pass"] == 1.0


def test_analyze_without_dice_gives_cube_only(client):
    doc = client.post("/api/study/analyze", json={"setup": setup(dice=None)}).json()
    assert doc["plays"] is None and doc["cube"]["no_double"] is not None


def test_analyze_bad_depth(client):
    for depth in (3, -1, "1", 1.5):
        assert client.post("/api/study/analyze", json={"setup": setup(), "depth": depth}).status_code == 400


# --------------------------------------------------------- tactical check
def test_check_best_play_is_good(client):
    best = client.post("/api/study/analyze", json={"setup": setup(), "depth": 0}).json()["plays"][0]["play"]
    assert best in FIVE_TWO_OPENINGS
    doc = client.post("/api/study/check", json={"setup": setup(), "play": best}).json()
    assert doc["rank"] == 1 and doc["loss"] == 0 and doc["grade"] == "good" and doc["label"]["ja"]


def test_check_bad_play_is_graded_by_its_loss(client):
    analysis = client.post("/api/study/analyze", json={"setup": setup()}).json()["plays"]
    worst = analysis[-1]
    doc = client.post("/api/study/check", json={"setup": setup(), "play": worst["play"]}).json()
    assert doc["rank"] == len(analysis) and doc["best"] == analysis[0]["play"]
    assert abs(doc["loss"] - worst["loss"]) < 1e-3 and doc["loss"] > 0.1
    assert doc["grade"] in ("error", "blunder", "very_bad")


def test_check_bad_input(client):
    assert "illegal" in error_of(client.post("/api/study/check", json={"setup": setup(), "play": "24/18"}), 422).lower()
    error_of(client.post("/api/study/check", json={"setup": setup(), "play": "hello"}), 400)
    error_of(client.post("/api/study/check", json={"setup": setup(), "play": 7}), 400)
    assert "dice" in error_of(client.post("/api/study/check", json={"setup": setup(dice=None), "play": "13/8"}), 400)


def test_every_number_states_its_depth_and_kind(client):
    doc = client.post("/api/study/analyze", json={"setup": setup(), "depth": 1}).json()
    assert doc["label"] == "1-ply cubeful money" and doc["cube"]["label"] == "1-ply cubeful money"
    depths = [p["plies"] for p in doc["plays"]]
    assert depths[0] == 1 and depths == sorted(depths, reverse=True)  # the deeper ones first, never mixed
    assert all(p["label"] == f"{p['plies']}-ply cubeful money" for p in doc["plays"])
    assert all((p["loss"] is None) == (p["plies"] != 1) for p in doc["plays"])  # no loss across depths
    match = setup(match_length=7, score=[3, 5], cube=2, owner="me")  # 4-away/2-away, my cube
    doc = client.post("/api/study/analyze", json={"setup": match, "depth": 0}).json()
    assert doc["label"] == "0-ply cubeful match, EMG" and all(0 < p["mwc"] < 1 for p in doc["plays"])
    check = client.post("/api/study/check", json={"setup": match, "play": doc["plays"][-1]["play"]}).json()
    assert check["equity_label"] == "0-ply cubeful match, EMG" and check["kind"] == "cubeful match"


MIDGAME = Position.from_points({24: 1, 13: 4, 11: 1, 8: 2, 6: 4, 5: 2, 4: 1}, {24: 2, 13: 4, 10: 1, 8: 3, 6: 4, 3: 1})


@pytest.mark.parametrize(
    "extra, plies",
    [
        ({}, 1),
        ({"match_length": 7, "score": [3, 5], "cube": 2, "owner": "me"}, 1),
        ({"match_length": 5, "score": [2, 4]}, 0),
    ],
)
def test_cli_engine_protocol_and_study_give_the_same_numbers(client, capsys, monkeypatch, extra, plies):
    """The same position, dice, depth and cube (the study board's own gnubg ID passed to the others):
    `backgammon hint`, the engine protocol and the study API give the same plays, equities, depths and kinds."""
    import json

    from backgammon.cli import main
    from backgammon.engine.evaluator import NetEvaluator
    from backgammon.protocols.jsonlines import answer

    monkeypatch.delenv("BACKGAMMON_EVALUATOR", raising=False)
    doc = setup(mine=list(MIDGAME.mine), theirs=list(MIDGAME.theirs), dice=[4, 2], **extra)
    study = client.post("/api/study/analyze", json={"setup": doc, "depth": plies}).json()
    position_id, match_id = study["setup"]["gnubg_id"].split(":")
    try:
        main(["hint", position_id, "42", "--plies", str(plies), "--match-id", match_id, "--json"])
    except SystemExit as exc:
        assert not exc.code
    cli = json.loads(capsys.readouterr().out)["plays"]
    request = {"position_id": position_id, "match_id": match_id, "dice": [4, 2], "plies": plies, "candidates": 100}
    engine = answer(json.dumps(request), NetEvaluator.default())["candidates"]
    assert len(cli) == len(engine) == study["count"] > 5
    for c, e, w in zip(cli, engine, study["plays"], strict=False):
        assert c["play"] == e["play"] == w["play"]
        assert c["equity"] == e["equity"] and round(e["equity"], 4) == w["equity"]
        assert c["plies"] == e["plies"] == w["plies"] and c["kind"] == e["kind"] == w["kind"]
        assert c["label"] == w["label"]
    no_dice = client.post("/api/study/setup", json={"setup": {**doc, "dice": None}}).json()["gnubg_id"].split(":")[1]
    cube = answer(json.dumps({"position_id": position_id, "match_id": no_dice, "plies": plies}), NetEvaluator.default())
    assert cube["plies"] == study["cube"]["plies"] and cube["kind"] == study["cube"]["kind"]
    for key in ("no_double", "double_take", "double_pass"):
        assert cube["equities"][key] == pytest.approx(study["cube"][key], abs=6e-5)


# ----------------------------------------------------- clicked moves (item 6)
def test_the_setup_carries_its_move_graph_and_a_clicked_path_is_read_by_find_play(client):
    """Issue 44: the study board clicks along the setup's move graph (the play page's click model), and
    a clicked path becomes a play on the one server path, backgammon.moves.find_play."""
    doc = client.post("/api/study/setup", json={"setup": setup()}).json()
    plays = Position.initial().legal_plays(5, 2)
    assert sorted(p["play"] for p in doc["plays"]) == sorted(str(p) for p in plays)
    paths = {tuple(map(tuple, seq)) for seq in graph_sequences(doc["move_graph"])}
    core = {tuple((st.source, st.destination) for st in seq) for seq, _ in all_step_sequences(Position.initial(), 5, 2)}
    assert paths == core
    for p in doc["plays"]:  # each play's steps are a path of the graph
        assert p["steps"] in graph_sequences(doc["move_graph"])
    assert client.post("/api/study/setup", json={"setup": setup(dice=None)}).json()["move_graph"] is None

    def move(steps, **extra):
        return client.post("/api/study/move", json={"setup": setup(**extra), "steps": steps})

    assert move([[13, 11], [13, 8]]).json() == {"play": "13/11 13/8"}
    assert move([[13, 8], [8, 6]]).json() == {"play": "13/6"}  # one checker, both dice
    assert "expected a complete legal play" in error_of(move([[24, 22]]), 422)  # a start is not a play
    assert "illegal move '6/3 13/8' for 5-2" in error_of(move([[6, 3], [13, 8]]), 422)  # no die of 3
    bar = list(INITIAL)
    bar[23], bar[24] = 1, 1
    error_of(move([[13, 8], [13, 11]], mine=bar), 422)  # a checker on the bar must enter first
    assert move([[25, 20], [24, 22]], mine=bar).json() == {"play": "bar/20 24/22"}
    assert "invalid step" in error_of(move([[30, 1]]), 400) and "steps" in error_of(move("13/8"), 400)
    assert "dice" in error_of(move([[13, 8]], dice=None), 400)


def test_check_takes_clicked_steps(client):
    doc = client.post("/api/study/check", json={"setup": setup(), "steps": [[13, 8], [13, 11]]}).json()
    assert doc["play"] == "13/11 13/8" and doc["count"] == len(Position.initial().legal_plays(5, 2))
    message = error_of(client.post("/api/study/check", json={"setup": setup(), "steps": [[13, 8]]}), 422)
    assert "expected a complete legal play" in message
    error_of(client.post("/api/study/check", json={"setup": setup(), "steps": [[6, 3]]}), 422)


# ------------------------------------------------------------ rollouts
def test_rollout_job_runs_off_the_request_path(client):
    r = client.post("/api/study/rollouts", json={"setup": setup(), "top": 2, "trials": 36})
    assert r.status_code == 200, r.text
    job = r.json()
    assert job["status"] == "running" and job["candidates"][0] in FIVE_TWO_OPENINGS and len(job["candidates"]) == 2
    # the server answers other requests while the rollout runs
    assert client.get("/api/health").status_code == 200
    deadline = time.time() + 180
    while job["status"] == "running" and time.time() < deadline:
        time.sleep(0.2)
        job = client.get(f"/api/study/rollouts/{job['id']}").json()
    assert job["status"] == "done", job
    assert job["done"] == job["total"] > 0
    assert {r["play"] for r in job["results"]} == set(job["candidates"])
    assert all(r["ci95"] > 0 and -3 <= r["equity"] <= 3 for r in job["results"])


def test_rollout_job_at_one_ply(client):
    job = client.post("/api/study/rollouts", json={"setup": setup(), "top": 1, "trials": 2, "ply": 1}).json()
    assert job["ply"] == 1
    deadline = time.time() + 120
    while job["status"] == "running" and time.time() < deadline:
        time.sleep(0.2)
        job = client.get(f"/api/study/rollouts/{job['id']}").json()
    assert job["status"] == "done", job
    assert job["done"] == job["total"] == 2 and len(job["results"]) == 1


def test_rollout_bad_input(client):
    for extra in ({"trials": 0}, {"trials": 10**6}, {"top": 0}, {"top": 99}, {"ply": 2}, {"ply": "1"}):
        assert client.post("/api/study/rollouts", json={"setup": setup(), **extra}).status_code == 400
    assert client.post("/api/study/rollouts", json={"setup": setup(dice=None)}).status_code == 400
    error_of(client.get("/api/study/rollouts/nope"), 404)


# -------------------------------------------------------------- lessons
def test_lessons_list_in_both_languages(client):
    en = client.get("/api/study/lessons").json()
    ja = client.get("/api/study/lessons?lang=ja").json()
    assert [x["id"] for x in en] == [x["id"] for x in ja] and len(en) >= 5
    assert en[0]["title"] != ja[0]["title"]
    error_of(client.get("/api/study/lessons?lang=fr"), 400)


def test_lesson_hides_answers(client):
    doc = client.get("/api/study/lessons/bar-entry").json()
    assert doc["exercises"] and "answers" not in str(doc)
    ex = doc["exercises"][0]
    assert len(ex["mine"]) == 25 and len(ex["dice"]) == 2
    error_of(client.get("/api/study/lessons/no-such-lesson"), 404)


def test_lesson_answer_wrong_then_right(client):
    lesson = get_lesson("bar-entry")
    exercise = lesson.exercises[0]
    url = "/api/study/lessons/bar-entry/exercises/0/answer"
    wrong = client.post(url, json={"answer": "13/11 13/8", "lang": "ja"}).json()
    assert wrong["correct"] is False and wrong["verdict"] == "illegal" and wrong["text"]
    right = client.post(url, json={"answer": str(exercise.answers[0])}).json()
    assert right["correct"] is True and right["verdict"] == "right"
    assert right["engine"] is not None and right["engine"]["loss"] >= 0


def test_lesson_answer_bad_input(client):
    url = "/api/study/lessons/bar-entry/exercises/{}/answer"
    error_of(client.post(url.format(99), json={"answer": "13/8"}), 404)
    error_of(client.post(url.format(0), json={"answer": 3}), 400)
    error_of(client.post(url.format(0), json={"answer": "x", "lang": "de"}), 400)
    error_of(client.post("/api/study/lessons/nope/exercises/0/answer", json={"answer": "13/8"}), 404)


# --------------------------------------------------------------- review
def _min_bearoff(moves):
    return min(moves, key=lambda seq: sum(1 for step in seq if step[1] == 0))


def finished_game(client):
    """A human game from a race, each side wasting checkers (plays that bear off the fewest)."""
    r = client.post(
        "/api/tables",
        json={
            "mode": "human",
            "name": "Ann",
            "rules": {"match_length": 1},
            "start": {"position_id": RACE, "on_roll": "white"},
        },
    )
    tid, w = r.json()["id"], r.json()["token"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    tokens = {"white": w, "black": b}
    for _ in range(100):
        st = client.get(f"/api/tables/{tid}").json()
        if st["match"]["over"]:
            break
        tok = tokens[st["game"]["turn"]]
        st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tok}).json()
        if "move" in st["allowed"]:
            r = client.post(
                f"/api/tables/{tid}/actions",
                json={"action": "move", "steps": _min_bearoff(moves_of(st))},
                headers={"x-seat-token": tok},
            )
        else:
            r = client.post(
                f"/api/tables/{tid}/actions", json={"action": st["allowed"][0]}, headers={"x-seat-token": tok}
            )
        assert r.status_code == 200, r.text
    assert client.get(f"/api/tables/{tid}").json()["match"]["over"]
    return tid, tokens


def test_review_of_a_finished_game_is_stored(client):
    for _ in range(4):  # the dice decide how much the wasteful plays cost: a few games at most
        tid, _ = finished_game(client)
        error_of(client.get(f"/api/study/reviews/{tid}"), 404)
        r = client.post(f"/api/study/reviews/{tid}")
        assert r.status_code == 200, r.text
        doc = r.json()
        plays = [d for d in doc["decisions"] if d["kind"] == "play"]
        assert plays and all(d["error"] >= 0 for d in plays)
        errors = [d for d in plays if d["grade"] != "good"]
        if errors:
            break
    assert errors, "wasting checkers in a race must show as an error"
    assert all(d["best"] != d["chosen"] for d in errors)
    names = {p["name"] for p in doc["players"].values()}
    assert names == {"Ann", "Bob"}
    for p in doc["players"].values():
        assert 0 <= p["error_share"] <= 1 and "luck" in p
    assert client.get(f"/api/study/reviews/{tid}").json() == doc


def test_review_bad_input(client):
    error_of(client.post("/api/study/reviews/nope"), 404)
    r = client.post("/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": 1}})
    tid = r.json()["id"]
    error_of(client.post(f"/api/study/reviews/{tid}"), 409)
    error_of(client.get(f"/api/study/reviews/{tid}"), 404)


def test_study_page_is_served(client):
    for path in ("/study", "/study/lessons", "/study/lessons/bar-entry", "/study/review/abc"):
        r = client.get(path)
        assert r.status_code == 200 and "study.js" in r.text


# ------------------------------------------------------------------ texts
def test_study_texts_in_both_languages():
    import re
    from pathlib import Path

    static = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"
    text = (static / "study-i18n.js").read_text()
    en = text[text.index("  en: {") : text.index("  ja: {")]
    ja = text[text.index("  ja: {") :]
    key = re.compile(r"^    (\w+):", re.MULTILINE)
    en_keys, ja_keys = key.findall(en), key.findall(ja)
    assert len(en_keys) == len(set(en_keys)) and set(en_keys) == set(ja_keys) and len(en_keys) > 50
    app_keys = set(key.findall((static / "i18n.js").read_text()))
    html = (static / "study.html").read_text()
    used = set(re.findall(r'data-sp?="(\w+)"', html))
    used |= set(re.findall(r'\bs\("(\w+)"', (static / "study.js").read_text()))
    assert used and used <= set(en_keys) | app_keys, used - set(en_keys) - app_keys
    # the Japanese texts are Japanese
    values = re.findall(r'^    (\w+): "([^"]*)"', ja, re.MULTILINE)
    latin = [k for k, v in values if v and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", v)]
    assert set(latin) <= {"pr", "gnubg_id", "xgid", "ci"}, latin


def test_review_of_a_game_against_the_computer_listed_for_the_user(client):
    late = Position.from_points({1: 2}, {6: 10}).position_id()
    assert client.get("/api/study/reviews").json() == []  # a guest has none
    client.post("/api/register", json={"username": "ann", "password": "pw-123456"})
    r = client.post(
        "/api/tables",
        json={"mode": "ai", "level": "beginner", "rules": {"match_length": 1}, "start": {"position_id": late}},
    )
    tid, tok = r.json()["id"], r.json()["token"]
    error_of(client.post(f"/api/study/reviews/{tid}"), 409)  # not finished yet
    assert client.get("/api/study/reviews").json() == []
    client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers={"x-seat-token": tok})
    st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tok}).json()
    client.post(
        f"/api/tables/{tid}/actions", json={"action": "move", "steps": moves_of(st)[0]}, headers={"x-seat-token": tok}
    )
    assert client.get(f"/api/tables/{tid}").json()["match"]["over"]
    doc = client.post(f"/api/study/reviews/{tid}").json()
    plays = [d for d in doc["decisions"] if d["kind"] == "play"]
    assert len(plays) == 1 and plays[0]["player"] == "White" and plays[0]["forced"] in (True, False)
    assert doc["players"]["White"]["name"] == "ann"
    listed = client.get("/api/study/reviews").json()
    assert [x["table_id"] for x in listed] == [tid]


def test_setup_bad_die_gives_the_core_message(client):
    # one home for dice validation (issue 19): the same message as the core, the CLI and the engine
    r = client.post("/api/study/setup", json={"setup": setup(dice=[7, 3])})
    assert error_of(r, 400) == "invalid die 7: expected an integer from 1 to 6"
