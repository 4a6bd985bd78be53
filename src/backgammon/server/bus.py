"""Publish/subscribe between the processes of one site, and room ownership.

A site may run several server processes (on one host or several) over one PostgreSQL
database. Each room (table) is owned by one process at a time; the others reach it through
a bus. This module holds the two primitives that design needs, with one in-process
implementation (SQLite, a single process) and one on PostgreSQL:

- :class:`LocalBus` / :class:`PostgresBus`: ``publish(topic, message)`` delivers a JSON
  object to every subscriber of ``topic`` in every process. PostgreSQL carries it with
  ``LISTEN``/``NOTIFY`` on one channel; a message is at most :data:`MAX_PAYLOAD` bytes of
  JSON, so publish events and versions, not whole states. Delivery is at most once: a
  subscriber that needs every message (a room's followers) detects a gap by the version
  numbers in the messages and reloads from the database, which stays the source of truth.
  After the listening connection is lost and made again, every ``on_reconnect`` callback
  runs, because messages may have been missed meanwhile. ``publish_many`` sends several
  messages in order in as few notifications as fit (one round trip to the server), which is
  how the rooms' network sends everything that queued up while the last batch was on its way.
- :class:`LocalLeases` / :class:`PostgresLeases`: ``acquire(room)`` makes this process the
  room's owner if no live process is. PostgreSQL keeps the ownership as session-level
  advisory locks on one connection per process, so a process that dies (even ``kill -9``)
  loses its rooms as soon as the server sees its connection close, and another process can
  take them over. A lost lease connection means every room is lost at once
  (``on_lost`` runs). The actions table's unique ``(table_id, seq)`` constraint is the last
  guard: a stale owner can never store a second action at the same place.

The PostgreSQL bus is the default; :class:`RedisBus` carries the same messages over Redis pub/sub
when the site gives a Redis URL (the leases stay on PostgreSQL).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import uuid
from collections import defaultdict
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, Protocol

from backgammon.errors import InvalidInputError

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger("backgammon.server.bus")

CHANNEL = "backgammon"
MAX_PAYLOAD = 7900  # PostgreSQL's NOTIFY limit is 8000 bytes
Callback = Callable[[dict[str, Any]], None]


class Bus(Protocol):
    """What the rooms need from a bus (see the module docstring)."""

    async def start(self) -> None: ...

    async def publish(self, topic: str, message: dict[str, Any]) -> None: ...

    async def publish_many(self, items: list[tuple[str, dict[str, Any]]]) -> None: ...

    def subscribe(self, topic: str, callback: Callback) -> Callable[[], None]: ...

    def on_reconnect(self, callback: Callable[[], None]) -> None: ...

    async def close(self) -> None: ...


def encode(topic: str, message: dict[str, Any]) -> str:
    """One message as ``{"t": topic, "m": message}``.

    Raises:
        InvalidInputError: when it is longer than :data:`MAX_PAYLOAD` bytes."""
    text = json.dumps({"t": topic, "m": message}, separators=(",", ":"))
    if len(text.encode()) > MAX_PAYLOAD:
        raise InvalidInputError(
            f"bus message for {topic!r} too large: {len(text.encode())} bytes (at most {MAX_PAYLOAD})"
        )
    return text


def _batches(items: list[tuple[str, dict[str, Any]]], tag: str) -> list[str]:
    """Messages in order, packed into payloads of at most :data:`MAX_PAYLOAD` bytes: a payload is one
    message, or ``{"n": tag, "b": [message, ...]}`` (``tag`` differs between payloads, since
    PostgreSQL drops a notification that repeats another of the same transaction).

    A message too large to send (see :func:`encode`) is logged and left out: the others still go."""
    texts = []
    for topic, message in items:
        try:
            texts.append(encode(topic, message))
        except InvalidInputError as exc:
            log.warning("bus message left out: %s", exc)
    payloads: list[str] = []
    group: list[str] = []
    size = 0
    for text in texts:
        length = len(text.encode()) + 1
        if group and size + length > MAX_PAYLOAD - 40 - len(tag):
            payloads.append(_pack(group, f"{tag}.{len(payloads)}"))
            group, size = [], 0
        group.append(text)
        size += length
    if group:
        payloads.append(_pack(group, f"{tag}.{len(payloads)}"))
    return payloads


def _pack(texts: list[str], tag: str) -> str:
    if len(texts) == 1:
        return texts[0]
    return '{"n":' + json.dumps(tag) + ',"b":[' + ",".join(texts) + "]}"


def _unpack(payload: str | bytes) -> list[tuple[str, dict[str, Any]]]:
    """The messages of one payload (see :func:`_batches`); a malformed one is logged and dropped."""
    try:
        doc = json.loads(payload)
        docs = doc["b"] if "b" in doc else [doc]
        out = []
        for one in docs:
            topic, message = one["t"], one["m"]
            if isinstance(topic, str) and isinstance(message, dict):
                out.append((topic, message))
        return out
    except (ValueError, KeyError, TypeError):
        log.warning("ignored a malformed bus message")
        return []


class _Subscribers:
    """Callbacks by topic; each is called on the event loop, never inside ``publish``."""

    def __init__(self) -> None:
        self.by_topic: dict[str, list[Callback]] = defaultdict(list)
        self.reconnect: list[Callable[[], None]] = []

    def add(self, topic: str, callback: Callback) -> Callable[[], None]:
        self.by_topic[topic].append(callback)

        def unsubscribe() -> None:
            callbacks = self.by_topic.get(topic)
            if callbacks and callback in callbacks:
                callbacks.remove(callback)
                if not callbacks:
                    del self.by_topic[topic]

        return unsubscribe

    def deliver(self, topic: str, message: dict[str, Any]) -> None:
        for callback in list(self.by_topic.get(topic, ())):
            try:
                callback(message)
            except Exception:
                log.exception("bus subscriber for %r failed", topic)


class LocalBus:
    """The bus of a single process (the embedded SQLite default)."""

    def __init__(self) -> None:
        self._subs = _Subscribers()

    async def start(self) -> None:
        return None

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        encode(topic, message)  # raises for a message too large
        await self.publish_many([(topic, message)])

    async def publish_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        loop = asyncio.get_running_loop()
        for payload in _batches(items, "local"):  # the same size limit and packing as PostgreSQL
            for topic, message in _unpack(payload):
                loop.call_soon(self._subs.deliver, topic, message)

    def subscribe(self, topic: str, callback: Callback) -> Callable[[], None]:
        return self._subs.add(topic, callback)

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        self._subs.reconnect.append(callback)

    async def close(self) -> None:
        return None


def psycopg_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as libpq understands it (the driver suffix dropped)."""
    for prefix in ("postgresql+psycopg://", "postgresql+psycopg2://", "postgresql+asyncpg://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def _started(conn: psycopg.AsyncConnection[Any] | None) -> psycopg.AsyncConnection[Any]:
    """The connection that ``start()`` made."""
    if conn is None:
        raise RuntimeError("the PostgreSQL connection is not open: call start() first")
    return conn


class _ListeningBus:
    """What the buses over a server share: one listening task that reconnects after a loss (then every
    ``on_reconnect`` callback runs), delivery to this process's subscribers, and closing. A subclass
    gives ``_payloads`` (subscribe, call ``_subscribed``, then yield each payload received) and
    ``_disconnect``."""

    def __init__(self, retry: float) -> None:
        self.retry = retry
        self._subs = _Subscribers()
        self._listener: asyncio.Task | None = None
        self._ready = asyncio.Event()
        self._closed = False
        self._reconnecting = False

    async def _start_listening(self) -> None:
        """Start the listening task; returns once this process listens."""
        self._listener = asyncio.create_task(self._listen(), name="bus-listener")
        await asyncio.wait_for(self._ready.wait(), timeout=30)

    def _payloads(self) -> AsyncGenerator[str | bytes, None]:
        raise NotImplementedError

    async def _disconnect(self) -> None:
        raise NotImplementedError

    def _subscribed(self) -> None:
        """Called by ``_payloads`` once subscribed: the first time, ``start()`` may return; after a
        reconnection, the ``on_reconnect`` callbacks run (messages may have been missed)."""
        self._ready.set()
        if self._reconnecting:
            for callback in list(self._subs.reconnect):
                callback()
        self._reconnecting = True

    async def _listen(self) -> None:
        while not self._closed:
            try:
                async with contextlib.aclosing(self._payloads()) as payloads:
                    async for payload in payloads:
                        for topic, message in _unpack(payload):
                            self._subs.deliver(topic, message)
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._closed:
                    return
                log.warning("bus connection lost; reconnecting", exc_info=True)
                await asyncio.sleep(self.retry)

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        encode(topic, message)  # raises for a message too large
        await self.publish_many([(topic, message)])

    async def publish_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        raise NotImplementedError

    def subscribe(self, topic: str, callback: Callback) -> Callable[[], None]:
        return self._subs.add(topic, callback)

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        self._subs.reconnect.append(callback)

    async def close(self) -> None:
        self._closed = True
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing anyway
                pass
        await self._disconnect()


class PostgresBus(_ListeningBus):
    """The bus over PostgreSQL ``LISTEN``/``NOTIFY`` (one channel, topics inside the payload)."""

    def __init__(self, url: str, *, retry: float = 0.5) -> None:
        super().__init__(retry)
        self.url = psycopg_url(url)
        self._send: psycopg.AsyncConnection[Any] | None = None
        self._send_lock = asyncio.Lock()
        self._tag = uuid.uuid4().hex[:8]
        self._sent = 0

    async def start(self) -> None:
        """Connect both connections; returns once this process is listening."""
        import psycopg

        self._send = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        await self._start_listening()

    async def _payloads(self) -> AsyncGenerator[str, None]:
        import psycopg

        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        async with conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            self._subscribed()
            async for note in conn.notifies():
                yield note.payload

    async def publish_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Every payload in one statement: one round trip and one transaction, delivered in order."""
        import psycopg

        self._sent += 1
        payloads = _batches(items, f"{self._tag}.{self._sent}")
        if not payloads:
            return
        query = "SELECT " + ", ".join(["pg_notify(%s, %s)"] * len(payloads))
        params = [value for payload in payloads for value in (CHANNEL, payload)]
        async with self._send_lock:
            try:
                await _started(self._send).execute(query, params)
            except psycopg.OperationalError:
                self._send = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                await self._send.execute(query, params)

    async def _disconnect(self) -> None:
        if self._send is not None:
            await self._send.close()


class RedisBus(_ListeningBus):
    """The bus over Redis pub/sub (redis-py's asyncio client; one channel, topics inside the
    payload), for sites that run Redis anyway. Delivery is at most once, as on PostgreSQL: after
    the subscription is lost and made again, every ``on_reconnect`` callback runs."""

    def __init__(self, url: str, *, retry: float = 0.5) -> None:
        super().__init__(retry)
        self.url = url
        self._redis: Any = None

    async def start(self) -> None:
        """Connect (failing at once if Redis does not answer); returns once this process listens."""
        try:
            import redis.asyncio as aioredis
        except ImportError:
            raise InvalidInputError("--redis-url needs the redis package: pip install 'backgammon[redis]'") from None
        self._redis = aioredis.from_url(self.url)
        try:
            await self._redis.ping()
        except Exception as exc:  # noqa: BLE001 - any connection failure: one clear line
            raise InvalidInputError(f"cannot reach Redis at {redacted(self.url)}: {type(exc).__name__}") from None
        await self._start_listening()

    async def _payloads(self) -> AsyncGenerator[bytes, None]:
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(CHANNEL)
        self._subscribed()
        async for note in pubsub.listen():
            if note.get("type") == "message":
                yield note["data"]

    async def publish_many(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        payloads = _batches(items, "redis")
        if len(payloads) == 1:
            await self._redis.publish(CHANNEL, payloads[0])
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for payload in payloads:
                pipe.publish(CHANNEL, payload)
            await pipe.execute()

    async def _disconnect(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()


def redacted(url: str) -> str:
    """A URL with its password hidden (for messages)."""
    return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


# ------------------------------------------------------------------ leases
def lock_key(room: str) -> int:
    """The signed 64-bit advisory-lock key of a room id."""
    return int.from_bytes(
        hashlib.blake2b(f"backgammon-room:{room}".encode(), digest_size=8).digest(), "big", signed=True
    )


class Leases(Protocol):
    owner: str

    async def start(self) -> None: ...

    async def acquire(self, room: str) -> bool: ...

    async def release(self, room: str) -> None: ...

    def owns(self, room: str) -> bool: ...

    async def close(self) -> None: ...


class LocalLeases:
    """Every room is this process's (a single process)."""

    def __init__(self) -> None:
        self.owner = uuid.uuid4().hex
        self._rooms: set[str] = set()

    async def start(self) -> None:
        return None

    async def acquire(self, room: str) -> bool:
        self._rooms.add(room)
        return True

    async def release(self, room: str) -> None:
        self._rooms.discard(room)

    def owns(self, room: str) -> bool:
        return room in self._rooms

    async def close(self) -> None:
        self._rooms.clear()


class PostgresLeases:
    """Room ownership as advisory locks held on one connection of this process.

    ``on_lost`` runs (once per loss) when the lease connection fails: every room is lost,
    since the database has released the locks for another process to take.
    """

    def __init__(
        self, url: str, *, on_lost: Callable[[set[str]], None] | None = None, check_every: float = 1.0
    ) -> None:
        self.url = psycopg_url(url)
        self.owner = uuid.uuid4().hex
        self.on_lost = on_lost
        self.check_every = check_every
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()
        self._rooms: set[str] = set()
        self._watch: asyncio.Task | None = None
        self._closed = False

    async def start(self) -> None:
        import psycopg

        self._conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        self._watch = asyncio.create_task(self._watchdog(), name="lease-watchdog")

    async def _watchdog(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.check_every)
            try:
                async with self._lock:
                    await _started(self._conn).execute("SELECT 1")
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - the lease connection is gone
                await self._lost()

    async def _lost(self) -> None:
        import psycopg

        lost, self._rooms = self._rooms, set()
        log.error("lease connection lost: %d room(s) released", len(lost))
        if self.on_lost is not None and lost:
            self.on_lost(lost)
        try:
            self._conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        except Exception:  # noqa: BLE001 - try again at the next check
            await asyncio.sleep(self.check_every)

    async def acquire(self, room: str) -> bool:
        if room in self._rooms:
            return True
        async with self._lock:
            if room in self._rooms:  # taken by a call that held the lock meanwhile: advisory locks
                return True  # count, so a second pg_try_advisory_lock would need a second unlock
            cur = await _started(self._conn).execute("SELECT pg_try_advisory_lock(%s)", (lock_key(room),))
            row = await cur.fetchone()
            if row and row[0]:
                self._rooms.add(room)
                return True
        return False

    async def release(self, room: str) -> None:
        if room not in self._rooms:
            return
        self._rooms.discard(room)
        async with self._lock:
            await _started(self._conn).execute("SELECT pg_advisory_unlock(%s)", (lock_key(room),))

    def owns(self, room: str) -> bool:
        return room in self._rooms

    async def close(self) -> None:
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
        self._rooms.clear()
        if self._conn is not None:
            await self._conn.close()


def bus_for(url: str | None, redis_url: str | None = None) -> Bus:
    """The bus for a site: Redis's when a Redis URL is given, else PostgreSQL's for a PostgreSQL
    database, else in-process (one process; a Redis URL then has nothing to carry)."""
    if url and url.startswith("postgresql"):
        return RedisBus(redis_url) if redis_url else PostgresBus(url)
    return LocalBus()


def leases_for(url: str | None, on_lost: Callable[[set[str]], None] | None = None) -> Leases:
    if url and url.startswith("postgresql"):
        return PostgresLeases(url, on_lost=on_lost)
    return LocalLeases()
