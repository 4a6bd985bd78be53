"""Quotas and isolation for expensive work (issue 42, item 2): budgets per client and address, rollouts
owned by their requester, batched presence, socket caps, chat across tables, and engine work on its
own pool so that session lookups never wait for it."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from backgammon.position import Position
from backgammon.server import pools, rollouts, rooms
from backgammon.server.http_errors import HTTPError
from backgammon.server.quotas import Quotas, parse_budgets

from .conftest import make_client, receive, table_socket
from .test_api import human_table


def refused(r, status: int = 429) -> dict:
    """The error body of a refused request: its status, stable code and when to try again."""
    assert r.status_code == status, r.text
    doc = r.json()
    if status == 429:
        assert doc["code"] == "too_many_requests" and doc["params"]["seconds"] >= 1, doc
    return doc


# -------------------------------------------------------------- budgets
def test_budget_per_hour_refuses_with_a_code_and_when_to_try_again():
    q = Quotas({"hints": [2, None]})
    q.charge("hints", "10.0.0.1")
    q.charge("hints", "10.0.0.1")
    with pytest.raises(HTTPError) as caught:
        q.charge("hints", "10.0.0.1")
    exc = caught.value
    assert exc.status == 429 and exc.code == "too_many_requests" and 3000 < exc.params["seconds"] <= 3600
    q.charge("hints", "10.0.0.2")  # another address has its own budget
    q.charge("hints", "10.0.0.1", user_id=5)  # an account at that address too...
    for user_id in (6, 6, 7, 7, 8):
        q.charge("hints", "10.0.0.1", user_id=user_id)
    with pytest.raises(HTTPError) as caught:  # ...until the address's own budget (4 x 2) is spent
        q.charge("hints", "10.0.0.1", user_id=8)
    assert "your address" in str(caught.value)


def test_work_at_once_is_given_back_once():
    q = Quotas({"analysis": [100, 1]})
    ticket = q.start("analysis", "a")
    with pytest.raises(HTTPError) as caught:
        q.start("analysis", "a")
    assert caught.value.status == 429 and caught.value.params["seconds"] >= 1
    ticket.release()
    ticket.release()  # (twice: still one place given back)
    with q.start("analysis", "a"):
        assert q.running
    assert not q.running


def test_places_are_taken_before_the_table_exists():
    """Creations at once cannot all pass the check before any of them is recorded (60 at once from
    one address made 30 tables, the hour's budget, when the place was taken after the table)."""
    q = Quotas({"ai_tables": [100, 2]})
    first = q.hold("ai_tables", "x", None, alive=lambda item: True)
    second = q.hold("ai_tables", "x", None, alive=lambda item: True)
    with pytest.raises(HTTPError) as caught:
        q.hold("ai_tables", "x", None, alive=lambda item: True)
    assert caught.value.status == 429
    second.drop()  # (its table could not be made)
    q.hold("ai_tables", "x", None, alive=lambda item: True).name("t2")
    first.name("t1")
    with pytest.raises(HTTPError):
        q.hold("ai_tables", "x", None, alive=lambda item: True)
    q.hold("ai_tables", "x", None, alive=lambda item: item != "t1")  # t1 is over: its place is free


def test_budget_options_are_checked():
    assert parse_budgets(["hints=100/2", "reviews=5"]) == {"hints": [100, 2], "reviews": [5, None]}
    for bad in ("nope=1", "hints=x", "hints=0", "hints=5/0"):
        with pytest.raises(ValueError):
            parse_budgets([bad])


def test_listed_tables_per_address(tmp_path: Path):
    with make_client(tmp_path, budgets={"listed_tables": [3, None]}) as client:
        for _ in range(3):
            r = client.post("/api/tables", json={"mode": "human", "name": "Spam", "listed": True})
            assert r.status_code == 200, r.text
        refused(client.post("/api/tables", json={"mode": "human", "name": "Spam", "listed": True}))
        assert len(client.get("/api/tables").json()) == 3
        # an unlisted table is not a listed one
        assert client.post("/api/tables", json={"mode": "human", "name": "Ann"}).status_code == 200


def test_tables_against_the_computer_at_once(tmp_path: Path):
    with make_client(tmp_path, budgets={"ai_tables": [100, 2]}, address_factor=2) as client:
        for _ in range(2):
            assert client.post("/api/tables", json={"mode": "ai", "level": "greedy"}).status_code == 200
        doc = refused(client.post("/api/tables", json={"mode": "ai", "level": "greedy"}))
        assert "unfinished" in doc["error"]
        # an account at the same address has its own share (the address's is 2 x 2)
        client.post("/api/register", json={"username": "carla", "password": "long enough pw"})
        for _ in range(2):
            assert client.post("/api/tables", json={"mode": "ai", "level": "greedy"}).status_code == 200
        refused(client.post("/api/tables", json={"mode": "ai", "level": "greedy"}))


def test_dice_stats_budget_and_cache(tmp_path: Path, monkeypatch):
    from backgammon.server import player_dice

    calls: list[str] = []
    real = player_dice.player_report

    def counted(sessions, name):
        calls.append(name)
        return real(sessions, name)

    monkeypatch.setattr(player_dice, "player_report", counted)
    with make_client(tmp_path, budgets={"dice_stats": [2, 1]}) as client:
        tid, w, _b = human_table(client, rules={"match_length": 1})
        client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers={"x-seat-token": w})
        assert client.get("/api/dice-stats", params={"name": "Ann"}).status_code in (200, 404)
        first = len(calls)
        client.get("/api/dice-stats", params={"name": "Ann"})  # nothing stored since: the kept report
        assert len(calls) == first == 1
        assert client.get("/api/dice-stats", params={"name": "Nobody"}).status_code == 404
        refused(client.get("/api/dice-stats", params={"name": "Somebody"}))
        assert calls == ["Ann", "Nobody"]


