"""A whole match against the computer through the REST API, from the opening position to the end."""

from __future__ import annotations

import random
import time

from ._wire import moves_of
from .test_api import act, state


def test_three_point_match_against_the_engine(client):
    rng = random.Random(5)
    r = client.post("/api/tables", json={"mode": "ai", "level": "expert", "rules": {"match_length": 3}})
    tid, tok = r.json()["id"], r.json()["token"]
    deadline = time.time() + 240
    actions = 0
    while time.time() < deadline:
        st = state(client, tid, tok)
        if st["match"]["over"]:
            break
        allowed = st["allowed"]
        if not allowed:  # the computer is thinking
            time.sleep(0.01)
            continue
        if "move" in allowed:
            res = act(client, tid, tok, action="move", steps=rng.choice(moves_of(st)), version=st["version"])
        elif "take" in allowed:
            res = act(client, tid, tok, action="take")
        elif "accept_resignation" in allowed:
            res = act(client, tid, tok, action="accept_resignation")
        else:
            res = act(client, tid, tok, action="roll")
        assert res.status_code == 200, res.text
        actions += 1
    st = state(client, tid)
    assert st["match"]["over"], "the match did not finish in time"
    score = st["match"]["score"]
    assert max(score.values()) >= 3 and st["match"]["winner"] in ("white", "black")
    hist = client.get(f"/api/tables/{tid}/history").json()
    games = {e["game"] for e in hist["entries"][1:]}
    assert len(games) >= 2 or max(score.values()) >= 3
    assert actions > 10
    # every game's points add up to the final score
    assert sum(1 for e in hist["entries"] if e["kind"] == "opening_roll") >= len(games)
