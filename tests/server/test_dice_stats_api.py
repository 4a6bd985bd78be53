"""Per-player dice statistics from stored games."""

from __future__ import annotations

from ._wire import moves_of
from .test_api import human_table, state
from .test_fair_dice import _play_some


def test_dice_stats_of_stored_games(client):
    tid, w, b = human_table(client, rules={"match_length": 1})
    _play_some(client, tid, {"white": w, "black": b}, 2000)
    st = state(client, tid)
    assert st["match"]["over"]
    hist = client.get(f"/api/tables/{tid}/history").json()
    r = client.get("/api/dice-stats", params={"name": "Ann"})
    assert r.status_code == 200, r.text
    doc = r.json()
    rep = doc["report"]
    assert doc["name"] == "Ann" and doc["tables"] == 1
    # Ann (white) rolled once per "roll" action of white's stored actions
    assert rep["rolls"] > 5
    dist = rep["distribution"]
    assert len(dist["labels"]) == 21 and sum(dist["observed"]) == rep["rolls"]
    assert abs(sum(dist["expected"]) - rep["rolls"]) < 1e-6
    if dist["test"] is not None:
        assert 0.0 <= dist["test"]["p_value"] <= 1.0
    assert rep["doubles"]["expected"] == rep["rolls"] / 6
    both = rep["rolls"] + client.get("/api/dice-stats", params={"name": "Bob"}).json()["report"]["rolls"]
    roll_events = sum(1 for e in hist["entries"] if e["kind"] == "roll")
    assert roll_events > 0 and both == roll_events
    assert client.get("/api/dice-stats", params={"name": "Nobody"}).status_code == 404
    assert client.get("/api/dice-stats", params={"name": ""}).status_code == 400
    assert client.get("/api/dice-stats").status_code == 400


def test_dice_stats_count_chouette_rolls(client):
    r = client.post(
        "/api/chouette", json={"name": "Zed", "seats": [{"bot": None}, {"bot": "greedy"}, {"bot": "greedy"}]}
    )
    tid, tok = r.json()["id"], r.json()["token"]
    rolled = 0
    for _ in range(8):
        s = client.get(f"/api/chouette/{tid}", headers={"x-seat-token": tok}).json()
        if "roll" in s["allowed"]:
            client.post(f"/api/chouette/{tid}/actions", json={"action": "roll"}, headers={"x-seat-token": tok})
            rolled += 1
        elif "move" in s["allowed"]:
            steps = moves_of(s)[0] if moves_of(s) else []
            client.post(
                f"/api/chouette/{tid}/actions", json={"action": "move", "steps": steps}, headers={"x-seat-token": tok}
            )
    doc = client.get("/api/dice-stats", params={"name": "Zed"}).json()
    assert rolled >= 1 and doc["report"]["rolls"] == rolled


def test_dancing_counted_against_the_position(client):
    from backgammon.position import Position

    # white on roll with a checker on the bar against a closed board: every roll dances
    closed = Position.from_points({"bar": 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}).position_id()
    r = client.post(
        "/api/tables",
        json={"mode": "human", "name": "Fay", "rules": {"match_length": 3}, "start": {"position_id": closed}},
    )
    tid, w = r.json()["id"], r.json()["token"]
    client.post(f"/api/tables/{tid}/join", json={"name": "Gus"})
    assert (
        client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers={"x-seat-token": w}).status_code
        == 200
    )
    rep = client.get("/api/dice-stats", params={"name": "Fay"}).json()["report"]
    assert rep["rolls"] == 1
    assert rep["dancing"]["observed"] == 1 and rep["dancing"]["expected"] == 1.0
