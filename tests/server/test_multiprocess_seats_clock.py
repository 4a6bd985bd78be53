"""Issue 42 across two server processes on one PostgreSQL database: logout-all asked of one process
revokes a chouette seat run by the other (the request forwarded to the owner, whose seated socket
is closed), and a clocked table shows the same clock on both processes (the reserves stored with
each action, the turn under way on each one's monotonic clock).

Runs on the throw-away PostgreSQL that ``scripts/test.sh`` starts (``BACKGAMMON_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import asyncio
import os
import time

import httpx
import pytest

from ._servers import Client, Server, owned
from ._wire import moves_of

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database"),
]
PW = "pw-123456"


def test_logout_all_on_one_process_revokes_a_chouette_seat_run_by_the_other(tmp_path, fresh_database):
    a = Server(tmp_path, "a", database_url=fresh_database, engine=False)
    b = Server(tmp_path, "b", database_url=fresh_database, engine=False)
    try:
        with httpx.Client(base_url=a.http, timeout=30) as on_a:
            assert on_a.post("/api/register", json={"username": "wanda", "password": PW}).status_code == 200
            made = on_a.post("/api/chouette", json={"seats": [{"bot": None}, {"bot": None}, {"bot": "greedy"}]})
            assert made.status_code == 200, made.text
            table, token = made.json()["id"], made.json()["token"]
            cookies = dict(on_a.cookies)
        guest = httpx.post(f"{b.http}/api/chouette/{table}/join", json={"name": "Bob"}, timeout=30)
        assert guest.status_code == 200, guest.text
        bob = guest.json()["token"]

        async def main() -> tuple[int, bool]:
            wanda = Client("wanda")
            await wanda.connect(a.ws, table, token, kind="chouette")  # a runs the chouette
            assert wanda.state is not None and wanda.state["you"] == "wanda"
            assert (owned(a), owned(b)) == (1, 0)
            async with httpx.AsyncClient(base_url=b.http, cookies=cookies, timeout=30) as on_b:
                r = await on_b.post("/api/logout-all")  # asked of b: forwarded to a
            assert r.status_code == 200, r.text
            assert wanda.reader is not None
            done, _ = await asyncio.wait({wanda.reader}, timeout=10)  # a closed the seated socket
            await wanda.close()
            return r.json()["seats"], bool(done)

        seats, closed = asyncio.run(main())
        assert seats == 1 and closed
        for server in (a, b):  # the old token opens nothing on either process; the guest's still does
            seen = httpx.get(f"{server.http}/api/chouette/{table}", headers={"x-seat-token": token}).json()
            assert seen["you"] is None, server.http
            theirs = httpx.get(f"{server.http}/api/chouette/{table}", headers={"x-seat-token": bob}).json()
            assert theirs["you"] == "Bob", server.http
        with httpx.Client(base_url=b.http, timeout=30) as on_b:  # logged in again on b: the seat back
            assert on_b.post("/api/login", json={"username": "wanda", "password": PW}).status_code == 200
            back = on_b.post(f"/api/chouette/{table}/seat")
            assert back.status_code == 200, back.text
        fresh = back.json()["token"]
        assert httpx.get(f"{a.http}/api/chouette/{table}", headers={"x-seat-token": fresh}).json()["you"] == "wanda"
    finally:
        a.stop()
        b.stop()


def test_a_clocked_table_shows_one_clock_on_both_processes(tmp_path, fresh_database):
    a = Server(tmp_path, "a", database_url=fresh_database, engine=False)
    b = Server(tmp_path, "b", database_url=fresh_database, engine=False)
    try:
        made = httpx.post(
            f"{a.http}/api/tables",
            json={"mode": "human", "name": "Ann", "rules": {"match_length": 3}, "clock": {"minutes": 1, "delay": 0}},
        )
        assert made.status_code == 200, made.text
        table = made.json()["id"]
        joined = httpx.post(f"{b.http}/api/tables/{table}/join", json={"name": "Bob"}, timeout=30)
        assert joined.status_code == 200, joined.text
        tokens = {made.json()["seat"]: made.json()["token"], joined.json()["seat"]: joined.json()["token"]}
        time.sleep(0.5)
        mover = httpx.get(f"{a.http}/api/tables/{table}").json()["game"]["turn"]
        other = "black" if mover == "white" else "white"
        mine = httpx.get(f"{b.http}/api/tables/{table}", headers={"x-seat-token": tokens[mover]}).json()
        moved = httpx.post(
            f"{b.http}/api/tables/{table}/actions",
            json={"action": "move", "steps": moves_of(mine)[0]},
            headers={"x-seat-token": tokens[mover]},
            timeout=30,
        )
        assert moved.status_code == 200, moved.text
        time.sleep(0.6)
        clocks = [httpx.get(f"{server.http}/api/tables/{table}").json()["clock"] for server in (a, b)]
        for clock in clocks:
            assert clock["running"] == other
            assert 58 < clock["remaining"][mover] < 59.6  # the move's time, charged once
            assert 58 < clock["remaining"][other] < 59.6  # the turn under way runs on both
            assert 0.4 <= clock["elapsed"] < 2.5
        assert clocks[0]["remaining"][mover] == clocks[1]["remaining"][mover]  # the stored reserve
        assert abs(clocks[0]["remaining"][other] - clocks[1]["remaining"][other]) <= 0.5
    finally:
        a.stop()
        b.stop()
