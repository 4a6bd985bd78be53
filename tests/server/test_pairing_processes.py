"""Quick pairing across the processes of one site (real servers on one PostgreSQL database): two
players whose requests reach two different processes meet in the one queue and play at one table.

Runs on the throw-away PostgreSQL that ``scripts/test.sh`` starts (``BACKGAMMON_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import asyncio
import os

import httpx
import pytest

from ._servers import Client, Server, play

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database"),
]


def seek(server: Server, **doc) -> dict:
    r = httpx.post(f"{server.http}/api/pair", json=doc, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def ask(server: Server, request: dict, method: str = "GET") -> dict:
    r = httpx.request(
        method, f"{server.http}/api/pair/{request['id']}", headers={"x-seat-token": request["token"]}, timeout=30
    )
    assert r.status_code == 200, r.text
    return r.json()


def test_two_players_paired_through_two_processes(tmp_path, fresh_database):
    # (the computer plays no part: the processes need not wait for the engine's warm-up)
    a = Server(tmp_path, "a", database_url=fresh_database, engine=False)
    try:
        b = Server(tmp_path, "b", database_url=fresh_database, engine=False)
    except BaseException:
        a.kill()
        raise
    try:
        ann = seek(a, length=3, clock=0, name="Ann")
        assert ann["status"] == "waiting"
        assert seek(b, length=5, clock=0, name="Zed")["status"] == "waiting"  # another game: not Ann's match
        assert ask(b, ann)["status"] == "waiting"  # either process knows the one queue
        bob = seek(b, length=3, clock=0, name="Bob")
        assert bob["status"] == "paired", bob
        ann_now = ask(a, ann)
        assert ann_now["status"] == "paired" and ann_now["table"] == bob["table"]
        assert {ann_now["seat"], bob["seat"]} == {"white", "black"}
        table = bob["table"]
        # a cancel reaches the queue from the other process too
        cid = seek(a, length=7, clock=5, name="Cid")
        assert ask(b, cid, "DELETE")["status"] == "cancelled"
        assert seek(b, length=7, clock=5, name="Dee")["status"] == "waiting"

        async def main():
            white, black = Client("white"), Client("black")
            tokens = {ann_now["seat"]: ann["token"], bob["seat"]: bob["token"]}
            servers = {ann_now["seat"]: a, bob["seat"]: b}
            await white.connect(servers["white"].ws, table, tokens["white"])
            await black.connect(servers["black"].ws, table, tokens["black"])
            assert white.state["you"] == "white" and black.state["you"] == "black"
            last = await play({"white": white, "black": black}, stop_after=6)
            await white.wait(lambda s: s["version"] >= last)
            names = white.state["table"]["names"]
            for client in (white, black):
                await client.close()
            return names

        names = asyncio.run(main())
        assert {names[ann_now["seat"]], names[bob["seat"]]} == {"Ann", "Bob"}
        live = httpx.get(f"{a.http}/api/live").json()
        assert [row["id"] for row in live] == [table]
    finally:
        a.stop()
        b.stop()
