"""Load on the web server: K concurrent games between two WebSocket clients each.

Method. For each backend the benchmark starts one ``backgammon serve`` (the project's
``.venv``, on 127.0.0.1 and a free port, a temporary ``--data-dir``, ``--dice-seed 1``)
and waits until ``/api/health`` answers and the engine's warm-up thread is done (it can
take a minute of CPU), so that no start-up work falls in a measurement; that backend's
rows then run one after another on it, each on new tables (the old ones stay in the
server's memory and database, idle). The load generator runs in this
process (asyncio, a minimal WebSocket client of its own, :class:`Seat`, and ``httpx`` for
the two POSTs), apart from
the server's process. It plays K games at once, each a human table: one client creates
it (``POST /api/tables``, mode human, money session by default), the other joins
(``POST /api/tables/{id}/join``), and both connect to ``/ws/tables/{id}`` (the seat token in the first, hello, message).
Each client plays its seat from the state messages it receives: it rolls when it may
(it never doubles), and moves the first legal step sequence of the server's move graph (the
first edge from each node). An
action's round trip runs from sending it (``{"type": "action", ..., "version": N}``) to
receiving, on the sender's socket, the broadcast whose state is past version N. When
a match ends, the game starts a new table, so K stays constant.

Modes:

- ``flat``: each game sends its next action as soon as its last one is confirmed
  (closed loop: the row's actions/s is the server's capacity for K games).
- ``paced``: the games together aim at a fixed total rate R actions/s. Each game
  schedules its actions K/R seconds apart on average (uniform jitter of +-50%,
  random phase), open loop: a round trip is measured from the *intended* send
  time, so when the server falls behind, the queueing shows in the latency.

All tables are created and connected before the clock starts; then ``--warmup``
seconds of play are not counted, and the next ``--seconds`` seconds are: the
actions confirmed in that window, their round trips (p50, p99), and the errors of
the whole row (error messages from the server, failed requests or connections,
actions not confirmed within ``--timeout`` seconds). The CPU columns are the CPU time
the server's process and the load generator's process used in the window, in % of one
core (from /proc; a load generator near 100% means the client, not the server, limits
a flat row; with ``--workers 2`` the workers are counted with their parent, so up to 200%),
and the whole machine's busy time in the same window (all processes: server, load generator,
PostgreSQL; up to 100% per CPU: near 200% on two CPUs, the machine, not the server, limits a
row); then the server's and the load generator's CPU per confirmed action, in milliseconds: the
figures that other programs on the machine disturb least.

Backends: ``sqlite`` (one process), ``postgresql`` (one process),
``postgresql-2`` (``serve --workers 2``: the kernel gives each connection to either worker) and
``postgresql-2r`` (two ``serve`` processes on two ports, as on two hosts, with the load generator
routing as a balancer that hashes the table's id, e.g. nginx's ``hash $table consistent``: a
table's join and both its sockets go to one process, its creation to the processes in turn, so a
table made on the other process is handed off to its players' at their first action); the
PostgreSQL rows need
``--database-url postgresql://...`` or ``BACKGAMMON_TEST_DATABASE_URL``. A server that
refuses to start gives a "not supported" row with its own message instead of figures.

``--profile PATH`` runs each backend's server under ``cProfile`` (``PATH`` gets the
backend in its name; the profile covers that backend's rows, and the server's start)
and prints the top functions by own and by cumulative time. Profile one row at a time,
e.g. ``--games 50 --mode flat --profile /tmp/web.prof``.

    python benchmarks/web_load.py                        # sqlite, K = 50, 200, 500, flat and paced
    python benchmarks/web_load.py --quick                # a smoke run: K = 2, 2 s
    python benchmarks/web_load.py --backends sqlite,postgresql --database-url postgresql://...
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = {
    "sqlite": ("sqlite", 1, 1),
    "postgresql": ("postgresql", 1, 1),
    "postgresql-2": ("postgresql", 2, 1),
    "postgresql-2r": ("postgresql", 1, 2),
}
"""Each backend's database, ``--workers`` of each server, and servers (several: routed by table)."""
DEFAULT_RATES = {50: 250.0, 200: 1000.0, 500: 500.0}  # paced total actions/s by K (5, 5 and 1 per game)
PREFERRED = ("roll", "move", "take", "accept_resignation", "reject_draw")  # never "double"


