"""``serve --workers N``: N server processes behind one port, each table's connections on one of them.

The parent process listens on the port and hands every connection it accepts to a worker process,
as a file descriptor over a Unix socket (``SCM_RIGHTS``); it reads nothing from the connection. It
peeks at the request line: a request for a table (``/api/tables/ID...``, ``/ws/tables/ID``, the same
under ``chouette``) goes to worker ``crc32(ID) % N``, so that a table's players and watchers share
a process, where the table then runs (:mod:`backgammon.server.ownership` hands it there); other
connections go round the workers. Without this the kernel gave each connection to any worker, and
the two players of a table were on different processes half the time, every action forwarded
between them (``benchmarks/web_load.py``: 0.85 against 0.66 ms of server CPU per action).

A worker that dies is started again. SIGINT or SIGTERM stops the workers (each finishes its
shutdown) and then the parent.
"""

from __future__ import annotations

import argparse
import logging
import re
import selectors
import signal
import socket
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field

log = logging.getLogger("backgammon.server")

PEEK_BYTES = 512
"""How much of a new connection's first bytes the parent looks at for the request line."""
PEEK_WAIT = 5.0
"""Seconds a new connection may take to send its request line before it goes to any worker."""
TABLE_PATH = re.compile(rb"^[A-Z]+ /(?:api|ws)/(?:tables|chouette)/([A-Za-z0-9_-]{1,64})[/?# ]")


def worker_for(first_bytes: bytes, workers: int, turn: int) -> int:
    """The worker for a connection whose first bytes are ``first_bytes``: by the table id in its
    request line, else ``turn % workers``."""
    found = TABLE_PATH.match(first_bytes)
    if found is None:
        return turn % workers
    return zlib.crc32(found.group(1)) % workers


# ------------------------------------------------------------------ the parent
@dataclass
class _Worker:
    index: int
    process: subprocess.Popen | None = None
    channel: socket.socket | None = None  # the parent's end of the Unix socket to the worker
    started: float = 0.0


@dataclass
class _Pending:
    conn: socket.socket
    since: float
    data: bytes = field(default=b"")  # the part of the request line seen so far
    polled: bool = False  # out of the selector (its unread bytes would wake it at once): polled instead


