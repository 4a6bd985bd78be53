"""Budgets for expensive work and for sockets, per account and per address: the one home of them.

Each kind of expensive work (:data:`BUDGETS`: tables and listed tables created, tables against the
computer, hints, analysis, reviews, rollouts, dice statistics, uploads) has a :class:`Budget`: how
many may start in an hour and how many may run at once. A request counts against its *client*: the
account when logged in, else the address; and every request from an address also counts against the
address's own budget, ``address_factor`` times the client's, shared by the guests and accounts
there (so that registering accounts does not multiply one address's budget without end). Past a
budget the request is refused with 429, code ``too_many_requests`` and ``params.seconds`` (when
to try again), before any work is done.

Hourly budgets are moving windows of the ``limits`` library (in memory, per server process);
the counts of work running at once are taken and given back under one lock (a
:class:`Ticket`). Sockets have their own caps: connections per address, spectators per table,
chat lines per client across all tables and messages per connection.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import HTTPConnection

from backgammon.errors import InvalidInputError
from backgammon.server.http_errors import HTTPError


@dataclass(frozen=True, slots=True)
class Budget:
    """``per_hour`` starts in any hour; ``concurrent`` at once (None: no cap)."""

    per_hour: int
    concurrent: int | None = None


BUDGETS: dict[str, Budget] = {
    "tables": Budget(60),  # tables created (any kind)
    "listed_tables": Budget(10),  # tables created listed in the lobby
    "ai_tables": Budget(30, 6),  # tables against the computer: created per hour, unfinished at once
    "hints": Budget(600, 1),
    "analysis": Budget(600, 2),  # the study board's analysis and checks, lessons' answers
    "reviews": Budget(30, 1),
    "uploads": Budget(30, 4),  # match files uploaded for analysis: an hour, and waiting or being analysed at once
    "rollouts": Budget(20, 1),
    "dice_stats": Budget(60, 1),
}
"""The budgets by kind of work (a client's; an address's are ``address_factor`` times these)."""

ADDRESS_FACTOR = 4
SOCKETS_PER_ADDRESS = 40
SPECTATORS_PER_TABLE = 50
CHAT_PER_MINUTE = 20
SOCKET_MESSAGES_PER_SECOND = 20
RETRY_BUSY = 5
"""The ``seconds`` a refusal for work already running at once suggests."""


def parse_budgets(entries: Iterable[str]) -> dict[str, list[int | None]]:
    """``serve --budget KIND=PER_HOUR[/CONCURRENT]`` entries as the config's ``budgets`` mapping.

    Raises:
        InvalidInputError: for an unknown kind or numbers that are not positive integers.
    """
    out: dict[str, list[int | None]] = {}
    for entry in entries:
        kind, _, value = entry.partition("=")
        kind = kind.strip()
        if kind not in BUDGETS:
            raise InvalidInputError(f"invalid budget {entry!r}: the kinds are {', '.join(BUDGETS)}")
        hour, _, running = value.partition("/")
        try:
            numbers = [int(hour), int(running) if running else None]
        except ValueError:
            raise InvalidInputError(
                f"invalid budget {entry!r}: expected KIND=PER_HOUR or KIND=PER_HOUR/AT_ONCE"
            ) from None
        if any(n is not None and n < 1 for n in numbers):
            raise InvalidInputError(f"invalid budget {entry!r}: the numbers must be at least 1")
        out[kind] = numbers
    return out


def address_of(connection: HTTPConnection) -> str:
    """A request's or socket's client address (a trusted proxy's X-Forwarded-For: serve --forwarded-allow-ips)."""
    return connection.client.host if connection.client else "unknown"


def client_key(address: str, user_id: int | None) -> str:
    """Whom a request counts against: its account, else its address."""
    return f"user:{user_id}" if user_id is not None else f"addr:{address}"


def too_many(message: str, seconds: float) -> HTTPError:
    """The one refusal of this module: 429, ``too_many_requests``, ``params.seconds``."""
    wait = max(1, int(seconds) + (0 if float(seconds).is_integer() else 1))
    return HTTPError(429, f"{message}: try again in {wait} s", "too_many_requests", {"seconds": wait})


class Ticket:
    """A place in the work running at once of a kind; :meth:`release` (or leaving the ``with``)
    gives it back, once."""

    def __init__(self, quotas: Quotas, keys: list[str]) -> None:
        self._quotas, self._keys, self._held = quotas, keys, True

    def release(self) -> None:
        with self._quotas.lock:
            if not self._held:
                return
            self._held = False
            for key in self._keys:
                left = self._quotas.running.get(key, 0) - 1
                if left > 0:
                    self._quotas.running[key] = left
                else:
                    self._quotas.running.pop(key, None)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class Holding:
    """A place :meth:`Quotas.hold` took: named after the item once it exists, or dropped."""

    def __init__(self, quotas: Quotas, kind: str, item: str) -> None:
        self._quotas, self._kind, self._item = quotas, kind, item

    def name(self, item: str) -> None:
        with self._quotas.lock:
            held = self._quotas.holdings[self._kind]
            held[item] = held.pop(self._item)
            self._item = item

    def drop(self) -> None:
        with self._quotas.lock:
            self._quotas.holdings[self._kind].pop(self._item, None)


class Quotas:
    """The budgets of one server process (see the module's text)."""

    def __init__(
        self,
        budgets: Mapping[str, Budget | list[int | None] | tuple[int, int | None]] | None = None,
        *,
        address_factor: int = ADDRESS_FACTOR,
        sockets_per_address: int = SOCKETS_PER_ADDRESS,
        spectators_per_table: int = SPECTATORS_PER_TABLE,
        chat_per_minute: int = CHAT_PER_MINUTE,
        socket_messages_per_second: int = SOCKET_MESSAGES_PER_SECOND,
    ) -> None:
        self.budgets = dict(BUDGETS)
        for kind, value in (budgets or {}).items():
            if kind not in BUDGETS:
                raise InvalidInputError(f"invalid budget kind {kind!r}: expected one of {', '.join(BUDGETS)}")
            self.budgets[kind] = value if isinstance(value, Budget) else Budget(int(value[0]), value[1])  # type: ignore[arg-type]
        self.address_factor = max(1, address_factor)
        self.sockets_per_address = sockets_per_address
        self.spectators_per_table = spectators_per_table
        self.lock = threading.RLock()  # (start() charges the hour while holding it)
        self.running: dict[str, int] = {}
        self.holdings: dict[str, dict[str, tuple[str, str]]] = {}  # kind -> item -> (address, client)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self._hourly = {
            kind: (RateLimitItemPerHour(b.per_hour), RateLimitItemPerHour(b.per_hour * self.address_factor))
            for kind, b in self.budgets.items()
        }
        self._chat = RateLimitItemPerMinute(chat_per_minute)
        self.socket_messages_per_second = socket_messages_per_second

    # ------------------------------------------------------------ hourly
    def _wait(self, item: RateLimitItem, *keys: str) -> float:
        reset = self.limiter.get_window_stats(item, *keys).reset_time
        return max(1.0, reset - time.time())

    def charge(self, kind: str, address: str, user_id: int | None = None) -> None:
        """Count one start of ``kind`` for the client and its address.

        Raises:
            HTTPError: 429 when either has used its hourly budget (nothing is counted then).
        """
        client, per_address = self._hourly[kind]
        checks = [(client, (kind, client_key(address, user_id))), (per_address, (kind, f"address:{address}"))]
        with self.lock:
            for item, keys in checks:
                if not self.limiter.test(item, *keys):
                    who = "your address" if keys[1].startswith("address:") else "you"
                    raise too_many(f"too many {kind.replace('_', ' ')} for {who} this hour", self._wait(item, *keys))
            for item, keys in checks:
                self.limiter.hit(item, *keys)

    # ----------------------------------------------------------- at once
    def _running_keys(self, kind: str, address: str, user_id: int | None) -> list[tuple[str, int]]:
        cap = self.budgets[kind].concurrent
        if cap is None:
            return []
        return [
            (f"{kind}:{client_key(address, user_id)}", cap),
            (f"{kind}:address:{address}", cap * self.address_factor),
        ]

    def start(self, kind: str, address: str, user_id: int | None = None) -> Ticket:
        """Take a place among the work of ``kind`` running at once and count the start in the hour
        (:meth:`charge`); the caller releases the ticket when the work ends.

        Raises:
            HTTPError: 429 when the client or its address already runs its share, or past the hour's budget.
        """
        keys = self._running_keys(kind, address, user_id)
        with self.lock:
            for key, cap in keys:
                if self.running.get(key, 0) >= cap:
                    what = "your address" if ":address:" in key else "you"
                    raise too_many(
                        f"{kind.replace('_', ' ')}: {what} already run(s) {cap} at once, wait for one to finish",
                        RETRY_BUSY,
                    )
            self.charge(kind, address, user_id)
            for key, _cap in keys:
                self.running[key] = self.running.get(key, 0) + 1
        return Ticket(self, [key for key, _ in keys])

    def hold(self, kind: str, address: str, user_id: int | None, alive: Callable[[str], bool]) -> Holding:
        """Take one of the client's places for ``kind`` (e.g. an unfinished table against the
        computer), checked and taken in one step so that requests at once cannot all slip past the
        cap. The holding names its item once made (:meth:`Holding.name`) or is dropped if the making
        fails; items that ``alive(id)`` no longer calls live are forgotten here.

        Raises:
            HTTPError: 429 when the client or its address already holds its ``concurrent`` cap.
        """
        cap = self.budgets[kind].concurrent or 10**9
        client = client_key(address, user_id)
        with self.lock:
            held = self.holdings.setdefault(kind, {})
            for item in [item for item in held if not item.startswith("making:") and not alive(item)]:
                del held[item]
            mine = sum(1 for _a, c in held.values() if c == client)
            here = sum(1 for a, _c in held.values() if a == address)
            if mine >= cap or here >= cap * self.address_factor:
                who = "you have" if mine >= cap else "your address has"
                raise too_many(
                    f"{who} too many unfinished {kind.replace('_', ' ')}: finish or leave one first", RETRY_BUSY
                )
            item = f"making:{uuid.uuid4().hex}"
            held[item] = (address, client)
        return Holding(self, kind, item)

    # ------------------------------------------------------------ sockets
    def open_socket(self, address: str) -> Ticket:
        """Count one open connection from ``address`` (release it when the connection ends).

        Raises:
            HTTPError: 429 past ``sockets_per_address``.
        """
        key = f"socket:{address}"
        with self.lock:
            if self.running.get(key, 0) >= self.sockets_per_address:
                raise too_many(
                    f"too many connections from your address (at most {self.sockets_per_address})", RETRY_BUSY
                )
            self.running[key] = self.running.get(key, 0) + 1
        return Ticket(self, [key])

    def check_spectators(self, watching: int) -> None:
        """Refuse one more spectator of a table that ``watching`` spectators watch.

        Raises:
            HTTPError: 429 at ``spectators_per_table``.
        """
        if watching >= self.spectators_per_table:
            raise too_many(f"this table has as many spectators as it takes ({self.spectators_per_table})", RETRY_BUSY)

    def chat(self, address: str, user_id: int | None = None) -> None:
        """Count one line of chat of a client, across every table it chats at.

        Raises:
            HTTPError: 429 past the chat budget per minute.
        """
        key = client_key(address, user_id)
        if not self.limiter.hit(self._chat, "chat", key):
            raise too_many("too many chat lines", self._wait(self._chat, "chat", key))

    def socket_meter(self) -> SocketMeter:
        """A meter of one connection's messages (see :class:`SocketMeter`)."""
        return SocketMeter(self)


class SocketMeter:
    """Counts the messages of one connection against ``socket_messages_per_second``: at most that
    many in each one-second window, a window starting at the first message after the last one ended.

    The count lives on the connection, not in the ``limits`` store the other budgets share: every
    operation on that in-memory store schedules a sweep of all its keys on a timer thread 10 ms
    later, under the keys' locks, and a socket message is the server's most frequent event (with
    1,000 connections the sweeps and their threads took about a tenth of the server's time per
    action, ``benchmarks/web_load.py``). A connection's own count needs neither a shared key nor a
    sweep."""

    __slots__ = ("_count", "_limit", "_start")

    def __init__(self, quotas: Quotas) -> None:
        self._limit = quotas.socket_messages_per_second
        self._start = -1.0
        self._count = 0

    def allow(self) -> bool:
        """Count a message; False once the connection sends faster than its budget."""
        now = time.monotonic()
        if now - self._start >= 1.0:
            self._start, self._count = now, 0
        self._count += 1
        return self._count <= self._limit