def test_dice_stats_replays_a_bounded_number_of_tables(monkeypatch):
    from backgammon.server import player_dice

    assert player_dice.MAX_REPLAYED <= 200 < player_dice.MAX_TABLES


# -------------------------------------------------------------- rollouts
def _fake_rollouts(monkeypatch) -> threading.Event:
    """Rollouts without the engine: the candidates are the legal plays; a job runs until released
    (or cancelled: its progress callback raises then)."""
    release = threading.Event()

    class Ranked:
        def __init__(self, play):
            self.play, self.label = play, "0-ply cubeful money"

    def rank(setup, plies):
        return [Ranked(p) for p in list(setup.position.legal_plays(*setup.dice))[:3]]

    def rollout_plays(position, dice, evaluator, settings, plays, progress, partial):
        done = 0
        while not release.wait(0.01):
            done += 1
            progress(done, 10**6)
        return []

    import backgammon.engine.rollout as engine_rollout

    monkeypatch.setattr(rollouts, "ranked_plays", rank)
    monkeypatch.setattr(rollouts, "evaluator", lambda: None)
    monkeypatch.setattr(engine_rollout, "rollout_plays", rollout_plays)
    return release


SETUP = {"mine": list(Position.initial().mine), "theirs": list(Position.initial().theirs), "dice": [5, 2]}


def _poll(client, job_id: str, status: str) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job = client.get(f"/api/study/rollouts/{job_id}").json()
        if job["status"] == status:
            return job
        time.sleep(0.02)
    raise AssertionError(f"rollout {job_id} never became {status}: {job}")


def test_a_rollout_is_owned_by_its_requester(tmp_path: Path, monkeypatch):
    release = _fake_rollouts(monkeypatch)
    try:
        with make_client(tmp_path) as client:
            r = client.post("/api/study/rollouts", json={"setup": SETUP, "top": 2, "trials": 36})
            assert r.status_code == 200, r.text
            job = r.json()
            token = job.pop("token")
            assert "token" not in client.get(f"/api/study/rollouts/{job['id']}").json()
            # a second one at once from the same client is refused: one client cannot take every slot
            refused(client.post("/api/study/rollouts", json={"setup": SETUP, "top": 1, "trials": 36}))
            # nobody else can cancel it
            for headers in ({}, {"x-rollout-token": "guess"}):
                doc = refused(client.post(f"/api/study/rollouts/{job['id']}/cancel", headers=headers), 403)
                assert doc["code"] == "not_your_rollout"
            assert client.get(f"/api/study/rollouts/{job['id']}").json()["status"] == "running"
            refused(client.post("/api/study/rollouts/nope/cancel", headers={"x-rollout-token": token}), 404)
            # its owner can; the slot comes back
            r = client.post(f"/api/study/rollouts/{job['id']}/cancel", headers={"x-rollout-token": token})
            assert r.status_code == 200, r.text
            assert _poll(client, job["id"], "cancelled")["error"] == "cancelled by its owner"
            r = client.post("/api/study/rollouts", json={"setup": SETUP, "top": 1, "trials": 36})
            assert r.status_code == 200, r.text
    finally:
        release.set()


