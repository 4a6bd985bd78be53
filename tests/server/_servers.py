"""Real ``backgammon serve`` processes and WebSocket clients that play, for the end-to-end tests."""

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

from ._wire import moves_of

BACKGAMMON = str(Path(sys.executable).with_name("backgammon"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One ``backgammon serve`` process on the shared database."""

    def __init__(
        self,
        tmp: Path,
        name: str,
        workers: int = 1,
        database_url: str | None = None,
        extra: list[str] | None = None,
        engine: bool = True,
    ) -> None:
        """Start it and wait until it answers (with ``engine``, until its engine is warm too); a server
        that does not start in time is killed."""
        self.port = free_port()
        self.log = tmp / f"{name}.log"
        cmd = [BACKGAMMON, "serve", "--port", str(self.port), "--dice-seed", "7", "--bot-delay", "0"]
        cmd += ["--data-dir", str(tmp / name), "--workers", str(workers)]
        if database_url:
            cmd += ["--database-url", database_url]
        # the tests' clients all come from one address: the per-address budgets and socket caps are
        # lifted (they have their own tests, tests/server/test_quotas.py); `extra` may set them again
        for kind in ("tables", "listed_tables", "ai_tables", "hints", "analysis", "reviews", "rollouts", "dice_stats"):
            cmd += ["--budget", f"{kind}=100000/100"]
        cmd += ["--sockets-per-address", "100000", "--socket-messages-per-second", "100000"]
        cmd += ["--chat-per-minute", "100000"]
        cmd += extra or []
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 300
        while True:  # until it answers with the engine warmed (compiling it can starve the loop for a minute)
            assert self.proc.poll() is None, self.log.read_text()
            try:
                health = httpx.get(f"{self.http}/api/health", timeout=2)
                if health.status_code == 200 and (not engine or health.json()["engine"] != "warming"):
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() >= deadline:
                self.kill()
                raise AssertionError("server did not start: " + self.log.read_text())
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


class Client:
    """A WebSocket client of one seat (or a spectator) that keeps the newest state it was sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.state: dict | None = None
        self.versions: list[int] = []
        self.changed = asyncio.Event()
        self.ws = None
        self.reader: asyncio.Task | None = None

    async def connect(self, base: str, table: str, token: str | None, kind: str = "tables") -> None:
        """Connect to a table's socket (``kind`` "chouette" for a chouette's) and wait for its state."""
        import websockets

        self.ws = await websockets.connect(f"{base}/ws/{kind}/{table}", max_size=2**22)
        await self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.reader = asyncio.create_task(self._read())
        await self.wait(lambda s: True)

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                doc = json.loads(text)
                if doc.get("type") == "presence" and self.state is not None:
                    self.state = {**self.state, "present": doc["present"]}
                    self.changed.set()
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


def next_action(state: dict) -> dict | None:
    allowed = state["allowed"]
    if "roll" in allowed:
        return {"action": "roll"}
    if "move" in allowed:
        return {"action": "move", "steps": moves_of(state)[0] if moves_of(state) else []}
    for kind in ("take", "accept_resignation", "reject_draw"):
        if kind in allowed:
            return {"action": kind}
    return None


async def play(players: dict[str, Client], stop_after: int | None = None, waits: list | None = None) -> int:
    """Both seats play (roll, first listed move) until the match ends or ``stop_after`` actions
    have been confirmed; returns the last confirmed version. ``waits`` collects each action's round
    trip in seconds."""
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
        action = next_action(state)
        assert action is not None, state["allowed"]
        sent = time.monotonic()
        await mover.send({"type": "action", "version": state["version"], **action})
        await mover.wait(lambda s, v=state["version"]: s["version"] > v)
        if waits is not None:
            waits.append(time.monotonic() - sent)
        done += 1


def new_table(server: Server, length: int) -> tuple[str, dict[str, str]]:
    made = httpx.post(f"{server.http}/api/tables", json={"mode": "human", "rules": {"match_length": length}})
    made.raise_for_status()
    return made.json()["id"], {made.json()["seat"]: made.json()["token"]}


def seated_table(maker: Server, joiner: Server, length: int = 3) -> tuple[str, dict[str, str]]:
    """A table made on ``maker`` and joined (by Bea) through ``joiner``: its id and both seats' tokens."""
    table, tokens = new_table(maker, length)
    joined = httpx.post(f"{joiner.http}/api/tables/{table}/join", json={"name": "Bea"})
    assert joined.status_code == 200, joined.text
    tokens[joined.json()["seat"]] = joined.json()["token"]
    return table, tokens


def owned(server: Server) -> int:
    """How many tables and chouettes the server's process runs now."""
    return httpx.get(f"{server.http}/api/health").json()["owned"]


REDIS_SERVER = "/usr/bin/redis-server"


class Redis:
    """A throw-away Redis server on a free port (Debian's redis-server, as scripts/test.sh installs it)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        cmd = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
