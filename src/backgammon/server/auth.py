"""Accounts: password hashing (hashlib.scrypt), sessions with an expiry, seat tokens, and
the sliding-window limits on login and registration attempts.

scrypt (16 MiB, tens of milliseconds a call) never runs on the event loop: the servers call
:func:`hash_password_async` / :func:`verify_password_async`, which run it on a small pool of
its own (:data:`HASH_THREADS` threads, so a burst of logins neither blocks other requests nor
takes unbounded memory). Session rows expire :data:`SESSION_DAYS` days after login; an expired
one is refused and deleted.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as _dt
import hashlib
import hmac
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.server.db import Session, User, utcnow
from backgammon.server.protocol import check_name, name_key, shown

_N, _R, _P = 2**14, 8, 1
_USERNAME = re.compile(r"^[A-Za-z0-9_\-]{3,20}$")
RESERVED_USERNAMES = frozenset({"guest", "admin", "administrator", "system", "computer", "ai"})
"""Names no account may take (case-insensitively): guests are "Guest" by default."""
SESSION_DAYS = 30
"""How long a login lasts (the session row's ``expires_at`` and the cookie's max-age)."""
HASH_THREADS = 4
"""Threads that hash passwords (each scrypt call holds 16 MiB while it runs)."""

_HASH_POOL = ThreadPoolExecutor(max_workers=HASH_THREADS, thread_name_prefix="scrypt")


def hash_password(password: str) -> str:
    """A salted scrypt hash, ``scrypt$N$r$p$salt$hash`` (base64). Blocks for tens of ms.

    Raises:
        InvalidInputError: if the password is shorter than 6 or longer than 200 characters.
    """
    check_password(password)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the stored hash (constant-time comparison). Blocks like hashing."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        candidate = hashlib.scrypt(
            password.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=32
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(candidate, base64.b64decode(digest))


async def hash_password_async(password: str) -> str:
    """:func:`hash_password` on the hashing threads (the event loop goes on meanwhile)."""
    return await asyncio.get_running_loop().run_in_executor(_HASH_POOL, hash_password, password)


async def verify_password_async(password: str, stored: str) -> bool:
    """:func:`verify_password` on the hashing threads."""
    return await asyncio.get_running_loop().run_in_executor(_HASH_POOL, verify_password, password, stored)


def check_username(username: object) -> str:
    """Validate a username for a new account.

    Raises:
        InvalidInputError: unless it is 3-20 letters, digits, '_' or '-', and not reserved.
    """
    if not isinstance(username, str) or not _USERNAME.match(username):
        raise InvalidInputError(f"invalid username {shown(username)}: expected 3 to 20 letters, digits, '_' or '-'")
    if username.lower() in RESERVED_USERNAMES:
        raise InvalidInputError(f"invalid username {username!r}: reserved, choose another")
    return username


def check_password(password: object) -> str:
    """Validate a password.

    Raises:
        InvalidInputError: unless it is a string of 6 to 200 characters.
    """
    if not isinstance(password, str) or not 6 <= len(password) <= 200:
        raise InvalidInputError("invalid password: expected 6 to 200 characters")
    return password


def new_token() -> str:
    """A fresh random token for a session or a seat."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """What is stored for a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


# ----------------------------------------------------------------- sessions
def open_session(sessions: sessionmaker, user_id: int, now: _dt.datetime | None = None) -> str:
    """Store a new session for ``user_id`` (expiring in :data:`SESSION_DAYS` days); its token.

    Expired sessions of every user are deleted on the way (one indexed ``DELETE``).
    """
    now = now or utcnow()
    token = new_token()
    with sessions() as db:
        db.execute(delete(Session).where(Session.expires_at <= now))
        db.add(
            Session(
                token_hash=token_hash(token),
                user_id=user_id,
                created_at=now,
                expires_at=now + _dt.timedelta(days=SESSION_DAYS),
            )
        )
        db.commit()
    return token


