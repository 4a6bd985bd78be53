"""Chouette tables on the web platform: three or more seats, people and computer players mixed.

The rules are :class:`backgammon.chouette.Chouette` (box against a team, the captain moves,
unanimous team doubles, individual takes and passes of the box's doubles, separate settlement,
rotation). This module gives it seats, storage, computer players and a REST API:

- ``POST /api/chouette`` ``{"name", "seats": [{"bot": level|null}, ...]}`` creates a table; the
  creator sits at seat 0 (the first box); ``{"bot": null}`` seats are left for people to join.
- ``POST /api/chouette/{id}/join`` ``{"name"}`` takes the first free human seat; when every seat
  is taken the first game starts.
- ``GET /api/chouette/{id}`` (header ``x-seat-token``) is the table as that seat sees it.
- ``POST /api/chouette/{id}/actions`` ``{"action": roll|move|double|take|pass|consent|refuse|
  suggest, "steps"|"play", "version"}``. ``suggest`` (a team member, not the captain, while the
  captain is to move) records a play suggestion shown to the team only; it does not bind the captain.

Storage reuses the platform's ``tables`` row (``config["mode"] == "chouette"``; seat tokens are
kept hashed in the config) and its ``actions`` rows (``{"by": name, "kind": ...}``); a table is
replayed from them after a restart. Dice are verifiable (:mod:`backgammon.server.table_dice`).

Computer players decide off the event loop (``asyncio.to_thread``), one action at a time, each
within :data:`BOT_ACTION_TIMEOUT` seconds (else the quick player's answer stands in). They act
within the request that woke them until a person is to act or a game ends; the next game goes on
in one background task per table (``bot_delay`` seconds after the end), which a poll never starts
twice. A game that runs past :data:`MAX_GAME_ACTIONS` is stuck: it is logged as an error and the
table's status becomes ``"error"``.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from backgammon.chouette import Chouette, ChouetteAction, ChouetteStage, Consent, Refuse
from backgammon.engine.players import LEVELS, Agent, decide_chouette, make_agent
from backgammon.errors import IllegalActionError, InvalidInputError, NotYourTurnError
from backgammon.fairdice import CommittedDice
from backgammon.game import Double, GamePhase, Move, OpeningRoll, Pass, Player, Roll, Take
from backgammon.server import chouette_seats, protocol
from backgammon.server.auth import new_token, token_hash
from backgammon.server.computer import in_time
from backgammon.server.db import Table
from backgammon.server.ownership import Network
from backgammon.server.protocol import shown
from backgammon.server.replay import CHOUETTE_BOX, chouette_moves, chouette_of, replay_chouette
from backgammon.server.room_manager import RoomManager
from backgammon.server.rooms import Outbox, Room, Store
from backgammon.server.table_dice import dice_doc, draws_of, game_dice_config, game_seed, new_dice_config

log = logging.getLogger("backgammon.server")

MIN_SEATS, MAX_SEATS = 3, 8
KINDS = ("roll", "move", "double", "take", "pass", "consent", "refuse", "suggest")
BOX, TEAM = CHOUETTE_BOX, CHOUETTE_BOX.other
BOT_ACTION_TIMEOUT = 15.0
"""Seconds a computer player may think about one action before the quick player answers for it."""
MAX_GAME_ACTIONS = 3000
"""Actions in one game past which the game is taken to be stuck (real games take a few hundred)."""


@dataclass
class ChouetteRuntime:
    """A chouette table in memory."""

    id: str
    config: dict[str, Any]
    status: str
    chouette: Chouette | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    outboxes: set[Outbox] = field(default_factory=set)  # the connections watching, each with its seat name
    dice: CommittedDice | None = None  # the current game's (made when it starts)
    agents: dict[str, Agent] = field(default_factory=dict)
    task: asyncio.Task | None = None  # the computer players going on in the background
    bots_running: bool = False  # computer players are acting now (in a request or the task)
    fallback: Agent | None = None  # the quick player, answering for a computer that takes too long or fails
    game_starts: list[int] = field(default_factory=lambda: [0])  # index in ``actions`` where each game began
    used: float = field(default_factory=time.monotonic)  # last asked for or watched (time.monotonic)
    last_stamp: _dt.datetime | None = None  # when this process stored its last action
    room: Room = field(init=False)

    def __post_init__(self) -> None:
        self.room = Room(self.id)

    @property
    def version(self) -> int:
        return len(self.actions)

    def record(self, payload: dict[str, Any], stamp: _dt.datetime) -> None:
        """Note an action just stored."""
        self.actions.append(payload)
        self.last_stamp = stamp

    @property
    def seats(self) -> list[dict[str, Any]]:
        return self.config["seats"]

    def name_for(self, token: str | None) -> str | None:
        """The seat name a token opens, or None (a spectator)."""
        if not token:
            return None
        digest = token_hash(token)
        for seat in self.seats:
            if seat.get("token") and secrets.compare_digest(seat["token"], digest):
                return seat["name"]
        return None

    def bot_level(self, name: str) -> str | None:
        for seat in self.seats:
            if seat["name"] == name:
                return seat.get("bot")
        return None

    @property
    def suggestions(self) -> list[dict[str, Any]]:
        """Suggestions made since the team's last roll (while the captain is still to move)."""
        out: list[dict[str, Any]] = []
        for p in self.actions:
            if p["kind"] == "suggest":
                out = [s for s in out if s["by"] != p["by"]] + [{"by": p["by"], "play": p["play"]}]
            elif p["kind"] != "chat":
                out = []
        return out


