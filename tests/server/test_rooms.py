"""The room primitives: a serial inbox, outboxes that never block the room, group commit."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from backgammon.server.db import Action, Table, database_url_for, open_database, utcnow
from backgammon.server.rooms import Outbox, Room, Row, Store, fan_out


def test_room_runs_jobs_one_at_a_time_in_order():
    async def scenario():
        room = Room("r")
        running, log = 0, []

        async def job(i):
            nonlocal running
            running += 1
            assert running == 1  # never two at once
            await asyncio.sleep(0.001 * (5 - i % 5))
            log.append(i)
            running -= 1
            return i * i

        results = await asyncio.gather(*(room.call(lambda i=i: job(i)) for i in range(20)))
        room.close()
        return log, results

    log, results = asyncio.run(scenario())
    assert log == list(range(20))
    assert results == [i * i for i in range(20)]


def test_a_failing_job_fails_its_caller_only():
    async def scenario():
        room = Room("r")

        async def bad():
            raise ValueError("no")

        async def good():
            return "yes"

        with pytest.raises(ValueError):
            await room.call(bad)
        room.post(bad)  # logged, not raised
        answer = await room.call(good)
        room.close()
        return answer

    assert asyncio.run(scenario()) == "yes"


def test_a_cancelled_caller_does_not_cancel_its_job():
    async def scenario():
        room = Room("r")
        done = asyncio.Event()

        async def slow():
            await asyncio.sleep(0.05)
            done.set()

        caller = asyncio.create_task(room.call(slow))
        await asyncio.sleep(0.01)
        caller.cancel()
        await asyncio.wait_for(done.wait(), 2)
        room.close()
        return done.is_set()

    assert asyncio.run(scenario())


def test_a_stalled_connection_is_dropped_and_never_blocks():
    async def scenario():
        stuck = asyncio.Event()  # never set: this client's sends never finish
        closed, fast_seen = [], []

        async def stuck_send(text):
            await stuck.wait()

        async def fast_send(text):
            fast_seen.append(text)

        async def close():
            closed.append(True)

        slow = Outbox(stuck_send, close, "spectator", limit=4, timeout=30)
        fast = Outbox(fast_send, close, "player", limit=4, timeout=30)
        for i in range(50):  # offering never waits, whatever the clients do
            fan_out([slow, fast], lambda seat, i=i: f"{seat}:{i}")
            await asyncio.sleep(0.002)  # a client that reads keeps up
        await asyncio.sleep(0.05)
        fast.stop()
        return slow.dropped.is_set(), slow.reason, closed, fast_seen, fast.dropped.is_set()

    dropped, reason, closed, fast_seen, _ = asyncio.run(scenario())
    assert dropped and reason == "too far behind" and closed
    assert fast_seen == [f"player:{i}" for i in range(50)]


def test_a_send_that_times_out_drops_the_connection():
    async def scenario():
        async def never(text):
            await asyncio.sleep(3600)

        async def close():
            pass

        box = Outbox(never, close, None, timeout=0.05)
        box.offer("x")
        await asyncio.wait_for(box.dropped.wait(), 2)
        return box.reason

    assert asyncio.run(scenario()) == "a send timed out"


def test_group_commit_stores_every_row_and_isolates_a_bad_one(tmp_path):
    sessions = open_database(database_url_for(tmp_path))
    with sessions() as db:
        for i in range(10):
            db.add(Table(id=f"t{i}", config={}, status="playing"))
        db.commit()

    async def scenario():
        store = Store(sessions)
        rows = [Row(f"t{i}", seq, {"kind": "x", "n": seq}, utcnow()) for seq in range(1, 21) for i in range(10)]
        await asyncio.gather(*(store.append(r) for r in rows))
        commits = store.commits
        # a second action at a place already taken fails alone; the others in its batch are stored
        results = await asyncio.gather(
            store.append(Row("t0", 5, {"kind": "dup"}, utcnow())),
            store.append(Row("t1", 21, {"kind": "x"}, utcnow(), status="over")),
            return_exceptions=True,
        )
        store.close()
        return commits, results

    commits, results = asyncio.run(scenario())
    assert commits < 200  # rows of many rooms shared commits
    assert isinstance(results[0], IntegrityError) and results[1] is None
    with sessions() as db:
        assert db.scalar(select(func.count()).select_from(Action)) == 201
        assert db.get(Table, "t1").status == "over"
