"""Browser-facing security: response headers (a strict Content-Security-Policy and friends),
the Origin check for WebSockets, the refusal of cross-site requests (CSRF) and the body limit.

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

from backgammon.server import protocol
from backgammon.server.http_errors import HTTPError, error_info

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
    already started its response. The answer is JSON, ``{"error": ...}``. ``larger`` gives a few
    paths (exactly) a limit of their own, such as the upload of a match file.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, larger: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope.get("path", ""), self.max_bytes)
        declared = _header(scope.get("headers") or [], b"content-length")
        if declared is not None and not (declared.isdigit() and len(declared) <= 18 and int(declared) <= limit):
            await self._too_large(send, limit)
            return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
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
                await self._too_large(send, limit)

    async def _too_large(self, send: Send, limit: int) -> None:
        body = json.dumps({"error": f"request body too large: more than {limit} bytes"}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def install_body_limit(app: Any, max_bytes: int, larger: Mapping[str, int] | None = None) -> None:
    """Answer 413 to every HTTP request whose body is over ``max_bytes`` (``larger``: the limits of a
    few paths of their own; see :class:`BodyLimitMiddleware`).

    Call it before :func:`install_security`, so that the 413 gets the security headers too.
    """
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_bytes, larger=larger)


# ------------------------------------------------------------------ CSRF
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""Methods that change something: refused from other sites (:class:`CSRFMiddleware`)."""
JSON_TYPE = "application/json"
CROSS_SITE = "cross_site"


def csrf_refusal(method: str, headers: Mapping[str, str]) -> tuple[int, str, str] | None:
    """Why an HTTP request must be refused as a possible cross-site request forgery, or None:
    (status, message, code), the code ``cross_site`` or ``unsupported_content_type``.

    Safe methods (GET, HEAD, OPTIONS) pass. An unsafe one (:data:`UNSAFE_METHODS`) is refused
    with 403 when its ``Origin`` (or, without one, its ``Referer``) is not this site (the Host
    header's, as :func:`origin_allowed` compares them; ``null`` included) or when the browser says
    it comes from another site (``Sec-Fetch-Site: cross-site`` or ``same-site``); with 415 when it
    has a body whose ``Content-Type`` is not ``application/json`` (an HTML form can send only
    ``text/plain``, ``application/x-www-form-urlencoded`` and ``multipart/form-data`` without a
    preflight). A request without Origin and Referer (not a browser's) is judged by its body alone.
    ``headers`` has lower-case names.
    """
    if method.upper() not in UNSAFE_METHODS:
        return None
    fetch_site = headers.get("sec-fetch-site", "").strip().lower()
    if fetch_site in ("cross-site", "same-site"):
        return (
            403,
            f"cross-site request refused: the browser says it comes from another site ({fetch_site})",
            CROSS_SITE,
        )
    origin = headers.get("origin")
    if origin is None and headers.get("referer") is not None:
        try:
            parts = urlsplit(headers["referer"].strip())
            origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "null"
        except ValueError:
            origin = "null"
        what = "Referer"
    else:
        what = "Origin"
    if origin is not None and not origin_allowed({**headers, "origin": origin}):
        return 403, f"cross-site request refused: {what} {origin[:80]!r} is not this site", CROSS_SITE
    has_body = headers.get("transfer-encoding") is not None or headers.get("content-length", "0").strip() not in (
        "",
        "0",
    )
    if has_body:
        kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if kind != JSON_TYPE:
            shown = repr(kind[:60]) if kind else "none"
            message = f"unsupported content type {shown}: send the body as JSON with Content-Type: {JSON_TYPE}"
            return 415, message, "unsupported_content_type"
    return None


class CSRFMiddleware:
    """Pure ASGI middleware: answers :func:`csrf_refusal`'s status and message (through
    :func:`errors.error_info`, as JSON with its code) before the app sees the request; WebSockets pass (their
    Origin is checked at the handshake, :func:`origin_allowed`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method", "GET") not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers") or []}
        refusal = csrf_refusal(scope["method"], headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message, code, params = error_info(HTTPError(*refusal))
        body = json.dumps(protocol.error_body(message, code, params)).encode()
        out = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": body})


def install_csrf(app: Any) -> None:
    """Refuse cross-site and non-JSON unsafe requests (see :func:`csrf_refusal`).

    Call it before :func:`install_body_limit` (so a body declared too large is 413 first) and
    :func:`install_security` (so the refusal gets the security headers).
    """
    app.add_middleware(CSRFMiddleware)