# ------------------------------------------------------------------ server
def venv_bin(name: str) -> str:
    """A program of the project's virtualenv (else the one on PATH)."""
    path = ROOT / ".venv" / "bin" / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"web_load: {name!r} not found in {ROOT / '.venv'} nor on PATH")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One ``backgammon serve`` on 127.0.0.1 with its own temporary data folder."""

    def __init__(self, database_url: str | None, workers: int, profile: str | None) -> None:
        self.database_url = database_url
        self.workers = workers
        self.profile = profile
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="bg-web-load-"))
        self.log_path = self.dir / "server.log"
        self.proc: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 600.0) -> str | None:
        """Start and wait until healthy with the engine warmed; None, or why it did not come up."""
        import httpx

        cmd = [venv_bin("backgammon"), "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--data-dir", str(self.dir / "data"), "--dice-seed", "1", "--bot-delay", "0"]
        # one machine plays every client from one address: lift the per-address budgets (quotas.py)
        cmd += [
            "--budget",
            "tables=1000000",
            "--sockets-per-address",
            "100000",
            "--socket-messages-per-second",
            "100000",
        ]
        if self.database_url:
            cmd += ["--database-url", self.database_url]
        if self.workers != 1:
            cmd += ["--workers", str(self.workers)]
        if self.profile:
            cmd = [venv_bin("python"), "-m", "cProfile", "-o", self.profile, *cmd]
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=2.0) as http:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    return f"server exited with status {self.proc.returncode}: {self.last_line()}"
                try:
                    health = http.get(f"{self.base}/api/health").json()
                    if health.get("ok") and health.get("engine") != "warming":
                        return None
                except (httpx.HTTPError, ValueError):
                    pass
                time.sleep(0.2)
        return f"server not healthy after {timeout:.0f} s: {self.last_line()}"

    def last_line(self) -> str:
        lines = [line for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
        return lines[-1].strip() if lines else "(no output)"

    def stop(self) -> None:
        """Stop the server (SIGINT: uvicorn shuts down and cProfile writes its file) and clean up."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# -------------------------------------------------------------------- load
@dataclass
class Run:
    """One row's load: settings, clock and what was measured."""

    bases: list[str]  # the servers; with several, each table's requests and sockets go to one of them
    games: int
    mode: str
    rate: float | None
    warmup: float
    seconds: float
    timeout: float
    match_length: int
    go: asyncio.Event = field(default_factory=asyncio.Event)
    t_start: float = math.inf  # the measurement window
    t_end: float = math.inf
    stopping: bool = False
    ready: int = 0  # games connected and waiting for the start
    latencies: list[float] = field(default_factory=list)
    confirmed: int = 0
    errors: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)  # the first error message of each kind
    server_pids: list[int] = field(default_factory=list)
    made: int = 0  # tables created so far (the creations go round the servers)
    server_cpu: float | None = None  # CPU seconds the server process used in the window
    client_cpu: float | None = None  # CPU seconds this process (the load generator) used in the window
    machine_cpu: float | None = None  # CPU seconds all processors were busy in the window (everything)

    def base_for(self, table_id: str) -> str:
        """The server a balancer that routes by table sends this table's requests and sockets to."""
        return self.bases[zlib.crc32(table_id.encode()) % len(self.bases)]

    def record(self, intended: float, confirmed_at: float) -> None:
        if self.t_start <= confirmed_at < self.t_end:
            self.confirmed += 1
            self.latencies.append(confirmed_at - intended)