# -------------------------------------------------------------- sockets
def test_presence_is_batched(tmp_path: Path, monkeypatch):
    """N spectators joining: one presence message per interval to each watcher, not one per join
    (the interval made long here, so that every join after the first waits in the one due)."""
    monkeypatch.setattr(rooms, "PRESENCE_EVERY", 60.0)
    joins = 12
    with make_client(tmp_path) as client:
        tid, _w, _b = human_table(client)
        sockets = []
        try:
            for _ in range(joins):
                ws = client.websocket_connect(f"/ws/tables/{tid}").__enter__()
                ws.send_json({"type": "hello", "token": None})
                sockets.append(ws)
                assert ws.receive_json()["type"] == "state"
            presence = 0
            for ws in sockets:
                ws.send_json({"type": "ping"})
                while (doc := ws.receive_json())["type"] != "pong":
                    presence += doc["type"] == "presence"
            # one message per join to every watcher would be joins * (joins - 1) / 2 = 66
            assert presence <= 1, presence
        finally:
            for ws in sockets:
                ws.__exit__(None, None, None)


def test_throttle_calls_once_then_once_per_interval():
    calls: list[object] = []

    async def run() -> None:
        throttle = rooms.Throttle(calls.append, every=0.05)
        for i in range(100):
            throttle(i)
        assert calls == [0]  # the first at once, with its argument; the 99 others are due together
        await asyncio.sleep(0.2)
        assert calls == [0, None]

    asyncio.run(run())


def _refused_socket(ws) -> dict:
    doc = ws.receive_json()
    assert doc["type"] == "error" and doc["code"] == "too_many_requests" and doc["params"]["seconds"] >= 1, doc
    with pytest.raises(WebSocketDisconnect):
        ws.receive_json()
    return doc


def test_spectators_per_table_and_sockets_per_address(tmp_path: Path):
    with make_client(tmp_path, spectators_per_table=2, sockets_per_address=4) as client:
        tid, w, _b = human_table(client)
        with table_socket(client, tid) as a, table_socket(client, tid) as b:
            assert receive(a)["type"] == "state" and receive(b)["type"] == "state"
            with table_socket(client, tid) as c:
                assert "spectators" in _refused_socket(c)["message"]
            with table_socket(client, tid, w) as player:  # a player is not a spectator
                assert receive(player)["type"] == "state"
                other, *_ = human_table(client)
                with table_socket(client, other) as d:
                    assert receive(d)["type"] == "state"  # the fourth connection from this address
                    with client.websocket_connect(f"/ws/tables/{other}") as e:  # the fifth
                        assert "connections from your address" in _refused_socket(e)["message"]
        with table_socket(client, tid) as again:  # closed ones are given back
            assert receive(again)["type"] == "state"


def test_chat_flood_is_limited_across_tables(tmp_path: Path):
    with make_client(tmp_path, chat_per_minute=3) as client:
        one, w1, _ = human_table(client)
        two, w2, _ = human_table(client)
        with table_socket(client, one, w1) as a, table_socket(client, two, w2) as b:
            receive(a), receive(b)
            for ws, text in ((a, "one"), (b, "two"), (a, "three")):
                ws.send_json({"type": "chat", "text": text})
                assert receive(ws)["type"] == "chat"
            b.send_json({"type": "chat", "text": "four"})
            doc = receive(b)
            assert doc["type"] == "error" and doc["code"] == "too_many_requests", doc


def test_a_socket_that_floods_is_closed(tmp_path: Path):
    with make_client(tmp_path, socket_messages_per_second=5) as client:
        tid, w, _ = human_table(client)
        with table_socket(client, tid, w) as ws:
            assert receive(ws)["type"] == "state"
            for _ in range(30):
                ws.send_json({"type": "ping"})
            seen = []
            with pytest.raises(WebSocketDisconnect):
                while True:
                    seen.append(ws.receive_json())
            errors = [d for d in seen if d["type"] == "error"]
            assert errors and errors[-1]["code"] == "too_many_requests"
            assert sum(d["type"] == "pong" for d in seen) <= 5


