"""Chouette tables over the REST API: seats, turns, team doubles, box doubles, settlement, restart."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from backgammon.fairdice import parse_rolls, verify
from backgammon.server.app import ServerConfig, create_app

from ._wire import moves_of
from .conftest import make_client


def slow_bots_client(data_dir, **kwargs):
    """An app whose computer players wait 30 s before going on after a finished game."""
    config = ServerConfig(data_dir=data_dir, bot_delay=30.0, dice_seed=7, warm_engine=False, **kwargs)
    return TestClient(create_app(config))


def H(token):
    return {"x-seat-token": token}


def three_people(client):
    r = client.post("/api/chouette", json={"name": "Ann", "seats": [{"bot": None}] * 3})
    assert r.status_code == 200, r.text
    tid, tokens = r.json()["id"], {"Ann": r.json()["token"]}
    assert client.get(f"/api/chouette/{tid}").json()["status"] == "waiting"
    for name in ("Bob", "Cat"):
        j = client.post(f"/api/chouette/{tid}/join", json={"name": name})
        assert j.status_code == 200, j.text
        tokens[name] = j.json()["token"]
    return tid, tokens


def st(client, tid, token=None):
    r = client.get(f"/api/chouette/{tid}", headers=H(token) if token else {})
    assert r.status_code == 200, r.text
    return r.json()


def act(client, tid, token, **doc):
    return client.post(f"/api/chouette/{tid}/actions", json=doc, headers=H(token) if token else {})


def to_move(client, tid, tokens):
    """Play (first legal play) / roll until it is someone's turn to roll or answer; returns the state."""
    for _ in range(50):
        s = st(client, tid)
        name = s["to_act"][0]
        mine = st(client, tid, tokens[name])
        if "move" not in mine["allowed"]:
            return mine
        assert (
            act(client, tid, tokens[name], action="move", steps=moves_of(mine)[0] if moves_of(mine) else []).status_code
            == 200
        )
    raise AssertionError("no roll turn reached")


def test_create_join_roles_and_opening(client):
    tid, tokens = three_people(client)
    s = st(client, tid, tokens["Bob"])
    assert s["status"] == "playing" and s["box"] == "Ann" and s["captain"] == "Bob" and s["team"] == ["Bob", "Cat"]
    roles = {p["name"]: p["role"] for p in s["players"]}
    assert roles == {"Ann": "box", "Bob": "captain", "Cat": "member"}
    assert s["game"]["phase"] == "move" and s["fair_dice"]["draws"] >= 1  # opening rolled by the server
    assert all(p["score"] == 0 for p in s["players"])
    full = client.post(f"/api/chouette/{tid}/join", json={"name": "Dan"})
    assert full.status_code == 409 and "no free seat" in full.json()["error"]


def test_bad_input_and_out_of_turn_change_nothing(client):
    tid, tokens = three_people(client)
    before = st(client, tid)
    mover = before["to_act"][0]
    other = "Cat" if mover != "Cat" else "Ann"
    r = act(client, tid, tokens[other], action="move", play="24/18")
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    r = act(client, tid, None, action="move", play="24/18")
    assert r.status_code == 409 and "spectator" in r.json()["error"]
    assert act(client, tid, tokens[mover], action="dance").status_code == 400
    assert act(client, tid, tokens[mover], action="move", steps="x").status_code == 400
    r = act(client, tid, tokens[mover], action="move", play="1/7 1/7 1/7 1/7")
    assert r.status_code in (400, 422)
    assert act(client, tid, tokens[mover], action="roll").status_code == 409
    assert act(client, tid, tokens[mover], action="consent").status_code == 409
    r = act(client, tid, tokens[mover], action="move", steps=moves_of(st(client, tid, tokens[mover]))[0], version=0)
    assert r.status_code == 409 and "stale" in r.json()["error"]
    assert client.post("/api/chouette/nope/actions", json={"action": "roll"}).status_code == 404
    assert client.post("/api/chouette", json={"name": "X", "seats": [{}, {}]}).status_code == 400
    assert client.post("/api/chouette", json={"name": "X", "seats": [{}, {"bot": "godlike"}, {}]}).status_code == 400
    assert client.post("/api/chouette", json={"name": "X", "seats": "many"}).status_code == 400
    after = st(client, tid)
    assert after["version"] == before["version"] and after["game"] == before["game"]


