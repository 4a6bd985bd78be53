"""One site over several server processes on one PostgreSQL database (real servers, real sockets).

- Two players connected to two different processes play a whole match, watched by a spectator on a
  third connection: every action goes through the table's one owner, every client sees every state.
- ``kill -9`` of the process that owns a table mid-game: its clients reconnect to the other process,
  which takes the table over; not one confirmed action is lost and the match is played to its end.

Runs on the throw-away PostgreSQL that ``scripts/test.sh`` starts (``BACKGAMMON_TEST_DATABASE_URL``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

URL = os.environ.get("BACKGAMMON_TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL, reason="set BACKGAMMON_TEST_DATABASE_URL to a scratch PostgreSQL database"),
]
BACKGAMMON = str(Path(sys.executable).with_name("backgammon"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One ``backgammon serve`` process on the shared database."""

    def __init__(self, tmp: Path, name: str, workers: int = 1) -> None:
        self.port = _free_port()
        self.log = tmp / f"{name}.log"
        cmd = [BACKGAMMON, "serve", "--port", str(self.port), "--database-url", URL, "--dice-seed", "7"]
        cmd += ["--bot-delay", "0", "--data-dir", str(tmp / name), "--workers", str(workers)]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while True:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                if httpx.get(f"{self.http}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "server did not start: " + self.log.read_text()
            time.sleep(0.2)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def fresh_database():
    from sqlalchemy import create_engine, text

    engine = create_engine(URL.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:
        for name in ("reviews", "actions", "tables", "sessions", "users", "alembic_version"):
            conn.execute(text(f"DROP TABLE IF EXISTS {name} CASCADE"))
    engine.dispose()


class Client:
    """A WebSocket client of one seat (or a spectator) that keeps the newest state it was sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state: dict | None = None
        self.versions: list[int] = []
        self.changed = asyncio.Event()
        self.ws = None
        self.reader: asyncio.Task | None = None

    async def connect(self, base: str, table: str, token: str | None) -> None:
        import websockets

        query = f"?token={token}" if token else ""
        self.ws = await websockets.connect(f"{base}/ws/tables/{table}{query}", max_size=2**22)
        self.reader = asyncio.create_task(self._read())
        await self.wait(lambda s: True)

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                doc = json.loads(text)
                if doc.get("type") in ("state", "event"):
                    state = doc["state"]
                    if self.state is None or state["version"] >= self.state["version"]:
                        self.state = state
                        self.versions.append(state["version"])
                    self.changed.set()
        except Exception:  # noqa: BLE001 - the server went away: the test reconnects
            pass

    async def wait(self, predicate, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while self.state is None or not predicate(self.state):
            self.changed.clear()
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name}: timed out at {self.state and self.state['version']}"
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass
        return self.state

    async def send(self, doc: dict) -> None:
        await self.ws.send(json.dumps(doc))

    async def close(self) -> None:
        if self.reader:
            self.reader.cancel()
        if self.ws is not None:
            await self.ws.close()


def _next_action(state: dict) -> dict | None:
    allowed = state["allowed"]
    if "roll" in allowed:
        return {"action": "roll"}
    if "move" in allowed:
        return {"action": "move", "steps": state["moves"][0] if state["moves"] else []}
    for kind in ("take", "accept_resignation", "reject_draw"):
        if kind in allowed:
            return {"action": kind}
    return None


async def _play(players: dict[str, Client], stop_after: int | None = None) -> int:
    """Both seats play (roll, first listed move) until the match ends or ``stop_after`` actions
    have been confirmed; returns the last confirmed version."""
    done = 0
    while True:
        newest = max((c.state for c in players.values()), key=lambda s: s["version"])
        if newest["match"]["over"] or (stop_after is not None and done >= stop_after):
            return newest["version"]
        turn = newest["game"]["turn"]
        if turn is None:  # between games: the server rolls the next opening by itself
            await next(iter(players.values())).wait(lambda s, v=newest["version"]: s["version"] > v)
            continue
        mover = players[turn]
        state = await mover.wait(lambda s, v=newest["version"]: s["version"] >= v)
        action = _next_action(state)
        assert action is not None, state["allowed"]
        await mover.send({"type": "action", "version": state["version"], **action})
        await mover.wait(lambda s, v=state["version"]: s["version"] > v)
        done += 1


def _new_table(server: Server, length: int) -> tuple[str, dict[str, str]]:
    made = httpx.post(f"{server.http}/api/tables", json={"mode": "human", "rules": {"match_length": length}})
    made.raise_for_status()
    return made.json()["id"], {made.json()["seat"]: made.json()["token"]}


def test_two_players_on_two_processes_play_a_match_with_a_spectator(tmp_path, fresh_database):
    a = Server(tmp_path, "a")
    b = Server(tmp_path, "b")
    try:
        table, tokens = _new_table(a, 3)
        joined = httpx.post(f"{b.http}/api/tables/{table}/join", json={"name": "Bea"})  # through process b
        assert joined.status_code == 200, joined.text
        tokens[joined.json()["seat"]] = joined.json()["token"]

        async def main():
            white, black, spectator = Client("white"), Client("black"), Client("spectator")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            await spectator.connect(b.ws, table, None)
            last = await _play({"white": white, "black": black})
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


def test_kill_9_of_the_owner_loses_no_confirmed_action(tmp_path, fresh_database):
    a = Server(tmp_path, "a")
    b = Server(tmp_path, "b")
    try:
        table, tokens = _new_table(a, 1)  # a owns the table: it was made there
        joined = httpx.post(f"{a.http}/api/tables/{table}/join", json={"name": "Bea"})
        tokens[joined.json()["seat"]] = joined.json()["token"]

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(a.ws, table, tokens["white"])
            await black.connect(b.ws, table, tokens["black"])
            confirmed = await _play({"white": white, "black": black}, stop_after=15)
            a.kill()  # kill -9 of the owner, mid-game
            await white.close()
            white = Client("white again")
            await white.connect(b.ws, table, tokens["white"])  # the client reconnects, to the other process
            resumed = white.state["version"]
            last = await _play({"white": white, "black": black})
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
    site = Server(tmp_path, "site", workers=2)
    try:
        processes = set()
        deadline = time.monotonic() + 60
        while len(processes) < 2 and time.monotonic() < deadline:
            with httpx.Client() as http:  # a new connection each time: the kernel spreads them
                processes.add(http.get(f"{site.http}/api/health").json()["process"])
        assert len(processes) == 2, "both worker processes answer"
        table, tokens = _new_table(site, 1)
        joined = httpx.post(f"{site.http}/api/tables/{table}/join", json={"name": "Bea"})
        tokens[joined.json()["seat"]] = joined.json()["token"]

        async def main():
            white, black, spectator = Client("white"), Client("black"), Client("spectator")
            for client, token in ((white, tokens["white"]), (black, tokens["black"]), (spectator, None)):
                await client.connect(site.ws, table, token)
            last = await _play({"white": white, "black": black})
            final = await spectator.wait(lambda s: s["version"] >= last)
            for client in (white, black, spectator):
                await client.close()
            return final

        final = asyncio.run(main())
        assert final["match"]["over"]
    finally:
        site.stop()