def session_user(sessions: sessionmaker, token: str | None, now: _dt.datetime | None = None) -> User | None:
    """The user a session token logs in, or None (no token, unknown, or expired: then deleted)."""
    if not token or len(token) > 128:
        return None
    now = now or utcnow()
    with sessions() as db:
        session = db.get(Session, token_hash(token))
        if session is None:
            return None
        if session.expires_at <= now:
            db.delete(session)
            db.commit()
            return None
        return db.get(User, session.user_id)


def close_session(sessions: sessionmaker, token: str | None) -> None:
    """Delete the session of ``token`` (if any)."""
    if not token or len(token) > 128:
        return
    with sessions() as db:
        db.execute(delete(Session).where(Session.token_hash == token_hash(token)))
        db.commit()


def close_all_sessions(sessions: sessionmaker, user_id: int) -> int:
    """Delete every session of ``user_id`` (log out everywhere); how many there were."""
    with sessions() as db:
        count = db.execute(delete(Session).where(Session.user_id == user_id)).rowcount
        db.commit()
    return count or 0


def user_named(sessions: sessionmaker, name: str) -> User | None:
    """The account whose username equals ``name`` ignoring case (and width: NFKC), or None."""
    key = name_key(name)
    if not key.isascii():
        return None  # usernames are ASCII: no account matches
    with sessions() as db:
        return db.scalar(select(User).where(func.lower(User.username) == key).limit(1))


def create_user(sessions: sessionmaker, username: str, password_hash: str) -> User:
    """Store a new account (rating 1500, no settings).

    Raises:
        IllegalActionError: if the name is taken, ignoring case ("Alice" when "alice" exists).
    """
    if user_named(sessions, username) is not None:
        raise IllegalActionError(f"username {username!r} is taken")
    user = User(username=username, password_hash=password_hash, rating=1500.0, experience=0, settings={})
    try:
        with sessions() as db:
            db.add(user)
            db.commit()
    except IntegrityError:  # registered meanwhile under the same name
        raise IllegalActionError(f"username {username!r} is taken") from None
    return user


def guest_name(sessions: sessionmaker, name: object) -> str:
    """A guest's name at a table: checked (:func:`protocol.check_name`; "Guest" when None) and
    not a registered user's name, ignoring case and width.

    Raises:
        InvalidInputError: for a bad name. IllegalActionError: a registered user's name.
    """
    name = check_name(name)
    if user_named(sessions, name) is not None:
        raise IllegalActionError(f"the name {name!r} belongs to a registered player: log in to use it")
    return name


# ------------------------------------------------------------ rate limits
class RateLimiter:
    """At most ``limit`` events per ``window`` seconds for each key, in memory (a sliding window).

    ``clock`` gives seconds (monotonic by default; tests pass their own). At most ``max_keys``
    keys are remembered: past that, keys whose events have all aged out are dropped, then the
    oldest keys.
    """

    def __init__(
        self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic, max_keys: int = 10_000
    ) -> None:
        self.limit, self.window, self.clock, self.max_keys = limit, window, clock, max_keys
        self._events: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float] | None:
        events = self._events.get(key)
        if events is None:
            return None
        while events and events[0] <= now - self.window:
            events.popleft()
        if not events:
            del self._events[key]
            return None
        return events

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may have another event (0: now)."""
        now = self.clock()
        events = self._recent(key, now)
        if events is None or len(events) < self.limit:
            return 0.0
        return max(0.0, events[-self.limit] + self.window - now)

    def add(self, key: str) -> None:
        """Count an event for ``key`` now."""
        now = self.clock()
        events = self._recent(key, now)
        if events is None:
            if len(self._events) >= self.max_keys:
                self._sweep(now)
            events = self._events[key] = deque()
        events.append(now)
        while len(events) > self.limit:
            events.popleft()

    def clear(self, key: str) -> None:
        """Forget ``key``'s events (e.g. after a successful login)."""
        self._events.pop(key, None)

    def _sweep(self, now: float) -> None:
        for key in list(self._events):
            self._recent(key, now)
        while len(self._events) >= self.max_keys:
            del self._events[next(iter(self._events))]
