"""The processes of one site: which process owns each room, and the messages between them.

Every kind of room (a match or money table, a chouette) uses one :class:`Network`:

- **Ownership.** A room is run by the one process holding its lease
  (:mod:`backgammon.server.bus`: a PostgreSQL advisory lock, or always this process on SQLite).
  :meth:`Network.run` runs a job in the room here when this process owns the room or can take it
  (a newly taken room is first brought up to date by the caller's ``take_over``), and otherwise
  forwards the request to the owner over the bus and waits for its answer. An owner that does not
  answer within :data:`FORWARD_TIMEOUT` is taken to be dead: the room is taken over here.
- **Following.** The owner announces every change on ``<kind>:<room>`` (:meth:`announce`); the
  other processes that hold the room for their own clients apply or reload it
  (``on_event`` callbacks), in the order sent. The owner announces only while some other process
  listens: one whose clients watch the room reminds the owner every :data:`WANT_EVERY` seconds
  (``want:<room>``, and at once when a client arrives), and one that forwards a request counts too,
  for :data:`WANT_TTL` seconds. A process that starts listening is sent the room's version at once
  (``on_audience``), so a copy that missed changes meanwhile reads the room again. A copy nobody
  watches is not kept current: its manager reads it again before showing it.
- **Takeover.** Every :data:`TAKEOVER_CHECK` seconds the rooms that clients here watch but no
  process owns (their owner died) are taken over (``candidates``).
- **Hand-off.** A room goes to where its clients are: an owner that no client here watches, asked
  by a process whose clients watch the room, releases it (:meth:`Network.hand_off`) and says so on
  the room's topic; the askers take it. Until then (:data:`HANDOFF_MEMORY` seconds) the old owner
  answers requests that reach it late with ``moved``, and the asker tries again. Every job runs in
  its room only while this process owns the room (:meth:`Network.in_room`), so a job queued behind
  a hand-off never changes a room another process now runs. The network decides when a room is
  handed off and taken, the same for every kind of room (:meth:`Network.follow`; a forwarded
  request says whether the asker's clients watch the room); the room's manager says how (what
  stops before the release, how the room is taken and brought up to date).

With one process (SQLite) nothing goes over a bus: every room is this process's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar

from backgammon.errors import BackgammonError, IllegalActionError, IllegalPlayError, InvalidInputError
from backgammon.server.bus import Bus, Leases, LocalBus, LocalLeases, encode
from backgammon.server.http_errors import error_info
from backgammon.server.rooms import Room

log = logging.getLogger("backgammon.server")
T = TypeVar("T")

FORWARD_TIMEOUT = 5.0
"""Seconds between checks, while a process waits for a room's owner to answer a forwarded
request, that the owner is still alive (else the room is taken over here)."""
FORWARD_LIMIT = 30.0
"""Seconds a forwarded request may wait for a live but busy owner before it is refused."""
SEND_BATCH = 200
"""The most bus messages sent in one round trip."""
TAKEOVER_CHECK = 1.0
"""Seconds between checks for watched rooms whose owner has died."""
HANDOFF_MEMORY = 10.0
"""Seconds a process that handed a room off answers late requests for it with ``moved``."""
MOVE_RETRIES = 6
"""How many times a request follows a room that moved between processes before it is refused."""
MOVE_PAUSE = 0.01
"""Seconds before the first retry of a request whose room moved (doubling with each retry)."""
WANT_EVERY = 2.0
"""Seconds between a process's reminders to a room's owner that clients there watch the room."""
WANT_TTL = 3 * WANT_EVERY
"""Seconds an owner goes on announcing a room's changes to a process after its last reminder."""


