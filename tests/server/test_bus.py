"""The site's bus and room leases: in-process, and on a real PostgreSQL across processes.

The PostgreSQL half runs when BACKGAMMON_TEST_DATABASE_URL names a scratch database (the
test command, scripts/test.sh, starts one).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from backgammon.errors import InvalidInputError
from backgammon.server.bus import (
    MAX_PAYLOAD,
    LocalBus,
    LocalLeases,
    PostgresBus,
    PostgresLeases,
    _batches,
    _unpack,
    bus_for,
    encode,
    lock_key,
    psycopg_url,
)

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
needs_pg = pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database")


async def _wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


def test_local_bus_delivers_after_publish_returns_and_isolates_failures():
    async def main():
        bus = LocalBus()
        await bus.start()
        got, other = [], []

        def broken(message):
            raise RuntimeError("subscriber bug")

        bus.subscribe("room:a", broken)
        unsubscribe = bus.subscribe("room:a", got.append)
        bus.subscribe("room:b", other.append)
        message = {"version": 3, "event": {"kind": "roll", "dice": [3, 1]}}
        await bus.publish("room:a", message)
        assert got == []  # never delivered inside publish
        await _wait_for(lambda: got)
        assert got == [message] and got[0] is not message and other == []
        unsubscribe()
        await bus.publish("room:a", {"version": 4})
        await asyncio.sleep(0.05)
        assert got == [message]
        with pytest.raises(InvalidInputError, match="too large"):
            await bus.publish("room:a", {"blob": "x" * MAX_PAYLOAD})
        await bus.close()

    asyncio.run(main())


def test_publish_many_keeps_order_packs_payloads_and_leaves_out_only_an_oversized_message(caplog):
    async def main():
        bus = LocalBus()
        got = []
        bus.subscribe("room:a", got.append)
        bus.subscribe("room:b", got.append)
        items = [("room:a" if i % 2 else "room:b", {"version": i, "pad": "y" * 300}) for i in range(60)]
        items.insert(7, ("room:a", {"blob": "x" * MAX_PAYLOAD}))  # too large alone: left out, logged
        await bus.publish_many(items)
        await _wait_for(lambda: len(got) == 60)
        assert [m["version"] for m in got] == list(range(60))

    asyncio.run(main())
    assert "left out" in caplog.text
    texts = [encode("t", {"i": i, "pad": "z" * 500}) for i in range(40)]
    payloads = _batches([("t", {"i": i, "pad": "z" * 500}) for i in range(40)], "tag")
    assert 1 < len(payloads) < 40 and all(len(p.encode()) <= MAX_PAYLOAD for p in payloads)
    assert len(set(payloads)) == len(payloads)  # distinct, so that PostgreSQL drops none of one transaction
    assert [m for p in payloads for _t, m in _unpack(p)] == [json.loads(t)["m"] for t in texts]
    assert _unpack("{not json") == [] and _unpack('{"b": [{"t": 1, "m": {}}]}') == []


def test_local_leases_and_urls():
    async def main():
        leases = LocalLeases()
        assert await leases.acquire("t1") and leases.owns("t1")
        await leases.release("t1")
        assert not leases.owns("t1")

    asyncio.run(main())
    assert isinstance(bus_for(None), LocalBus) and isinstance(bus_for("sqlite:///x.db"), LocalBus)
    assert psycopg_url("postgresql+psycopg://u@h:1/db") == "postgresql://u@h:1/db"
    assert lock_key("abc") == lock_key("abc") != lock_key("abd")
    assert -(2**63) <= lock_key("abc") < 2**63


@needs_pg
def test_postgres_bus_between_two_processes_survives_a_lost_connection():
    async def main():
        a, b = PostgresBus(URL), PostgresBus(URL)
        await a.start()
        await b.start()
        got_a, got_b, reconnects = [], [], []
        a.subscribe("room:x", got_a.append)
        b.subscribe("room:x", got_b.append)
        b.subscribe("room:y", lambda m: pytest.fail("wrong topic delivered"))
        b.on_reconnect(lambda: reconnects.append(1))
        for i in range(20):
            await a.publish("room:x", {"version": i})
        await _wait_for(lambda: len(got_b) == 20 and len(got_a) == 20)
        assert [m["version"] for m in got_b] == list(range(20))  # one sender: in order
        await a.publish_many([("room:x", {"version": 100 + i, "pad": "p" * 900}) for i in range(30)])
        await _wait_for(lambda: len(got_b) == 50 and len(got_a) == 50)
        assert [m["version"] for m in got_b[20:]] == list(range(100, 130))  # several payloads, one statement
        del got_a[:], got_b[:]

        # Kill b's listening connection from the server side: b connects again and says so.
        import psycopg

        async with await psycopg.AsyncConnection.connect(psycopg_url(URL), autocommit=True) as admin:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE query LIKE 'LISTEN%%' AND pid <> pg_backend_pid()"
            )
        await _wait_for(lambda: reconnects, timeout=15)
        await a.publish("room:x", {"version": 99})
        await _wait_for(lambda: got_b and got_b[-1] == {"version": 99}, timeout=15)
        await a.close()
        await b.close()

    asyncio.run(main())


HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from backgammon.server.bus import PostgresLeases

    async def main():
        leases = PostgresLeases(sys.argv[1])
        await leases.start()
        assert await leases.acquire("room-kill")
        print("held", flush=True)
        await asyncio.sleep(120)

    asyncio.run(main())
    """
)


