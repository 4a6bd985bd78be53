"""Browser-facing security: response headers (a strict Content-Security-Policy and friends)
and the Origin check for WebSockets.

The static UI has no inline scripts, inline event handlers, ``javascript:`` URLs or inline
style attributes, and builds every text from user or server data with DOM nodes and
``textContent``, so the policy needs neither ``'unsafe-inline'`` nor ``'unsafe-eval'``.
Styles set from JavaScript through ``element.style`` or SVG presentation attributes are
not inline style attributes and are allowed under ``style-src 'self'``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# A Host header we are willing to repeat inside the policy: a name or an IP literal, and a port.
_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
_DEFAULT_PORT = {"http": 80, "https": 443, "ws": 80, "wss": 443}

BASE_POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
STATIC_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def content_security_policy(host: str | None) -> str:
    """The policy for a response to a request with this Host header.

    ``connect-src`` names ``ws://`` and ``wss://`` of the same host explicitly: CSP Level 3
    lets ``'self'`` match them, older browsers do not. A Host header that is not a plain
    ``name[:port]`` is left out (``'self'`` alone then).
    """
    connect = "connect-src 'self'"
    if host and _HOST.match(host):
        connect += f" ws://{host} wss://{host}"
    return "; ".join((*BASE_POLICY, connect))


class SecurityHeadersMiddleware:
    """Pure ASGI middleware: adds the security headers to every HTTP response.

    A header the endpoint already set is kept (a route may set a stricter policy).
    WebSocket and lifespan traffic passes through untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope.get("headers") or [], b"host")
        policy = content_security_policy(host).encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                for name, value in ((b"content-security-policy", policy), *STATIC_HEADERS):
                    if name not in present:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install_security(app: Any) -> None:
    """Add the security headers to every HTTP response of a Starlette/FastAPI app."""
    app.add_middleware(SecurityHeadersMiddleware)


def origin_allowed(headers: Mapping[str, str], host: str | None = None) -> bool:
    """Whether a WebSocket handshake's Origin may use this server.

    No Origin header: allowed (non-browser clients send none; browsers always do). An Origin
    must be ``http(s)://`` + the Host header's ``host[:port]`` (default ports may be written
    or left out); ``null``, other schemes and other hosts are refused. ``host`` defaults to
    the request's own Host header.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    host = host if host is not None else headers.get("host")
    if not host or not _HOST.match(host):
        return False
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        return False
    want = urlsplit(f"{parts.scheme}://{host}")
    try:
        want_port = want.port
    except ValueError:
        return False
    default = _DEFAULT_PORT[parts.scheme]
    return parts.hostname == want.hostname and (port or default) == (want_port or default)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


# ------------------------------------------------------------- body size
class BodyTooLargeError(Exception):
    """Raised by :class:`BodyLimitMiddleware`'s ``receive`` past the limit (caught by the middleware)."""


class BodyLimitMiddleware:
    """Pure ASGI middleware: an HTTP request body may have at most ``max_bytes`` bytes.

    A ``Content-Length`` over the limit is answered 413 before the app runs (nothing of the
    body is read); a body that streams past the limit (chunked, or longer than declared)
    stops being read at the chunk that crosses it, and is answered 413 unless the app has
    already started its response. The answer is JSON, ``{"error": ...}``.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope.get("headers") or [], b"content-length")
        if declared is not None and not (
            declared.isdigit() and len(declared) <= 18 and int(declared) <= self.max_bytes
        ):
            await self._too_large(send)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLargeError
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, watched_send)
        except BodyTooLargeError:
            if not started:
                await self._too_large(send)

    async def _too_large(self, send: Send) -> None:
        body = json.dumps({"error": f"request body too large: more than {self.max_bytes} bytes"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def install_body_limit(app: Any, max_bytes: int) -> None:
    """Answer 413 to every HTTP request whose body is over ``max_bytes`` (see :class:`BodyLimitMiddleware`).

    Call it before :func:`install_security`, so that the 413 gets the security headers too.
    """
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_bytes)
