"""Computer players at a chouette table: they finish games even when they disagree about the cube.

The chouette page offers the quick (greedy) player beside the engine levels. The engine's
captain doubles where the quick player, a team member, refuses (and the other way round):
a refused double must not be offered again that turn, or the table never ends.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from sqlalchemy import select

from backgammon.engine import players as agents
from backgammon.server import chouette_tables
from backgammon.server.db import Action, database_url_for, open_database

from ._wire import moves_of
from .conftest import make_client

# what the chouette page offers: the quick player and the two fastest engine levels (0-ply)
DISAGREEING = [{"bot": None}, {"bot": "greedy"}, {"bot": "beginner"}, {"bot": "casual"}]


@pytest.fixture
def seeded_agents(monkeypatch):
    """Computer players with fixed seeds (their noise), so that a dice seed fixes the whole table."""
    monkeypatch.setattr(chouette_tables, "make_agent", lambda level, seed=None: agents.make_agent(level, seed=11))
    # a first engine call may compile kernels for tens of seconds on a loaded machine: no fallback here
    monkeypatch.setattr(chouette_tables, "BOT_ACTION_TIMEOUT", 300.0)


def stored(data_dir, table_id):
    """The table's stored actions, in order."""
    with open_database(database_url_for(data_dir))() as db:
        rows = db.scalars(select(Action).where(Action.table_id == table_id).order_by(Action.seq)).all()
        return [a.payload for a in rows]


def play_person(client, tid, token, *, games, seconds, until=None):
    """The person plays simply (rolls, first legal play, consents, takes, never doubles) while
    the computers do the rest, until ``games`` games are over; returns (state, polls)."""
    headers = {"x-seat-token": token}
    start = time.monotonic()
    polls = 0
    while True:
        s = client.get(f"/api/chouette/{tid}", headers=headers).json()
        polls += 1
        if len(s["games"]) >= games or s["status"] != "playing" or (until and until(s)):
            return s, polls
        assert time.monotonic() - start < seconds, f"no end after {seconds} s: {s['version']} actions, {s['stage']}"
        allowed = [a for a in s["allowed"] if a != "suggest"]
        if not allowed:  # the computers are acting (in the background)
            time.sleep(0.01)
            continue
        doc = {"version": s["version"]}
        kind = next((k for k in ("consent", "take", "roll") if k in allowed), "move")
        doc["action"] = kind
        if kind == "move":
            doc["steps"] = moves_of(s)[0] if moves_of(s) else []
        r = client.post(f"/api/chouette/{tid}/actions", json=doc, headers=headers)
        assert r.status_code == 200 or "stale action" in r.json()["error"], r.text


def test_computers_that_disagree_about_the_cube_finish_games(tmp_path, seeded_agents):
    started = time.monotonic()
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:
        r = client.post("/api/chouette", json={"name": "Ann", "seats": DISAGREEING})
        assert r.status_code == 200, r.text
        tid, token = r.json()["id"], r.json()["token"]
        # at least 3 games, and on until the computers have disagreed about a team double (which
        # games it happens in depends on the engine's cube decisions and on how the polls interleave
        # with the computers' background loop: a CI run under load played 12 games without one; 40 at most)

        def disagreed(s) -> bool:  # a refusal, and what came after it
            kinds = [a["kind"] for a in stored(tmp_path, tid)][: s["version"]]
            return len(s["games"]) >= 3 and "refuse" in kinds[:-1]

        s, polls = play_person(client, tid, token, games=40, seconds=300, until=disagreed)
    elapsed = time.monotonic() - started
    games = len(s["games"])
    assert s["status"] == "playing" and games >= 3, s["status"]
    assert sum(p["score"] for p in s["players"]) == 0
    actions = stored(tmp_path, tid)  # (the computers may have gone on into the next game meanwhile)
    assert len(actions) >= s["version"]
    actions = actions[: s["version"]]
    assert len(actions) < (games + 1) * 400, "games of real length"
    kinds = [a["kind"] for a in actions]
    assert "refuse" in kinds, "the computers disagreed about a team double at least once"
    # after a refusal the captain rolls (or the game goes on); the double is never offered again that turn
    for i, kind in enumerate(kinds):
        if kind == "refuse":
            after = next((k for k in kinds[i + 1 :] if k != "suggest"), None)
            assert after in ("roll", None), (i, kinds[i - 3 : i + 3])  # None: the refusal ended the list
    assert elapsed < 300 and polls < 50000
    print(f"{games} games, {len(actions)} actions, {kinds.count('refuse')} refusals, {elapsed:.1f} s")


def test_a_stuck_game_stops_the_table_loudly(tmp_path, monkeypatch, seeded_agents, caplog):
    monkeypatch.setattr(chouette_tables, "MAX_GAME_ACTIONS", 12)  # as if no game could end
    caplog.set_level(logging.ERROR, logger="backgammon.server")
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:
        seats = [{"bot": None}, {"bot": "greedy"}, {"bot": "greedy"}]
        r = client.post("/api/chouette", json={"name": "Ann", "seats": seats})
        tid, token = r.json()["id"], r.json()["token"]
        s, _ = play_person(client, tid, token, games=1, seconds=30)
        assert s["status"] == "error" and not s["games"]
        assert any("stopped" in rec.getMessage() and "without ending" in rec.getMessage() for rec in caplog.records)
        stopped_at = s["version"]
        assert stopped_at >= 12
        r = client.post(f"/api/chouette/{tid}/actions", json={"action": "roll"}, headers={"x-seat-token": token})
        assert r.status_code == 409 and "stopped on an error" in r.json()["error"]
        time.sleep(0.2)
        assert client.get(f"/api/chouette/{tid}").json()["version"] == stopped_at  # polls restart nothing
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:  # after a restart too
        for _ in range(3):
            s = client.get(f"/api/chouette/{tid}").json()
            time.sleep(0.05)
        assert s["status"] == "error" and s["version"] == stopped_at