def test_box_double_one_member_passes_and_is_settled(client):
    tid, tokens = three_people(client)
    s = to_move(client, tid, tokens)
    while s["box"] not in s["to_act"] or "double" not in s["allowed"]:
        # get to the box's roll: the team rolls and moves when it is its turn
        name = s["to_act"][0]
        assert act(client, tid, tokens[name], action="roll").status_code == 200
        s = to_move(client, tid, tokens)
    assert act(client, tid, tokens["Ann"], action="double").status_code == 200
    s = st(client, tid, tokens["Cat"])
    assert s["stage"] == "box_doubled" and sorted(s["pending"]) == ["Bob", "Cat"] and s["allowed"] == ["take", "pass"]
    assert act(client, tid, tokens["Ann"], action="take").status_code == 409  # the box does not answer
    assert act(client, tid, tokens["Cat"], action="pass").status_code == 200
    assert act(client, tid, tokens["Cat"], action="take").status_code == 409  # already answered
    assert act(client, tid, tokens["Bob"], action="take").status_code == 200
    s = st(client, tid, tokens["Bob"])
    by = {p["name"]: p for p in s["players"]}
    assert by["Cat"]["active"] is False and by["Cat"]["score"] == -1 and by["Ann"]["score"] == 1
    assert by["Bob"]["active"] and by["Bob"]["cube"] == 2 and s["stage"] == "playing"


def test_team_double_needs_everyone_and_suggestions(client):
    tid, tokens = three_people(client)
    s = to_move(client, tid, tokens)
    while s["captain"] not in s["to_act"] or "double" not in s["allowed"]:
        name = s["to_act"][0]
        assert act(client, tid, tokens[name], action="roll").status_code == 200
        s = to_move(client, tid, tokens)
    assert act(client, tid, tokens["Bob"], action="double").status_code == 200
    s = st(client, tid, tokens["Cat"])
    assert s["stage"] == "team_consent" and s["allowed"] == ["consent", "refuse"]
    assert act(client, tid, tokens["Cat"], action="refuse").status_code == 200
    s = st(client, tid, tokens["Bob"])
    assert s["stage"] == "playing" and s["game"]["cube"]["value"] == 1 and s["allowed"][0] == "roll"
    assert act(client, tid, tokens["Bob"], action="roll").status_code == 200
    cat = st(client, tid, tokens["Cat"])
    assert "suggest" in cat["allowed"] and "move" not in cat["allowed"]
    steps = moves_of(cat)[0] if moves_of(cat) else []
    assert act(client, tid, tokens["Cat"], action="suggest", steps=steps).status_code == 200
    assert act(client, tid, tokens["Bob"], action="suggest", steps=steps).status_code == 409  # the captain moves
    assert act(client, tid, tokens["Ann"], action="suggest", steps=steps).status_code == 409  # the box has no say
    assert [s["by"] for s in st(client, tid, tokens["Bob"])["suggestions"]] == ["Cat"]
    assert st(client, tid, tokens["Ann"])["suggestions"] == []  # the box does not see them
    assert st(client, tid)["suggestions"] == []  # nor do spectators
    bob = st(client, tid, tokens["Bob"])
    assert (
        act(client, tid, tokens["Bob"], action="move", steps=moves_of(bob)[0] if moves_of(bob) else []).status_code
        == 200
    )
    assert st(client, tid, tokens["Cat"])["suggestions"] == []  # cleared once the captain has moved


