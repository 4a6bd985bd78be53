"""What abusive clients get, and what a normal client feels meanwhile (issue 42).

Starts ``backgammon serve`` on a free port with a fresh data folder (as the end-to-end tests do),
trusting ``X-Forwarded-For`` from loopback so that one machine can play many addresses, then runs
each abusive pattern for at most ``--seconds`` while a normal client (an account, another address)
asks ``GET /api/me`` ten times a second. Prints one row per pattern: what the server accepted and
refused, and the normal client's ``/api/me`` p50, p99 and worst round trip (ms) during it.

    .venv/bin/python benchmarks/abuse.py                 # every pattern, about 3 minutes
    .venv/bin/python benchmarks/abuse.py --only supremo,pings --seconds 5

The patterns (the findings of issue 42):

- ``baseline``: nothing else happens.
- ``supremo``: one address opens 60 tables against ``supremo`` (the strongest level) at once and
  plays them.
- ``supremo-60-addresses``: 60 addresses, one such table each (no per-address budget helps here:
  the engine's own pool is what keeps ``/api/me`` quick). This is issue 42's acceptance check: 60
  tables against the strongest level while a second client's ``/api/me`` stays under 200 ms at
  p99; the line under the table says whether it held.
- ``dice-stats``: six addresses ask ``/api/dice-stats`` in a loop (a name with stored tables, and
  names nobody has, which no cache answers).
- ``rollouts``: four rollout requests from one address, then one from each of four more.
- ``reviews``: one address makes a finished table's review again and again.
- ``hints``: one seat asks for hints in a loop.
- ``listed-tables``: one address creates listed tables as fast as it can.
- ``spectators``: one address opens 600 spectator sockets on one table (and the presence
  messages they are sent are counted).
- ``chat``: one player chats at five tables as fast as it can.
- ``pings``: one socket sends pings as fast as it can.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import websockets

from backgammon.engine.players import LEVELS
from backgammon.server.protocol import graph_sequences

BACKGAMMON = str(Path(sys.executable).with_name("backgammon"))
FELL_BACK = re.compile(rb"fell back to the quick player")
STRONGEST = LEVELS[-1]
ACCEPTANCE = ("supremo-60-addresses", 60, 200.0)
"""Issue 42's acceptance row: its pattern, the tables it must open, the /api/me p99 (ms) to stay under."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def address(group: int, index: int = 1) -> dict[str, str]:
    """The headers of a client at address 10.<group>.<index // 250>.<index % 250 + 1>."""
    return {"x-forwarded-for": f"10.{group}.{index // 250}.{index % 250 + 1}"}


@dataclass
class Row:
    pattern: str
    accepted: int = 0
    refused: int = 0
    other: int = 0  # neither: errors of other kinds, closed sockets
    note: str = ""
    latencies: list[float] = field(default_factory=list)
    probe_errors: int = 0


class Server:
    """``backgammon serve`` on a fresh data folder, trusting X-Forwarded-For from loopback."""

    def __init__(self, folder: Path, extra: list[str]) -> None:
        self.port = free_port()
        self.log = folder / "serve.log"
        cmd = [BACKGAMMON, "serve", "--port", str(self.port), "--data-dir", str(folder / "data")]
        cmd += ["--bot-delay", "0", "--forwarded-allow-ips", "127.0.0.1", *extra]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 300
        while True:
            if self.proc.poll() is not None:
                raise SystemExit("serve stopped: " + self.log.read_text())
            try:
                health = httpx.get(f"{self.http}/api/health", timeout=2)
                if health.status_code == 200 and health.json()["engine"] != "warming":
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("serve did not start: " + self.log.read_text())
            time.sleep(0.2)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def fallbacks(self) -> int:
        return len(FELL_BACK.findall(self.log.read_bytes()))

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@dataclass
class Ctx:
    server: Server
    http: httpx.AsyncClient
    seconds: float

    def until(self) -> float:
        return time.monotonic() + self.seconds


