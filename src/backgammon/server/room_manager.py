"""One room model for every kind of table: the machinery its manager needs, said once.

A :class:`RoomManager` holds the rooms of one kind in this process's memory and runs them between
the site's processes: match tables and money sessions
(:class:`~backgammon.server.tables.TableManager`) and chouettes
(:class:`~backgammon.server.chouette_tables.ChouetteManager`) are its adapters. The manager does,
the same for every kind:

- **reading**: a room is read from the database on first use (once, however many ask at the same
  time; :meth:`RoomManager.get`), kept in memory while it is used, dropped when it is idle
  (:meth:`RoomManager.sweep`) and read again when another process changed it
  (:meth:`RoomManager._refresh`);
- **ownership** (:mod:`backgammon.server.ownership`): a change runs in the room's
  :class:`~backgammon.server.rooms.Room` at its owner's, here or forwarded
  (:meth:`RoomManager._in_room`, :meth:`RoomManager._answer`); a room whose owner died is taken
  over (:meth:`RoomManager._take_over`), one nobody watches here is handed off or let go
  (:meth:`RoomManager._hand_off`, :meth:`RoomManager._rest`);
- **following**: the owner's announcements keep the copies of other processes current
  (:meth:`RoomManager._follow`);
- **storing and publishing**: an action is stored (:meth:`RoomManager._store`) before every
  connection is offered its own view (:meth:`RoomManager.publish`);
- **clients**: their actions and joins (:meth:`RoomManager.act`, :meth:`RoomManager.join`), their
  connections (:meth:`RoomManager.connect`, :meth:`RoomManager.disconnect`).

An adapter says only what differs: how a room is built from its row and actions (``_runtime``,
``_replay``), what a client's action does (``_perform``) and how a person is seated (``_join``),
what a connection is sent (``_message``), what must run while nobody watches (``_needs_owner``,
``_jobs``) and what wakes it (``_wake``).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import functools
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backgammon.errors import IllegalActionError, InvalidInputError, NotYourTurnError
from backgammon.game import Rules
from backgammon.position import Position
from backgammon.server.auth import new_token, token_hash
from backgammon.server.db import Action, Table, utcnow
from backgammon.server.matchflow import StartPosition, new_match
from backgammon.server.ownership import Network
from backgammon.server.protocol import action_body, check_name, player_from_wire, shown
from backgammon.server.rooms import Outbox, Room, Row, Store, drop_idle, drop_room, fan_out, sweep_idle

T = TypeVar("T")
START_KEYS = {"position_id", "on_roll"}
ROOM_ID_MAX = 32
"""The longest room id looked up (a longer one is no room: 404 without a database read)."""


class Runtime(Protocol):
    """What a manager holds in memory for one room (a match table, a chouette)."""

    id: str
    status: str  # "waiting", "playing", "over" (a chouette: "error" when stuck)
    actions: list[dict[str, Any]]
    outboxes: set[Outbox]  # the connections here that watch it, each with its seat
    used: float  # when it was last asked for or watched (``time.monotonic``)

    @property
    def config(self) -> Mapping[str, Any]:
        """Its settings (what its row stores in ``Table.config``)."""
        ...

    @property
    def room(self) -> Room: ...

    @property
    def version(self) -> int: ...

    @property
    def last_stamp(self) -> _dt.datetime | None: ...  # when the last action was stored, if known

    def record(self, payload: dict[str, Any], stamp: _dt.datetime) -> None:
        """Note an action just stored (its payload and when), before its effect is applied."""


R = TypeVar("R", bound=Runtime)
S = TypeVar("S")  # a seat: a Player at a match table, a seat name at a chouette


class RoomManager(Generic[R, S]):
    """The rooms of one kind in this process (see the module docstring); subclassed per kind."""

    KIND = "room"
    """The rooms' topic on the bus (``<KIND>:<id>``) and their name in messages."""
    NOUN = "room"
    """What a missing room is called in a 404."""
    MODES: tuple[str, ...] = ()
    """The ``config["mode"]`` of the table rows this manager reads."""
    REFRESHED: tuple[str, ...] = ()
    """The fields of a room that a fresh read from the database replaces."""
    STOPPED: ClassVar[Mapping[str, str]] = {}
    """Why a room with this status takes no action (else: "the <KIND> is <status>")."""

    def __init__(
        self,
        sessions: sessionmaker,
        dice_seed: int | None = None,
        test_hooks: bool = False,
        *,
        store: Store | None = None,
        network: Network | None = None,
    ) -> None:
        self.sessions = sessions
        self.store = store or Store(sessions)
        self.net = network or Network()
        self.dice_seed = dice_seed
        self.test_hooks = test_hooks
        self.tables: dict[str, R] = {}
        self.closing = False  # set at shutdown: nothing new starts
        self._loading: dict[str, asyncio.Future] = {}
        self._unfollow: dict[str, Callable[[], Any]] = {}
        self._sweeper: asyncio.Task | None = None
        self._background: list[asyncio.Task] = []  # the adapter's own tasks, cancelled at close
        self.net.on_reconnect(self._on_bus_reconnect)
        self.net.watch(
            lambda: [(t.id, t.room) for t in self.tables.values() if t.outboxes and self._active(t)],
            lambda table_id, _room: self._take_over(self.tables[table_id]),
        )

    @property
    def process(self) -> str:
        return self.net.process

    # ------------------------------------------------------- adapter's part
    def _runtime(self, row: Table) -> R:
        """A room of ``row`` with none of its actions applied."""
        raise NotImplementedError

    def _replay(self, db: Session, row: Table) -> R:
        """The room of ``row`` with its stored actions applied (``db``: an open session; on a worker thread)."""
        raise NotImplementedError

    async def _perform(self, table: R, seat: S, message: dict[str, Any]) -> None:
        """A client's action (the room is playing; the version checked). Runs in the owner's room."""
        raise NotImplementedError

    async def _join(self, table: R, name: str, user_id: int | None, digest: str, rematch: bool = False) -> S:
        """Seat a person (the seat token's hash given); their seat. Runs in the owner's room."""
        raise NotImplementedError

    def _message(self, table: R, seat: S | None, event: dict[str, Any] | None) -> str:
        """The text a connection with this seat is sent after a change (``event``: the action, or None)."""
        raise NotImplementedError

    def _seat_to_wire(self, seat: S) -> str:
        raise NotImplementedError

    def _seat_from_wire(self, value: object) -> S:
        """A seat named in a forwarded request (InvalidInputError for anything else)."""
        raise NotImplementedError

    def _active(self, table: R) -> bool:
        """Whether the room can still change (a finished one needs no owner)."""
        return table.status in ("waiting", "playing")

    def _needs_owner(self, table: R) -> bool:
        """Whether something must happen here with nobody connected (a computer or a clock to act)."""
        return False

    def _jobs(self, table: R) -> Iterable[asyncio.Task | None]:
        """The room's background tasks (stopped on a hand-off and at close)."""
        return ()

    def _busy(self, table: R) -> bool:
        """Whether the room's own work is under way (beside its background tasks)."""
        return False

    async def _wake(self, table: R) -> None:
        """Start what must act now (a computer player, a clock). Runs in the room."""

    def _applied(self, table: R, message: dict[str, Any]) -> bool:
        """Apply an owner's announcement to this copy and show it, if it can be applied as it
        stands; False: the room is read again instead."""
        return False

    def _forwarded_other(
        self, table: R, kind: object, message: dict[str, Any]
    ) -> Callable[[], Awaitable[dict[str, Any]]]:
        """The job answering a forwarded request other than ``act`` and ``join``."""
        raise InvalidInputError(f"invalid forwarded request {shown(kind)}")

    def _also_follow(self, table: R) -> list[Callable[[], None]]:
        """More topics a followed room listens to; their stop functions."""
        return []

    def _joined(self, table: R, outbox: Outbox) -> None:
        """A connection here started watching the room."""

    def _left(self, table: R) -> None:
        """A connection here stopped watching the room."""

    async def _loaded(self, table: R) -> R:
        """What a room just read becomes (kept and followed, by default)."""
        return self._keep(table)

    # -------------------------------------------------------------- reading
    async def get(self, table_id: str) -> R:
        """A room by id, read from the database on first use (off the event loop, once however many
        ask at the same time).

        Raises:
            LookupError: if there is no such room (mapped to 404).
        """
        table = self.tables.get(table_id)
        if table is not None:
            table.used = time.monotonic()
            await self.net.read_if_stale(table.id, table.room, functools.partial(self._refresh_and_show, table))
            return table
        if not isinstance(table_id, str) or len(table_id) > ROOM_ID_MAX:
            raise LookupError(f"no {self.NOUN} {shown(table_id)}")
        loading = self._loading.get(table_id)
        if loading is None:
            loading = self._loading[table_id] = asyncio.ensure_future(asyncio.to_thread(self._read, table_id))
            loading.add_done_callback(lambda _f: self._loading.pop(table_id, None))
        read = await asyncio.shield(loading)
        if read is None:
            raise LookupError(f"no {self.NOUN} {shown(table_id)}")
        return await self._loaded(read)

    def _read(self, table_id: str) -> R | None:
        """A room replayed from the database (on a worker thread), or None."""
        with self.sessions() as db:
            row = db.get(Table, table_id)
            if row is None or row.config.get("mode") not in self.MODES:
                return None
            return self._replay(db, row)

    @staticmethod
    def _records(db: Session, table_id: str) -> list[Action]:
        """A room's stored actions, in order."""
        return list(db.scalars(select(Action).where(Action.table_id == table_id).order_by(Action.seq)).all())

    def _keep(self, table: R) -> R:
        """Hold a room in memory and follow it between processes (the one already held, if any)."""
        kept = self.tables.setdefault(table.id, table)
        if kept is table:

            def on_event(message: dict[str, Any]) -> None:
                table.room.post(functools.partial(self._follow, table, message))

            stops = [
                self.net.follow(
                    self.KIND,
                    table.id,
                    on_event,
                    functools.partial(self._answer, table),
                    watched=lambda: bool(table.outboxes),
                    on_audience=lambda: self.net.announce(self.KIND, table.id, {"v": table.version}),
                    on_wanted_elsewhere=lambda: table.room.post(functools.partial(self._hand_off, table)),
                    on_released=functools.partial(self.claim, table),
                ),
                *self._also_follow(table),
            ]

            def stop_all() -> None:
                for stop in stops:
                    stop()

            self._unfollow[table.id] = stop_all
            self._start_sweeper()
        return kept

    def _start_sweeper(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(
                sweep_idle(self.sweep, self.KIND), name=f"idle-{self.KIND}s"
            )

    def forget(self, table: R) -> None:
        """Drop a finished room nobody watches from memory (it stays in the database)."""
        if not self._active(table) and not table.outboxes:
            drop_room(self.tables, table, self._unfollow, self.net.release)

    def sweep(self, unused_since: float) -> int:
        """Drop from memory the rooms nobody watches here, with nothing due and no job under way,
        unused since ``unused_since`` (``time.monotonic``); they stay in the database. How many."""

        def due(table: R) -> bool:  # (what must act and is another process's is not due here)
            return self._running(table) or (self._needs_owner(table) and self.net.owns(table.id))

        return drop_idle(self.tables, unused_since, due, self._unfollow, self.net.release)

    def _running(self, table: R) -> bool:
        return self._busy(table) or any(task is not None and not task.done() for task in self._jobs(table))

    async def _refresh(self, table: R) -> None:
        """Bring a room up to the database's truth (another process changed it). Runs in the room."""
        fresh = await asyncio.to_thread(self._read, table.id)
        if fresh is None:
            return
        for name in self.REFRESHED:
            setattr(table, name, getattr(fresh, name))

    async def _refresh_and_show(self, table: R) -> None:
        """Read a room another process runs again and show it here. Runs in the room."""
        if self._mine(table):
            return
        await self._refresh(table)
        self._show(table, None)

    async def _follow(self, table: R, message: dict[str, Any]) -> None:
        """Apply the owner's change to this copy (or read the room again), then show it here."""
        if not self._applied(table, message):
            await self._refresh(table)
            self._show(table, message.get("event"))

    def _on_bus_reconnect(self) -> None:
        """Announcements may have been lost while the bus was down: read every followed room again."""
        for table in list(self.tables.values()):
            if not self.net.owns(table.id):
                table.room.post(functools.partial(self._refresh_and_show, table))

    # ------------------------------------------------------------ ownership
    def _mine(self, table: R) -> bool:
        """Whether this process runs the room (always, with one process)."""
        return not self.net.shared or self.net.owns(table.id)

    async def claim(self, table: R) -> None:
        """With several processes: take the room over now if no live process owns it (its owner
        died, or none has had it since a restart), so that what a client is shown is current."""
        if self.net.shared and self._active(table) and not table.room.closed:
            await self.net.own(table.id, table.room, lambda: self._take_over(table))

    async def _take_over(self, table: R) -> None:
        """This process has just taken the room (its owner died, or none had it): read it again,
        show it if it changed, and wake whatever must act. Runs in the room."""
        before = (table.version, table.status)
        await self._refresh(table)
        if (table.version, table.status) != before:  # the last owner's last announcements were lost
            self.publish(table, None, reload=True)
        await self._wake(table)

    async def _hand_off(self, table: R) -> None:
        """Give the room to the process whose connections watch it, when none watches it here (after
        a request from there: the network decides when), or let its lease go (:meth:`_rest`). What
        runs for it here stops; the new owner starts it again. Runs in the room."""
        if table.outboxes or not self._active(table) or not self.net.owns(table.id):
            return
        for task in self._jobs(table):
            if task is not None and not task.done():
                task.cancel()  # (a job it queued checks that the room is still this process's)
        await self.net.hand_off(self.KIND, table.id, {"v": table.version})

    async def _rest(self, table: R) -> None:
        """Nobody watches the room here any more and nothing is due: let its lease go (another
        process whose connections watch it takes it; else whichever process is next asked to act),
        so that only live rooms hold locks. Runs in the room."""
        if not table.outboxes and not self._running(table) and not self._needs_owner(table):
            await self._hand_off(table)

    async def _in_room(self, table: R, request: dict[str, Any], job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in the room, here or (forwarded as ``request``) at its owner's: the job's
        result, or from the owner's answer the seat taken (``join``) or the room made (``table``)."""
        result = await self.net.run(self.KIND, table.id, table.room, request, job, lambda: self._take_over(table))
        if isinstance(result, dict) and "req" in result:  # the owner's answer
            if request["kind"] == "join":
                return self._seat_from_wire(result.get("seat"))  # type: ignore[return-value]
            return result.get("table")  # type: ignore[return-value]
        return result  # type: ignore[return-value]

    async def _answer(self, table: R, message: dict[str, Any]) -> dict[str, Any]:
        """Another process's request for a room this process owns: run in the room, answered."""
        kind = message.get("kind")
        job: Callable[[], Awaitable[dict[str, Any]]]
        if kind == "act":
            seat, doc = self._seat_from_wire(message.get("seat")), message.get("message")
            if not isinstance(doc, dict):
                raise InvalidInputError("invalid forwarded action")

            async def act() -> dict[str, Any]:
                await self._act(table, seat, doc)
                return {}

            job = act
        elif kind == "join":
            name, user_id, digest = message.get("name"), message.get("user_id"), message.get("digest")
            if not isinstance(digest, str) or not isinstance(name, str):
                raise InvalidInputError("invalid forwarded join")
            if user_id is not None and (not isinstance(user_id, int) or isinstance(user_id, bool)):
                raise InvalidInputError("invalid forwarded join")

            async def join() -> dict[str, Any]:
                seat = await self._join(table, name, user_id, digest, message.get("rematch") is True)
                return {"seat": self._seat_to_wire(seat)}

            job = join
        else:
            job = self._forwarded_other(table, kind, message)
        return await self.net.in_room(table.id, table.room, job)

    # -------------------------------------------------------------- clients
    async def act(self, table: R, seat: S | None, message: dict[str, Any]) -> None:
        """Apply a client's action for ``seat`` in the room: validate, store, publish.

        Raises:
            NotYourTurnError: a spectator, or not this seat's turn.
            InvalidInputError / IllegalActionError / IllegalPlayError: a bad or illegal action;
                the room is unchanged.
        """
        if seat is None:
            raise NotYourTurnError("a spectator cannot act: join the table to play")
        message = action_body(message)  # (a REST body or a socket message: one model)
        request = {"kind": "act", "seat": self._seat_to_wire(seat), "message": message}
        await self._in_room(table, request, lambda: self._act(table, seat, message))

    async def _act(self, table: R, seat: S, message: dict[str, Any]) -> None:
        """A client's action. Runs in the owner's room."""
        if table.status != "playing":
            why = self.STOPPED.get(table.status, f"the {self.KIND} is {table.status}")
            raise IllegalActionError(f"cannot act: {why}")
        version = message.get("version")
        if version is not None and version != table.version:
            raise IllegalActionError(f"stale action: the table is at version {table.version}, not {shown(version)}")
        await self._perform(table, seat, message)

    async def join(self, table_id: str, name: object, user_id: int | None = None) -> tuple[R, S, str]:
        """Take a free seat: the room, the seat and its token.

        Raises:
            LookupError: no such room. InvalidInputError: a bad name (or one taken there).
            IllegalActionError: no free seat.
        """
        table = await self.get(table_id)
        checked = check_name(name)
        token = new_token()
        digest = token_hash(token)
        request = {"kind": "join", "name": checked, "user_id": user_id, "digest": digest}
        seat: S = await self._in_room(table, request, lambda: self._join(table, checked, user_id, digest))
        return table, seat, token

    def connect(self, table: R, outbox: Outbox) -> None:
        """A connection here starts watching the room."""
        table.used = time.monotonic()
        table.outboxes.add(outbox)
        self.net.want(table.id)  # (when another process runs it: announce its changes here)
        self._joined(table, outbox)

    def disconnect(self, table: R, outbox: Outbox) -> None:
        """A connection here stops watching the room: the last one lets it rest (:meth:`_rest`)."""
        outbox.stop()
        table.used = time.monotonic()
        table.outboxes.discard(outbox)
        self._left(table)
        if self.net.shared and not table.outboxes and self._active(table) and not table.room.closed:
            table.room.post(functools.partial(self._rest, table))  # (a closed room: the server is stopping)
        self.forget(table)

    # -------------------------------------------------- storing, publishing
    def _check_start(self, start: object, rules: Rules | None = None) -> dict[str, str]:
        """A starting position asked for at creation (tests only: the server's ``--test-hooks``):
        ``{"position_id", "on_roll"}`` (``on_roll``: white unless said) or a bare Position ID, as the
        table stores it; with ``rules``, checked to be a position a match can start from.

        Raises:
            InvalidInputError: without ``--test-hooks``, or for anything else.
        """
        if not self.test_hooks:
            raise InvalidInputError("invalid option 'start': starting positions need the server's --test-hooks")
        doc = {"position_id": start} if isinstance(start, str) else start
        if not isinstance(doc, dict) or not isinstance(doc.get("position_id"), str) or set(doc) - START_KEYS:
            raise InvalidInputError(
                f"invalid start {shown(start)}: expected a Position ID or {{'position_id': ..., 'on_roll': ...}}"
            )
        on_roll = doc.get("on_roll", "white")
        player_from_wire(on_roll)
        position = Position.from_position_id(doc["position_id"])
        if rules is not None:
            new_match(rules, StartPosition(position))
        return {"position_id": doc["position_id"], "on_roll": on_roll}

    async def _open(self, row: Table) -> R:
        """Store a new room's row and start the room (this process owns it)."""

        def insert() -> None:
            with self.sessions() as db:
                db.add(row)
                db.commit()

        await self.store.run(insert)
        table = self._keep(self._runtime(row))
        await self.net.acquire(table.id)
        await table.room.call(lambda: self._wake(table))
        return table

    async def _store(
        self, table: R, payload: dict[str, Any], status: str | None = None, stamp: _dt.datetime | None = None
    ) -> None:
        """Store one action (and the room's new status; ``stamp``: when, now by default) and note it
        in the room, before its effect is applied. Runs in the room."""
        stamp = stamp or utcnow()
        await self.store.append(Row(table.id, table.version + 1, payload, stamp, status))
        table.record(payload, stamp)

    def _show(self, table: R, event: dict[str, Any] | None) -> None:
        """Offer every connection here its seat's view (each distinct seat's text built once)."""
        fan_out(table.outboxes, lambda seat: self._message(table, seat, event))

    def publish(self, table: R, event: dict[str, Any] | None = None, *, reload: bool = False) -> None:
        """Offer every connection here its own view of the new state (never waits on a client),
        and tell the other processes (the owner only): the event, or ``reload`` for anything else."""
        table.used = time.monotonic()
        self._show(table, event)
        if self.net.shared:
            note: dict[str, Any] = {"v": table.version}
            if reload or event is None:
                note["reload"] = True
            else:
                note["event"] = event
                note["at"] = table.last_stamp.isoformat() if table.last_stamp else None
            self.net.announce(self.KIND, table.id, note)

    async def close(self) -> None:
        """Stop the rooms (at shutdown): nothing new starts, the background tasks are cancelled and
        awaited (a few seconds at most), then the rooms end."""
        self.closing = True
        for job in (self._sweeper, *self._background):
            if job is not None:
                job.cancel()
        tasks = [
            task for table in self.tables.values() for task in self._jobs(table) if task is not None and not task.done()
        ]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        for table in list(self.tables.values()):
            await table.room.aclose()