class Supervisor:
    """The parent: the listening socket, the workers, and the hand-over of each connection."""

    def __init__(self, workers: int, host: str, port: int, *, env: dict[str, str] | None = None) -> None:
        self.count = workers
        self.host, self.port = host, port
        self.env = env
        self.workers = [_Worker(i) for i in range(workers)]
        self.pending: dict[int, _Pending] = {}
        self.turn = 0
        self.stopping = False
        self.selector = selectors.DefaultSelector()
        self.listener: socket.socket | None = None

    def _start(self, worker: _Worker) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        cmd = [sys.executable, "-m", "backgammon.server.workers", "--channel", str(theirs.fileno())]
        # (a session of its own: Ctrl-C reaches the parent alone, which stops the workers in order)
        worker.process = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], env=self.env, start_new_session=True)
        theirs.close()
        ours.settimeout(5.0)  # a worker too busy to take connections for that long gets none of them
        worker.channel = ours
        worker.started = time.monotonic()

    def _check_workers(self) -> None:
        for worker in self.workers:
            if worker.process is not None and worker.process.poll() is not None and not self.stopping:
                log.error("worker %d exited with status %s: starting it again", worker.index, worker.process.returncode)
                if worker.channel is not None:
                    worker.channel.close()
                if time.monotonic() - worker.started < 1.0:
                    time.sleep(1.0)  # (one that dies at once is not restarted in a tight loop)
                self._start(worker)

    def _hand(self, conn: socket.socket, first: bytes) -> None:
        index = worker_for(first, self.count, self.turn)
        self.turn += 1
        worker = self.workers[index]
        try:
            assert worker.channel is not None
            socket.send_fds(worker.channel, [b"c"], [conn.fileno()])
        except OSError:
            log.warning("could not hand a connection to worker %d", index, exc_info=True)
        finally:
            conn.close()  # the worker has its own copy of the descriptor

    def _accept(self) -> None:
        assert self.listener is not None
        while True:
            try:
                conn, _addr = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                log.warning("accept failed", exc_info=True)
                return
            conn.setblocking(False)
            self.pending[conn.fileno()] = _Pending(conn, time.monotonic())
            self.selector.register(conn, selectors.EVENT_READ, "conn")

    def _peek(self, conn: socket.socket) -> None:
        pending = self.pending[conn.fileno()]
        try:
            data = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data and b"\n" not in data and len(data) < PEEK_BYTES:
            pending.data = data  # the request line is not all here yet: look again soon
            if not pending.polled:
                pending.polled = True
                self.selector.unregister(conn)
            return
        self._release(conn)
        if data:
            self._hand(conn, data)
        else:
            conn.close()  # closed before saying anything

    def _release(self, conn: socket.socket) -> None:
        if not self.pending.pop(conn.fileno()).polled:
            self.selector.unregister(conn)

    def _expire(self) -> None:
        now = time.monotonic()
        for pending in [p for p in self.pending.values() if now - p.since > PEEK_WAIT]:
            self._release(pending.conn)
            self._hand(pending.conn, pending.data)

    def _stop(self, *_args: object) -> None:
        self.stopping = True

    def run(self) -> int:
        """Serve until SIGINT or SIGTERM; returns the exit status."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        self.listener = socket.create_server((self.host, self.port), family=family, backlog=2048)
        self.listener.setblocking(False)
        for worker in self.workers:
            self._start(worker)
        self.selector.register(self.listener, selectors.EVENT_READ, "listener")
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            while not self.stopping:
                # a connection that sent part of its request line is polled again soon
                polled = [p.conn for p in self.pending.values() if p.polled]
                for key, _events in self.selector.select(timeout=0.05 if polled else 0.5):
                    if key.data == "listener":
                        self._accept()
                    else:
                        self._peek(key.fileobj)  # type: ignore[arg-type]
                for conn in polled:
                    if conn.fileno() in self.pending:
                        self._peek(conn)
                self._expire()
                self._check_workers()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._shut_down()
        return 0

    def _shut_down(self) -> None:
        if self.listener is not None:
            self.selector.unregister(self.listener)
            self.listener.close()
        for pending in list(self.pending.values()):
            self._release(pending.conn)
            pending.conn.close()
        for worker in self.workers:
            if worker.process is not None and worker.process.poll() is None:
                worker.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 30
        for worker in self.workers:
            if worker.process is None:
                continue
            try:
                worker.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
            if worker.channel is not None:
                worker.channel.close()


# ------------------------------------------------------------------ a worker
def _worker_server(channel_fd: int):
    """The uvicorn server of one worker: no listening socket of its own; it serves the connections
    the parent sends over ``channel_fd``."""
    import asyncio

    import uvicorn

    from backgammon.server.app import app_from_env

    class Adopting(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=[])
            if self.should_exit:
                return
            loop = asyncio.get_running_loop()
            channel = socket.socket(fileno=channel_fd)
            channel.setblocking(False)

            def protocol() -> asyncio.Protocol:
                return self.config.http_protocol_class(  # type: ignore[call-arg]
                    config=self.config, server_state=self.server_state, app_state=self.lifespan.state, _loop=loop
                )

            adopting: set[asyncio.Task] = set()

            def adopt() -> None:
                while True:
                    try:
                        message, fds, _flags, _addr = socket.recv_fds(channel, 16, 16)
                    except (BlockingIOError, InterruptedError):
                        return
                    if not message and not fds:  # the parent is gone: stop
                        loop.remove_reader(channel.fileno())
                        self.should_exit = True
                        return
                    for fd in fds:
                        conn = socket.socket(fileno=fd)
                        conn.setblocking(False)
                        task = loop.create_task(loop.connect_accepted_socket(protocol, conn))
                        adopting.add(task)  # (kept until done: the loop holds tasks weakly)
                        task.add_done_callback(adopting.discard)

            loop.add_reader(channel.fileno(), adopt)

    from backgammon.server.serving import ServeOptions

    # (the parent's --forwarded-allow-ips, timeouts and limits; X-Forwarded-For is read here, from the
    # connection the parent handed over)
    config = uvicorn.Config(app_from_env(), log_level="warning", **ServeOptions.from_env().uvicorn_kwargs())
    return Adopting(config)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="one worker of `backgammon serve --workers N` (started by it)")
    ap.add_argument("--channel", type=int, required=True, help="the Unix socket the parent sends connections on")
    args = ap.parse_args(argv)
    _worker_server(args.channel).run(sockets=[])
    return 0


if __name__ == "__main__":
    sys.exit(main())