def count(row: Row, response: httpx.Response) -> None:
    if response.status_code == 200:
        row.accepted += 1
    elif response.status_code == 429:
        row.refused += 1
    else:
        row.other += 1


async def probe(http: httpx.AsyncClient, row: Row, stop: asyncio.Event) -> None:
    """The normal client: ``GET /api/me`` ten times a second (its own address, logged in)."""
    while not stop.is_set():
        began = time.perf_counter()
        try:
            r = await http.get("/api/me", headers=address(99), timeout=60)
            if r.status_code == 200:
                row.latencies.append((time.perf_counter() - began) * 1000)
            else:
                row.probe_errors += 1
        except httpx.HTTPError:
            row.probe_errors += 1
        await asyncio.sleep(max(0.0, 0.1 - (time.perf_counter() - began)))


# ------------------------------------------------------------------ helpers
async def play_turns(ctx: Ctx, table: str, token: str, headers: dict[str, str], until: float) -> None:
    """Play the human side of a table against the computer (first legal play) until ``until``."""
    h = {**headers, "x-seat-token": token}
    while time.monotonic() < until:
        try:
            st = (await ctx.http.get(f"/api/tables/{table}", headers=h, timeout=30)).json()
        except (httpx.HTTPError, ValueError):
            return
        allowed = st.get("allowed") or []
        if st.get("match", {}).get("over"):
            return
        if "move" in allowed:
            moves = graph_sequences(st.get("move_graph"))
            doc = {"action": "move", "steps": moves[0] if moves else []}
        elif "roll" in allowed:
            doc = {"action": "roll"}
        elif "take" in allowed:
            doc = {"action": "take"}
        elif allowed:
            doc = {"action": allowed[0]}
        else:
            await asyncio.sleep(0.2)  # the computer is thinking
            continue
        try:
            await ctx.http.post(f"/api/tables/{table}/actions", json=doc, headers=h, timeout=30)
        except httpx.HTTPError:
            return


async def ai_table(ctx: Ctx, headers: dict[str, str], level: str = STRONGEST) -> httpx.Response:
    return await ctx.http.post(
        "/api/tables", json={"mode": "ai", "level": level, "rules": {"match_length": 0}}, headers=headers, timeout=90
    )


async def finished_table(ctx: Ctx, headers: dict[str, str]) -> str:
    """A one-point match between two people, over by a resignation after the opening roll."""
    r = await ctx.http.post(
        "/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": 1}}, headers=headers
    )
    white = r.json()
    black = (await ctx.http.post(f"/api/tables/{white['id']}/join", json={"name": "Bob"}, headers=headers)).json()
    tokens = {"white": white["token"], "black": black["token"]}
    for _ in range(10):
        st = (await ctx.http.get(f"/api/tables/{white['id']}")).json()
        turn = st["game"]["turn"]
        if st["match"]["over"] or turn is None:
            break
        h = {**headers, "x-seat-token": tokens[turn]}
        mine = (await ctx.http.get(f"/api/tables/{white['id']}", headers=h)).json()
        if "resign" in mine["allowed"]:
            await ctx.http.post(
                f"/api/tables/{white['id']}/actions", json={"action": "resign", "level": "single"}, headers=h
            )
        elif "accept_resignation" in mine["allowed"]:
            body = {"action": "accept_resignation"}
            await ctx.http.post(f"/api/tables/{white['id']}/actions", json=body, headers=h)
        elif "roll" in mine["allowed"]:
            await ctx.http.post(f"/api/tables/{white['id']}/actions", json={"action": "roll"}, headers=h)
        else:
            break
    return white["id"]


# ----------------------------------------------------------------- patterns
async def baseline(ctx: Ctx, row: Row) -> None:
    await asyncio.sleep(ctx.seconds)


