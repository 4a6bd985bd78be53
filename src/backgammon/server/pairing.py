"""Quick pairing: two players who want the same game are seated together at once, at a new table.

One room, :data:`ROOM`, holds the waiting requests. Like a table, it is run by the one process that
holds its lease (:class:`~backgammon.server.ownership.Network`), and every other process forwards its
clients' requests there (``Network.run``), so two players whose browsers reach two different
processes meet in the one queue. A request that finds a waiting one wanting the same game (the same
match length, or money, and the same clock; never the same account) makes a new table with both
seated (:meth:`TableManager.create_paired`): the newcomer learns it in its answer, the waiting
player at its next poll. Each request carries the hash of the seat token its player will sit with
(the token itself goes only to that player's browser), so nothing secret crosses the bus.

A waiting request lives while its browser asks about it: one not asked about for :data:`PAIR_TTL`
seconds has expired (the browser left; it also cancels when it leaves the page). The queue lives in
the owner's memory: when that process dies, another takes the room over at the next request (after
``network.FORWARD_TIMEOUT``) with an empty queue, and the browsers still waiting, told ``expired``,
ask again.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.game import Player
from backgammon.server import protocol
from backgammon.server.auth import new_token, token_hash
from backgammon.server.http_errors import HTTPError
from backgammon.server.rooms import Room
from backgammon.server.tables import TableManager

ROOM = "pairing"
"""The one pairing room's id (its lease and bus topics; table ids are 11 characters, never this)."""
KIND = "pair"
PAIR_TTL = 10.0
"""Seconds a waiting request lives after its browser last asked about it."""
POLL_EVERY = 2.0
"""Seconds between a waiting browser's questions (what the answer suggests)."""
PAIRED_KEPT = 60.0
"""Seconds a paired request is remembered, for its player's browser to learn where it sits."""
CLOCK_DELAY = 10
"""Seconds of delay a move on a quick-paired table's clock (as the home page's tables have)."""
WAITING_PER_CLIENT = 4
"""Waiting requests at once from one client (an account, or a guest's address)."""
SEEKS_PER_MINUTE = 20
"""Requests a minute from one client that one process accepts (more: 429)."""
MAX_WAITING = 10_000
"""Waiting requests in all (more: refused, so that memory stays bounded)."""


@dataclass
class Seeker:
    """A player's request, in the pairing room's memory."""

    id: str
    digest: str  # the hash of the seat token its player will sit with
    name: str
    user_id: int | None
    client: str  # "user:<id>" or "address:<host>": for the limits
    length: int  # points, 0 for money
    clock: int  # minutes, 0 for none
    seen: float = 0.0  # (the owner's time.monotonic) last asked about, or paired
    table: str | None = None
    seat: str | None = None

    def wants_same(self, other: Seeker) -> bool:
        """Whether the two can play each other: the same game, and not one account against itself."""
        same_account = self.user_id is not None and self.user_id == other.user_id
        return (self.length, self.clock) == (other.length, other.clock) and not same_account

    def to_wire(self) -> dict[str, Any]:
        return protocol.pair_to_wire(
            self.id, "paired" if self.table else "waiting", table=self.table, seat=self.seat
        ) | {"poll": POLL_EVERY}

    def to_request(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("id", "digest", "name", "user_id", "client", "length", "clock")}


def seeker_from(doc: object) -> Seeker:
    """A request as one process forwards it to the pairing room's owner, checked.

    Raises:
        InvalidInputError: for anything malformed.
    """
    if not isinstance(doc, dict):
        raise InvalidInputError("invalid forwarded pairing request")
    texts = ("id", "digest", "name", "client")
    ok = all(isinstance(doc.get(k), str) and 0 < len(doc[k]) <= 128 for k in texts)
    ok = ok and (doc.get("user_id") is None or type(doc.get("user_id")) is int)
    ok = ok and type(doc.get("length")) is int and 0 <= doc["length"] <= 25 and doc.get("clock") in protocol.PAIR_CLOCKS
    if not ok:
        raise InvalidInputError("invalid forwarded pairing request")
    return Seeker(**{k: doc[k] for k in (*texts, "user_id", "length", "clock")})


def _checked_id(request_id: str) -> str:
    if not 1 <= len(request_id) <= 32:
        raise InvalidInputError(f"invalid pairing request id {protocol.shown(request_id)}")
    return request_id