def test_bots_play_and_restart_replays(tmp_path):
    with slow_bots_client(tmp_path) as client:  # the bots' next game waits: a stable snapshot
        r = client.post(
            "/api/chouette", json={"name": "Ann", "seats": [{"bot": None}, {"bot": "greedy"}, {"bot": "greedy"}]}
        )
        assert r.status_code == 200, r.text
        tid, tok = r.json()["id"], r.json()["token"]
        s = st(client, tid, tok)
        assert s["status"] == "playing" and s["box"] == "Ann" and s["to_act"] == ["Ann"]
        for _ in range(400):  # Ann plays until a game has ended (bots answer in between)
            s = st(client, tid, tok)
            if s["games"]:
                break
            if "move" in s["allowed"]:
                act(client, tid, tok, action="move", steps=moves_of(s)[0] if moves_of(s) else [])
            elif "roll" in s["allowed"]:
                act(client, tid, tok, action="roll")
            elif "take" in s["allowed"]:
                assert act(client, tid, tok, action="take").status_code == 200
            else:
                raise AssertionError(f"Ann cannot act: {s['to_act']} {s['game']['description']}")
        before = st(client, tid, tok)
    with slow_bots_client(tmp_path) as client:
        after = st(client, tid, tok)
    assert after == before
    assert after["games"], "a whole game was played"
    first = after["games"][0]
    assert first["box"] == "Ann" and first["captain"] == "Computer 1"
    # rotation: a box win keeps the box and sends the captain to the end of the line; else the captain boxes
    if first["winner"] == "box":
        assert after["box"] == "Ann" and after["team"] == ["Computer 2", "Computer 1"]
    else:
        assert after["box"] == "Computer 1" and after["team"] == ["Computer 2", "Ann"]
    assert sum(p["score"] for p in after["players"]) == 0


# box (white, on roll) 73 pips against the team's 84 in a race: a greedy computer box doubles
# (84 >= 1.12 * 73 and 11 >= 8) and a greedy member takes (84 <= 1.18 * 73)


def _race_id():
    from backgammon.position import Position

    return Position.from_points({6: 5, 5: 5, 4: 3, 3: 2}, {8: 3, 6: 4, 5: 4, 4: 4}).position_id()


def test_mixed_bots_box_double_person_passes(client):
    r = client.post(
        "/api/chouette",
        json={
            "name": "Ann",
            "seat": 1,
            "seats": [{"bot": "greedy"}, {"bot": None}, {"bot": "greedy"}],
            "start": _race_id(),
        },
    )
    assert r.status_code == 200, r.text
    tid, tok = r.json()["id"], r.json()["token"]
    s = st(client, tid, tok)
    assert s["box"] == "Computer 1" and s["captain"] == "Ann" and s["team"] == ["Ann", "Computer 2"]
    assert s["stage"] == "box_doubled" and s["pending"] == ["Ann"] and s["allowed"] == ["take", "pass"]
    committed = s["fair_dice"]
    assert committed["game"] == 1 and committed["seed"] is None and s["revealed_dice"] == []
    assert act(client, tid, tok, action="pass").status_code == 200
    s = st(client, tid, tok)
    # game 1 is over: its seed is revealed and every roll of it checks against the commitment shown before
    shown = s["revealed_dice"][0]
    assert shown["game"] == 1 and shown["commitment"] == committed["commitment"] and shown["draws"] >= 1
    result = verify(shown["seed"], shown["commitment"], shown["game_id"], parse_rolls(shown["rolls"]))
    assert result.ok, result.message()
    assert f"--game-id '{tid}:1'" in shown["command"]
    assert s["fair_dice"]["game"] == 2 and s["fair_dice"]["commitment"] != committed["commitment"]
    by = {p["name"]: p for p in s["players"]}
    assert by["Ann"]["score"] == -1  # paid her cube at once
    # the game went on between the computers: Computer 2 captained, with a cube of 2
    g = s["games"][0]
    assert g["captain"] in ("Computer 2", "Ann")
    assert dict(g["settlements"])["Ann"] == -1
    assert abs(dict(g["settlements"])["Computer 2"]) in (2, 4, 6)
    assert sum(p["score"] for p in s["players"]) == 0
    # acting for a seat that is not yours: no token of another seat works, and bad tokens are spectators
    assert act(client, tid, "not-a-token", action="roll").status_code == 409
    assert (
        client.post("/api/chouette", json={"name": "X", "seat": 0, "seats": [{"bot": "greedy"}, {}, {}]}).status_code
        == 400
    )


