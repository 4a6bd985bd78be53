"""Tables (matches and money sessions): their seats, rooms, storage and publishing.

One :class:`TableRuntime` per table holds the replayed :class:`~backgammon.match.Match`, its
:class:`~backgammon.server.rooms.Room` (the serial actor every change goes through) and the
connections watching it. An action is stored *before* it is published, so a killed server
resumes every game at its last confirmed action (:meth:`TableManager.load`).

Computer players think on worker threads, within a time limit (else the quick player answers);
their answer is a job of the room, dropped if the table moved on meanwhile.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import functools
import json
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from backgammon.dice import RandomDice
from backgammon.engine.players import LEVELS, Agent, make_agent
from backgammon.errors import IllegalActionError, InvalidInputError, NotYourTurnError
from backgammon.fairdice import CommittedDice
from backgammon.game import Action as GameAction
from backgammon.game import (
    GamePhase,
    Move,
    OpeningRoll,
    Player,
    Resign,
    Roll,
)
from backgammon.match import Match
from backgammon.server import game_clock, protocol
from backgammon.server.auth import new_token, token_hash
from backgammon.server.computer import think
from backgammon.server.db import ChatMessage, Table, User, utcnow
from backgammon.server.ownership import Network
from backgammon.server.protocol import shown
from backgammon.server.rating import rating_change
from backgammon.server.replay import END_SESSION, match_of, replay_match
from backgammon.server.room_manager import RoomManager
from backgammon.server.rooms import Outbox, Room, Throttle
from backgammon.server.table_config import Clock, HeldSeat, Start, TableConfig, check_clock
from backgammon.server.table_dice import DrawCount, draws_of, new_dice_config, resume_dice

log = logging.getLogger("backgammon.server")

BOT_TIMEOUT = 10.0
REMATCH_HOLD_SECONDS = 120.0
"""How long a rematch's free seat is held for the other player of the finished match (a stranger
who opens the new table meanwhile cannot take it: 409 ``seat_reserved``)."""
"""Seconds the computer may think about one decision before the quick player answers for it."""
CHAT_KEPT = 50
"""Lines of chat a table keeps in memory and sends to a new connection."""
CHAT_RATE = (5, 10.0)
"""At most this many lines per this many seconds from one seat."""
PRESENCE_TTL = 30.0
"""Seconds another process's report of who is connected counts (it repeats it every third of that)."""


def _chat_line(seat: str, name: str, text: str, at: _dt.datetime) -> dict[str, Any]:
    return {"seat": seat, "name": name, "text": text, "at": at.isoformat()}


