"""The optional match clock: a reserve per player after a per-move delay; time out loses the match."""

from __future__ import annotations

import datetime as _dt
import time

import pytest

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


# ------------------------------------------------ the wall clock stepped (issue 42)
DAY = _dt.timedelta(days=1)


def step_wall_clock(monkeypatch, offset: list[_dt.timedelta]) -> None:
    """The server's wall clock (``utcnow`` where the tables and their clocks read it) reads
    ``offset[0]`` away from the real one from now on (change ``offset[0]`` to step it again)."""
    from backgammon.server import db, game_clock, tables

    real = db.utcnow
    for module in (tables, game_clock):
        monkeypatch.setattr(module, "utcnow", lambda: real() + offset[0])


def test_a_wall_clock_stepped_back_or_forward_neither_stops_nor_spends_a_clock(client, monkeypatch):
    """Stepped back a day, the clock of the player to act still runs (it stood still for a day
    before, and showed -86,400 s elapsed); the move charges the time really spent; stepped forward
    a day, nobody loses a day of clock (nor the match on time)."""
    offset = [_dt.timedelta(0)]
    step_wall_clock(monkeypatch, offset)
    tid, tokens = clock_table(client, 1, 0)
    mover = state(client, tid)["game"]["turn"]
    other = "black" if mover == "white" else "white"
    began = time.monotonic()
    offset[0] = -DAY
    time.sleep(0.6)
    st = state(client, tid)
    spent = time.monotonic() - began
    assert st["clock"]["running"] == mover
    assert 60 - spent - 0.5 < st["clock"]["remaining"][mover] <= 59.5  # it ran, by the real time
    assert 0.5 <= st["clock"]["elapsed"] <= spent + 0.5
    moves = moves_of(state(client, tid, tokens[mover]))
    assert act(client, tid, tokens[mover], action="move", steps=moves[0]).status_code == 200
    spent = time.monotonic() - began
    st = state(client, tid)
    assert st["clock"]["running"] == other and st["clock"]["remaining"][other] == 60
    charged = 60 - st["clock"]["remaining"][mover]
    assert 0.5 <= charged <= spent + 0.5, (charged, spent)
    offset[0] = DAY  # two days forward from there
    time.sleep(0.3)
    st = state(client, tid)
    assert not st["match"]["over"] and st["clock"]["running"] == other
    assert 59 < st["clock"]["remaining"][other] < 60 and 60 - st["clock"]["remaining"][mover] == charged
    assert 0.2 <= st["clock"]["elapsed"] < 5


def test_the_reserves_and_the_deadline_are_stored_and_survive_a_restart(tmp_path, monkeypatch):
    """Each action of a clocked table stores the reserves after it and the running player's
    deadline; after a restart the reserves are the ones measured on the monotonic clock (the wall
    clock was stepped back a day during the turn: it charged nothing before), and the player to act
    has lost the time since the last action, the restart included."""
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    from backgammon.server.db import Action, database_url_for

    offset = [_dt.timedelta(0)]
    step_wall_clock(monkeypatch, offset)
    with make_client(tmp_path) as client:
        tid, tokens = clock_table(client, 1, 0)
        mover = state(client, tid)["game"]["turn"]
        other = "black" if mover == "white" else "white"
        offset[0] = -DAY
        time.sleep(0.8)
        moves = moves_of(state(client, tid, tokens[mover]))
        assert act(client, tid, tokens[mover], action="move", steps=moves[0]).status_code == 200
        moved = time.monotonic()
        reserve = state(client, tid)["clock"]["remaining"][mover]
        assert reserve < 59.3
    engine = create_engine(database_url_for(tmp_path))
    with Session(engine) as db:
        last = db.scalars(select(Action).where(Action.table_id == tid).order_by(Action.seq.desc())).first()
        assert last is not None
        entry = last.payload["clock"]
        assert entry[mover] == pytest.approx(reserve, abs=0.06) and entry[other] == 60
        deadline = _dt.datetime.fromisoformat(entry["deadline"])
        assert deadline == last.created_at + _dt.timedelta(seconds=60)  # the other's 60 s, no delay
    engine.dispose()
    time.sleep(0.5)
    with make_client(tmp_path) as client:
        st = state(client, tid)
        down = time.monotonic() - moved
        assert st["clock"]["running"] == other and not st["match"]["over"]
        assert st["clock"]["remaining"][mover] == pytest.approx(reserve, abs=0.06)
        assert 60 - down - 0.3 <= st["clock"]["remaining"][other] <= 60 - down + 0.3 + 0.5, down
        assert down - 1.0 <= st["clock"]["elapsed"] <= down + 0.3


def test_actions_stored_without_a_clock_entry_are_charged_by_their_stamps():
    """Tables stored before the entries: the time between stamps beyond the delay, as before; an
    entry replaces what came before it."""
    from types import SimpleNamespace

    from backgammon.game import Player
    from backgammon.server import game_clock

    t0 = _dt.datetime(2026, 1, 1, 12, 0, 0)
    at = [t0, t0 + _dt.timedelta(seconds=1), t0 + _dt.timedelta(seconds=21), t0 + _dt.timedelta(seconds=26)]
    table = SimpleNamespace(
        clock={"minutes": 1, "delay": 5},
        ai_seat=None,
        actions=[{"kind": "opening_roll"}, {"kind": "move"}, {"kind": "roll"}, {"kind": "move"}],
        turns=[None, Player.WHITE, Player.BLACK, Player.BLACK],
        stamps=at,
    )
    # white's move: 1 s, inside the delay; black's roll: 20 s, 15 charged; black's move: 5 s, none
    assert game_clock.reserves(table) == {Player.WHITE: 60.0, Player.BLACK: 45.0}
    table.actions[2] = {"kind": "roll", "clock": {"white": 58.0, "black": 50.5, "deadline": None}}
    assert game_clock.reserves(table) == {Player.WHITE: 58.0, Player.BLACK: 50.5}