def _sync_games(table: ChouetteRuntime) -> bool:
    """Note where a new game began; True if one did."""
    c = table.chouette
    if c is not None and len(c.games) + 1 > len(table.game_starts):
        table.game_starts.append(len(table.actions))
        return True
    return False


def _game_dice(table: ChouetteRuntime) -> CommittedDice:
    """The current game's dice: game ``n`` (from 1) draws with id ``"<table>:n"`` and its own seed."""
    n = len(table.game_starts)
    draws = len(draws_of(table.actions[table.game_starts[-1] :]))
    return CommittedDice.resume(f"{table.id}:{n}", game_seed(table.config["dice"]["seed"], n), draws)


def game_dice_docs(table: ChouetteRuntime) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The current game's commitment, and every finished game's revealed seed and check command."""
    if table.chouette is None:
        return None, []
    master = table.config["dice"]["seed"]
    bounds = [*table.game_starts, len(table.actions)]
    revealed = []
    for i in range(len(table.game_starts) - 1):
        n = i + 1
        seed = game_seed(master, n)
        doc = dice_doc(f"{table.id}:{n}", game_dice_config(seed), table.actions[bounds[i] : bounds[i + 1]], True)
        assert doc is not None  # a game's dice configuration is never empty
        revealed.append({"game": n, **doc})
    n = len(table.game_starts)
    current = dice_doc(f"{table.id}:{n}", game_dice_config(game_seed(master, n)), table.actions[bounds[-2] :], False)
    assert current is not None
    return {"game": n, **current}, revealed


def game_log(table: ChouetteRuntime, number: int) -> list[dict[str, Any]]:
    """The move list of game ``number`` (1 is the first; the one being played included), as the state's ``log``.

    Raises:
        LookupError: no such game yet (404).
    """
    if not 1 <= number <= len(table.game_starts) or table.chouette is None:
        raise LookupError(f"no game {number} in this chouette: it has played {len(table.game_starts)} so far")
    bounds = [*table.game_starts, len(table.actions)]
    return chouette_moves(table.actions[bounds[number - 1] : bounds[number]])


def _action_to(by: str, action: ChouetteAction) -> dict[str, Any]:
    if isinstance(action, Consent):
        doc: dict[str, Any] = {"kind": "consent", "player": TEAM.value}
    elif isinstance(action, Refuse):
        doc = {"kind": "refuse", "player": TEAM.value}
    else:
        doc = protocol.action_to_wire(action)
    doc["by"] = by
    return doc


class ChouetteManager(RoomManager[ChouetteRuntime, str]):
    """Every chouette table: created, joined, acted on, stored and replayed. The rooms' machinery
    (reading, ownership, forwarding, storing, publishing) is :class:`RoomManager`'s; this adapter
    says how a chouette is built, what its people and computer players do and what they are sent."""

    KIND = "chouette"
    NOUN = "chouette table"
    MODES = ("chouette",)
    REFRESHED = ("config", "status", "chouette", "actions", "dice", "agents", "fallback", "game_starts")
    STOPPED: ClassVar[Mapping[str, str]] = {"error": "the chouette stopped on an error (a game that did not end)"}

    def __init__(
        self,
        sessions,
        dice_seed: int | None = None,
        test_hooks: bool = False,
        bot_delay: float = 0.4,
        store: Store | None = None,
        network: Network | None = None,
    ) -> None:
        super().__init__(sessions, dice_seed, test_hooks, store=store, network=network)
        self.bot_delay = bot_delay

    # ----------------------------------------------------------- creation
    async def create(
        self, name: object, seats_doc: object, seat: object = 0, start: object = None, user_id: int | None = None
    ) -> tuple[ChouetteRuntime, str]:
        """A new chouette table; the creator takes seat ``seat`` (0 = the first box), as the account
        ``user_id`` when logged in (:mod:`backgammon.server.chouette_seats`).

        Returns the table and the creator's token. ``start`` (a Position ID, box on roll;
        only with the server's ``--test-hooks``) sets up the first game's position.

        Raises:
            InvalidInputError: for a bad name, seat list, seat or start position.
        """
        name = protocol.check_name(name)
        if not isinstance(seats_doc, list) or not MIN_SEATS <= len(seats_doc) <= MAX_SEATS:
            raise InvalidInputError(
                f"invalid seats {shown(seats_doc)}: expected a list of {MIN_SEATS} to {MAX_SEATS} seats"
            )
        seats: list[dict[str, Any]] = []
        bots = 0
        mine = seat
        if not isinstance(mine, int) or isinstance(mine, bool) or not 0 <= mine < len(seats_doc):
            raise InvalidInputError(
                f"invalid seat {shown(mine)}: expected a seat number from 0 to {len(seats_doc) - 1}"
            )
        for i, seat_doc in enumerate(seats_doc):
            if not isinstance(seat_doc, dict) or set(seat_doc) - {"bot"}:
                raise InvalidInputError(f"invalid seat {shown(seat_doc)}: expected {{'bot': level or null}}")
            level = seat_doc.get("bot")
            if i == mine and level is not None:
                raise InvalidInputError(f"invalid seat {shown(seat_doc)}: seat {mine} is yours, not a computer's")
            if level is not None and level not in (*LEVELS, "greedy"):
                raise InvalidInputError(f"invalid level {shown(level)}: expected one of {', '.join(LEVELS)}")
            if level is not None:
                bots += 1
                seats.append({"name": f"Computer {bots}", "bot": level, "token": None})
            else:
                seats.append({"name": None, "bot": None, "token": None})
        if any(s["name"] == name for s in seats):
            raise InvalidInputError(f"invalid name {name!r}: a computer player at this table has it")
        token = new_token()
        seats[mine].update(name=name, token=token_hash(token))
        if user_id is not None:  # (logout-all revokes the seat: chouette_seats)
            seats[mine]["user_id"] = user_id
        table_id = secrets.token_urlsafe(8)
        config: dict[str, Any] = {"mode": "chouette", "seats": seats, "dice": new_dice_config(table_id, self.dice_seed)}
        if start is not None:
            checked = self._check_start(start)
            if checked["on_roll"] != BOX.value:
                raise InvalidInputError(f"invalid start {shown(start)}: the box is on roll at a chouette")
            config["start"] = checked["position_id"]  # (the box on roll)
        status = "playing" if all(s["name"] for s in seats) else "waiting"
        table = await self._open(Table(id=table_id, config=config, listed=False, status=status, rated=False))
        return table, token

    async def _join(
        self, table: ChouetteRuntime, name: str, user_id: int | None, digest: str, rematch: bool = False
    ) -> str:
        """Seat a person (the seat token's hash given; an account's seat records it; a chouette
        keeps no rematch): their seat name. Runs in the owner's room."""
        table_id = table.id
        free = [s for s in table.seats if s["name"] is None]
        if not free:
            raise IllegalActionError(f"cannot join chouette {table_id!r}: no free seat")
        if any(s["name"] == name for s in table.seats):
            raise InvalidInputError(f"invalid name {name!r}: already taken at this table")
        free[0].update(name=name, token=digest)
        if user_id is not None:  # (logout-all revokes the seat: chouette_seats)
            free[0]["user_id"] = user_id
        status = "playing" if len(free) == 1 else "waiting"
        seats = [dict(s) for s in table.seats]

        def write() -> None:
            with self.sessions() as db:
                row = db.get(Table, table_id)
                row.config = {**table.config, "seats": seats}
                row.status = status
                db.commit()

        await self.store.run(write)
        table.status = status
        if status == "playing":
            self._start(table)
            await self._bots(table)
        self.publish(table)
        return name

    def _runtime(self, row: Table) -> ChouetteRuntime:
        return self._build(row.id, row.config, row.status, [])

    def _replay(self, db, row: Table) -> ChouetteRuntime:
        return self._build(row.id, row.config, row.status, [a.payload for a in self._records(db, row.id)])

    def _build(self, table_id: str, config: dict[str, Any], status: str, payloads: list) -> ChouetteRuntime:
        table = ChouetteRuntime(id=table_id, config=config, status=status)
        if status != "waiting":
            self._start(table)
            for _before, p, after in replay_chouette(config, payloads):
                table.chouette = after
                table.actions.append(p)
                _sync_games(table)
            table.dice = _game_dice(table)
        return table

    def _start(self, table: ChouetteRuntime) -> None:
        table.chouette = chouette_of(table.config)
        table.agents = {s["name"]: make_agent(s["bot"]) for s in table.seats if s["bot"]}
        table.fallback = make_agent("greedy")
        table.game_starts = [0]
        table.dice = _game_dice(table)

    # ---------------------------------------------------- the room's part
    def _message(self, table: ChouetteRuntime, seat: str | None, event: dict[str, Any] | None) -> str:
        return json.dumps({"type": "state", "state": state_to_wire(table, seat)})

    def _seat_to_wire(self, seat: str) -> str:
        return seat

    def _forwarded_other(
        self, table: ChouetteRuntime, kind: object, message: dict[str, Any]
    ) -> Callable[[], Awaitable[dict[str, Any]]]:
        if kind == chouette_seats.RESEAT:
            return chouette_seats.forwarded(self, table, message)
        return super()._forwarded_other(table, kind, message)

    def _seat_from_wire(self, value: object) -> str:
        if not isinstance(value, str):
            raise InvalidInputError("invalid forwarded request: no seat name")
        return value

    def _needs_owner(self, table: ChouetteRuntime) -> bool:
        """A computer player is to act."""
        c = table.chouette
        return table.status == "playing" and c is not None and any(n in table.agents for n in c.to_act())

    def _jobs(self, table: ChouetteRuntime) -> tuple[asyncio.Task | None, ...]:
        return (table.task,)

    def _busy(self, table: ChouetteRuntime) -> bool:
        return table.bots_running

    async def _wake(self, table: ChouetteRuntime) -> None:
        await self._bots(table)

    def _joined(self, table: ChouetteRuntime, outbox: Outbox) -> None:
        self.resume(table)

    def resume(self, table: ChouetteRuntime) -> None:
        """Let the computer players go on if they are to act (e.g. after a restart; never twice)."""
        if self._needs_owner(table):
            self._schedule(table)

    # ------------------------------------------------------------ actions
    async def _perform(self, table: ChouetteRuntime, name: str, message: dict[str, Any]) -> None:
        """A person's action, then the computer players'. Runs in the owner's room."""
        kind = message.get("action")
        if kind not in KINDS:
            raise InvalidInputError(f"invalid action {shown(kind)}: expected one of {', '.join(KINDS)}")
        if kind == "suggest":
            await self._store(table, self._suggestion(table, name, message))
            self.publish(table)
            return
        action = self._client_action(table, name, kind, message)
        await self._apply(table, name, action)
        await self._bots(table)

    def _suggestion(self, table: ChouetteRuntime, name: str, message: dict[str, Any]) -> dict[str, Any]:
        c = table.chouette
        assert c is not None
        if name == c.box or name not in c.active_members:
            raise NotYourTurnError(f"{name} cannot suggest: only team members still in the game suggest plays")
        if name == c.captain:
            raise IllegalActionError(f"{name} is the captain: the captain moves, the others suggest")
        if c.stage is not ChouetteStage.PLAYING or c.game.phase is not GamePhase.MOVE or c.game.turn is not TEAM:
            raise IllegalActionError("cannot suggest now: the captain is not about to move")
        play = protocol.play_of(c.game, message)
        return {"kind": "suggest", "by": name, "play": str(play) or "(no move)"}

    def _client_action(self, table: ChouetteRuntime, name: str, kind: str, message: dict[str, Any]) -> ChouetteAction:
        c = table.chouette
        assert c is not None
        side = c.side_of(name)
        if name not in c.to_act():
            raise NotYourTurnError(f"not your turn: {', '.join(c.to_act()) or 'nobody'} to act ({c.game.describe()})")
        if kind == "roll":
            if c.stage is not ChouetteStage.PLAYING or c.game.phase is not GamePhase.ROLL:
                raise IllegalActionError(f"cannot roll now: {c.game.describe()}")
            c.game.apply(Roll(side, (1, 2)))  # raises if rolling is not allowed; the real dice come next
            return Roll(side, _dice(table).roll())
        if kind == "move":
            if c.game.phase is not GamePhase.MOVE:
                raise IllegalActionError(f"cannot move now: {c.game.describe()}")
            return Move(side, protocol.play_of(c.game, message))
        answers: dict[str, Callable[[Player], ChouetteAction]] = {
            "double": Double,
            "take": Take,
            "pass": Pass,
            "consent": Consent,
            "refuse": Refuse,
        }
        return answers[kind](side)

    async def _apply(self, table: ChouetteRuntime, name: str, action: ChouetteAction) -> None:
        """Apply, store, publish (runs in the table's room)."""
        c = table.chouette
        assert c is not None
        after = c.apply(name, action)  # raises, leaving everything unchanged
        await self._store(table, _action_to(name, action))
        table.chouette = after
        if _sync_games(table):  # a game ended: the next one draws from its own committed seed
            table.dice = _game_dice(table)
        await self._apply_opening(table)
        self.publish(table)

    async def _bots(self, table: ChouetteRuntime) -> None:
        """Let computer players act (caller holds the lock) until a person is to act or a game ends.

        Each pass stores one action. If computer players still have to act after a game ended,
        they go on in the background (:meth:`_schedule`). A game past :data:`MAX_GAME_ACTIONS`
        actions, or a computer player that fails even with the quick player's help, stops the
        table (:meth:`_stop`).
        """
        if table.status != "playing" or table.chouette is None:
            return
        c = table.chouette
        if c.stage is ChouetteStage.PLAYING and c.game.phase is GamePhase.OPENING:
            await self._apply_opening(table)
        games = len(table.chouette.games)
        next_game = False
        table.bots_running = True
        try:
            while table.status == "playing" and not self.closing:
                c = table.chouette
                bots = [n for n in c.to_act() if n in table.agents]
                if not bots:
                    break
                if len(c.games) > games:
                    next_game = True
                    break
                played = table.version - table.game_starts[-1]
                if played >= MAX_GAME_ACTIONS:
                    why = f"game {len(table.game_starts)} has run {played} actions without ending ({c!r})"
                    await self._stop(table, why)
                    break
                name = bots[0]
                try:
                    action = await self._bot_action(table, c, name)
                    await self._apply(table, name, action)
                except Exception as exc:
                    log.exception("computer player %s failed on chouette %s", name, table.id)
                    await self._stop(table, f"computer player {name} failed: {exc}")
        finally:
            table.bots_running = False
        if next_game:
            self._schedule(table)

    async def _bot_action(self, table: ChouetteRuntime, c: Chouette, name: str) -> ChouetteAction:
        """What computer player ``name`` does now, with a Roll's dice drawn: decided off the event
        loop within :data:`BOT_ACTION_TIMEOUT` seconds (:func:`computer.in_time`: the quick player
        answers instead when it takes longer, fails, or decides on something the rules refuse)."""
        agent = table.agents[name]
        action = await in_time(
            self._bot_decision,
            agent,
            c,
            name,
            timeout=BOT_ACTION_TIMEOUT,
            who=f"computer player {name} ({agent.name}) on chouette {table.id}",
            check=lambda answer: c.apply(name, _with_dice(answer, (1, 2))),
            fallback=table.fallback,
        )
        return _with_dice(action, _dice(table).roll()) if isinstance(action, Roll) else action

    async def _stop(self, table: ChouetteRuntime, why: str) -> None:
        """Something is genuinely stuck: log it as an error and mark the table (status ``"error"``)."""
        log.error("chouette %s stopped: %s", table.id, why)
        table.status = "error"

        def write() -> None:
            with self.sessions() as db:
                row = db.get(Table, table.id)
                row.status = "error"
                db.commit()

        await self.store.run(write)
        self.publish(table)

    def _schedule(self, table: ChouetteRuntime) -> None:
        """Let the computer players go on in the background, unless they already do (or cannot)."""
        if table.status != "playing" or table.bots_running or self.closing or not self._mine(table):
            return
        task = table.task
        if task is not None and not task.done():
            return
        table.task = asyncio.create_task(self._later(table))

    async def _later(self, table: ChouetteRuntime) -> None:
        """The background task: ``bot_delay`` seconds, then the computer players' next game, and so on
        until a person is to act (one task per table: :meth:`_schedule` sees it running)."""
        try:
            while table.status == "playing" and not self.closing:
                await asyncio.sleep(self.bot_delay)

                async def job() -> bool:
                    """One game's worth of computer actions; True if the next game is theirs too."""
                    c = table.chouette
                    if c is None or not self._mine(table) or not any(n in table.agents for n in c.to_act()):
                        return False
                    games = len(c.games)
                    await self._bots(table)
                    after = table.chouette  # a new game is theirs too; else a person is to act, or it stopped
                    return after is not None and len(after.games) != games

                if not await table.room.call(job):
                    return
        except Exception:
            log.exception("computer players failed on chouette %s", table.id)

    async def _apply_opening(self, table: ChouetteRuntime) -> None:
        c = table.chouette
        assert c is not None
        while c.stage is ChouetteStage.PLAYING and c.game.phase is GamePhase.OPENING:
            dice = _dice(table)
            action = OpeningRoll(dice.die(), dice.die())
            box = c.box
            c = c.apply(box, action)
            await self._store(table, _action_to(box, action))
            table.chouette = c

    _bot_decision = staticmethod(decide_chouette)
    """What a computer seat does (:func:`backgammon.engine.players.decide_chouette`, run off the event loop)."""