class RoomMoved(Exception):
    """The room is no longer this process's (it was handed off): the request goes to its new owner."""


Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class Network:
    """Ownership of rooms and the bus between the site's processes (see the module docstring)."""

    def __init__(self, bus: Bus | None = None, leases: Leases | None = None) -> None:
        self.bus: Bus = bus or LocalBus()
        self.leases: Leases = leases or LocalLeases()
        self.shared = not isinstance(self.leases, LocalLeases)  # other processes serve the same rooms
        self.process = self.leases.owner
        self._replies: dict[str, asyncio.Future] = {}
        self._outgoing: asyncio.Queue[tuple[str, dict[str, Any]]] | None = None
        self._tasks: list[asyncio.Task] = []
        self._watchers: list[
            tuple[Callable[[], Iterable[tuple[str, Room]]], Callable[[str, Room], Awaitable[None]]]
        ] = []
        self._reconnects: list[Callable[[], None]] = []
        self._handed: dict[str, tuple[float, asyncio.Future[None]]] = {}  # handed off: when, and its release
        self._owning: dict[str, asyncio.Future[bool]] = {}  # attempts to take a room, under way
        self._audience: dict[str, dict[str, float]] = {}  # owned room -> listening process -> until when
        self._watched: dict[str, Callable[[], bool]] = {}  # followed room -> whether clients here watch it

    async def start(self) -> None:
        if not self.shared:
            return
        await self.bus.start()
        await self.leases.start()
        self.bus.subscribe(f"reply:{self.process}", self._on_reply)
        self.bus.on_reconnect(self._reconnected)
        self._outgoing = asyncio.Queue()
        self._tasks.append(asyncio.create_task(self._send_outgoing(), name="bus-sender"))
        self._tasks.append(asyncio.create_task(self._watch_owners(), name="room-takeover"))
        self._tasks.append(asyncio.create_task(self._remind_owners(), name="room-interest"))

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self.shared:
            await self.leases.close()
            await self.bus.close()

    # ------------------------------------------------------------ ownership
    def owns(self, room_id: str) -> bool:
        return self.leases.owns(room_id)

    async def acquire(self, room_id: str) -> bool:
        return await self.leases.acquire(room_id)

    def release(self, room_id: str) -> None:
        if self.leases.owns(room_id):
            asyncio.get_running_loop().create_task(self.leases.release(room_id))

    async def own(self, room_id: str, room: Room, take_over: Callable[[], Awaitable[None]]) -> bool:
        """Make this process the room's owner if no live process is; True if it is now.

        With several processes, a room taken now may have changed since this process read it:
        ``take_over`` (run in the room) reads it again and wakes whatever must act."""
        if self.leases.owns(room_id):
            return True
        if not self.shared:
            return await self.leases.acquire(room_id)
        pending = self._owning.get(room_id)
        if pending is None:  # one attempt at a time per room: a room taken is brought up to date once
            pending = self._owning[room_id] = asyncio.ensure_future(self._take(room_id, room, take_over))
            pending.add_done_callback(lambda _f: self._owning.pop(room_id, None))
        return await asyncio.shield(pending)

    async def _take(self, room_id: str, room: Room, take_over: Callable[[], Awaitable[None]]) -> bool:
        if not await self.leases.acquire(room_id):
            return False
        await room.call(take_over)
        return True

    async def in_room(self, room_id: str, room: Room, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in the room if this process still owns the room when the job's turn comes.

        Raises:
            RoomMoved: the room was handed off (or lost) meanwhile.
        """

        async def owned() -> T:
            if not self.leases.owns(room_id):
                raise RoomMoved(room_id)
            return await job()

        return await room.call(owned)

    async def hand_off(self, kind: str, room_id: str, note: dict[str, Any]) -> bool:
        """Release a room this process owns and tell the others (``note`` plus ``released``), so that
        a process whose clients watch it takes it. Run it in the room. True if it was released."""
        if not self.shared or not self.leases.owns(room_id):
            return False
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._handed = {r: h for r, h in self._handed.items() if now - h[0] < HANDOFF_MEMORY}
        released: asyncio.Future[None] = loop.create_future()
        self._handed[room_id] = (now, released)
        try:
            await self.leases.release(room_id)
        finally:
            released.set_result(None)
        self.announce(kind, room_id, {**note, "released": True})
        self._audience.pop(room_id, None)
        return True

    async def run(
        self,
        kind: str,
        room_id: str,
        room: Room,
        request: dict[str, Any],
        job: Callable[[], Awaitable[T]],
        take_over: Callable[[], Awaitable[None]],
    ) -> T | dict[str, Any]:
        """Run ``job`` in the room here if this process owns it (or can take it); else send
        ``request`` to the owner and return its answer (a dict), once this process has applied
        the changes the owner announced before answering.

        Raises:
            what the job raised, or the owner's error as the same kind of exception.
        """
        request = {**request, "watched": self._is_watched(room_id)}  # (see :meth:`follow`: the hand-off)
        for attempt in range(MOVE_RETRIES):
            if attempt:  # the room moved while this request was on its way: another process may be taking it
                await asyncio.sleep(MOVE_PAUSE * 2 ** (attempt - 1))
            answer: dict[str, Any] | None = None
            if not await self.own(room_id, room, take_over):
                answer = await self._ask(room_id, request, lambda: self.own(room_id, room, take_over))
                # None: the owner died (this process has taken the room over) or is far too slow
                if answer is None and not await self.own(room_id, room, take_over):
                    raise IllegalActionError("the table's server is not answering: try again in a moment")
            if answer is None:  # this process owns the room
                try:
                    return await self.in_room(room_id, room, job)
                except RoomMoved:
                    continue  # handed off while the job waited its turn: follow the room
            if answer.get("moved"):
                continue  # it was handed off before it got there: ask again where it is now
            if not answer.get("ok"):
                raise remote_error(
                    answer.get("status"), answer.get("message"), answer.get("code"), answer.get("params")
                )
            # the owner's announcements came over the bus before its answer, and their follow-up jobs
            # are queued in this room: wait for them, so that the caller sees the change here too
            await room.call(_nothing)
            return answer
        raise IllegalActionError("the table moved between servers while the request was on its way: try again")

    # -------------------------------------------------------------- messages
    def follow(
        self,
        kind: str,
        room_id: str,
        on_event: Callable[[dict[str, Any]], None],
        on_request: Handler,
        *,
        watched: Callable[[], bool] = lambda: False,
        on_audience: Callable[[], None] = lambda: None,
        on_wanted_elsewhere: Callable[[], None] = lambda: None,
        on_released: Callable[[], Coroutine[Any, Any, None]] | None = None,
    ) -> Callable[[], None]:
        """Receive the owner's announcements for a room (when another process owns it) and, while
        this process owns it, the other processes' requests (``on_request`` returns the answer's
        fields or raises) and reminders that they listen. ``watched()``: whether clients here watch
        the room (then this process reminds the owner, and its forwarded requests say so);
        ``on_audience``: runs when another process starts listening to the room this process owns
        (announce where the room stands). Returns the function that stops all of it.

        The hand-off (the room goes to where its clients are) is decided here:
        ``on_wanted_elsewhere`` runs on the owner once it has answered a request from a process
        whose clients watch the room, when none here do (it hands the room off: a job in the room
        that stops what runs there and calls :meth:`hand_off`); ``on_released`` runs (as a task)
        where clients watch the room when its owner has handed it off (it takes the room:
        :meth:`own`). Without ``on_released``, the owner's ``released`` note goes to ``on_event``."""
        if not self.shared:
            return lambda: None

        def event(message: dict[str, Any]) -> None:
            if message.get("from") == self.process or self.leases.owns(room_id):
                return
            if message.get("released") and on_released is not None:
                if watched():
                    asyncio.get_running_loop().create_task(on_released())
                return
            on_event(message)

        async def answer(message: dict[str, Any]) -> dict[str, Any] | None:
            reply = await on_request(message)
            if message.get("watched") is True and not watched():  # the asker's clients watch it, none here
                on_wanted_elsewhere()
            return reply

        def request(message: dict[str, Any]) -> None:
            if message.get("from") == self.process:
                return
            if self.leases.owns(room_id):
                self._listener(room_id, message.get("from"))  # (it must see what its request changes)
                asyncio.get_running_loop().create_task(self._answer(message, answer))
            elif (
                room_id in self._handed
                and asyncio.get_running_loop().time() - self._handed[room_id][0] < HANDOFF_MEMORY
            ):
                asyncio.get_running_loop().create_task(self._moved(message, self._handed[room_id][1]))
            # else: not ours to answer: the asker times out and takes the room over

        def want(message: dict[str, Any]) -> None:
            sender = message.get("from")
            if sender != self.process and self.leases.owns(room_id) and self._listener(room_id, sender):
                on_audience()

        stops = [
            self.bus.subscribe(f"{kind}:{room_id}", event),
            self.bus.subscribe(f"act:{room_id}", request),
            self.bus.subscribe(f"want:{room_id}", want),
        ]
        self._watched[room_id] = watched

        def stop_all() -> None:
            for stop in stops:
                stop()
            if self._watched.get(room_id) is watched:
                del self._watched[room_id]

        return stop_all

    def _is_watched(self, room_id: str) -> bool:
        """Whether clients here watch a room this process follows (its ``watched()``)."""
        watched = self._watched.get(room_id)
        return watched is not None and watched()

    async def read_if_stale(self, room_id: str, room: Room, refresh: Callable[[], Awaitable[None]]) -> None:
        """Before a copy of a room is shown: if another process runs the room and no client here
        watches it (``watched()`` given to :meth:`follow`), its owner has not been announcing its
        changes here, so ``refresh`` (run in the room) reads it again."""
        if self.shared and not self._is_watched(room_id) and not self.leases.owns(room_id) and not room.closed:
            await room.call(refresh)

    def want(self, room_id: str) -> None:
        """Ask the room's owner (another process) to announce its changes: clients here watch it."""
        if self._outgoing is not None and not self.leases.owns(room_id):
            self._outgoing.put_nowait((f"want:{room_id}", {"from": self.process}))

    def _listener(self, room_id: str, process: object) -> bool:
        """Count ``process`` among those listening to a room this process owns, for :data:`WANT_TTL`
        seconds; True if it was not listening before."""
        if not isinstance(process, str):
            return False
        now = asyncio.get_running_loop().time()
        audience = self._audience.setdefault(room_id, {})
        new = audience.get(process, 0.0) <= now
        audience[process] = now + WANT_TTL
        return new

    def _listened(self, room_id: str) -> bool:
        """Whether another process listens to this room now."""
        audience = self._audience.get(room_id)
        if not audience:
            return False
        now = asyncio.get_running_loop().time()
        for process in [p for p, until in audience.items() if until <= now]:
            del audience[process]
        if not audience:
            del self._audience[room_id]
        return bool(audience)

    def announce(self, kind: str, room_id: str, note: dict[str, Any]) -> None:
        """Tell the other processes about a change of a room this process owns (in order): those that
        listen (a hand-off's ``released`` note goes out in any case)."""
        if self._outgoing is not None and (self._listened(room_id) or note.get("released")):
            self._outgoing.put_nowait((f"{kind}:{room_id}", {"from": self.process, **note}))

    def tell(self, topic: str, note: dict[str, Any]) -> None:
        """Send a note to every other process listening on ``topic`` (in order with announcements)."""
        if self._outgoing is not None:
            self._outgoing.put_nowait((topic, {"from": self.process, **note}))

    def listen(self, topic: str, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        """Receive the other processes' notes on ``topic``; returns the function that stops."""
        if not self.shared:
            return lambda: None

        def deliver(message: dict[str, Any]) -> None:
            if message.get("from") != self.process:
                callback(message)

        return self.bus.subscribe(topic, deliver)

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        """``callback`` runs when the bus was down (announcements may have been missed)."""
        self._reconnects.append(callback)

    def _reconnected(self) -> None:
        for callback in list(self._reconnects):
            callback()

    def watch(
        self, candidates: Callable[[], Iterable[tuple[str, Room]]], take_over: Callable[[str, Room], Awaitable[None]]
    ) -> None:
        """Every :data:`TAKEOVER_CHECK` seconds, try to own each ``(room_id, room)`` of ``candidates()``
        that this process does not own (``take_over`` runs in the room when it is taken)."""
        self._watchers.append((candidates, take_over))

    async def _ask(
        self, room_id: str, request: dict[str, Any], take: Callable[[], Awaitable[bool]]
    ) -> dict[str, Any] | None:
        """Send ``request`` to the room's owner once and wait for its answer. Every
        :data:`FORWARD_TIMEOUT` seconds without one, ``take()`` tries to take the room (it succeeds
        only if the owner is dead): then, or after :data:`FORWARD_LIMIT` seconds, None."""
        loop = asyncio.get_running_loop()
        key = uuid.uuid4().hex
        future = self._replies[key] = loop.create_future()
        deadline = loop.time() + FORWARD_LIMIT
        try:
            assert self._outgoing is not None  # (only a shared network forwards)
            message = {**request, "req": key, "from": self.process}
            encode(f"act:{room_id}", message)  # a request too large to forward is refused here, at once
            self._outgoing.put_nowait((f"act:{room_id}", message))
            while True:
                try:
                    return await asyncio.wait_for(asyncio.shield(future), FORWARD_TIMEOUT)
                except TimeoutError:
                    if loop.time() >= deadline or await take():
                        return None
        finally:
            self._replies.pop(key, None)

    def _on_reply(self, message: dict[str, Any]) -> None:
        req = message.get("req")
        future = self._replies.get(req) if isinstance(req, str) else None
        if future is not None and not future.done():
            future.set_result(message)

    async def _answer(self, message: dict[str, Any], handler: Handler) -> None:
        reply: dict[str, Any] = {"req": message.get("req"), "ok": True}
        try:
            reply.update(await handler(message) or {})
        except RoomMoved:
            reply.update(ok=False, moved=True)
        except Exception as exc:  # noqa: BLE001 - the asker gets the error, as if it were local (500s logged)
            status, text, code, params = error_info(exc)
            reply.update(ok=False, status=status, message=text, code=code, params=params)
        self._reply(message, reply)

    async def _moved(self, message: dict[str, Any], released: asyncio.Future[None]) -> None:
        """Answer ``moved`` once the lease is free for the asker to take (its release is under way)."""
        await asyncio.shield(released)
        self._reply(message, {"req": message.get("req"), "ok": False, "moved": True})

    def _reply(self, message: dict[str, Any], reply: dict[str, Any]) -> None:
        if self._outgoing is not None:
            self._outgoing.put_nowait((f"reply:{message.get('from')}", reply))

    async def _send_outgoing(self) -> None:
        """Send bus messages in order (a room's announcements must not overtake each other): all that
        queued up while the last batch was on its way go together, in one round trip."""
        assert self._outgoing is not None
        while True:
            batch = [await self._outgoing.get()]
            while len(batch) < SEND_BATCH and not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            try:
                await self.bus.publish_many(batch)
            except Exception:  # followers reload on a gap; an asker times out and checks the owner
                log.warning("bus publish of %d message(s) failed", len(batch), exc_info=True)

    async def _remind_owners(self) -> None:
        """Every :data:`WANT_EVERY` seconds, remind the owners of the rooms clients here watch."""
        while True:
            await asyncio.sleep(WANT_EVERY)
            for room_id, watched in list(self._watched.items()):
                try:
                    if watched():
                        self.want(room_id)
                except Exception:
                    log.warning("could not remind the owner of room %s", room_id, exc_info=True)

    async def _watch_owners(self) -> None:
        while True:
            await asyncio.sleep(TAKEOVER_CHECK)
            for candidates, take_over in self._watchers:
                for room_id, room in list(candidates()):
                    if self.leases.owns(room_id):
                        continue
                    try:
                        await self.own(room_id, room, functools.partial(take_over, room_id, room))
                    except Exception:
                        log.warning("could not check the owner of room %s", room_id, exc_info=True)


async def _nothing() -> None:
    return None


def remote_error(status: object, message: object, code: object = None, params: object = None) -> Exception:
    """The error another process answered, as the local exception with the same status (and the
    same code and parameters, so the client is told the same thing as from its own process)."""
    text = message if isinstance(message, str) else "the table's server refused the request"
    kinds: dict[object, type[BackgammonError]] = {
        422: IllegalPlayError,
        400: InvalidInputError,
        409: IllegalActionError,
    }
    if status == 404:
        return LookupError(text)
    kind = kinds.get(status)
    if kind is None:
        return RuntimeError(text)
    return kind(
        text,
        code=code if isinstance(code, str) else None,
        params=params if isinstance(params, dict) else None,
    )