# ---------------------------------------------------------------- pools
def test_session_lookup_answers_while_the_engine_pool_is_blocked(tmp_path: Path, monkeypatch):
    from backgammon.server.api import common

    threads: list[str] = []
    real = common.session_user

    def lookup(sessions, token):
        threads.append(threading.current_thread().name)
        return real(sessions, token)

    monkeypatch.setattr(common, "session_user", lookup)
    release = threading.Event()
    with make_client(tmp_path, engine_threads=2) as client:
        blocked = [pools.engine_pool().submit(release.wait, 30) for _ in range(pools.engine_threads())]
        try:
            # every engine thread is busy: a hint waits for one, a session lookup does not
            client.post("/api/register", json={"username": "dora", "password": "long enough pw"})
            for _ in range(5):
                assert client.get("/api/me").json()["username"] == "dora"
            assert not any(f.done() for f in blocked)
            assert threads and all(name.startswith("db") for name in threads), threads
        finally:
            release.set()


def test_engine_work_runs_on_the_engine_pool(tmp_path: Path, monkeypatch):
    from backgammon.server.api import tables as api_tables

    seen: list[bool] = []

    def hints(table, seat):
        seen.append(pools.on_engine_thread())
        return {"type": "hints", "plays": []}

    monkeypatch.setattr(api_tables, "hints_for", hints)
    with make_client(tmp_path, test_hooks=True, budgets={"hints": [100, 1]}) as client:
        doc = client.post("/api/tables", json={"mode": "ai", "level": "greedy", "seat": "white"}).json()
        r = client.post(f"/api/tables/{doc['id']}/hint", headers={"x-seat-token": doc["token"]})
        assert r.status_code == 200, r.text
    assert seen == [True]


def test_a_thinking_search_stops_at_its_deadline(monkeypatch):
    """The computer's search checks its deadline (engine.search.time_limit): the thread that thinks
    is free again, not left running after the quick player answered."""
    from backgammon.engine import search
    from backgammon.engine.players import EngineAgent
    from backgammon.game import Game, GamePhase, OpeningRoll, Player
    from backgammon.server import tables

    agent = EngineAgent("world_class", seed=1)
    if not agent.uses_engine:
        pytest.skip("the engine is not available")
    ended: list[str] = []

    def endless_search(position, dice, level, rng, evaluator, cube):
        try:
            for _ in range(3000):  # 30 s, unless the deadline stops it
                search._check_time()
                time.sleep(0.01)
            ended.append("ran to its end")
        except search.SearchTimeout:
            ended.append("stopped at the deadline")
            raise

    class Levels:
        get_level = staticmethod(agent._levels.get_level)
        choose_play = staticmethod(endless_search)

    agent._levels = Levels()
    game = Game.new().apply(OpeningRoll(4, 2))  # white rolled higher: white plays 4-2
    assert game.turn is Player.WHITE and game.phase is GamePhase.MOVE
    pools.configure(1)

    async def run() -> None:
        action = await tables.think(agent, game, Player.WHITE, False, 0.3, "t")
        assert action.player is Player.WHITE  # the quick player's move
        # the one engine thread is free again: this runs at once, not after the 30 s search
        assert await asyncio.wait_for(pools.run_engine(lambda: "free"), 10) == "free"

    try:
        asyncio.run(run())
    finally:
        pools.configure(pools.ENGINE_THREADS)
    assert ended == ["stopped at the deadline"]
    assert agent.uses_engine  # running out of time is not a broken engine


def test_search_time_limit_in_the_engine():
    from backgammon.engine import search
    from backgammon.engine.evaluator import NetEvaluator

    context = search.EvalContext(NetEvaluator.default(), 2, None)
    with search.time_limit(time.monotonic() - 1):
        with pytest.raises(search.SearchTimeout):
            search.rank_plays(Position.initial(), (3, 1), context)
        with pytest.raises(search.SearchTimeout):
            search.decide_cube(Position.initial(), context)
    with search.time_limit(time.monotonic() + 600):  # under a far deadline: the same ranking
        limited = search.rank_plays(Position.initial(), (3, 1), context)
    plain = search.rank_plays(Position.initial(), (3, 1), context)
    assert [(str(r.play), r.equity) for r in limited] == [(str(r.play), r.equity) for r in plain]