class PairingManager:
    """The quick-pairing queue of the site (see the module docstring), reached from every process."""

    def __init__(self, tables: TableManager) -> None:
        self.tables = tables
        self.net = tables.net
        self.room = Room(ROOM)
        self.waiting: dict[str, Seeker] = {}  # the owner's queue (oldest first) and recent pairings
        self._seeks: dict[str, list[float]] = {}  # client -> when its last requests came to this process
        self._unfollow: Callable[[], None] | None = None

    def start(self) -> None:
        """Answer other processes' requests while this process runs the pairing room."""
        self._unfollow = self.net.follow(KIND, ROOM, lambda _message: None, self._answer)

    async def close(self) -> None:
        if self._unfollow is not None:
            self._unfollow()
        await self.room.aclose()

    # ------------------------------------------------------------ what a client asks
    async def seek(self, choice: protocol.PairRequest, name: str, user_id: int | None, client: str) -> dict[str, Any]:
        """Enter the queue: paired at once with a waiting player who wants the same game, or waiting.
        The answer carries the seat token the player will sit with.

        Raises:
            HTTPError: 429, too many requests from this client in a minute.
            IllegalActionError: too many waiting requests from this client (``pair_limit``), or
                from everyone (``pair_busy``).
        """
        self._count(client)
        token = new_token()
        seeker = Seeker(
            secrets.token_urlsafe(12), token_hash(token), name, user_id, client, choice.length, choice.clock
        )
        answer = await self._run({"kind": "seek", "seeker": seeker.to_request()})
        return {**answer, "token": token}

    async def poll(self, request_id: str, token: str | None) -> dict[str, Any]:
        """Where a request stands (``waiting``, ``paired`` or ``expired``); keeps a waiting one alive.

        Raises:
            IllegalActionError: the token is not the request's (``pair_not_yours``).
        """
        return await self._run({"kind": "poll", "id": _checked_id(request_id), "digest": token_hash(token or "")})

    async def cancel(self, request_id: str, token: str | None) -> dict[str, Any]:
        """Leave the queue (``cancelled``); a request already paired stays so (``paired``: go and play).

        Raises:
            IllegalActionError: the token is not the request's (``pair_not_yours``).
        """
        return await self._run({"kind": "cancel", "id": _checked_id(request_id), "digest": token_hash(token or "")})

    def _count(self, client: str) -> None:
        now = time.monotonic()
        if len(self._seeks) > MAX_WAITING:  # forget the clients that have been quiet for a minute
            self._seeks = {c: times for c, times in self._seeks.items() if times and now - times[-1] < 60}
        recent = [t for t in self._seeks.get(client, []) if now - t < 60]
        if len(recent) >= SEEKS_PER_MINUTE:
            wait = int(60 - (now - recent[0])) + 1
            raise HTTPError(
                429, f"too many pairing requests: try again in {wait} s", "too_many_requests", {"seconds": wait}
            )
        self._seeks[client] = [*recent, now]

    # ------------------------------------------------------------ in the pairing room
    async def _run(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run ``request`` in the pairing room, here or at its owner's; the request's status."""
        job: Callable[[], Awaitable[dict[str, Any]]] = lambda: self._do(request)  # noqa: E731
        result = await self.net.run(KIND, ROOM, self.room, request, job, self._take_over)
        pair = result.get("pair")
        if not isinstance(pair, dict):
            raise IllegalActionError("the pairing server answered nothing: try again")
        return pair

    async def _answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """Another process's request, while this process runs the pairing room."""
        return await self.net.in_room(ROOM, self.room, lambda: self._do(message))

    async def _take_over(self) -> None:
        """This process has just taken the pairing room: what it remembered of an earlier turn is
        stale (another process may have run the room since). Runs in the room."""
        self.waiting.clear()

    async def _do(self, request: dict[str, Any]) -> dict[str, Any]:
        now = time.monotonic()
        self._expire(now)
        kind = request.get("kind")
        if kind == "seek":
            return {"pair": await self._seek(seeker_from(request.get("seeker")), now)}
        request_id, digest = request.get("id"), request.get("digest")
        if kind not in ("poll", "cancel") or not isinstance(request_id, str) or not isinstance(digest, str):
            raise InvalidInputError(f"invalid pairing request {protocol.shown(kind)}")
        seeker = self.waiting.get(request_id)
        if seeker is None:
            return {"pair": protocol.pair_to_wire(request_id, "expired")}
        if not secrets.compare_digest(seeker.digest, digest):
            raise IllegalActionError("that pairing request is not yours", code="pair_not_yours")
        if seeker.table is None:
            if kind == "cancel":
                del self.waiting[request_id]
                return {"pair": protocol.pair_to_wire(request_id, "cancelled")}
            seeker.seen = now
        return {"pair": seeker.to_wire()}

    def _expire(self, now: float) -> None:
        for key, seeker in list(self.waiting.items()):
            if now - seeker.seen > (PAIRED_KEPT if seeker.table else PAIR_TTL):
                del self.waiting[key]

    async def _seek(self, seeker: Seeker, now: float) -> dict[str, Any]:
        waiting = [s for s in self.waiting.values() if s.table is None]
        if seeker.user_id is not None:  # an account waits once: its older request gives way
            for old in [s for s in waiting if s.user_id == seeker.user_id]:
                del self.waiting[old.id]
                waiting.remove(old)
        seeker.seen = now
        partner = next((s for s in waiting if s.wants_same(seeker)), None)
        if partner is None:  # it would wait: within the limits
            if sum(1 for s in waiting if s.client == seeker.client) >= WAITING_PER_CLIENT:
                raise IllegalActionError(
                    f"too many waiting pairing requests from you: at most {WAITING_PER_CLIENT}",
                    code="pair_limit",
                    params={"limit": WAITING_PER_CLIENT},
                )
            if len(waiting) >= MAX_WAITING:
                raise IllegalActionError("too many players are waiting: try again in a moment", code="pair_busy")
            self.waiting[seeker.id] = seeker
            return seeker.to_wire()
        white, black = (partner, seeker) if secrets.randbelow(2) else (seeker, partner)
        clock = {"minutes": seeker.clock, "delay": CLOCK_DELAY} if seeker.clock else None
        table = await self.tables.create_paired(
            {"match_length": seeker.length},
            clock,
            {
                Player.WHITE: (white.name, white.user_id, white.digest),
                Player.BLACK: (black.name, black.user_id, black.digest),
            },
        )
        for one in (white, black):
            one.table, one.seat, one.seen = table.id, "white" if one is white else "black", now
        self.waiting[seeker.id] = seeker  # (remembered too: an answer lost on its way can be asked again)
        return seeker.to_wire()