@needs_pg
def test_postgres_leases_are_exclusive_and_pass_on_when_the_owner_is_killed():
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, URL], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"

        async def main():
            lost = []
            mine = PostgresLeases(URL, on_lost=lost.append, check_every=0.2)
            rival = PostgresLeases(URL)
            await mine.start()
            await rival.start()
            assert not await mine.acquire("room-kill")  # the other process owns it
            assert await mine.acquire("room-1") and mine.owns("room-1")
            assert not await rival.acquire("room-1")
            await mine.release("room-1")
            assert await rival.acquire("room-1")

            holder.kill()  # kill -9 of the owner: its connection closes, the lock is freed
            holder.wait()
            deadline = time.monotonic() + 15
            while not await mine.acquire("room-kill"):
                assert time.monotonic() < deadline, "the dead owner's room was never released"
                await asyncio.sleep(0.1)

            # The lease connection itself lost: every room of this process is reported lost.
            import psycopg

            pid = (await (await mine._conn.execute("SELECT pg_backend_pid()")).fetchone())[0]
            async with await psycopg.AsyncConnection.connect(psycopg_url(URL), autocommit=True) as admin:
                await admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            await _wait_for(lambda: lost, timeout=10)
            assert lost == [{"room-kill"}] and not mine.owns("room-kill")
            await _wait_for(lambda: mine._conn is not None and not mine._conn.closed, timeout=10)
            assert await rival.acquire("room-kill") or await mine.acquire("room-kill")
            await mine.close()
            await rival.close()

        asyncio.run(main())
    finally:
        holder.kill()


def test_redis_bus_delivers_in_order_and_survives_a_lost_connection():
    """The Redis bus (``--redis-url``) between two subscribers, on a throw-away redis-server:
    in order from one sender, and after its connection is killed it subscribes again and says so."""
    from backgammon.server.bus import RedisBus, redacted

    from ._servers import Redis

    server = Redis()

    async def main():
        a, b = RedisBus(server.url, retry=0.1), RedisBus(server.url, retry=0.1)
        await a.start()
        await b.start()
        got, reconnects = [], []
        b.subscribe("room:x", got.append)
        b.subscribe("room:y", lambda m: pytest.fail("wrong topic delivered"))
        b.on_reconnect(lambda: reconnects.append(1))
        for i in range(20):
            await a.publish("room:x", {"version": i})
        await _wait_for(lambda: len(got) == 20)
        assert [m["version"] for m in got] == list(range(20))
        await a._redis.execute_command("CLIENT", "KILL", "TYPE", "pubsub")  # every subscription dropped
        await _wait_for(lambda: reconnects, timeout=15)
        await a.publish("room:x", {"version": 99})
        await _wait_for(lambda: got[-1] == {"version": 99}, timeout=15)
        await a.close()
        await b.close()

    try:
        asyncio.run(main())
        assert isinstance(bus_for("postgresql://u@h/db", server.url), RedisBus)
        assert isinstance(bus_for("sqlite:///x", server.url), LocalBus)  # one process: nothing to carry
        assert redacted("redis://user:secret@host:6379/0") == "redis://user:***@host:6379/0"
    finally:
        server.stop()

    async def unreachable():
        with pytest.raises(InvalidInputError, match="cannot reach Redis"):
            await RedisBus(server.url).start()  # stopped now

    asyncio.run(unreachable())