def _dice(table: ChouetteRuntime) -> CommittedDice:
    """The current game's dice (a game in play has them)."""
    assert table.dice is not None, table.id
    return table.dice


def _with_dice(action: ChouetteAction, dice: tuple[int, int]) -> ChouetteAction:
    """A Roll with these dice (anything else unchanged)."""
    return Roll(action.player, dice) if isinstance(action, Roll) else action


# ------------------------------------------------------------------ wire
def state_to_wire(table: ChouetteRuntime, you: str | None) -> dict[str, Any]:
    """The chouette table as ``you`` (a seat name, or None for a spectator) sees it."""
    c = table.chouette
    doc: dict[str, Any] = {
        "id": table.id,
        "mode": "chouette",
        "status": table.status,
        "version": table.version,
        "you": you,
        "seats": [{"name": s["name"], "bot": s["bot"], "open": s["name"] is None} for s in table.seats],
    }
    doc["fair_dice"], doc["revealed_dice"] = game_dice_docs(table)
    if c is None:
        return doc
    game = c.game
    members = {m.name: m for m in c.members}
    players = []
    for s in table.seats:
        n = s["name"]
        role = "box" if n == c.box else "captain" if n == c.captain else "member"
        m = members.get(n)
        players.append(
            {
                "name": n,
                "bot": s["bot"],
                "role": role,
                "line": c.team.index(n) if n in c.team else None,
                "active": True if m is None else m.active,
                "cube": game.cube_value if m is None else m.cube_value,
                "score": c.scores[n],
            }
        )
    side = c.side_of(you) if you in c.players else None
    view = side or BOX
    board = game.board_for(view)
    pips_view, pips_other = board.pip_counts()
    allowed = _allowed(c, you)
    graph = protocol.move_graph(game) if "move" in allowed or "suggest" in allowed else None
    plays = protocol.plays_to_wire(game.legal_plays) if graph else []
    doc.update(
        {
            "box": c.box,
            "captain": c.captain,
            "team": list(c.team),
            "stage": c.stage.value,
            "pending": list(c.pending),
            "to_act": list(c.to_act()),
            "players": players,
            "side": protocol.player_to_wire(side),
            "view": view.value,
            "allowed": allowed,
            "move_graph": graph,
            "plays": plays,
            "log": chouette_moves(table.actions[table.game_starts[-1] :]),
            "suggestions": table.suggestions if side is TEAM else [],
            "game": {
                "number": len(c.games) + 1,
                "phase": game.phase.value,
                "turn": protocol.player_to_wire(game.turn),
                "dice": list(game.dice) if game.dice else None,
                "cube": {
                    "value": game.cube_value,
                    "owner": protocol.player_to_wire(game.cube_owner),
                    "offered_by": protocol.player_to_wire(game.doubled_by),
                },
                "board": protocol.board_to_wire(board),
                "pips": {view.value: pips_view, view.other.value: pips_other},
                "description": game.describe(),
            },
            "games": [
                {
                    "box": g.box,
                    "captain": g.captain,
                    "winner": "box" if g.box_result > 0 else "team",
                    "box_result": g.box_result,
                    "settlements": [list(x) for x in g.settlements],
                }
                for g in c.games
            ],
        }
    )
    return doc


def _allowed(c: Chouette, you: str | None) -> list[str]:
    if you is None or you not in c.players:
        return []
    out: list[str] = []
    if c.stage is ChouetteStage.TEAM_CONSENT:
        return ["consent", "refuse"] if you in c.pending else []
    if c.stage is ChouetteStage.BOX_DOUBLED:
        return ["take", "pass"] if you in c.pending else []
    game = c.game
    side = c.side_of(you)
    if you in c.to_act():
        if game.phase is GamePhase.ROLL:
            out.append("roll")
            if c.may_double(you):  # the board's cube rules, and no refused team double this turn
                out.append("double")
        elif game.phase is GamePhase.MOVE:
            out.append("move")
        elif game.phase is GamePhase.DOUBLED:  # the team doubled: the box answers
            out += ["take", "pass"]
    elif side is TEAM and you in c.active_members and game.phase is GamePhase.MOVE and game.turn is TEAM:
        out.append("suggest")
    return out
