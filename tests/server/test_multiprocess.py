"""One site over several server processes on one PostgreSQL database (real servers, real sockets).

- Two players connected to two different processes play a whole match, watched by a spectator on a
  third connection: every action goes through the table's one owner, every client sees every state.
- ``kill -9`` of the process that owns a table mid-game: its clients reconnect to the other process,
  which takes the table over; not one confirmed action is lost and the match is played to its end.

Runs on the throw-away PostgreSQL that ``scripts/test.sh`` starts (``BACKGAMMON_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from ._servers import Client, Redis, Server, new_table, owned, play, seated_table
from ._wire import moves_of

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database"),
]


@pytest.mark.parametrize("bus", ["postgres", "redis"])
def test_two_players_on_two_processes_play_a_match_with_a_spectator(tmp_path, fresh_database, bus):
    """Over either bus: PostgreSQL's LISTEN/NOTIFY (the default) or Redis pub/sub (--redis-url)."""
    redis = Redis() if bus == "redis" else None
    extra = ["--redis-url", redis.url] if redis else []
    a = Server(tmp_path, "a", database_url=fresh_database, extra=extra)
    b = Server(tmp_path, "b", database_url=fresh_database, extra=extra)
    try:
        table, tokens = seated_table(a, b)  # joined through process b

        async def main():
            white, black, spectator = Client("white"), Client("black"), Client("spectator")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            await spectator.connect(b.ws, table, None)
            # who is connected, over both processes: white (on a) sees black and the watcher (on b)
            await white.wait(lambda s: s["present"] == {"white": True, "black": True, "watchers": 1})
            last = await play({"white": white, "black": black})
            final = await spectator.wait(lambda s: s["version"] >= last)
            for client in (white, black, spectator):
                await client.close()
            return last, final, spectator.versions

        last, final, seen = asyncio.run(main())
        assert final["match"]["over"] and final["match"]["winner"] in ("white", "black")
        assert max(final["match"]["score"].values()) >= 3
        assert seen == sorted(seen) and seen[-1] == last  # the spectator saw the states in order
        # both processes agree with the database
        for server in (a, b):
            st = httpx.get(f"{server.http}/api/tables/{table}").json()
            assert st["version"] == last and st["match"]["over"]
    finally:
        a.stop()
        b.stop()
        if redis:
            redis.stop()


