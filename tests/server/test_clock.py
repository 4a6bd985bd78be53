"""The optional match clock: a reserve per player after a per-move delay; time out loses the match."""

from __future__ import annotations

import time

from ._wire import moves_of
from .conftest import make_client
from .test_api import act, state


def clock_table(client, minutes, delay):
    r = client.post(
        "/api/tables",
        json={
            "mode": "human",
            "name": "Ann",
            "rules": {"match_length": 3},
            "clock": {"minutes": minutes, "delay": delay},
        },
    )
    assert r.status_code == 200, r.text
    w = r.json()
    b = client.post(f"/api/tables/{w['id']}/join", json={"name": "Bob"}).json()
    return w["id"], {"white": w["token"], "black": b["token"]}


def test_bad_clock(client):
    for clock in ({"minutes": 0}, {"minutes": 500}, {"minutes": 5, "delay": -1}, {"minutes": "5"}, [5], {"hours": 1}):
        r = client.post("/api/tables", json={"mode": "human", "clock": clock})
        assert r.status_code == 400 and "invalid clock" in r.json()["error"], clock


def test_clock_runs_for_the_side_to_act(client):
    tid, tokens = clock_table(client, 1, 0)
    st = state(client, tid)
    mover = st["game"]["turn"]
    assert st["clock"]["running"] == mover
    time.sleep(0.3)
    st = state(client, tid)
    other = "black" if mover == "white" else "white"
    assert st["clock"]["remaining"][mover] < 60 and st["clock"]["remaining"][other] == 60
    moves = moves_of(state(client, tid, tokens[mover]))
    assert act(client, tid, tokens[mover], action="move", steps=moves[0]).status_code == 200
    st = state(client, tid)
    assert st["clock"]["running"] == other
    assert 58 < st["clock"]["remaining"][mover] < 60


def test_delay_is_free(client):
    tid, _tokens = clock_table(client, 1, 30)
    time.sleep(0.3)
    st = state(client, tid)
    assert st["clock"]["remaining"] == {"white": 60, "black": 60}


def test_time_out_loses_the_match_and_survives_restart(tmp_path):
    with make_client(tmp_path) as client:
        tid, tokens = clock_table(client, 0.05, 0)  # 3 seconds each
        mover = state(client, tid)["game"]["turn"]
        other = "black" if mover == "white" else "white"
        for _ in range(100):
            st = state(client, tid)
            if st["match"]["over"]:
                break
            time.sleep(0.1)
        assert st["match"]["over"] and st["match"]["timeout"] == mover and st["match"]["winner"] == other
        assert st["table"]["status"] == "over" and st["allowed"] == [] and st["clock"]["running"] is None
        r = act(client, tid, tokens[mover], action="move", steps=[])
        assert r.status_code == 409
        hist = client.get(f"/api/tables/{tid}/history").json()
        assert hist["entries"][-1]["kind"] == "timeout" and hist["entries"][-1]["text"] == "loses on time"
    with make_client(tmp_path) as client:
        st = state(client, tid)
        assert st["match"]["over"] and st["match"]["timeout"] == mover
