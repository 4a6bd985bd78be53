"""Accounts: password hashing (hashlib.scrypt), session and seat tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

from backgammon.errors import InvalidInputError

_N, _R, _P = 2**14, 8, 1
_USERNAME = re.compile(r"^[A-Za-z0-9_\-]{3,20}$")


def hash_password(password: str) -> str:
    """A salted scrypt hash, ``scrypt$N$r$p$salt$hash`` (base64).

    Raises:
        InvalidInputError: if the password is shorter than 6 or longer than 200 characters.
    """
    check_password(password)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_N}${_R}${_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the stored hash (constant-time comparison)."""
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


def check_username(username: object) -> str:
    """Validate a username.

    Raises:
        InvalidInputError: unless it is 3-20 letters, digits, '_' or '-'.
    """
    if not isinstance(username, str) or not _USERNAME.match(username):
        raise InvalidInputError(f"invalid username {username!r}: expected 3 to 20 letters, digits, '_' or '-'")
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