def test_unanimous_team_double_box_passes_settles_each_and_rotates(client):
    tid, tokens = three_people(client)
    s = to_move(client, tid, tokens)
    while s["captain"] not in s["to_act"] or "double" not in s["allowed"]:
        name = s["to_act"][0]
        assert act(client, tid, tokens[name], action="roll").status_code == 200
        s = to_move(client, tid, tokens)
    assert act(client, tid, tokens["Cat"], action="double").status_code == 409  # only the captain doubles
    assert act(client, tid, tokens["Bob"], action="double").status_code == 200
    assert act(client, tid, tokens["Ann"], action="pass").status_code == 409  # the team has not agreed yet
    assert act(client, tid, tokens["Cat"], action="consent").status_code == 200
    ann = st(client, tid, tokens["Ann"])
    assert ann["allowed"] == ["take", "pass"] and ann["game"]["cube"]["offered_by"] == "black"
    assert act(client, tid, tokens["Ann"], action="pass").status_code == 200
    s = st(client, tid, tokens["Ann"])
    scores = {p["name"]: p["score"] for p in s["players"]}
    assert scores == {"Ann": -2, "Bob": 1, "Cat": 1}
    assert s["games"][0]["winner"] == "team" and s["games"][0]["settlements"] == [["Bob", 1], ["Cat", 1]]
    assert s["box"] == "Bob" and s["team"] == ["Cat", "Ann"]  # the captain takes the box


def test_restart_mid_game_keeps_the_committed_dice(tmp_path):
    from backgammon.position import Position

    late = Position.from_points({1: 2}, {6: 10}).position_id()  # the box bears off with any roll
    with make_client(tmp_path, test_hooks=True) as client:
        r = client.post("/api/chouette", json={"name": "Ann", "seats": [{"bot": None}] * 3, "start": late})
        tid, tokens = r.json()["id"], {"Ann": r.json()["token"]}
        for name in ("Bob", "Cat"):
            tokens[name] = client.post(f"/api/chouette/{tid}/join", json={"name": name}).json()["token"]
        commitment = st(client, tid)["fair_dice"]["commitment"]
        assert act(client, tid, tokens["Ann"], action="roll").status_code == 200
        rolled = st(client, tid)["game"]["dice"]
    with make_client(tmp_path, test_hooks=True) as client:  # restart between the roll and the move
        s = st(client, tid, tokens["Ann"])
        assert s["game"]["dice"] == rolled and s["fair_dice"]["commitment"] == commitment
        assert act(client, tid, tokens["Ann"], action="move", steps=moves_of(s)[0]).status_code == 200
        s = st(client, tid, tokens["Ann"])
    shown = s["revealed_dice"][0]
    assert shown["commitment"] == commitment and shown["rolls"] == "".join(map(str, rolled))
    assert verify(shown["seed"], shown["commitment"], shown["game_id"], parse_rolls(shown["rolls"])).ok
    assert {p["name"]: p["score"] for p in s["players"]} == {"Ann": 2, "Bob": -1, "Cat": -1}
    assert s["box"] == "Ann" and s["team"] == ["Cat", "Bob"]  # the box won: the captain goes to the end