def test_a_table_goes_to_the_process_its_players_are_connected_to(tmp_path, fresh_database):
    """Made on one process, played by two players connected to the other: the maker hands the table
    off at the first action forwarded from there, so the players' process runs it; a spectator on
    the maker's process afterwards sees every state, and it stays where its players are."""
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        table, tokens = seated_table(a, b)  # a owns the table: it was made there

        assert (owned(a), owned(b)) == (1, 0)

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(b.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            early = await play({"white": white, "black": black}, stop_after=6)
            moved = (owned(a), owned(b))
            spectator = Client("spectator")
            await spectator.connect(a.ws, table, None)
            last = await play({"white": white, "black": black})
            final = await spectator.wait(lambda s: s["version"] >= last)
            for client in (white, black, spectator):
                await client.close()
            return early, moved, (owned(a), owned(b)), last, final, spectator.versions

        early, moved, later, last, final, seen = asyncio.run(main())
        assert moved == (0, 1)  # handed off to where both players are
        assert later[0] == 0  # the spectator on a did not pull it back
        assert final["match"]["over"] and max(final["match"]["score"].values()) >= 3
        assert seen == sorted(seen) and seen[-1] == last > early
        history = httpx.get(f"{a.http}/api/tables/{table}/history").json()
        assert len(history["entries"]) == last + 1  # one stored action per version: none twice, none lost
    finally:
        a.stop()
        b.stop()


def test_a_table_nobody_watches_lets_its_lease_go(tmp_path, fresh_database):
    """Both players leave mid-game: the owner keeps no lock for the idle table; the next action, through
    the other process, takes it there and goes on from the stored state."""
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        table, tokens = seated_table(a, a)

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(a.ws, table, tokens["black"])
            before = await play({"white": white, "black": black}, stop_after=4)
            await white.close()
            await black.close()
            deadline = time.monotonic() + 10
            while owned(a) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            released = owned(a)
            white, black = Client("white"), Client("black")
            await white.connect(b.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            resumed = (await white.wait(lambda s: s["version"] >= before))["version"]
            after = await play({"white": white, "black": black}, stop_after=4)
            result = released, before, resumed, after, owned(b)
            await white.close()
            await black.close()
            return result

        released, before, resumed, after, on_b = asyncio.run(main())
        assert released == 0 and resumed == before and after > before and on_b == 1
    finally:
        a.stop()
        b.stop()


def test_a_copy_nobody_watches_is_read_fresh_and_a_watcher_is_kept_current(tmp_path, fresh_database):
    """The owner announces a table's changes only to processes whose clients watch it: a process that
    holds a copy with nobody watching reads the table again when asked for it, and a spectator who
    connects there later is kept current from then on."""
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        table, tokens = seated_table(a, a)
        assert httpx.get(f"{b.http}/api/tables/{table}").json()["version"] >= 0  # b now holds a copy

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(a.ws, table, tokens["black"])
            first = await play({"white": white, "black": black}, stop_after=6)
            on_b = httpx.get(f"{b.http}/api/tables/{table}").json()["version"]  # nobody watches there
            spectator = Client("spectator")
            await spectator.connect(b.ws, table, None)
            then = await play({"white": white, "black": black}, stop_after=6)
            seen = (await spectator.wait(lambda s: s["version"] >= then))["version"]
            for client in (white, black, spectator):
                await client.close()
            return first, on_b, then, seen

        first, on_b, then, seen = asyncio.run(main())
        assert on_b == first and then > first and seen >= then
    finally:
        a.stop()
        b.stop()


def test_kill_9_of_the_owner_loses_no_confirmed_action(tmp_path, fresh_database):
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        table, tokens = new_table(a, 1)  # a owns the table: it was made there
        joined = httpx.post(f"{a.http}/api/tables/{table}/join", json={"name": "Bea"})
        tokens[joined.json()["seat"]] = joined.json()["token"]

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            confirmed = await play({"white": white, "black": black}, stop_after=15)
            a.kill()  # kill -9 of the owner, mid-game
            await white.close()
            white = Client("white again")
            await white.connect(b.ws, table, tokens["white"])  # the client reconnects, to the other process
            # b takes the table over from the database (at once, or within its 1 s check)
            resumed = (await white.wait(lambda s: s["version"] >= confirmed, timeout=20))["version"]
            last = await play({"white": white, "black": black})
            await white.close()
            await black.close()
            return confirmed, resumed, last

        confirmed, resumed, last = asyncio.run(main())
        assert resumed >= confirmed  # nothing confirmed before the kill was lost
        st = httpx.get(f"{b.http}/api/tables/{table}").json()
        assert st["match"]["over"] and st["version"] == last > confirmed
        history = httpx.get(f"{b.http}/api/tables/{table}/history").json()
        assert len(history["entries"]) == last + 1
    finally:
        a.kill()
        b.stop()


def test_serve_workers_2_is_one_site(tmp_path, fresh_database):
    """``serve --workers 2``: two processes behind one port; a match is played through it whichever
    process each connection lands on."""
    site = Server(tmp_path, "site", workers=2, database_url=fresh_database)
    try:
        processes = set()
        deadline = time.monotonic() + 60
        while len(processes) < 2 and time.monotonic() < deadline:
            with httpx.Client() as http:  # a new connection each time: the kernel spreads them
                processes.add(http.get(f"{site.http}/api/health").json()["process"])
        assert len(processes) == 2, "both worker processes answer"
        table, tokens = new_table(site, 1)
        joined = httpx.post(f"{site.http}/api/tables/{table}/join", json={"name": "Bea"})
        tokens[joined.json()["seat"]] = joined.json()["token"]

        async def main():
            white, black, spectator = Client("white"), Client("black"), Client("spectator")
            for client, token in ((white, tokens["white"]), (black, tokens["black"]), (spectator, None)):
                await client.connect(site.ws, table, token)
            last = await play({"white": white, "black": black})
            final = await spectator.wait(lambda s: s["version"] >= last)
            for client in (white, black, spectator):
                await client.close()
            return final

        final = asyncio.run(main())
        assert final["match"]["over"]

        # kill -9 of a worker: the parent starts another, and the site goes on answering on both
        children = Path(f"/proc/{site.proc.pid}/task/{site.proc.pid}/children").read_text().split()
        assert len(children) == 2
        os.kill(int(children[0]), signal.SIGKILL)
        deadline = time.monotonic() + 120
        again: set[str] = set()
        while len(again) < 2 and time.monotonic() < deadline:
            try:
                with httpx.Client() as http:
                    again.add(http.get(f"{site.http}/api/health", timeout=5).json()["process"])
            except httpx.HTTPError:
                time.sleep(0.2)
        assert len(again) == 2 and again != processes, "a new worker took the dead one's place"
        later = Path(f"/proc/{site.proc.pid}/task/{site.proc.pid}/children").read_text().split()
        assert len(later) == 2 and children[0] not in later
    finally:
        site.stop()


def test_a_chouette_across_two_processes(tmp_path, fresh_database):
    """Two people at one chouette, each on a different process (a computer in the third seat): the
    owner runs the table, the other forwards; both processes show the same table."""
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        made = httpx.post(
            f"{a.http}/api/chouette", json={"name": "Ann", "seats": [{"bot": None}, {"bot": None}, {"bot": "greedy"}]}
        )
        assert made.status_code == 200, made.text
        table = made.json()["id"]
        joined = httpx.post(f"{b.http}/api/chouette/{table}/join", json={"name": "Bob"}, timeout=30)
        assert joined.status_code == 200, joined.text
        where = {"Ann": (a, made.json()["token"]), "Bob": (b, joined.json()["token"])}
        acted = 0
        deadline = time.monotonic() + 120
        while acted < 40 and time.monotonic() < deadline:
            s = httpx.get(f"{a.http}/api/chouette/{table}").json()
            people = [n for n in s["to_act"] if n in where]
            if not people:
                time.sleep(0.05)  # the computer is acting
                continue
            server, token = where[people[0]]
            mine = httpx.get(f"{server.http}/api/chouette/{table}", headers={"x-seat-token": token}).json()
            allowed = [k for k in mine["allowed"] if k not in ("suggest", "double")]
            if not allowed:
                time.sleep(0.05)
                continue
            kind = next((k for k in ("consent", "take", "roll") if k in allowed), allowed[0])
            doc = {"action": kind, "version": mine["version"]}
            if kind == "move":
                doc["steps"] = moves_of(mine)[0] if moves_of(mine) else []
            r = httpx.post(
                f"{server.http}/api/chouette/{table}/actions", json=doc, headers={"x-seat-token": token}, timeout=30
            )
            assert r.status_code == 200 or "stale" in r.text, r.text
            acted += r.status_code == 200
        assert acted >= 40, "the people kept playing through both processes"
        time.sleep(0.5)
        seen_a = httpx.get(f"{a.http}/api/chouette/{table}").json()
        seen_b = httpx.get(f"{b.http}/api/chouette/{table}").json()
        assert seen_a["version"] == seen_b["version"] and seen_a["to_act"] == seen_b["to_act"]
    finally:
        a.stop()
        b.stop()


def test_a_chouette_goes_to_the_process_its_people_are_connected_to(tmp_path, fresh_database):
    """Made on one process, watched by its three people over sockets on the other: the maker hands the
    chouette off at the first action forwarded from there, and the people's process runs it."""
    a = Server(tmp_path, "a", database_url=fresh_database)
    b = Server(tmp_path, "b", database_url=fresh_database)
    try:
        made = httpx.post(f"{a.http}/api/chouette", json={"name": "Ann", "seats": [{"bot": None}] * 3})
        assert made.status_code == 200, made.text
        table, tokens = made.json()["id"], {"Ann": made.json()["token"]}
        for name in ("Bob", "Cat"):
            joined = httpx.post(f"{b.http}/api/chouette/{table}/join", json={"name": name}, timeout=30)
            assert joined.status_code == 200, joined.text
            tokens[name] = joined.json()["token"]

        async def act_once(clients: dict[str, Client]) -> int:
            s = next(iter(clients.values())).state
            while True:
                s = httpx.get(f"{b.http}/api/chouette/{table}").json()
                if s["to_act"]:
                    break
                await asyncio.sleep(0.05)
            name = s["to_act"][0]
            mine = httpx.get(f"{b.http}/api/chouette/{table}", headers={"x-seat-token": tokens[name]}).json()
            allowed = [k for k in mine["allowed"] if k not in ("suggest", "double")]
            kind = next((k for k in ("consent", "take", "roll") if k in allowed), allowed[0])
            doc = {"type": "action", "action": kind, "version": mine["version"]}
            if kind == "move":
                doc["steps"] = moves_of(mine)[0] if moves_of(mine) else []
            await clients[name].send(doc)
            return (await clients[name].wait(lambda st, v=mine["version"]: st["version"] > v))["version"]

        async def main():
            clients = {name: Client(name) for name in tokens}
            for name, client in clients.items():
                await client.connect(b.ws, table, tokens[name], kind="chouette")
            first = await act_once(clients)  # forwarded to a, which hands the chouette to b
            deadline = time.monotonic() + 10
            while (owned(a), owned(b)) != (0, 1) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            where = owned(a), owned(b)
            second = await act_once(clients)  # now run on b
            for client in clients.values():
                await client.close()
            return first, where, second

        first, where, second = asyncio.run(main())
        assert where == (0, 1) and second > first
        assert httpx.get(f"{a.http}/api/chouette/{table}").json()["version"] == second
    finally:
        a.stop()
        b.stop()