@dataclass
class TableRuntime:
    """A table in memory: its database row's facts, the match and the connections."""

    id: str
    config: TableConfig
    flow: Match
    tokens: dict[Player, str | None]
    names: dict[Player, str]
    user_ids: dict[Player, int | None]
    listed: bool
    status: str
    created_at: _dt.datetime | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    outboxes: set[Outbox] = field(default_factory=set)  # the connections watching, each with its seat
    dice: RandomDice | CommittedDice = field(default_factory=lambda: RandomDice(None))  # set by the manager
    agent: Agent | None = None
    bot_task: asyncio.Task | None = None
    stamps: list[_dt.datetime] = field(default_factory=list)  # when each action was stored
    turns: list[Player | None] = field(default_factory=list)  # who was to act before each action
    timeout_loser: Player | None = None  # lost the match on time
    ended_by: Player | None = None  # ended the money session (``end_session``)
    clock_task: asyncio.Task | None = None
    draw_count: DrawCount = field(default_factory=DrawCount)  # the draws in ``actions``, counted once each
    view_cache: tuple | None = None  # protocol.state_to_wire's parts shared by every viewer, per version
    elsewhere: dict[str, tuple[float, dict[str, int]]] = field(default_factory=dict)  # other processes' presence
    chat: list[dict[str, Any]] | None = None  # the last CHAT_KEPT lines, read on first use
    chat_times: dict[Player, list[float]] = field(default_factory=dict)  # for the rate limit
    used: float = field(default_factory=time.monotonic)  # last asked for or changed (time.monotonic)
    clock_anchor: tuple[int, float] | None = None  # (version, its turn's start on time.monotonic): game_clock
    room: Room = field(init=False)

    def __post_init__(self) -> None:
        self.room = Room(self.id)

    @property
    def is_over(self) -> bool:
        return self.flow.is_over or self.timeout_loser is not None or self.ended_by is not None

    @property
    def winner(self) -> Player | None:
        if self.timeout_loser is not None:
            return self.timeout_loser.other
        return self.flow.winner

    @property
    def clock(self) -> Clock | None:
        """The clock settings: ``{"minutes": M, "delay": D}`` or None."""
        return self.config.clock

    def clock_remaining(self, now: float | None = None) -> dict[Player, float]:
        """Seconds left on each human seat's clock (reserve after the per-move delay), on the
        monotonic clock (``now``: ``time.monotonic()``; :mod:`backgammon.server.game_clock`)."""
        return game_clock.remaining(self, now)

    @property
    def clock_running(self) -> Player | None:
        """The seat whose clock runs now (the human to act), or None."""
        if not self.clock or self.status != "playing" or self.is_over:
            return None
        turn = self.flow.game.turn
        return turn if turn is not self.ai_seat else None

    @property
    def version(self) -> int:
        return len(self.actions)

    @property
    def last_stamp(self) -> _dt.datetime | None:
        return self.stamps[-1] if self.stamps else None

    def record(self, payload: dict[str, Any], stamp: _dt.datetime) -> None:
        """Note an action just stored, before the match moves on: who was to act, the action, when."""
        self.turns.append(self.flow.game.turn)
        self.actions.append(payload)
        self.stamps.append(stamp)

    @property
    def needs_owner(self) -> bool:
        """Whether something must happen here with nobody connected: the computer's turn, a running
        clock, or opening dice to roll."""
        if self.status != "playing" or self.is_over:
            return False
        game = self.flow.game
        return (
            self.clock_running is not None
            or game.phase is GamePhase.OPENING
            or (self.ai_seat is not None and game.turn is self.ai_seat)
        )

    def local_presence(self) -> dict[str, int]:
        """Connections to this table in this process, by seat (``watchers``: spectators)."""
        counts = {"white": 0, "black": 0, "watchers": 0}
        for outbox in self.outboxes:
            counts[outbox.seat.value if outbox.seat is not None else "watchers"] += 1
        return counts

    @property
    def presence(self) -> dict[str, Any]:
        """Who is connected, over every process of the site: ``{"white": bool, "black": bool,
        "watchers": n}`` (other processes' counts expire after :data:`PRESENCE_TTL` seconds)."""
        counts = self.local_presence()
        now = time.monotonic()
        for seen, theirs in self.elsewhere.values():
            if now - seen <= PRESENCE_TTL:
                for key in counts:
                    counts[key] += int(theirs.get(key, 0))
        return {"white": counts["white"] > 0, "black": counts["black"] > 0, "watchers": counts["watchers"]}

    @property
    def ai_seat(self) -> Player | None:
        seat = self.config.ai_seat
        return protocol.player_from_wire(seat) if seat else None

    def seat_for(self, token: str | None) -> Player | None:
        """The seat a token opens, or None (a spectator)."""
        if not token:
            return None
        digest = token_hash(token)
        for seat, stored in self.tokens.items():
            if stored is not None and secrets.compare_digest(stored, digest):
                return seat
        return None


