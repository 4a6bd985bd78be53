"""Rooms: one serial actor per table, fan-out that never waits on a client, storage off the loop.

Every kind of table (a match, a money session, a chouette) is a *room*:

- :class:`Room` is an inbox and one task. Everything that changes the table (a client's action, a
  seat taken, a computer player's answer, a clock running out) is a *job* put in the inbox; the
  task runs one job to its end before it takes the next, so a table never sees two changes at
  once and needs no lock. A job applies the action to the immutable state, stores it (awaiting
  the database), then publishes the new state, in that order: nothing is shown or acknowledged
  before it is stored.
- :class:`Outbox` is one connection's bounded send queue, drained by the connection's own task.
  Publishing only puts text in outboxes; a connection whose queue is full, or whose send takes
  longer than :data:`SEND_TIMEOUT`, is closed (the client reconnects and gets the full state), so
  a stalled browser never delays the room.
- :class:`Store` runs the rooms' database writes on one worker thread, with group commit: the rows
  that rooms hand it while a commit is in flight go together in the next one, each room awaiting
  its own. The event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sqlalchemy import insert, update
from sqlalchemy.orm import sessionmaker

from backgammon.server.db import Action, Table

log = logging.getLogger("backgammon.server")
T = TypeVar("T")

OUTBOX_LIMIT = 256
"""Messages a connection may have waiting before it counts as stalled and is dropped."""
SEND_TIMEOUT = 10.0
"""Seconds one send may take before the connection counts as stalled and is dropped."""
CLOSE_TIMEOUT = 5.0
"""Seconds given to closing a dropped connection politely before it is left to the server."""
IDLE_SECONDS = 300.0
"""Seconds a room that nobody watches and that has nothing due stays in memory after its last use;
then it is dropped (its table stays in the database, and the next request reads it again)."""
SWEEP_EVERY = 30.0
"""Seconds between two looks for such idle rooms."""


class Room:
    """An inbox and the one task that works through it (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future | None]] = asyncio.Queue()
        self._task: asyncio.Task | None = None
        self._busy = False
        self.closed = False

    async def call(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in the room, after the jobs before it; return its result or raise its error.

        A caller that goes away (its task cancelled) does not stop the job: once in the inbox, an
        action is carried out.
        """
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._put(job, future)
        return await asyncio.shield(future)

    def post(self, job: Callable[[], Awaitable[Any]]) -> None:
        """Queue ``job`` without waiting for it (its errors are logged)."""
        self._put(job, None)

    def _put(self, job: Callable[[], Awaitable[Any]], future: asyncio.Future | None) -> None:
        if self.closed:
            raise RuntimeError(f"room {self.name} is closed")
        self._inbox.put_nowait((job, future))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work(), name=f"room-{self.name}")

    async def _work(self) -> None:
        while True:
            job, future = await self._inbox.get()
            self._busy = True
            try:
                result = await job()
            except asyncio.CancelledError:
                if future is not None and not future.done():
                    future.cancel()
                raise
            except Exception as exc:
                if future is None:
                    log.exception("room %s: a background job failed", self.name)
                elif not future.done():
                    future.set_exception(exc)
            else:
                if future is not None and not future.done():
                    future.set_result(result)
            finally:
                self._busy = False

    @property
    def idle(self) -> bool:
        """No job running and none waiting."""
        return not self._busy and self._inbox.empty()

    async def aclose(self, timeout: float = 5.0) -> None:
        """Stop the task and wait (``timeout`` seconds at most) until it has stopped."""
        task = self._task
        self.close()
        if task is not None and not task.done():
            await asyncio.wait([task], timeout=timeout)

    def close(self) -> None:
        """Stop the task (jobs still queued are cancelled)."""
        self.closed = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
        while not self._inbox.empty():
            _job, future = self._inbox.get_nowait()
            if future is not None and not future.done():
                future.cancel()


class Outbox:
    """One connection's bounded send queue and the task that drains it.

    ``send`` is a coroutine function taking one text frame (``websocket.send_text``); ``close``
    a coroutine function closing the connection. ``seat`` is whose view the connection gets.
    """

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        seat: Any = None,
        *,
        limit: int = OUTBOX_LIMIT,
        timeout: float = SEND_TIMEOUT,
    ) -> None:
        self.seat = seat
        self._send = send
        self._close = close
        self._queue: asyncio.Queue[str] = asyncio.Queue(limit)
        self._timeout = timeout
        self.dropped = asyncio.Event()
        self.reason: str | None = None
        self._task = asyncio.get_running_loop().create_task(self._drain(), name="outbox")

    def offer(self, text: str) -> bool:
        """Queue one message; a full queue drops the connection. Never waits."""
        if self.dropped.is_set():
            return False
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop("too far behind")
            return False
        return True

    async def _drain(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                async with asyncio.timeout(self._timeout):  # (cheaper than wait_for: no task per send)
                    await self._send(text)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            self.drop("a send timed out")
        except Exception:  # noqa: BLE001 - a closed or broken connection
            self.drop("the connection failed")

    def drop(self, reason: str) -> None:
        """Stop sending and close the connection (in the background)."""
        if self.dropped.is_set():
            return
        self.reason = reason
        self.dropped.set()
        if self._task is not asyncio.current_task():
            self._task.cancel()
        log.info("dropped a connection: %s", reason)
        asyncio.get_running_loop().create_task(self._close_quietly())

    async def _close_quietly(self) -> None:
        try:
            await asyncio.wait_for(self._close(), CLOSE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - it is going away anyway
            log.debug("closing a dropped connection failed: %r", exc)

    def stop(self) -> None:
        """The connection ended by itself: stop the drain task."""
        self.dropped.set()
        self._task.cancel()

    @property
    def backlog(self) -> int:
        return self._queue.qsize()


class Held(Protocol):
    """What a manager holds in memory for one room (a table, a chouette)."""

    @property
    def id(self) -> str: ...

    @property
    def room(self) -> Room: ...

    @property
    def outboxes(self) -> set[Outbox]: ...  # the connections here that watch it

    @property
    def used(self) -> float: ...  # when it was last asked for or watched (``time.monotonic``)


H = TypeVar("H", bound=Held)


def drop_room(
    held: dict[str, H], item: H, unfollow: dict[str, Callable[[], Any]], release: Callable[[str], None]
) -> None:
    """Drop a room from its manager's memory (it stays in the database; the next request reads it
    again): forget ``item`` if it is the one ``held`` (by id), stop its room, stop following it
    between processes (``unfollow``, by id) and let its lease go (``release``)."""
    if held.get(item.id) is item:
        del held[item.id]
        item.room.close()
        unfollow.pop(item.id, lambda: None)()
        release(item.id)


def drop_idle(
    held: dict[str, H],
    unused_since: float,
    due: Callable[[H], bool],
    unfollow: dict[str, Callable[[], Any]],
    release: Callable[[str], None],
) -> int:
    """Drop from memory (:func:`drop_room`) the rooms nobody watches here, with no job under way and
    nothing ``due`` (the manager's say: a computer or a clock still to act), unused since
    ``unused_since`` (``time.monotonic``); they stay in the database. How many."""
    idle = [
        item
        for item in held.values()
        if not item.outboxes and item.used <= unused_since and item.room.idle and not due(item)
    ]
    for item in idle:
        drop_room(held, item, unfollow, release)
    return len(idle)


async def sweep_idle(sweep: Callable[[float], int], kind: str) -> None:
    """Every :data:`SWEEP_EVERY` seconds, ``sweep(t)`` drops the idle rooms unused since ``t``
    (``time.monotonic``, :data:`IDLE_SECONDS` ago) and says how many. Runs until cancelled."""
    while True:
        await asyncio.sleep(SWEEP_EVERY)
        if dropped := sweep(time.monotonic() - IDLE_SECONDS):
            log.info("dropped %d idle %s room(s) from memory", dropped, kind)


PRESENCE_EVERY = 0.25
"""Seconds between two presence messages of one table at most (joins and leaves in between are
told together, in the next one)."""


class Throttle:
    """Calls ``fn`` at most once per ``every`` seconds: at once when the last call is that long ago
    (with the caller's argument), else once at the end of the interval for every call made meanwhile
    (with None). For presence: a burst of joins is one message per interval, not one per join."""

    def __init__(self, fn: Callable[[Any], None], every: float | None = None) -> None:
        self.fn = fn
        self.every = PRESENCE_EVERY if every is None else every
        self._last = float("-inf")
        self._due: asyncio.TimerHandle | None = None

    def __call__(self, arg: Any = None) -> None:
        if self._due is not None:
            return  # told with the one already due
        loop = asyncio.get_running_loop()
        wait = self._last + self.every - loop.time()
        if wait <= 0:
            self._last = loop.time()
            self.fn(arg)
        else:
            self._due = loop.call_later(wait, self._run)

    def _run(self) -> None:
        self._due = None
        self._last = asyncio.get_running_loop().time()
        self.fn(None)

    def cancel(self) -> None:
        if self._due is not None:
            self._due.cancel()
            self._due = None


def fan_out(outboxes: Iterable[Outbox], message_for: Callable[[Any], str]) -> None:
    """Offer each connection its seat's message; each distinct seat's text is built once."""
    built: dict[Any, str] = {}
    for outbox in list(outboxes):
        text = built.get(outbox.seat)
        if text is None:
            text = built[outbox.seat] = message_for(outbox.seat)
        outbox.offer(text)


@dataclass(frozen=True, slots=True)
class Row:
    """One action to store: ``seq`` is its place in the table's list (1-based)."""

    table_id: str
    seq: int
    payload: dict[str, Any]
    created_at: _dt.datetime
    status: str | None = None  # the table's new status, if it changes with this action


class Store:
    """The rooms' database writes on one thread, with group commit (see the module docstring)."""

    def __init__(self, sessions: sessionmaker) -> None:
        self.sessions = sessions
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="store")
        self._pending: list[tuple[Row, asyncio.Future]] = []
        self._flushing = False
        self._flusher: asyncio.Task | None = None
        self.commits = 0
        self.rows = 0

    async def append(self, row: Row) -> None:
        """Store one action (with the table's new status); returns once it is committed.

        Raises:
            Exception: what the database raised for this row (e.g. an IntegrityError when another
                process already stored an action at that place); other rooms' rows are unaffected.
        """
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((row, future))
        if not self._flushing:
            self._flushing = True
            self._flusher = loop.create_task(self._flush())  # (a reference keeps the task alive)
        await future

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run another database job on the store's thread (in order with the appends)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                try:
                    errors = await loop.run_in_executor(self._executor, self._write, [row for row, _ in batch])
                except Exception as exc:  # noqa: BLE001 - the executor itself failed
                    errors = [exc] * len(batch)
                for (_row, future), error in zip(batch, errors, strict=True):
                    if future.done():
                        continue
                    if error is None:
                        future.set_result(None)
                    else:
                        future.set_exception(error)
        finally:
            self._flushing = False

    def _write(self, rows: list[Row]) -> list[BaseException | None]:
        try:
            self._commit(rows)
            return [None] * len(rows)
        except Exception:
            if len(rows) == 1:
                raise
        errors: list[BaseException | None] = []
        for row in rows:
            try:
                self._commit([row])
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 - this row's own error
                errors.append(exc)
        return errors

    def _commit(self, rows: list[Row]) -> None:
        with self.sessions() as db:
            db.execute(
                insert(Action),
                [
                    {"table_id": r.table_id, "seq": r.seq, "payload": r.payload, "created_at": r.created_at}
                    for r in rows
                ],
            )
            for r in rows:
                if r.status is not None:
                    db.execute(update(Table).where(Table.id == r.table_id).values(status=r.status))
            db.commit()
        self.commits += 1
        self.rows += len(rows)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