async def supremo(ctx: Ctx, row: Row, many: bool = False) -> None:
    until = ctx.until()
    before = ctx.server.fallbacks()
    heads = [address(2 if many else 1, i if many else 1) for i in range(60)]
    made = await asyncio.gather(*(ai_table(ctx, h) for h in heads), return_exceptions=True)
    players = []
    for h, r in zip(heads, made, strict=True):
        if isinstance(r, httpx.Response):
            count(row, r)
            if r.status_code == 200:
                players.append(play_turns(ctx, r.json()["id"], r.json()["token"], h, until))
        else:
            row.other += 1
    await asyncio.gather(*players)
    row.note = f"quick player answered {ctx.server.fallbacks() - before}x"


async def dice_stats(ctx: Ctx, row: Row) -> None:
    until = ctx.until()

    async def asker(i: int) -> None:
        n = 0
        while time.monotonic() < until:
            name = "Guest" if n % 2 == 0 else f"Nobody{i}x{n}"
            n += 1
            r = await ctx.http.get("/api/dice-stats", params={"name": name}, headers=address(3, i), timeout=60)
            if r.status_code in (200, 404):
                row.accepted += 1
            else:
                count(row, r)

    await asyncio.gather(*(asker(i) for i in range(6)))


async def rollouts(ctx: Ctx, row: Row) -> None:
    from backgammon.position import Position

    setup = {"mine": list(Position.initial().mine), "theirs": list(Position.initial().theirs), "dice": [5, 2]}
    body = {"setup": setup, "top": 3, "trials": 1296}
    heads = [address(4)] * 4 + [address(4, i) for i in range(2, 6)]
    jobs = []
    for h in heads:
        r = await ctx.http.post("/api/study/rollouts", json=body, headers=h, timeout=60)
        if r.status_code == 200:
            row.accepted += 1
            jobs.append((r.json()["id"], r.json()["token"]))
        elif r.status_code in (409, 429):
            row.refused += 1
        else:
            row.other += 1
    stranger = 0
    for job_id, token in jobs:  # a stranger cannot cancel them; their owners do
        stranger += (await ctx.http.post(f"/api/study/rollouts/{job_id}/cancel", headers=address(5))).status_code == 403
        await ctx.http.post(f"/api/study/rollouts/{job_id}/cancel", headers={"x-rollout-token": token})
    row.note = f"first 4 from one address, then 4 addresses; stranger's cancel refused {stranger}/{len(jobs)}"
    await asyncio.sleep(min(2.0, ctx.seconds))


async def reviews(ctx: Ctx, row: Row) -> None:
    until = ctx.until()
    table = await finished_table(ctx, address(6))
    while time.monotonic() < until:
        count(row, await ctx.http.post(f"/api/study/reviews/{table}?decisions=false", headers=address(6), timeout=60))


async def hints(ctx: Ctx, row: Row) -> None:
    until = ctx.until()
    made = (await ai_table(ctx, address(7), "intermediate")).json()
    h = {**address(7), "x-seat-token": made["token"]}
    while time.monotonic() < until:
        st = (await ctx.http.get(f"/api/tables/{made['id']}", headers=h)).json()
        if "move" not in (st.get("allowed") or []):
            if "roll" in (st.get("allowed") or []):
                await ctx.http.post(f"/api/tables/{made['id']}/actions", json={"action": "roll"}, headers=h)
            await asyncio.sleep(0.05)
            continue
        count(row, await ctx.http.post(f"/api/tables/{made['id']}/hint", headers=h, timeout=60))


async def listed_tables(ctx: Ctx, row: Row) -> None:
    until = ctx.until()
    body = {"mode": "human", "name": "Spam", "listed": True}

    async def spammer() -> None:
        while time.monotonic() < until and row.accepted + row.refused < 3000:
            count(row, await ctx.http.post("/api/tables", json=body, headers=address(8), timeout=30))

    await asyncio.gather(*(spammer() for _ in range(8)))
    lobby = (await ctx.http.get("/api/tables")).json()
    spam = sum(1 for t in lobby if "Spam" in json.dumps(t))
    row.note = f"lobby's first page: {spam} spam rows of {len(lobby)}"