class TableManager(RoomManager[TableRuntime, Player]):
    """All tables of this server process: each a :class:`~backgammon.server.rooms.Room`.

    Every change to a table is a job of its room (``act``, ``join``, the computer's answers, the
    clock), stored through the :class:`~backgammon.server.rooms.Store` before it is published to
    the table's connections (their :class:`~backgammon.server.rooms.Outbox`). Tables are read from
    the database on first use and dropped from memory when they are over and nobody watches, or
    when nobody has watched or used them for :data:`~backgammon.server.rooms.IDLE_SECONDS` and
    nothing is due. That machinery (reading, ownership between processes, forwarding, storing,
    publishing) is :class:`~backgammon.server.room_manager.RoomManager`'s; this adapter says how a
    match or money session is built, what its players, computer and clock do, and what they are sent.
    """

    KIND = "table"
    NOUN = "table"
    MODES = ("ai", "human")
    REFRESHED = (
        *("flow", "tokens", "names", "user_ids", "listed", "status", "actions", "stamps", "turns"),
        *("timeout_loser", "ended_by", "dice"),
    )

    def __init__(
        self,
        sessions: sessionmaker,
        dice_seed: int | None = None,
        test_hooks: bool = False,
        *,
        bot_timeout: float = BOT_TIMEOUT,
        network: Network | None = None,
    ) -> None:
        super().__init__(sessions, dice_seed, test_hooks, network=network)
        self.bot_delay = 0.0
        self.bot_timeout = bot_timeout
        self.rematch_hold_seconds = REMATCH_HOLD_SECONDS
        self._presence: dict[str, Throttle] = {}  # per table watched here: its presence messages

    async def start(self) -> None:
        """Connect to the other processes (if any), then resume the unfinished tables."""
        await self.net.start()
        if self.net.shared:
            self._background.append(asyncio.create_task(self._presence_heartbeat(), name="presence"))
        self._start_sweeper()

    # ------------------------------------------------------ the room's part
    def _message(self, table: TableRuntime, seat: Player | None, event: dict[str, Any] | None) -> str:
        return json.dumps(protocol.event_message(table, seat, event))

    def _seat_to_wire(self, seat: Player) -> str:
        return seat.value

    def _seat_from_wire(self, value: object) -> Player:
        return protocol.player_from_wire(value)

    def _active(self, table: TableRuntime) -> bool:
        return not table.is_over

    def _needs_owner(self, table: TableRuntime) -> bool:
        return table.needs_owner

    def _jobs(self, table: TableRuntime) -> tuple[asyncio.Task | None, ...]:
        return (table.bot_task, table.clock_task)

    async def _wake(self, table: TableRuntime) -> None:
        await self._after_action(table)

    def _also_follow(self, table: TableRuntime) -> list[Callable[[], None]]:
        return [self.net.listen(f"presence:{table.id}", functools.partial(self._on_presence, table))]

    def _joined(self, table: TableRuntime, outbox: Outbox) -> None:
        self._presence_changed(table, outbox)

    def _left(self, table: TableRuntime) -> None:
        self._presence_changed(table)

    async def _loaded(self, table: TableRuntime) -> TableRuntime:
        """A finished table read for viewing is not kept in memory; one that needs an owner now
        is taken and woken (with one process; with several: :meth:`claim`)."""
        if table.status == "over":
            return self.tables.get(table.id, table)
        kept = self._keep(table)
        if kept is table and not self.net.shared and table.needs_owner:
            await self.net.acquire(table.id)
            await table.room.call(functools.partial(self._after_action, table))
        return kept

    # ---------------------------------------------------------------- setup
    def _dice_for(self, table_id: str) -> RandomDice:
        if self.dice_seed is None:
            return RandomDice(None)
        return RandomDice(random.Random(f"{self.dice_seed}:{table_id}").getrandbits(64))

    def _runtime(self, row: Table) -> TableRuntime:
        config = TableConfig.from_stored(row.config)
        table = TableRuntime(
            id=row.id,
            config=config,
            flow=match_of(config),
            tokens={Player.WHITE: row.white_token, Player.BLACK: row.black_token},
            names={Player.WHITE: row.white_name, Player.BLACK: row.black_name},
            user_ids={Player.WHITE: row.white_user_id, Player.BLACK: row.black_user_id},
            listed=row.listed,
            status=row.status,
            created_at=row.created_at,
        )
        table.dice = resume_dice(row.id, config.dice, 0) if config.dice else self._dice_for(row.id)
        if config.against_computer:
            table.agent = make_agent(config.level or "intermediate")
        return table

    def _unfinished(self) -> list[TableRuntime]:
        """The unfinished tables that need an owner with nobody connected (:attr:`TableRuntime.needs_owner`).
        The others are read when first asked for: a site may keep thousands of idle sessions, and
        holding each one's lease would fill PostgreSQL's lock table."""
        with self.sessions() as db:
            rows = db.scalars(select(Table).where(Table.status != "over").order_by(Table.created_at)).all()
            timed = [row for row in rows if row.config.get("mode") == "ai" or row.config.get("clock")]
            tables = [self._replay(db, row) for row in timed]
        return [table for table in tables if table.needs_owner]

    async def load(self) -> int:
        """Replay the unfinished tables that need an owner now (the computer's turn, a running clock,
        opening dice) and wake the ones this process takes (at start; with several processes, each
        takes those no live process holds). Returns how many tables are in memory."""
        for table in await asyncio.to_thread(self._unfinished):
            if not await self.net.acquire(table.id):
                continue
            self._keep(table)
            await table.room.call(functools.partial(self._after_action, table))
        return len(self.tables)

    def _replay(self, db, row: Table) -> TableRuntime:
        table = self._runtime(row)
        records = self._records(db, row.id)
        for record, (before, payload, after) in zip(
            records, replay_match(row.config, [r.payload for r in records]), strict=True
        ):
            table.turns.append(before.game.turn)
            if payload.get("kind") == "timeout":
                table.timeout_loser = protocol.player_from_wire(payload["player"])
            elif payload.get("kind") == END_SESSION:
                table.ended_by = protocol.player_from_wire(payload["player"])
            table.flow = after
            table.actions.append(payload)
            table.stamps.append(record.created_at)
        if table.config.dice:  # verifiable dice: go on at the draw after the last stored one
            table.dice = resume_dice(row.id, table.config.dice, len(draws_of(table.actions)))
        return table

    # ------------------------------------------------------------- creation
    async def create(
        self,
        *,
        mode: str,
        rules_doc: object,
        seat: str = "white",
        level: str = "intermediate",
        name: str = "Guest",
        user_id: int | None = None,
        listed: bool = False,
        start: object = None,
        clock: object = None,
    ) -> tuple[TableRuntime, Player, str]:
        """A new table, stored and started; returns it, the creator's seat and its token.

        Raises:
            InvalidInputError: for a bad mode, rules, seat, level or start position.
        """
        if mode not in ("ai", "human"):
            raise InvalidInputError(f"invalid mode {shown(mode)}: expected 'ai' or 'human'")
        rules = protocol.rules_from_wire(rules_doc)
        if seat == "random":
            seat = random.choice(("white", "black"))
        player = protocol.player_from_wire(seat)
        if mode == "ai" and level not in (*LEVELS, "greedy"):
            raise InvalidInputError(f"invalid level {shown(level)}: expected one of {', '.join(LEVELS)}")
        name = _check_name(name)
        config = TableConfig(
            mode,
            protocol.rules_to_wire(rules),
            ai_seat=player.other.value if mode == "ai" else None,
            level=level if mode == "ai" else None,
            start=cast(Start, self._check_start(start, rules)) if start is not None else None,
            clock=check_clock(clock) if clock is not None else None,
        )
        token = new_token()
        table = await self._new_table(
            config, player, name, user_id, token_hash(token), bool(listed) and mode == "human"
        )
        return table, player, token

    async def create_paired(
        self, rules_doc: object, clock: object, seats: dict[Player, tuple[str, int | None, str]]
    ) -> TableRuntime:
        """A new table between two people with both seats taken (quick pairing: each seat's name,
        user id and seat token's hash), listed (so that it can be watched), started here.

        Raises:
            InvalidInputError: for bad rules or clock.
        """
        config = TableConfig(
            "human",
            protocol.rules_to_wire(protocol.rules_from_wire(rules_doc)),
            clock=check_clock(clock) if clock is not None else None,
        )
        name, user_id, digest = seats[Player.WHITE]
        return await self._new_table(config, Player.WHITE, name, user_id, digest, True, opponent=seats[Player.BLACK])

    async def _new_table(
        self,
        config: TableConfig,
        player: Player,
        name: str,
        user_id: int | None,
        digest: str,
        listed: bool,
        opponent: tuple[str, int | None, str] | None = None,
    ) -> TableRuntime:
        """Store a new table of ``config`` (checked; its dice are added) with ``player`` seated (and
        the other seat's ``opponent``: name, user id, token hash), and start it (this process owns it)."""
        table_id = secrets.token_urlsafe(8)
        config = config.replace(dice=new_dice_config(table_id, self.dice_seed))
        mode = config.mode
        row = Table(
            id=table_id,
            config=config.to_stored(),
            listed=listed,
            status="playing" if mode == "ai" or opponent is not None else "waiting",
            rated=False,
            created_at=utcnow(),
        )
        seated = {player: (name, user_id, digest)}
        if opponent is not None:
            seated[player.other] = opponent
        for seat, (seat_name, seat_user, seat_digest) in seated.items():
            setattr(row, f"{seat.value}_token", seat_digest)
            setattr(row, f"{seat.value}_name", seat_name)
            setattr(row, f"{seat.value}_user_id", seat_user)
        if mode == "ai":
            # named as the table names the computer in play: "Computer (Intermediate)"
            level = (config.level or "").replace("_", " ").capitalize()
            setattr(row, f"{player.other.value}_name", f"Computer ({level})")

        return await self._open(row)

    async def rematch(self, table_id: str, token: str | None) -> tuple[TableRuntime, Player, str]:
        """A new match with the same settings, after a finished one: the first of the two players
        to ask makes it (at the same seat, the other seat left free for them); the other, asking
        next, takes that seat. Returns the new table, the seat and its token.

        Raises:
            LookupError: no such table. NotYourTurnError: not a player of it.
            IllegalActionError: the match is not over, or this player is already seated there.
        """
        table = await self.get(table_id)
        seat = table.seat_for(token)
        if seat is None or seat is table.ai_seat:
            raise NotYourTurnError("only the table's players can ask for a rematch")
        new_token_ = new_token()
        request = {"kind": "rematch", "seat": seat.value, "digest": token_hash(new_token_)}
        new_id = await self._in_room(table, request, lambda: self._rematch(table, seat, request["digest"]))
        return await self.get(new_id), seat, new_token_

    async def _rematch(self, table: TableRuntime, seat: Player, digest: str) -> str:
        """The rematch's table id, made now or joined (see :meth:`rematch`). Runs in the old table's room."""
        if not table.is_over:
            raise IllegalActionError("no rematch yet: the match is not over")
        name, user_id = table.names[seat], table.user_ids[seat]
        made = table.config.rematch
        if made:
            new = await self.get(made)
            if new.tokens[seat] is not None:
                raise IllegalActionError("you have a seat at the rematch already: open it from the link or your games")
            await self._in_room(
                new,
                {"kind": "join", "name": name, "user_id": user_id, "digest": digest, "rematch": True},
                lambda: self._join(new, name, user_id, digest, rematch=True),
            )
            return made
        settings = table.config.for_rematch()
        if settings.mode == "human":  # the free seat is the other player's for a while
            hold = time.time() + self.rematch_hold_seconds
            other: HeldSeat = {"seat": seat.other.value, "user_id": table.user_ids[seat.other], "until": hold}
            settings = settings.replace(held=other)
        new = await self._new_table(settings, seat, name, user_id, digest, listed=False)
        if table.config.mode == "human":
            table.config = table.config.replace(rematch=new.id)
            config = table.config.to_stored()

            def write() -> None:
                with self.sessions() as db:
                    db.get(Table, table.id).config = config
                    db.commit()

            await self.store.run(write)
            self.publish(table, None, reload=True)  # the other player is offered the seat
        return new.id

    async def reseat(self, table_id: str, user_id: int) -> tuple[TableRuntime, Player, str]:
        """A new seat token for a logged-in player's own seat at an unfinished table (to go back to it
        from another browser, which holds no token): the seat's old token no longer opens it.

        Raises:
            LookupError: no such table. NotYourTurnError: the account has no seat there.
            IllegalActionError: the match is over.
        """
        table = await self.get(table_id)
        seat = next((p for p in Player if table.user_ids[p] == user_id and p is not table.ai_seat), None)
        if seat is None:
            raise NotYourTurnError("you have no seat at this table", code="not_your_seat")
        if table.is_over:
            raise IllegalActionError("the match is over: open it to watch or review it", code="match_over")
        token = new_token()
        request = {"kind": "reseat", "seat": seat.value, "digest": token_hash(token)}
        await self._in_room(table, request, lambda: self._reseat(table, seat, request["digest"]))
        return table, seat, token

    async def _reseat(self, table: TableRuntime, seat: Player, digest: str) -> None:
        """Store a seat's new token hash. Runs in the owner's room."""

        def write() -> None:
            with self.sessions() as db:
                setattr(db.get(Table, table.id), f"{seat.value}_token", digest)
                db.commit()

        await self.store.run(write)
        table.tokens[seat] = digest
        for outbox in list(table.outboxes):  # a connection opened with the old token keeps no seat
            if outbox.seat is seat:
                outbox.drop("the seat's token was replaced")
        self.publish(table, None, reload=True)

    async def revoke_seats(self, user_id: int) -> int:
        """Logout-all: no seat token given to the account opens its seat any more, and the connections
        seated with one are closed. Unfinished tables: each seat through its room, as :meth:`reseat`
        (the player gets a new token from ``POST /api/tables/{id}/seat`` once logged in again);
        finished ones (a token there still asks for a rematch): the stored hashes at once, and this
        process's copies. Returns how many unfinished seats were revoked."""
        unusable = token_hash(new_token())  # the hash of a token nobody holds

        def read_and_revoke_finished() -> list[str]:
            with self.sessions() as db:
                for column, owner in (("white_token", Table.white_user_id), ("black_token", Table.black_user_id)):
                    db.execute(
                        update(Table)
                        .where(owner == user_id, Table.status == "over", getattr(Table, column).is_not(None))
                        .values({column: unusable})
                    )
                db.commit()
                return list(
                    db.scalars(
                        select(Table.id).where(
                            Table.status != "over", (Table.white_user_id == user_id) | (Table.black_user_id == user_id)
                        )
                    )
                )

        unfinished = await self.store.run(read_and_revoke_finished)
        for table in list(self.tables.values()):  # finished copies held here
            if table.is_over:
                for seat in Player:
                    if table.user_ids[seat] == user_id and table.tokens[seat] is not None:
                        table.tokens[seat] = unusable
                        for outbox in list(table.outboxes):
                            if outbox.seat is seat:
                                outbox.drop("the account logged out everywhere")
        revoked = 0
        for table_id in unfinished:
            try:
                table = await self.get(table_id)
            except LookupError:
                continue
            for seat in Player:
                if table.user_ids[seat] != user_id or seat is table.ai_seat or table.tokens[seat] is None:
                    continue
                digest = token_hash(new_token())
                request = {"kind": "reseat", "seat": seat.value, "digest": digest}
                await self._in_room(table, request, functools.partial(self._reseat, table, seat, digest))
                revoked += 1
        return revoked

    async def _join(
        self, table: TableRuntime, name: str, user_id: int | None, digest: str, rematch: bool = False
    ) -> Player:
        """Seat a player (the seat token's hash given). Runs in the owner's room. A rematch's free
        seat is held for the other player of the finished match (``rematch``: that player's own
        request, or the same account) until its ``held`` time is over.

        Raises:
            IllegalActionError: no free seat; ``seat_reserved`` (``seconds``): held for another.
        """
        table_id = table.id
        free = [p for p in (Player.WHITE, Player.BLACK) if table.tokens[p] is None]
        if table.config.mode != "human" or not free:
            raise IllegalActionError(f"cannot join table {table_id!r}: no free seat")
        seat = free[0]
        held = table.config.held
        if isinstance(held, dict) and not rematch and held.get("seat") == seat.value:
            left = float(held.get("until", 0)) - time.time()
            if left > 0 and (user_id is None or user_id != held.get("user_id")):
                raise IllegalActionError(
                    f"this seat is held for the other player of the last match for {int(left) + 1} s more",
                    code="seat_reserved",
                    params={"seconds": int(left) + 1},
                )

        def write() -> None:
            with self.sessions() as db:
                row = db.get(Table, table_id)
                setattr(row, f"{seat.value}_token", digest)
                setattr(row, f"{seat.value}_name", name)
                setattr(row, f"{seat.value}_user_id", user_id)
                row.status = "playing"
                db.commit()

        await self.store.run(write)
        table.tokens[seat] = digest
        table.names[seat] = name
        table.user_ids[seat] = user_id
        table.status = "playing"
        await self._after_action(table)
        self.publish(table, None, reload=True)
        return seat

    def current(self, db: Session, row: Table) -> TableRuntime:
        """A table to list: the copy in memory when it is current (this process runs it, or its
        clients here follow it), else replayed from the database (not kept). On a worker thread."""
        table = self.tables.get(row.id)
        if table is not None and (not self.net.shared or self.net.owns(row.id) or table.outboxes):
            return table
        return self._replay(db, row)

    # -------------------------------------------------------------- actions

    async def _perform(self, table: TableRuntime, seat: Player, message: dict[str, Any]) -> None:
        """A client's action (the table is playing, the version checked). Runs in the owner's room."""
        if table.ai_seat is seat:
            raise NotYourTurnError("that seat is played by the computer")
        if message.get("action") == END_SESSION:
            await self._end_session(table, seat)
            return
        action = self._client_action(table, seat, message)
        await self._commit(table, action)
        await self._after_action(table)

    async def _end_session(self, table: TableRuntime, seat: Player) -> None:
        """A player ends a money session: stored as ``end_session`` (it changes no game state), the
        table is over, so its dice seed is revealed and it can be reviewed. A game in progress is
        left unfinished and scores nothing; the session's score is its finished games'. Runs in the room."""
        if not table.flow.is_money:
            raise IllegalActionError("only a money session can be ended: a match ends when a side reaches its length")
        payload = {"kind": END_SESSION, "player": seat.value}
        await self._store(table, payload, "over")
        table.ended_by = seat
        table.status = "over"
        for task in (table.bot_task, table.clock_task):
            if task is not None and not task.done():
                task.cancel()
        self.publish(table, payload)

    def _client_action(self, table: TableRuntime, seat: Player, message: dict[str, Any]) -> GameAction:
        game = table.flow.game
        kind = message.get("action")
        if kind not in protocol.CLIENT_KINDS:
            raise InvalidInputError(f"invalid action {shown(kind)}: expected one of {', '.join(protocol.CLIENT_KINDS)}")
        if game.turn is not seat:
            who = game.turn.value if game.turn else "nobody"
            raise NotYourTurnError(f"not your turn: {who} is to act ({game.describe()})")
        if kind == "roll":
            if game.phase is not GamePhase.ROLL:
                raise IllegalActionError(f"cannot roll now: {game.describe()}")
            return Roll(seat, table.dice.roll())
        if kind == "move":
            return Move(seat, protocol.play_of(game, message))
        if kind == "double" and protocol.dead_cube_match(game):
            raise IllegalActionError("no doubling in a 1-point match: the cube is dead")
        if kind == "resign":
            level = message.get("level", "single")
            if not isinstance(level, str) or level not in protocol.RESIGN_LEVELS:
                raise InvalidInputError(
                    f"invalid resignation level {shown(level)}: expected single, gammon or backgammon"
                )
            return Resign(seat, protocol.RESIGN_LEVELS[level])
        return protocol.SIMPLE_ACTIONS[kind](seat)

    async def _commit(self, table: TableRuntime, action: GameAction) -> None:
        """Apply (raises, leaving the table unchanged), store, then publish. Runs in the room."""
        flow = table.flow.apply(action)
        payload = protocol.action_to_wire(action)
        await self._store(table, payload, "over" if flow.is_over else None, after=flow)
        table.flow = flow
        if flow.is_over:
            table.status = "over"
            await self._rate(table)
        self.publish(table, payload)

    async def _store(
        self,
        table: TableRuntime,
        payload: dict[str, Any],
        status: str | None = None,
        stamp: _dt.datetime | None = None,
        after: Match | None = None,
    ) -> None:
        """Store an action (``after``: the match it leads to; None when it ends the table). A table
        with a clock stores the clock with it (:func:`game_clock.stored_entry`)."""
        stamp, now = stamp or utcnow(), time.monotonic()
        if table.clock:
            runner = None
            if after is not None and status != "over" and not after.is_over and table.status == "playing":
                runner = after.game.turn if after.game.turn is not table.ai_seat else None
            payload[game_clock.KEY] = game_clock.stored_entry(table, runner, stamp, now)
        await super()._store(table, payload, status, stamp)
        table.clock_anchor = (table.version, now)  # the next turn starts now

    # ---------------------------------------------------------------- clock
    def _schedule_clock(self, table: TableRuntime) -> None:
        task = table.clock_task
        if task is not None and not task.done():
            task.cancel()
        running = table.clock_running
        if running is None:
            return
        left = table.clock_remaining()[running]
        table.clock_task = asyncio.create_task(self._clock_expiry(table, table.version, running, left))

    async def _clock_expiry(self, table: TableRuntime, version: int, player: Player, left: float) -> None:
        await asyncio.sleep(max(0.0, left) + 0.05)

        async def job() -> None:
            if table.version != version or table.is_over or not self.net.owns(table.id):
                return
            if table.clock_remaining().get(player, 1.0) > 0:
                self._schedule_clock(table)
                return
            payload = {"kind": "timeout", "player": player.value}
            await self._store(table, payload, "over")
            table.timeout_loser = player
            table.status = "over"
            await self._rate(table)
            self.publish(table, payload)

        table.room.post(job)

    async def _after_action(self, table: TableRuntime) -> None:
        """Roll opening dice when a game waits for them, and wake the computer player. Runs in the room."""
        if table.status != "playing":
            return
        while not table.flow.is_over and table.flow.game.phase is GamePhase.OPENING:
            white, black = table.dice.die(), table.dice.die()
            await self._commit(table, OpeningRoll(white, black))
        self._schedule_bot(table)
        self._schedule_clock(table)

    # ------------------------------------------------------------------ bots
    def _schedule_bot(self, table: TableRuntime) -> None:
        if table.agent is None or table.is_over or table.flow.game.turn is not table.ai_seat:
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = asyncio.create_task(self._bot_turn(table, table.version))

    async def _bot_turn(self, table: TableRuntime, version: int) -> None:
        """The computer thinks off the loop (within ``bot_timeout`` s, else the quick player
        answers), then its action is a job of the room, dropped if the table moved on meanwhile."""
        if self.bot_delay:
            await asyncio.sleep(self.bot_delay)
        game = table.flow.game
        post = table.flow.is_post_crawford
        agent, seat = table.agent, table.ai_seat
        assert agent is not None and seat is not None  # _schedule_bot starts a turn only for the computer's seat
        action = await think(agent, game, seat, post, self.bot_timeout, table.id)

        async def job() -> None:
            table.bot_task = None
            if not self.net.owns(table.id):
                return  # handed off meanwhile: the new owner's computer plays
            if table.version != version:  # stale: the table moved on meanwhile; think again if need be
                self._schedule_bot(table)
                return
            chosen = action
            if isinstance(chosen, Roll):
                chosen = Roll(chosen.player, table.dice.roll())
            await self._commit(table, chosen)
            await self._after_action(table)

        table.room.post(job)

    # ------------------------------------------------- several processes
    def _forwarded_other(
        self, table: TableRuntime, kind: object, message: dict[str, Any]
    ) -> Callable[[], Awaitable[dict[str, Any]]]:
        """The job answering another process's chat, rematch or reseat request."""
        if kind == "chat":
            seat, text = protocol.player_from_wire(message.get("seat")), message.get("text")
            if not isinstance(text, str):
                raise InvalidInputError("invalid forwarded chat")

            async def chat() -> dict[str, Any]:
                await self._say(table, seat, text)
                return {}

            return chat
        if kind == "rematch":
            seat, digest = protocol.player_from_wire(message.get("seat")), message.get("digest")
            if not isinstance(digest, str):
                raise InvalidInputError("invalid forwarded rematch")

            async def rematch() -> dict[str, Any]:
                return {"table": await self._rematch(table, seat, digest)}

            return rematch
        if kind == "reseat":
            own_seat, fresh = protocol.player_from_wire(message.get("seat")), message.get("digest")
            if not isinstance(fresh, str):
                raise InvalidInputError("invalid forwarded reseat")

            async def reseat() -> dict[str, Any]:
                await self._reseat(table, own_seat, fresh)
                return {}

            return reseat
        raise InvalidInputError(f"invalid forwarded request {shown(kind)}")

    def _applied(self, table: TableRuntime, message: dict[str, Any]) -> bool:
        """Apply the owner's change (the next action, or a line of chat) to this copy and show it;
        False when the table must be read again (a reload, or an announcement missed)."""
        if isinstance(message.get("chat"), dict):
            self._show_chat(table, message["chat"])
            return True
        version, event = message.get("v"), message.get("event")
        if version == table.version and not message.get("reload"):
            return True  # already seen (this process read it from the database)
        if message.get("reload") or not isinstance(event, dict) or version != table.version + 1:
            return False
        flow, kind = table.flow, event.get("kind")
        if kind not in ("timeout", END_SESSION):
            flow = flow.apply(protocol.action_from_wire(event, flow.game))
        at = message.get("at")
        table.record(event, _dt.datetime.fromisoformat(at) if isinstance(at, str) else utcnow())
        if kind == "timeout":
            table.timeout_loser = protocol.player_from_wire(event["player"])
        elif kind == END_SESSION:
            table.ended_by = protocol.player_from_wire(event["player"])
        table.flow = flow
        table.clock_anchor = (table.version, time.monotonic())  # the owner's turn began about now
        if table.is_over:
            table.status = "over"
        self._show(table, event)
        return True

    # -------------------------------------------------------------- presence
    def _presence_changed(self, table: TableRuntime, newcomer: Outbox | None = None) -> None:
        """Tell this table's connections (but a newcomer, whose state says it) and the other
        processes who is connected now: at most once per :data:`~backgammon.server.rooms.PRESENCE_EVERY`
        seconds (a :class:`~backgammon.server.rooms.Throttle` per table), the changes meanwhile together."""
        throttle = self._presence.get(table.id)
        if throttle is None:
            throttle = self._presence[table.id] = Throttle(functools.partial(self._presence_now, table))
        throttle(newcomer)
        if not table.outboxes and table.id in self._presence:
            del self._presence[table.id]  # (a message already due is still sent, to nobody here)

    def _presence_now(self, table: TableRuntime, newcomer: Outbox | None) -> None:
        self._show_presence(table, newcomer)
        if self.net.shared:
            self.net.tell(f"presence:{table.id}", {"counts": table.local_presence()})

    def _show_presence(self, table: TableRuntime, skip: Outbox | None = None) -> None:
        text = json.dumps(protocol.presence_message(table))
        for outbox in list(table.outboxes):
            if outbox is not skip:
                outbox.offer(text)

    def _on_presence(self, table: TableRuntime, message: dict[str, Any]) -> None:
        counts = message.get("counts")
        if isinstance(counts, dict):
            table.elsewhere[str(message.get("from"))] = (time.monotonic(), counts)
            self._show_presence(table)

    # ------------------------------------------------------------------ chat
    async def chat_lines(self, table: TableRuntime) -> list[dict[str, Any]]:
        """The table's last :data:`CHAT_KEPT` lines of chat, oldest first."""
        if table.chat is None:

            def read() -> list[dict[str, Any]]:
                with self.sessions() as db:
                    rows = db.scalars(
                        select(ChatMessage)
                        .where(ChatMessage.table_id == table.id)
                        .order_by(ChatMessage.id.desc())
                        .limit(CHAT_KEPT)
                    ).all()
                    return [_chat_line(r.seat, r.name, r.text, r.created_at) for r in reversed(rows)]

            lines = await asyncio.to_thread(read)
            if table.chat is None:
                table.chat = lines
        return list(table.chat)

    async def say(self, table: TableRuntime, seat: Player | None, text: object) -> None:
        """A line of chat from a seated player: checked, stored, shown to every connection.

        Raises:
            NotYourTurnError: a spectator. InvalidInputError: bad text.
            IllegalActionError: more than :data:`CHAT_RATE` lines in its window.
        """
        if seat is None:
            raise NotYourTurnError("spectators cannot chat: only the players can")
        line = protocol.check_text(text, "chat line", protocol.MAX_CHAT)
        now = time.monotonic()
        recent = [t for t in table.chat_times.get(seat, []) if now - t < CHAT_RATE[1]]
        if len(recent) >= CHAT_RATE[0]:
            raise IllegalActionError(f"too many chat lines: at most {CHAT_RATE[0]} in {CHAT_RATE[1]:g} s")
        table.chat_times[seat] = [*recent, now]
        request = {"kind": "chat", "seat": seat.value, "text": line}
        await self._in_room(table, request, lambda: self._say(table, seat, line))

    async def _say(self, table: TableRuntime, seat: Player, text: str) -> None:
        """Store and show one line of chat. Runs in the owner's room."""
        stamp = utcnow()
        name = table.names[seat]

        def write() -> None:
            with self.sessions() as db:
                db.add(ChatMessage(table_id=table.id, created_at=stamp, seat=seat.value, name=name, text=text))
                db.commit()

        await self.store.run(write)
        line = _chat_line(seat.value, name, text, stamp)
        self._show_chat(table, line)
        self.net.announce("table", table.id, {"v": table.version, "chat": line})

    def _show_chat(self, table: TableRuntime, line: dict[str, Any]) -> None:
        if table.chat is not None:
            table.chat = [*table.chat, line][-CHAT_KEPT:]
        text = json.dumps(protocol.chat_message([line]))
        for outbox in list(table.outboxes):
            outbox.offer(text)

    async def _presence_heartbeat(self) -> None:
        """Say again who is connected here, so that a process that dies stops counting soon."""
        while True:
            await asyncio.sleep(PRESENCE_TTL / 3)
            for table in list(self.tables.values()):
                if table.outboxes:
                    self.net.tell(f"presence:{table.id}", {"counts": table.local_presence()})

    async def close(self) -> None:
        """Stop the rooms (:meth:`RoomManager.close`), then the bus and the store."""
        await super().close()
        await self.net.close()
        await asyncio.to_thread(self.store.close)

    # --------------------------------------------------------------- rating
    async def _rate(self, table: TableRuntime) -> None:
        flow = table.flow
        length = flow.rules.match_length
        winner = table.winner
        if not length or winner is None or table.config.mode != "human":
            return
        w_id, l_id = table.user_ids[winner], table.user_ids[winner.other]
        if not w_id or not l_id or w_id == l_id:
            return

        def write() -> None:
            with self.sessions() as db:
                row = db.get(Table, table.id)
                if row.rated:
                    return
                won, lost = db.get(User, w_id), db.get(User, l_id)
                change = rating_change(won.rating, lost.rating, length, won.experience, lost.experience)
                won.rating += change.winner_delta
                lost.rating += change.loser_delta
                won.experience += length
                lost.experience += length
                row.rated = True
                db.commit()

        await self.store.run(write)


def _check_name(name: object) -> str:
    return protocol.check_name(name)  # no control characters, NFC, 1 to 24 characters
