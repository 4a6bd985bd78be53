"""Accounts: password hashing (hashlib.scrypt), sessions with an expiry, seat tokens, and
the limits on login and registration attempts (:class:`AuthLimits`).

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
import json
import re
import secrets
import string
import time
import unicodedata
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from importlib import resources

from limits import RateLimitItem, RateLimitItemPerHour, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.server.db import Session, User, utcnow
from backgammon.server.protocol import check_name, shown

_N, _R, _P = 2**14, 8, 1
_USERNAME = re.compile(r"^[A-Za-z0-9_\-]{3,20}$")
RESERVED_USERNAMES = frozenset(
    {"guest", "admin", "administrator", "root", "system", "computer", "ai", "moderator", "mod", "staff", "support"}
)
"""Names no account may take, compared by :func:`name_skeleton` ("r00t" too): guests are "Guest"
by default. Guests may not take them either, except "Guest" itself and its translations."""
RESERVED_DISPLAY_NAMES = frozenset({"コンピューター", "コンピュータ", "管理者", "システム"})
"""Further names (the browser's Japanese texts) a guest may not take at a table."""
GUEST_NAMES = frozenset({"guest", "ゲスト"})
"""The default guest names, which every guest may use."""
PASSWORD_MIN = 8
"""The shortest password accepted."""
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
        InvalidInputError: unless it is 3-20 letters, digits, '_' or '-', and not reserved
            (``reserved_username``, compared by :func:`name_skeleton`).
    """
    if not isinstance(username, str) or not _USERNAME.match(username):
        raise InvalidInputError(
            f"invalid username {shown(username)}: expected 3 to 20 letters, digits, '_' or '-'", code="invalid_username"
        )
    if name_skeleton(username) in _reserved_skeletons():
        raise InvalidInputError(
            f"invalid username {username!r}: reserved, choose another",
            code="reserved_username",
            params={"name": username},
        )
    return username


def check_password(password: object, username: str | None = None) -> str:
    """Validate a new password.

    Raises:
        InvalidInputError: ``invalid_password`` (params ``{"min": 8}``) unless it is a string of
            :data:`PASSWORD_MIN` to 200 characters; ``common_password`` when it is one of the
            common passwords (:func:`common_password`) or one character repeated;
            ``password_has_name`` when it contains the username (ignoring case).
    """
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= 200:
        raise InvalidInputError(
            f"invalid password: expected {PASSWORD_MIN} to 200 characters",
            code="invalid_password",
            params={"min": PASSWORD_MIN},
        )
    if username and username.casefold() in password.casefold():
        raise InvalidInputError("invalid password: it contains the username", code="password_has_name")
    if common_password(password):
        raise InvalidInputError(
            "invalid password: one of the most common passwords, choose another", code="common_password"
        )
    return password


@cache
def _common_passwords() -> frozenset[str]:
    text = resources.files("backgammon").joinpath("data/common_passwords.txt").read_text("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def common_password(password: str) -> bool:
    """Whether ``password`` is too common: one character repeated (``"aaaaaaaa"``, eight spaces),
    or, lower-cased, in the shipped list (``data/common_passwords.txt``: SecLists' 1,000 most
    common), also once trailing digits and punctuation are removed (``"Dragon2024!"``)."""
    if len(set(password)) <= 1:
        return True
    key = password.casefold()
    core = key.rstrip(string.digits + string.punctuation + " ")
    return key in _common_passwords() or (len(core) >= 4 and core in _common_passwords())


# ------------------------------------------------------------ names
@cache
def _prototypes() -> dict[str, str]:
    """Unicode TR39's confusables mapping (character -> prototype) from confusable_homoglyphs's
    copy of ``confusables.txt``. That copy lists each pair both ways; a character with a single
    partner that has others is a source. Two lone partners are mapped one to the other (either way
    gives both one skeleton): to the one that case-folds further (small capital ``ᴀ`` to Cherokee
    ``ꭺ``, which folds to ``Ꭺ``, a source of ``A``), else to the smaller code point."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    mapping: dict[str, str] = {}
    for key, partners in data.items():
        char = key.replace("\u200e", "")
        if len(char) != 1 or len(partners) != 1:
            continue
        target = partners[0]["c"].replace("\u200e", "")
        if len(target) == 1 and len(data.get(partners[0]["c"], ())) == 1 and _lone_pair_from(target, char):
            continue
        mapping[char] = target
    return mapping


def _lone_pair_from(char: str, other: str) -> bool:
    """Whether a pair of lone partners is mapped from ``char`` to ``other`` (see :func:`_prototypes`)."""
    char_folds, other_folds = char.casefold() != char, other.casefold() != other
    if char_folds != other_folds:
        return other_folds
    return char > other


@cache
def _small_capitals() -> dict[str, str]:
    """LATIN LETTER SMALL CAPITAL X -> x (TR39 leaves most of them apart from their letters)."""
    out: dict[str, str] = {}
    for code in range(0x1D00, 0x1D2C):  # Phonetic Extensions: the small capitals
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == len("LATIN LETTER SMALL CAPITAL X"):
            out[chr(code)] = name[-1].lower()
    for char in "ʙɢʜɪʟɴʀʏꜰꞯ":  # the ones in IPA Extensions and Latin Extended-D
        out[char] = unicodedata.name(char).rsplit(" ", 1)[1].lower()
    return out


def _skeleton_step(text: str) -> str:
    mapping = _prototypes()
    small = _small_capitals()
    text = "".join(small.get(char, char) for char in text)
    text = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(mapping.get(char, char) for char in text)).casefold()