async def open_socket(ctx: Ctx, table: str, headers: dict[str, str], token: str | None = None):
    ws = await websockets.connect(f"{ctx.server.ws}/ws/tables/{table}", additional_headers=headers, max_queue=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


async def spectators(ctx: Ctx, row: Row) -> None:
    until = ctx.until()
    r = await ctx.http.post("/api/tables", json={"mode": "human", "name": "Ann"}, headers=address(9))
    table = r.json()["id"]
    sockets = []
    presence = 0

    async def drain(ws) -> None:
        nonlocal presence
        try:
            async for text in ws:
                presence += '"presence"' in text
        except websockets.ConnectionClosed:
            pass

    drains = []
    failures: dict[str, int] = {}
    for _ in range(600):
        if time.monotonic() > until:
            break
        try:
            ws = await open_socket(ctx, table, address(9))
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
        except websockets.ConnectionClosed as exc:  # refused and closed before its error was read
            if exc.rcvd is not None and exc.rcvd.code == 1013:
                row.refused += 1
                continue
            row.other += 1
            failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
            continue
        except (OSError, websockets.WebSocketException, TimeoutError) as exc:
            row.other += 1
            failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
            continue
        if first.get("type") == "state":
            row.accepted += 1
            sockets.append(ws)
            drains.append(asyncio.create_task(drain(ws)))
        else:
            row.refused += first.get("code") == "too_many_requests"
            await ws.close()
    await asyncio.sleep(1.0)
    for ws in sockets:
        await ws.close()
    await asyncio.gather(*drains, return_exceptions=True)
    row.note = f"{presence} presence messages" + "".join(f"; {n} {kind}" for kind, n in failures.items())


async def chat(ctx: Ctx, row: Row) -> None:
    until = ctx.until()
    seats = []
    for _ in range(5):
        white = (await ctx.http.post("/api/tables", json={"mode": "human", "name": "Ann"}, headers=address(10))).json()
        seats.append(await open_socket(ctx, white["id"], address(10), white["token"]))
    try:
        await chat_lines(seats, row, until)
    except websockets.ConnectionClosed as exc:
        row.note = f"a socket was closed for flooding ({exc.rcvd.code if exc.rcvd else '?'})"
    for ws in seats:
        await ws.close()


async def chat_lines(seats: list, row: Row, until: float) -> None:
    """Lines of chat round the five seats until ``until`` (400 at most)."""
    n = 0
    while time.monotonic() < until and n < 400:
        ws = seats[n % 5]
        n += 1
        await ws.send(json.dumps({"type": "chat", "text": f"spam {n}"}))
        await asyncio.sleep(0.02)  # (below the per-socket message budget: the chat budget is what is tried)
        while True:
            doc = json.loads(await ws.recv())
            if doc["type"] == "chat":
                row.accepted += 1
                break
            if doc["type"] == "error":
                row.refused += doc.get("code") == "too_many_requests"
                row.other += doc.get("code") != "too_many_requests"
                break


async def pings(ctx: Ctx, row: Row) -> None:
    until = time.monotonic() + min(ctx.seconds, 3.0)
    r = await ctx.http.post("/api/tables", json={"mode": "human", "name": "Ann"}, headers=address(11))
    ws = await open_socket(ctx, r.json()["id"], address(11))
    sent = 0

    async def read() -> None:
        try:
            async for text in ws:
                row.accepted += '"pong"' in text
                row.refused += "too_many_requests" in text
        except websockets.ConnectionClosed:
            pass

    reader = asyncio.create_task(read())
    try:
        while time.monotonic() < until:
            await ws.send('{"type": "ping"}')
            sent += 1
            if sent % 100 == 0:
                await asyncio.sleep(0)
    except websockets.ConnectionClosed:
        pass
    await ws.close()
    await reader
    row.note = f"{sent} pings sent; closed: {ws.close_code}"


PATTERNS: dict[str, Callable[[Ctx, Row], Awaitable[None]]] = {
    "baseline": baseline,
    "supremo": supremo,
    "supremo-60-addresses": lambda ctx, row: supremo(ctx, row, many=True),
    "dice-stats": dice_stats,
    "rollouts": rollouts,
    "reviews": reviews,
    "hints": hints,
    "listed-tables": listed_tables,
    "spectators": spectators,
    "chat": chat,
    "pings": pings,
}


async def run(args: argparse.Namespace, server: Server) -> list[Row]:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=100)
    async with (
        httpx.AsyncClient(base_url=server.http, limits=limits, timeout=60) as http,
        httpx.AsyncClient(base_url=server.http, timeout=60) as normal,
    ):
        r = await normal.post(
            "/api/register", json={"username": "normal", "password": "quiet harbour lamp 42"}, headers=address(99)
        )
        r.raise_for_status()
        ctx = Ctx(server, http, args.seconds)
        rows = []
        for name in args.only:
            row = Row(name)
            stop = asyncio.Event()
            watcher = asyncio.create_task(probe(normal, row, stop))
            began = time.monotonic()
            try:
                await asyncio.wait_for(PATTERNS[name](ctx, row), args.seconds * 3 + 30)
            except Exception as exc:  # noqa: BLE001 - a pattern that fails is reported, the others still run
                row.note = f"{row.note} failed: {type(exc).__name__}: {exc}".strip()
            stop.set()
            await watcher
            row.note = f"{row.note} ({time.monotonic() - began:.0f} s)".strip()
            rows.append(row)
            print(f"  {name}: done", file=sys.stderr, flush=True)
        return rows