@needs_pg
def test_a_room_is_handed_off_and_requests_follow_it(fresh_database):
    """The owner releases a room (in the room) and says so; a request that reaches it late is answered
    ``moved``; a job queued behind the hand-off does not run there; the asker then runs the room."""
    from backgammon.server.ownership import Network, RoomMoved
    from backgammon.server.rooms import Room

    async def main():
        a = Network(PostgresBus(fresh_database), PostgresLeases(fresh_database))
        b = Network(PostgresBus(fresh_database), PostgresLeases(fresh_database))
        await a.start()
        await b.start()
        rooms = {"a": Room("r"), "b": Room("r")}
        ran: list[tuple[str, int]] = []
        events: dict[str, list[dict]] = {"a": [], "b": []}

        async def nothing():
            return None

        def answer(name: str, net: Network):
            async def handler(message):
                async def job():
                    ran.append((name, message["n"]))

                await net.in_room("r", rooms[name], job)
                return {}

            return handler

        for name, net in (("a", a), ("b", b)):
            net.follow("t", "r", events[name].append, answer(name, net))

        def job(name: str, n: int):
            async def run():
                ran.append((name, n))

            return run

        assert await a.own("r", rooms["a"], nothing)
        await b.run("t", "r", rooms["b"], {"n": 1}, job("b", 1), nothing)
        assert ran == [("a", 1)]  # forwarded to the owner

        # A job queued behind the hand-off does not run on the old owner.
        rooms["a"].post(lambda: a.hand_off("t", "r", {"v": 1}))
        with pytest.raises(RoomMoved):
            await a.in_room("r", rooms["a"], job("a", 99))
        assert not a.owns("r") and ("a", 99) not in ran
        await _wait_for(lambda: any(e.get("released") for e in events["b"]))

        # A request that reaches the old owner after the hand-off is answered "moved" at once.
        async def no():
            return False

        late = await asyncio.wait_for(b._ask("r", {"n": 2}, no), 5)
        assert late is not None and late.get("moved") and not late.get("ok")

        await b.run("t", "r", rooms["b"], {"n": 3}, job("b", 3), nothing)  # taken here, run here
        assert b.owns("r") and ran[-1] == ("b", 3)
        await a.run("t", "r", rooms["a"], {"n": 4}, job("a", 4), nothing)  # the old owner forwards now
        assert ran[-1] == ("b", 4)
        for net in (a, b):
            await net.close()

    asyncio.run(main())


def test_an_owner_announces_only_to_processes_that_listen(fresh_database, monkeypatch):
    """Announcements go out only while another process listens: one reminded by ``want`` (told where
    the room stands at once), or one that forwarded a request; a listener that stops reminding
    drops out after WANT_TTL."""
    from backgammon.server import ownership as network
    from backgammon.server.ownership import Network
    from backgammon.server.rooms import Room

    monkeypatch.setattr(network, "WANT_EVERY", 0.1)
    monkeypatch.setattr(network, "WANT_TTL", 0.5)

    async def main():
        a = Network(PostgresBus(fresh_database), PostgresLeases(fresh_database))
        b = Network(PostgresBus(fresh_database), PostgresLeases(fresh_database))
        await a.start()
        await b.start()
        seen: list[dict] = []
        synced: list[int] = []
        watching = {"b": False}

        async def nothing():
            return None

        async def answer(message):
            if message.get("n"):  # a forwarded request that changes the room
                a.announce("t", "r", {"v": 5})
            return {}

        a.follow("t", "r", lambda m: None, answer, on_audience=lambda: synced.append(1))
        b.follow("t", "r", seen.append, answer, watched=lambda: watching["b"])
        assert await a.own("r", Room("r"), nothing)

        async def quiet(seconds: float = 0.4):  # longer than a round trip through PostgreSQL here
            await asyncio.sleep(seconds)

        a.announce("t", "r", {"v": 1})
        await quiet()
        assert seen == [] and synced == []  # nobody listens: nothing sent

        b.want("r")  # a client connected at b
        await _wait_for(lambda: synced == [1])
        a.announce("t", "r", {"v": 2})
        await _wait_for(lambda: [m["v"] for m in seen] == [2])

        watching["b"] = True  # b reminds a every WANT_EVERY: it stays a listener past WANT_TTL
        await quiet(1.0)
        a.announce("t", "r", {"v": 3})
        await _wait_for(lambda: [m["v"] for m in seen] == [2, 3])
        assert synced == [1]  # a reminder from a listener is not a new listener

        watching["b"] = False  # the client left: after WANT_TTL, b hears nothing more
        await quiet(1.0)
        a.announce("t", "r", {"v": 4})
        await quiet()
        assert [m["v"] for m in seen] == [2, 3]

        # a forwarded request makes its sender a listener: it sees what its request changed
        reply = await b._ask("r", {"n": 1}, lambda: asyncio.sleep(0, False))
        assert reply is not None and reply.get("ok")
        await _wait_for(lambda: [m["v"] for m in seen] == [2, 3, 5])
        for net in (a, b):
            await net.close()

    asyncio.run(main())