class SlowAgent(agents.GreedyAgent):
    """A computer player that thinks far too long about its plays."""

    def choose_play(self, position, dice, cube=None):
        time.sleep(1.0)
        return super().choose_play(position, dice, cube)


def test_a_slow_computer_is_answered_for_by_the_quick_player(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(chouette_tables, "BOT_ACTION_TIMEOUT", 0.1)

    def make(level, seed=None):
        return SlowAgent(1) if level == "beginner" else agents.make_agent(level, 2)

    monkeypatch.setattr(chouette_tables, "make_agent", make)
    caplog.set_level(logging.WARNING, logger="backgammon.server")
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:
        seats = [{"bot": None}, {"bot": "beginner"}, {"bot": "greedy"}]
        r = client.post("/api/chouette", json={"name": "Ann", "seats": seats})
        tid, token = r.json()["id"], r.json()["token"]
        started = time.monotonic()

        def slow_one_moved(s):
            return any(a.get("by") == "Computer 1" and a["kind"] == "move" for a in stored(tmp_path, tid))

        s, _ = play_person(client, tid, token, games=1, seconds=30, until=slow_one_moved)
        assert s["status"] == "playing"
    assert time.monotonic() - started < 30
    slow = [rec.getMessage() for rec in caplog.records if "took over 0.1 s" in rec.getMessage()]
    assert slow and "Computer 1 (greedy)" in slow[0] and "the quick player answers" in slow[0]


def test_polls_never_start_a_second_loop(tmp_path, monkeypatch, seeded_agents):
    """While the computers go on in the background, polling the table starts no second loop."""
    running = {"now": 0, "most": 0, "started": 0}
    original = chouette_tables.ChouetteManager._later

    async def counted(self, table):
        running["now"] += 1
        running["started"] += 1
        running["most"] = max(running["most"], running["now"])
        try:
            await original(self, table)
        finally:
            running["now"] -= 1

    monkeypatch.setattr(chouette_tables.ChouetteManager, "_later", counted)
    slow_engine = chouette_tables.ChouetteManager._bot_decision

    def slower(agent, c, name):  # each computer action takes a while: polls land in the middle of the loop
        time.sleep(0.005)
        return slow_engine(agent, c, name)

    monkeypatch.setattr(chouette_tables.ChouetteManager, "_bot_decision", staticmethod(slower))
    with make_client(tmp_path, test_hooks=True, dice_seed=5) as client:
        r = client.post("/api/chouette", json={"name": "Ann", "seats": DISAGREEING})
        tid, token = r.json()["id"], r.json()["token"]
        # at least two games and a background loop (whether the computers open a new game depends on
        # how the person's polls interleave with them, which decides the dice each action draws)
        s, polls = play_person(
            client, tid, token, games=8, seconds=90, until=lambda s: len(s["games"]) >= 2 and running["started"]
        )
        assert len(s["games"]) >= 2 and polls > 10
    assert running["started"] >= 1 and running["most"] == 1, running


def test_bot_loop_runs_decisions_off_the_event_loop(tmp_path, monkeypatch, seeded_agents):
    loops = []
    decision = chouette_tables.ChouetteManager._bot_decision

    def record(agent, c, name):
        try:
            asyncio.get_running_loop()
            loops.append("on the loop")
        except RuntimeError:
            loops.append("off the loop")
        return decision(agent, c, name)

    monkeypatch.setattr(chouette_tables.ChouetteManager, "_bot_decision", staticmethod(record))
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:
        seats = [{"bot": None}, {"bot": "greedy"}, {"bot": "greedy"}]
        r = client.post("/api/chouette", json={"name": "Ann", "seats": seats})
        tid, token = r.json()["id"], r.json()["token"]
        play_person(client, tid, token, games=1, seconds=30)
    assert loops and set(loops) == {"off the loop"}


def test_a_person_captain_refused_by_a_computer_must_roll(tmp_path, seeded_agents):
    with make_client(tmp_path, test_hooks=True, dice_seed=7) as client:
        seats = [{"bot": "greedy"}, {"bot": None}, {"bot": "greedy"}]  # Ann captains; the quick player is her team
        r = client.post("/api/chouette", json={"name": "Ann", "seat": 1, "seats": seats})
        tid, token = r.json()["id"], r.json()["token"]
        headers = {"x-seat-token": token}
        s, _ = play_person(client, tid, token, games=1, seconds=30, until=lambda s: "double" in s["allowed"])
        assert s["captain"] == "Ann" and s["game"]["phase"] == "roll" and not s["games"]
        r = client.post(f"/api/chouette/{tid}/actions", json={"action": "double"}, headers=headers)
        assert r.status_code == 200, r.text
        s = r.json()  # the opening position is no race: the quick player refuses at once
        assert s["stage"] == "playing" and s["pending"] == [] and s["game"]["cube"]["offered_by"] is None
        assert s["allowed"] == ["roll"] and s["game"]["cube"]["value"] == 1
        r = client.post(f"/api/chouette/{tid}/actions", json={"action": "double"}, headers=headers)
        assert r.status_code == 409 and "refused the captain's double this turn" in r.json()["error"]
        assert client.post(f"/api/chouette/{tid}/actions", json={"action": "roll"}, headers=headers).status_code == 200
    kinds = [a["kind"] for a in stored(tmp_path, tid)]
    assert kinds[-3:-1] == ["double", "refuse"] and kinds[-1] == "roll"