def pct(values: list[float], q: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))]:.0f}"


def print_table(rows: list[Row]) -> None:
    print("| pattern | accepted | refused (429) | other | /api/me p50 ms | p99 ms | worst ms | notes |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        median = f"{statistics.median(r.latencies):.0f}" if r.latencies else "-"
        worst = f"{max(r.latencies):.0f}" if r.latencies else "-"
        errors = f"; /api/me failed {r.probe_errors}x" if r.probe_errors else ""
        counts = f"{r.accepted} | {r.refused} | {r.other}"
        print(f"| {r.pattern} | {counts} | {median} | {pct(r.latencies, 0.99)} | {worst} | {r.note}{errors} |")


def print_acceptance(rows: list[Row]) -> None:
    """The acceptance line of issue 42, when its row ran: the tables opened and the p99 against the bound."""
    pattern, tables, bound = ACCEPTANCE
    for r in rows:
        if r.pattern == pattern and r.latencies:
            p99 = float(pct(r.latencies, 0.99))
            held = r.accepted == tables and p99 < bound
            print(
                f"\nacceptance (issue 42): {r.accepted} of {tables} tables against {STRONGEST}; "
                f"a second client's /api/me p99 {p99:.0f} ms (bound {bound:.0f} ms, {len(r.latencies)} samples): "
                f"{'held' if held else 'NOT held'}"
            )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=12.0, help="how long each pattern runs at most (default 12)")
    ap.add_argument("--only", default=",".join(PATTERNS), help="comma-separated patterns (default: all)")
    ap.add_argument("--serve-arg", action="append", default=[], help="an extra argument for serve (repeatable)")
    args = ap.parse_args(argv)
    args.only = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in args.only if p not in PATTERNS]
    if unknown:
        ap.error(f"unknown pattern(s) {', '.join(unknown)}: expected {', '.join(PATTERNS)}")
    with tempfile.TemporaryDirectory(prefix="bg-abuse-") as tmp:
        server = Server(Path(tmp), args.serve_arg)
        try:
            began = time.monotonic()
            rows = asyncio.run(run(args, server))
        finally:
            server.stop()
        options = " ".join(args.serve_arg) or "(defaults)"
        print(f"\n{os.cpu_count()} CPUs; serve {options}; {time.monotonic() - began:.0f} s\n")
        print_table(rows)
        print_acceptance(rows)


if __name__ == "__main__":
    main()