def test_chouette_over_its_websocket(client):
    """The chouette's socket: hello with the seat token, then every change published to every seat,
    each with its own view; an action on the socket is the same as one over REST."""
    tid, tokens = three_people(client)
    with (
        client.websocket_connect(f"/ws/chouette/{tid}") as ann,
        client.websocket_connect(f"/ws/chouette/{tid}") as watcher,
    ):
        ann.send_json({"type": "hello", "token": tokens["Ann"]})
        watcher.send_json({"type": "hello"})
        mine, theirs = ann.receive_json()["state"], watcher.receive_json()["state"]
        assert mine["you"] == "Ann" and theirs["you"] is None
        assert mine["version"] == theirs["version"]
        name = mine["to_act"][0]
        if name == "Ann":
            doc = {"type": "action", "version": mine["version"]}
            doc |= {"action": "move", "steps": moves_of(mine)[0]} if "move" in mine["allowed"] else {"action": "roll"}
            ann.send_json(doc)
        else:  # someone else acts over REST: both sockets are told
            s = st(client, tid, tokens[name])
            doc = {"action": "move", "steps": moves_of(s)[0]} if "move" in s["allowed"] else {"action": "roll"}
            assert act(client, tid, tokens[name], **doc).status_code == 200
        after_ann, after_watcher = ann.receive_json()["state"], watcher.receive_json()["state"]
        assert after_ann["version"] == after_watcher["version"] > mine["version"]
        watcher.send_json({"type": "action", "action": "roll"})  # a spectator cannot act
        error = watcher.receive_json()
        assert error["type"] == "error" and error["status"] == 409
        ann.send_json({"type": "hint"})
        assert ann.receive_json()["status"] == 409


def test_idle_chouettes_leave_memory_and_come_back(tmp_path, monkeypatch):
    from backgammon.server import rooms

    monkeypatch.setattr(rooms, "IDLE_SECONDS", 0.2)
    monkeypatch.setattr(rooms, "SWEEP_EVERY", 0.05)
    with make_client(tmp_path) as client:
        tid, tokens = three_people(client)
        before = st(client, tid, tokens["Ann"])
        assert client.get("/api/health").json()["chouettes"] == 1
        deadline = time.time() + 10
        while client.get("/api/health").json()["chouettes"] and time.time() < deadline:
            time.sleep(0.05)
        assert client.get("/api/health").json()["chouettes"] == 0
        after = st(client, tid, tokens["Bob"])  # read again from the database
        assert client.get("/api/health").json()["chouettes"] == 1
        assert after["version"] == before["version"] and after["status"] == before["status"]


def test_finished_games_move_lists_stay_readable(client):
    tid, tokens = three_people(client)
    s = to_move(client, tid, tokens)
    while s["captain"] not in s["to_act"] or "double" not in s["allowed"]:
        assert act(client, tid, tokens[s["to_act"][0]], action="roll").status_code == 200
        s = to_move(client, tid, tokens)
    assert act(client, tid, tokens["Bob"], action="double").status_code == 200
    assert act(client, tid, tokens["Cat"], action="consent").status_code == 200
    before = client.get(f"/api/chouette/{tid}/games/1").json()
    assert before["log"] == st(client, tid)["log"]  # the game being played: the state's own list
    assert act(client, tid, tokens["Ann"], action="pass").status_code == 200
    s = st(client, tid)
    assert len(s["games"]) == 1 and s["log"] != before["log"]  # the state has moved on to game 2
    first = client.get(f"/api/chouette/{tid}/games/1")
    assert first.status_code == 200
    assert first.json()["number"] == 1
    log = first.json()["log"]
    assert log[: len(before["log"])] == before["log"] and [e["kind"] for e in log[-3:]] == ["double", "consent", "pass"]
    assert log[0]["kind"] == "move" and sum(e["kind"] == "move" for e in log) >= 1
    assert client.get(f"/api/chouette/{tid}/games/2").json()["log"] == s["log"]
    for bad, status, words in (("3", 404, "no game 3"), ("0", 404, "no game 0"), ("x", 400, "number")):
        r = client.get(f"/api/chouette/{tid}/games/{bad}")
        assert r.status_code == status and words in r.json()["error"], (bad, r.status_code, r.text)
    assert client.get("/api/chouette/nosuch/games/1").status_code == 404