def _non_ascii_prototype(char: str) -> str:
    """A non-ASCII letter's prototype, keeping its case where that matters: an upper-case letter
    whose prototype is "l" (Cyrillic І, Greek Ι) is "I", as it looks."""
    if char.isascii():
        return char
    target = _small_capitals().get(char) or _prototypes().get(char, char)
    return "I" if target == "l" and char.isupper() else target


def name_skeleton(name: str) -> str:
    """What two names must not share to be told apart: NFKC, format characters (zero-width
    joiners and such) dropped, non-ASCII letters mapped to their TR39 prototypes keeping their
    case (Greek "ΑΝΝ" is "ANN"), then case-folded, then TR39's confusables skeleton and case
    folding until nothing changes. ``"ＡＬＩＣＥ"``, ``"Аlice"`` (Cyrillic А), ``"ΑLICE"`` (Greek),
    ``"ᴀlice"`` (small capital), ``"a\u200dlice"`` and ``"a1ice"`` all give
    ``name_skeleton("alice")``. ASCII case is folded before the skeleton, so "I" is "i" (not
    TR39's "l") and "ALICE" is "alice"."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    text = unicodedata.normalize("NFD", "".join(map(_non_ascii_prototype, unicodedata.normalize("NFD", text))))
    text = text.casefold()
    for _ in range(4):
        step = _skeleton_step(text)
        if step == text:
            break
        text = step
    return unicodedata.normalize("NFC", text)


@cache
def _reserved_skeletons() -> frozenset[str]:
    return frozenset(name_skeleton(name) for name in RESERVED_USERNAMES)


def _username_skeleton_sql() -> ColumnElement[str]:
    """:func:`name_skeleton` of the ``username`` column in SQL (usernames are ASCII: lower() and a
    few replace() calls, derived from :func:`name_skeleton` of each allowed character)."""
    expr: ColumnElement[str] = func.lower(User.username)
    for char in string.ascii_lowercase + string.digits + "_-":
        mapped = name_skeleton(char)
        if mapped != char:
            assert all(name_skeleton(c) == c for c in mapped), "a skeleton must be its own skeleton"
            expr = func.replace(expr, char, mapped)
    return expr


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
    key = unicodedata.normalize("NFKC", name).casefold()
    if not key.isascii():
        return None  # usernames are ASCII: no account matches
    with sessions() as db:
        return db.scalar(select(User).where(func.lower(User.username) == key).limit(1))


def user_like(sessions: sessionmaker, name: str) -> User | None:
    """An account whose username looks like ``name`` (the same :func:`name_skeleton`: "Ann", "ANN",
    "Аnn" with a Cyrillic А, "Ａｎｎ"), preferring the one equal to it ignoring case; or None."""
    exact = user_named(sessions, name)
    if exact is not None:
        return exact
    key = name_skeleton(name)
    if not key.isascii():
        return None  # every username's skeleton is ASCII
    with sessions() as db:
        return db.scalar(select(User).where(_username_skeleton_sql() == key).limit(1))


def create_user(sessions: sessionmaker, username: str, password_hash: str) -> User:
    """Store a new account (rating 1500, no settings).

    Raises:
        IllegalActionError: ``username_taken`` if the name is taken, ignoring case ("Alice" when
            "alice" exists); ``name_taken_lookalike`` if it looks like a taken one ("A1ice").
    """
    taken = user_like(sessions, username)
    if taken is not None and taken.username.casefold() == username.casefold():
        raise IllegalActionError(f"username {username!r} is taken", code="username_taken", params={"name": username})
    if taken is not None:
        raise IllegalActionError(
            f"username {username!r} looks like {taken.username!r}, which is taken",
            code="name_taken_lookalike",
            params={"name": taken.username},
        )
    user = User(username=username, password_hash=password_hash, rating=1500.0, experience=0, settings={})
    try:
        with sessions() as db:
            db.add(user)
            db.commit()
    except IntegrityError:  # registered meanwhile under the same name
        raise IllegalActionError(
            f"username {username!r} is taken", code="username_taken", params={"name": username}
        ) from None
    return user


def guest_name(sessions: sessionmaker, name: object) -> str:
    """A guest's name at a table: checked (:func:`protocol.check_name`; "Guest" when None), not
    reserved (``reserved_username``: "admin", "Computer", "AI (...)", "コンピューター"; "Guest" and
    "ゲスト" are every guest's) and neither a registered user's name ignoring case and width
    (``name_registered``) nor a look-alike of one (``name_taken_lookalike``, by :func:`name_skeleton`).

    Raises:
        InvalidInputError: for a bad or reserved name. IllegalActionError: a registered user's name.
    """
    name = check_name(name)
    key = name_skeleton(name)
    if key not in {name_skeleton(n) for n in GUEST_NAMES} and (
        key in _reserved_skeletons()
        or key in {name_skeleton(n) for n in RESERVED_DISPLAY_NAMES}
        or key.startswith(name_skeleton("AI ("))
    ):
        raise InvalidInputError(
            f"invalid name {name!r}: reserved, choose another", code="reserved_username", params={"name": name}
        )
    user = user_like(sessions, name)
    if user is not None and user.username.casefold() == unicodedata.normalize("NFKC", name).casefold():
        raise IllegalActionError(
            f"the name {name!r} belongs to a registered player: log in to use it",
            code="name_registered",
            params={"name": name},
        )
    if user is not None:
        raise IllegalActionError(
            f"the name {name!r} looks like the registered player {user.username!r}: choose another",
            code="name_taken_lookalike",
            params={"name": user.username},
        )
    return name


# ------------------------------------------------------------ rate limits
BACKOFF_STEPS = 12
"""Doublings of the failed-login window (the last one: a window of 60 s x 2**12, about 68 hours)."""


class AuthLimits:
    """The limits on logins and registrations: moving windows of the ``limits`` library, in this
    process's memory (events age out by themselves).

    - Every login or registration from one client address: ``attempts_per_minute``.
    - Registrations from one address: ``registrations_per_hour`` (and they count as attempts).
    - Failed logins of one account *from one address*, with exponential backoff: ``free_failures``
      within a minute, then ``free_failures + k`` within ``60 * 2**k`` seconds for every k up to
      :data:`BACKOFF_STEPS`; so after ``free_failures + k`` failures the next try waits up to
      ``60 * 2**k`` s. The key is the pair (account, address): failures from other addresses never
      lock the owner out.

    A login is counted as a failure *before* its password is hashed (:meth:`start_login`: check and
    count in one call, on the event loop, no ``await`` between them) and forgiven when the password
    is right (:meth:`login_succeeded`), so concurrent guesses cannot slip past the limit: at most
    ``free_failures`` hashes run. The client address must be the real one: ``serve`` trusts
    forwarded headers only from ``--forwarded-allow-ips``.
    """

    def __init__(self, attempts_per_minute: int, free_failures: int, registrations_per_hour: int) -> None:
        self._windows = MovingWindowRateLimiter(MemoryStorage())
        self._attempt = RateLimitItemPerMinute(attempts_per_minute, namespace="auth-attempt")
        self._registration = RateLimitItemPerHour(registrations_per_hour, namespace="auth-register")
        self._failures = [
            RateLimitItemPerSecond(free_failures + k, 60 * 2**k, namespace="auth-failure")
            for k in range(BACKOFF_STEPS + 1)
        ]

    def _take(self, items: Sequence[RateLimitItem], *key: str) -> float:
        """Count one event for ``key`` in every window of ``items`` if all have room (0.0); else
        count nothing and return the seconds until they would all have room."""
        full = [item for item in items if not self._windows.test(item, *key)]
        if full:
            now = time.time()  # (the limits library's clock)
            return max(0.001, max(self._windows.get_window_stats(item, *key).reset_time for item in full) - now)
        for item in items:
            self._windows.hit(item, *key)
        return 0.0

    def attempt(self, address: str) -> float:
        """Count a login attempt from ``address``; 0.0, or the seconds to wait (then not counted)."""
        return self._take([self._attempt], address)

    def registration(self, address: str) -> float:
        """Count a registration (an attempt too) from ``address``; 0.0, or the seconds to wait."""
        return self._take([self._attempt, self._registration], address)

    def start_login(self, account: str, address: str) -> float:
        """Count a password try for ``account`` from ``address`` as a failure, before checking it;
        0.0 (go on and check the password), or the seconds to wait (then not counted)."""
        return self._take(self._failures, account.lower(), address)

    def login_succeeded(self, account: str, address: str) -> None:
        """Forget the failures of ``account`` from ``address`` (its password was right)."""
        for item in self._failures:
            self._windows.clear(item, account.lower(), address)