class Seat(asyncio.Protocol):
    """One client: a minimal WebSocket client (RFC 6455, text frames, no extensions) on its own
    connection, and the newest state it has received.

    Lean on purpose, so that the load generator's own CPU per action stays small beside the
    server's: no compression is offered (the server sends plain frames), each frame is handled in
    ``data_received`` without a task or a future per message, and only the fields the player needs
    are read from each message (:func:`read_state`). A message counts only once it has arrived
    whole; an error message from the server is counted in ``errors``.
    """

    def __init__(self, name: str, changed: asyncio.Event, run: Run) -> None:
        self.name = name
        self.changed = changed
        self.run = run
        self.state: LeanState | None = None
        self.received_at = 0.0
        self.errors = 0
        self.closed = False
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future = asyncio.get_running_loop().create_future()
        self._buffer = bytearray()
        self._fragments: list[bytes] | None = None

    @classmethod
    async def connect(cls, host: str, port: int, path: str, name: str, changed: asyncio.Event, run: Run) -> Seat:
        loop = asyncio.get_running_loop()
        _transport, seat = await loop.create_connection(lambda: cls(name, changed, run), host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        seat.expected_accept = accept_for(key)
        seat.transport.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await seat.opened
        return seat

    # asyncio.Protocol
    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        if not self.opened.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buffer[:end]).decode("latin-1").split("\r\n")
            del buffer[: end + 4]
            accept = next(
                (h.split(":", 1)[1].strip() for h in head if h.lower().startswith("sec-websocket-accept:")), ""
            )
            if not head[0].startswith("HTTP/1.1 101") or accept.encode() != self.expected_accept:
                self.opened.set_exception(ConnectionError(f"WebSocket handshake refused: {head[0]!r}"))
                self.transport.close()
                return
            self.opened.set_result(None)
        pos, size = 0, len(buffer)
        while size - pos >= 2:
            first, second = buffer[pos], buffer[pos + 1]
            length, start = second & 0x7F, pos + 2
            if length == 126:
                if size - pos < 4:
                    break
                length, start = int.from_bytes(buffer[pos + 2 : pos + 4], "big"), pos + 4
            elif length == 127:
                if size - pos < 10:
                    break
                length, start = int.from_bytes(buffer[pos + 2 : pos + 10], "big"), pos + 10
            if second & 0x80:
                self._fail("the server masked a frame")
                return
            if size - start < length:
                break
            payload = bytes(buffer[start : start + length])
            pos = start + length
            self._frame(first & 0x0F, bool(first & 0x80), payload)
        del buffer[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("connection closed during the WebSocket handshake"))
        if not self.closed and not self.run.stopping:
            self.run.errors["socket closed"] += 1
        self.closed = True
        self.changed.set()

    # frames
    def _frame(self, opcode: int, fin: bool, payload: bytes) -> None:
        if opcode in (0x1, 0x2, 0x0):  # text, binary, continuation
            if (opcode != 0) == (self._fragments is not None):  # a new message inside one, or a lone continuation
                self._fail("a frame out of sequence")
                return
            if not fin:
                self._fragments = [*(self._fragments or []), payload]
                return
            if self._fragments is not None:
                payload, self._fragments = b"".join([*self._fragments, payload]), None
            self._message(payload)
        elif opcode == 0x8:  # close: answer it, then the server closes the connection
            if not self.closed:
                self._send(0x8, payload[:2])
        elif opcode == 0x9:  # ping
            self._send(0xA, payload)

    def _message(self, payload: bytes) -> None:
        self.received_at = time.perf_counter()
        text = payload.decode("utf-8")
        if text.startswith(('{"type": "error"', '{"type":"error"')):
            self.errors += 1
            status = re.search(r'"status":\s*(\d+)', text)
            kind = f"server {status.group(1) if status else '?'}"
            self.run.errors[kind] += 1
            self.run.examples.setdefault(kind, text[:300])
        else:
            state = read_state(text)
            if state is not None:
                self.state = state
        self.changed.set()

    def send_text(self, text: str) -> None:
        if self.closed:
            raise ConnectionError("the connection is closed")
        self._send(0x1, text.encode("utf-8"))

    def _send(self, opcode: int, data: bytes) -> None:
        size = len(data)
        if size < 126:
            head = bytes((0x80 | opcode, 0x80 | size))
        elif size < 1 << 16:
            head = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
        mask = os.urandom(4)
        self.transport.write(head + mask + _masked(data, mask))

    def _fail(self, why: str) -> None:
        if not self.run.stopping:
            self.run.errors[f"socket {why}"] += 1
        self.close()

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.closed = True
            if not self.transport.is_closing():
                self._send(0x8, (1000).to_bytes(2, "big"))
                self.transport.close()
        self.closed = True


_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3


