"""The review's chart data (issue 16 item 4): per game a series of White's winning chances and
the luck of each roll, per player PR overall, for checker play and for the cube.

Engine work at 0-ply (the review's default depth).
"""

from __future__ import annotations

from ._wire import moves_of
from .test_study_api import finished_game


def _play_match(client, length=3):
    """A human match from the opening: each side plays the first legal play; White doubles at
    its first chance and Black takes (so there are cube and take decisions)."""
    r = client.post("/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": length}})
    assert r.status_code == 200, r.text
    tid, w = r.json()["id"], r.json()["token"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    tokens = {"white": w, "black": b}
    doubled = False
    for _ in range(2000):
        st = client.get(f"/api/tables/{tid}").json()
        if st["match"]["over"]:
            return tid
        turn = st["game"]["turn"]
        st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tokens[turn]}).json()
        allowed = st["allowed"]
        if "move" in allowed:
            body = {"action": "move", "steps": moves_of(st)[0] if moves_of(st) else []}
        elif "take" in allowed:
            body = {"action": "take"}
        elif "double" in allowed and turn == "white" and not doubled:
            body, doubled = {"action": "double"}, True
        elif "roll" in allowed:
            body = {"action": "roll"}
        else:
            body = {"action": allowed[0]}
        r = client.post(f"/api/tables/{tid}/actions", json=body, headers={"x-seat-token": tokens[turn]})
        assert r.status_code == 200, r.text
    raise AssertionError("the match did not finish")


def _check_series(doc):
    decisions = doc["decisions"]
    assert doc["games"], "no game series"
    numbers = [g["game"] for g in doc["games"]]
    assert numbers == sorted({d["game"] for d in decisions})
    for g in doc["games"]:
        points = g["points"]
        assert points
        for p in points:
            d = decisions[p["decision"]]
            assert d["game"] == g["game"]
            assert 0.0 <= p["win"] <= 1.0
            # White's chance: the decider's own for White, the complement for Black
            expected = d["win"] if d["player"] == "White" else 1.0 - d["win"]
            assert abs(p["win"] - expected) < 1e-3
            if d["kind"] == "play":
                assert p["luck"] is not None and -3.0 <= p["luck"] <= 3.0
                assert abs(p["luck"] - (d["luck"] if d["player"] == "White" else -d["luck"])) < 1e-3
            else:
                assert p["luck"] is None
        assert [p["decision"] for p in points] == sorted(p["decision"] for p in points)
    for p in doc["players"].values():
        for key in ("pr", "pr_checker", "pr_cube"):
            assert p[key] >= 0.0
        assert 0.0 <= p["error_share"] <= 1.0
        assert "error_rate" not in p
        assert p["unforced"] >= p["unforced_plays"]
        assert abs(p["pr"] - 500.0 * p["total_error"] / max(p["unforced"], 1)) < 0.05


def test_race_review_has_a_series_ending_in_the_winners_favour(client):
    tid, _ = finished_game(client)
    doc = client.post(f"/api/study/reviews/{tid}").json()
    _check_series(doc)
    (game,) = doc["games"]
    st = client.get(f"/api/tables/{tid}").json()
    white_won = st["match"]["winner"] == "white"
    # after the last checker is borne off the winner's chance is certain
    assert game["points"][-1]["win"] == (1.0 if white_won else 0.0)
    assert client.get(f"/api/study/reviews/{tid}").json()["games"] == doc["games"]


def test_match_review_has_cube_decisions_and_pr_by_kind(client):
    tid = _play_match(client)
    doc = client.post(f"/api/study/reviews/{tid}").json()
    _check_series(doc)
    kinds = {d["kind"] for d in doc["decisions"]}
    assert {"play", "cube", "take"} <= kinds
    white = doc["players"]["White"]
    assert white["cube_decisions"] >= 1
    # first legal plays from the opening are far from the best: checker PR well above zero
    assert all(p["pr_checker"] > 0 for p in doc["players"].values())