def accept_for(key: str) -> bytes:
    """The ``Sec-WebSocket-Accept`` a server answers to a handshake's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest())


def _masked(data: bytes, mask: bytes) -> bytes:
    """``data`` XOR the repeated 4-byte ``mask`` (a client's frames are masked, RFC 6455 5.3)."""
    size = len(data)
    if not size:
        return b""
    repeated = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(size, "big")


@dataclass(slots=True)
class LeanState:
    """What a player of the load generator reads of a state: its version, the actions it may
    take, the first legal step sequence (when it may move) and whether the match is over."""

    version: int
    allowed: tuple[str, ...]
    first_move: list | None
    over: bool


_VERSION = re.compile(r'"version":\s*(\d+)')
_ALLOWED = re.compile(r'"allowed":\s*\[([^\]]*)\]')
_GRAPH = re.compile(r'"move_graph":\s*')
_MATCH = re.compile(r'"match":\s*\{')
_OVER = re.compile(r'"over":\s*(true|false)')
_DECODER = json.JSONDecoder()


def read_state(text: str) -> LeanState | None:
    """The :class:`LeanState` of a ``state`` or ``event`` message (None for other messages),
    read without decoding the whole message: the server writes the state's ``version``,
    ``match``, ``allowed`` and ``move_graph`` as top-level keys of ``"state"`` (after the event,
    whose payload has none of these keys), and JSON text cannot contain an unescaped ``"key":``
    inside a string, so the first match after ``"state":`` is the field. Of the state, only the
    move graph is decoded (its first path is the move played)."""
    start = text.find('"state":')
    if start < 0:
        return None
    version = _VERSION.search(text, start)
    allowed = _ALLOWED.search(text, start)
    match = _MATCH.search(text, start)
    over = None if match is None else _OVER.search(text, match.end())  # match.score has no "over"
    if version is None or allowed is None or over is None:
        raise ValueError(f"unexpected state message: {text[:200]!r}")
    kinds = tuple(part.strip().strip('"') for part in allowed.group(1).split(",") if part.strip())
    first_move = None
    if "move" in kinds:
        graph = _GRAPH.search(text, allowed.end())
        if graph is None:
            raise ValueError(f"unexpected state message (no move graph): {text[:200]!r}")
        nodes = _DECODER.raw_decode(text, graph.end())[0]["nodes"]
        first_move, node = [], 0
        while nodes[node]:  # the first edge of each node, to a complete play
            src, dst, node = nodes[node][0]
            first_move.append([src, dst])
    return LeanState(int(version.group(1)), kinds, first_move, over.group(1) == "true")


class GameOver(Exception):
    """The table's match is over (or a client lost its connection): start another."""


def next_action(seats: list[Seat]) -> tuple[Seat, dict] | None:
    """The seat to act and its message, from the newest state; None while nobody may act."""
    newest = max(s.state.version for s in seats)
    for seat in seats:
        state = seat.state
        if state.version != newest or not state.allowed:
            continue
        kind = next((k for k in PREFERRED if k in state.allowed), None)
        if kind is None:
            raise RuntimeError(f"no action to choose among {state.allowed!r}")
        message = {"type": "action", "action": kind, "version": newest}
        if kind == "move":
            message["steps"] = state.first_move or []
        return seat, message
    if any(s.state.over for s in seats if s.state.version == newest):
        raise GameOver
    return None


async def wait_for(changed: asyncio.Event, test, timeout: float):
    """Wait until ``test()`` returns something other than None (or raise TimeoutError)."""
    async with asyncio.timeout(timeout):
        while True:
            changed.clear()
            result = test()
            if result is not None:
                return result
            await changed.wait()


async def new_table(run: Run, http) -> tuple[str, dict[str, str]]:
    rules = {"match_length": run.match_length}
    maker = run.bases[run.made % len(run.bases)]  # a new table has no id to route by yet
    run.made += 1
    made = await http.post(f"{maker}/api/tables", json={"mode": "human", "rules": rules, "name": "load-a"})
    made.raise_for_status()
    doc = made.json()
    joined = await http.post(f"{run.base_for(doc['id'])}/api/tables/{doc['id']}/join", json={"name": "load-b"})
    joined.raise_for_status()
    other = joined.json()
    return doc["id"], {doc["seat"]: doc["token"], other["seat"]: other["token"]}


async def play_game(run: Run, http, index: int) -> None:
    """Game number ``index`` of the K: tables one after another until the run stops (its own seeded jitter)."""
    interval = run.games / run.rate if run.mode == "paced" else 0.0
    rng = random.Random(index)
    next_at: float | None = None
    counted = False
    while not run.stopping:
        seats: list[Seat] = []
        try:
            table_id, tokens = await new_table(run, http)
            host, _, port = run.base_for(table_id).removeprefix("http://").partition(":")
            changed = asyncio.Event()
            for name in ("white", "black"):
                seat = await Seat.connect(host, int(port), f"/ws/tables/{table_id}", name, changed, run)
                seats.append(seat)
                seat.send_text(json.dumps({"type": "hello", "token": tokens[name]}))
            await wait_for(changed, lambda: True if all(s.state for s in seats) else None, run.timeout)
            if not counted:
                counted = True
                run.ready += 1
            await run.go.wait()
            if next_at is None:
                next_at = time.perf_counter() + rng.uniform(0, interval)
            while not run.stopping:

                def pick():
                    if any(s.closed for s in seats):
                        raise GameOver
                    return next_action(seats)

                seat, message = await wait_for(changed, pick, run.timeout)
                if run.mode == "paced":
                    delay = next_at - time.perf_counter()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    if run.stopping:
                        break
                    intended = next_at
                    next_at += interval * rng.uniform(0.5, 1.5)
                else:
                    intended = time.perf_counter()
                version, errors = message["version"], seat.errors
                seat.send_text(json.dumps(message))

                def confirmed():
                    if seat.state.version > version:  # the server's broadcast of the stored action
                        return True
                    if seat.errors > errors or seat.closed:
                        return False
                    return None

                if await wait_for(changed, confirmed, run.timeout):
                    run.record(intended, seat.received_at)
        except GameOver:
            continue
        except TimeoutError:
            if not run.stopping:
                run.errors["timeout"] += 1
        except Exception as exc:  # noqa: BLE001 - counted; the game starts a new table
            if not run.stopping:
                run.errors[f"client {type(exc).__name__}"] += 1
                await asyncio.sleep(0.2)
        finally:
            for seat in seats:
                seat.close()


def machine_cpu() -> float | None:
    """CPU seconds all the processors have been busy so far (everything but idle and I/O wait:
    the server, the load generator, PostgreSQL and anything else), from /proc/stat (None elsewhere)."""
    try:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds (user + system) a process and its live children (``serve --workers N``'s
    worker processes) have used so far, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return None
    total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        total += process_cpu(int(child)) or 0.0
    return total


def servers_cpu(pids: list[int]) -> float | None:
    """CPU seconds the server processes (and their workers) have used so far (None elsewhere)."""
    used = [process_cpu(pid) for pid in pids]
    return None if not used or None in used else sum(u for u in used if u is not None)


async def drive(run: Run) -> None:
    """Connect the K games, let them play through the warm-up and the window, then stop them."""
    import httpx

    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(timeout=run.timeout, limits=limits) as http:
        tasks = [asyncio.create_task(play_game(run, http, i)) for i in range(run.games)]
        deadline = time.perf_counter() + max(60.0, run.games * 0.2)
        while run.ready < run.games and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        if run.ready < run.games:
            run.errors["not connected in time"] += run.games - run.ready
        now = time.perf_counter()
        run.t_start = now + run.warmup
        run.t_end = run.t_start + run.seconds
        run.go.set()
        await asyncio.sleep(run.warmup)
        server0, client0, machine0 = servers_cpu(run.server_pids), time.process_time(), machine_cpu()
        await asyncio.sleep(max(0.0, run.t_end - time.perf_counter()))
        server1, client1, machine1 = servers_cpu(run.server_pids), time.process_time(), machine_cpu()
        run.stopping = True
        run.client_cpu = client1 - client0
        if machine0 is not None and machine1 is not None:
            run.machine_cpu = machine1 - machine0
        if server0 is not None and server1 is not None:
            run.server_cpu = server1 - server0
        _, pending = await asyncio.wait(tasks, timeout=5.0)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


# ------------------------------------------------------------------- rows
@dataclass
class Row:
    backend: str
    games: int
    mode: str
    rate: float | None
    actions_per_s: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    errors: Counter | None = None
    server_cpu: float | None = None  # % of one core in the window
    client_cpu: float | None = None
    machine_cpu: float | None = None  # all processors, % of one core (up to 100 x CPUs)
    note: str = ""


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def measure_backend(args, backend: str, plan: list[tuple[int, str, float | None]]) -> list[Row]:
    """The rows of one backend: one server (started once: its engine warm-up takes up to a minute), each
    row on new tables."""
    rows = [Row(backend, games, mode, rate) for games, mode, rate in plan]
    kind, workers, count = BACKENDS[backend]
    url = args.database_url if kind == "postgresql" else None
    if kind == "postgresql" and not url:
        for row in rows:
            row.note = "skipped: needs --database-url postgresql://... (or BACKGAMMON_TEST_DATABASE_URL)"
        return rows
    profile = None
    if args.profile:
        stem = Path(args.profile)
        profile = str(stem.with_name(f"{stem.stem}-{backend}{stem.suffix or '.prof'}"))
    servers = [Server(url, workers, profile if i == 0 else None) for i in range(count)]  # profiles the first
    try:
        failed = next((why for why in (server.start() for server in servers) if why), None)
        for row in rows:
            if failed:
                row.note = f"not supported: {failed}"
                continue
            run = Run(
                [server.base for server in servers],
                row.games,
                row.mode,
                row.rate,
                args.warmup,
                args.seconds,
                args.timeout,
                args.match_length,
            )
            run.server_pids = [server.proc.pid for server in servers if server.proc is not None]
            asyncio.run(drive(run))
            row.actions_per_s = run.confirmed / run.seconds
            if run.latencies:
                row.p50_ms = percentile(run.latencies, 50) * 1000
                row.p99_ms = percentile(run.latencies, 99) * 1000
            row.errors = run.errors
            row.server_cpu = None if run.server_cpu is None else 100 * run.server_cpu / run.seconds
            row.client_cpu = 100 * run.client_cpu / run.seconds
            row.machine_cpu = None if run.machine_cpu is None else 100 * run.machine_cpu / run.seconds
            for server in servers:
                if server.proc is not None and server.proc.poll() is not None:
                    failed = f"server exited with status {server.proc.returncode}: {server.last_line()}"
                    row.note = failed
            print(
                f"{backend} K={row.games} {row.mode}: {fmt(row.actions_per_s, ',.0f')} actions/s",
                file=sys.stderr,
                flush=True,
            )
            for kind, text in run.examples.items():
                print(f"  first {kind}: {text}", file=sys.stderr, flush=True)
    finally:
        for server in servers:
            server.stop()
    if profile and not failed:
        rows[-1].note = f"profile: {profile}"
        print_profile(profile, args.profile_top)
    return rows


def print_profile(path: str, top: int) -> None:
    import pstats

    if not Path(path).exists():
        print(f"web_load: no profile written at {path}", file=sys.stderr)
        return
    print(f"\n{path}: top {top} by own time", file=sys.stderr)
    stats = pstats.Stats(path, stream=sys.stderr)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[Row]) -> None:
    print(
        "| backend | K | mode | target/s | actions/s | p50 ms | p99 ms | errors | server CPU | client CPU"
        " | machine CPU | server ms/action | client ms/action | note |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        errors = "-" if r.errors is None else str(sum(r.errors.values()))
        if r.errors:
            errors += " (" + ", ".join(f"{k}: {n}" for k, n in r.errors.most_common()) + ")"
        label = {
            "sqlite": "sqlite 1 proc",
            "postgresql": "postgresql 1 proc",
            "postgresql-2": "postgresql 2 procs",
            "postgresql-2r": "postgresql 2 servers, routed by table",
        }
        print(
            f"| {label[r.backend]} | {r.games} | {r.mode} | {fmt(r.rate, ',.0f')} | {fmt(r.actions_per_s, ',.0f')}"
            f" | {fmt(r.p50_ms, '.1f')} | {fmt(r.p99_ms, '.1f')} | {errors}"
            f" | {fmt(r.server_cpu, '.0f')}{'%' * (r.server_cpu is not None)}"
            f" | {fmt(r.client_cpu, '.0f')}{'%' * (r.client_cpu is not None)}"
            f" | {fmt(r.machine_cpu, '.0f')}{'%' * (r.machine_cpu is not None)}"
            f" | {fmt(per_action(r.server_cpu, r.actions_per_s), '.2f')}"
            f" | {fmt(per_action(r.client_cpu, r.actions_per_s), '.2f')} | {r.note} |",
            flush=True,
        )


def per_action(cpu_percent: float | None, actions_per_s: float | None) -> float | None:
    """CPU milliseconds per confirmed action, from a CPU % of one core and the actions/s."""
    if cpu_percent is None or not actions_per_s:
        return None
    return 10 * cpu_percent / actions_per_s


def int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid list {text!r}: expected integers like 50,200,500") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"invalid list {text!r}: expected positive integers")
    return values


def choice_list(choices):
    def parse(text: str) -> list[str]:
        values = [x.strip() for x in text.split(",") if x.strip()]
        bad = [v for v in values if v not in choices]
        if bad or not values:
            raise argparse.ArgumentTypeError(f"invalid {text!r}: expected a comma list of {', '.join(choices)}")
        return values

    return parse


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--backends",
        type=choice_list(tuple(BACKENDS)),
        default=None,
        help="comma list of sqlite, postgresql, postgresql-2 (default: sqlite, plus the "
        "PostgreSQL rows when a database URL is given)",
    )
    ap.add_argument("--games", type=int_list, default=[50, 200, 500], help="K values (default 50,200,500)")
    ap.add_argument("--mode", type=choice_list(("flat", "paced")), default=["flat", "paced"])
    ap.add_argument(
        "--rate",
        type=float,
        default=None,
        help="paced: total actions/s for every K (default 250 at K=50, 1000 at 200, 500 at 500, else 5 per game)",
    )
    ap.add_argument("--seconds", type=float, default=10.0, help="measurement window per row")
    ap.add_argument("--warmup", type=float, default=1.0, help="seconds of play before the window")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before an action counts as lost")
    ap.add_argument("--match-length", type=int, default=0, help="0 = money sessions (default)")
    ap.add_argument(
        "--database-url",
        default=os.environ.get("BACKGAMMON_TEST_DATABASE_URL"),
        help="postgresql://... for the PostgreSQL rows (default: $BACKGAMMON_TEST_DATABASE_URL)",
    )
    ap.add_argument(
        "--profile",
        default=None,
        metavar="PATH",
        help="run each server under cProfile, writing PATH-<backend>-<K>-<mode>.prof",
    )
    ap.add_argument("--profile-top", type=int, default=25)
    ap.add_argument("--quick", action="store_true", help="a smoke run: K = 2, 2 s, flat, sqlite")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.seconds, args.warmup, args.mode = [2], 2.0, 0.5, ["flat"]
        args.backends = args.backends or ["sqlite"]
    if args.backends is None:
        args.backends = ["sqlite"] + (["postgresql", "postgresql-2", "postgresql-2r"] if args.database_url else [])
    if args.rate is not None and args.rate <= 0:
        ap.error(f"invalid --rate {args.rate!r}: expected a positive rate")
    if args.seconds <= 0 or args.warmup < 0 or args.timeout <= 0:
        ap.error("invalid --seconds, --warmup or --timeout: expected positive seconds")
    if args.database_url and not args.database_url.startswith("postgresql"):
        ap.error(f"invalid --database-url {args.database_url!r}: expected postgresql://...")
    if not 0 <= args.match_length <= 25:
        ap.error(f"invalid --match-length {args.match_length!r}: expected 0 to 25")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # 2 sockets per game here and on the server
    want = max(g for g in args.games) * 4 + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

    tables = f"{args.match_length}-point matches" if args.match_length else "money sessions"
    print(
        f"web load on 127.0.0.1, {os.cpu_count()} CPU(s), window {args.seconds:g} s after "
        f"{args.warmup:g} s warm-up, {tables}",
        flush=True,
    )
    plan = []
    for games in args.games:
        for mode in args.mode:
            rate = (args.rate or DEFAULT_RATES.get(games, 5.0 * games)) if mode == "paced" else None
            plan.append((games, mode, rate))
    rows = []
    for backend in args.backends:
        rows += measure_backend(args, backend, plan)
    print()
    print_table(rows)


if __name__ == "__main__":
    main()
