"""How ``backgammon serve`` runs uvicorn: which proxies may name the client, and the connection limits.

- **Forwarded headers.** ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are believed only from the
  addresses in ``--forwarded-allow-ips`` (none by default: then uvicorn's proxy-header middleware
  is off, for loopback too, so a client can never choose the address its limits are counted
  under). Behind a proxy, name the proxy's address; the proxy must *set* the header
  (``proxy_set_header X-Forwarded-For $remote_addr``), not append to what the client sent.
- **Connections.** ``--timeout-keep-alive`` closes idle keep-alive connections; ``--header-timeout``
  closes a connection whose request line and headers are not all in after that many seconds
  (slowloris: uvicorn itself waits forever); ``--limit-concurrency`` answers 503 past that many
  open connections and tasks (by default a little under the process's open-file limit, so that
  the server answers 503 rather than failing with "Too many open files");
  ``--max-header-bytes`` bounds the request line and headers (uvicorn's h11 implementation,
  ``h11_max_incomplete_event_size``; httptools has no such bound, so ``serve`` uses h11).

``serve --workers N`` hands these options to its workers in :data:`UVICORN_ENV`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
from dataclasses import asdict, dataclass
from typing import Any

from backgammon.errors import InvalidInputError

UVICORN_ENV = "BACKGAMMON_UVICORN_OPTIONS"
"""The environment variable through which ``serve --workers N`` hands :class:`ServeOptions` to each worker."""
FD_MARGIN = 128
"""Open files kept back from the connection cap (the database, logs, the engine's files)."""


def default_limit_concurrency() -> int:
    """A little under this process's open-file limit (at least 64): past it uvicorn answers 503."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1000
    if soft == resource.RLIM_INFINITY or soft > 1_000_000:
        return 100_000
    return max(64, soft - FD_MARGIN)


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """uvicorn's settings for one ``serve`` (see the module's text)."""

    forwarded_allow_ips: tuple[str, ...] = ()
    timeout_keep_alive: int = 5
    header_timeout: float = 10.0
    limit_concurrency: int | None = None  # None: default_limit_concurrency()
    max_header_bytes: int = 16 * 1024

    def uvicorn_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config``."""
        return {
            "proxy_headers": bool(self.forwarded_allow_ips),
            "forwarded_allow_ips": list(self.forwarded_allow_ips) or None,
            "timeout_keep_alive": self.timeout_keep_alive,
            "limit_concurrency": self.limit_concurrency or default_limit_concurrency(),
            "h11_max_incomplete_event_size": self.max_header_bytes,
            "http": header_timeout_protocol(self.header_timeout),
            "ws_per_message_deflate": False,
        }

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls) -> ServeOptions:
        """The options :meth:`to_env` wrote into :data:`UVICORN_ENV` (the defaults without it)."""
        text = os.environ.get(UVICORN_ENV)
        if not text:
            return cls()
        doc = json.loads(text)
        doc["forwarded_allow_ips"] = tuple(doc["forwarded_allow_ips"])
        return cls(**doc)


def parse_trusted_proxies(text: str | None) -> tuple[str, ...]:
    """``--forwarded-allow-ips``: comma-separated IP addresses or networks (``10.0.0.0/8``), or ``*``.

    Raises:
        InvalidInputError: naming an entry that is neither (uvicorn would take it as a literal that
            never matches, silently).
    """
    if text is None:
        return ()
    entries = tuple(part.strip() for part in text.split(",") if part.strip())
    for entry in entries:
        if entry == "*":
            continue
        try:
            ipaddress.ip_network(entry, strict=False) if "/" in entry else ipaddress.ip_address(entry)
        except ValueError:
            raise InvalidInputError(
                f"invalid --forwarded-allow-ips entry {entry[:60]!r}: expected an IP address, a network "
                "such as 10.0.0.0/8, or *"
            ) from None
    return entries


def check_serve_options(options: ServeOptions) -> None:
    """Raises InvalidInputError for a timeout or limit out of range."""
    if not 1 <= options.timeout_keep_alive <= 3600:
        raise InvalidInputError(f"invalid --timeout-keep-alive {options.timeout_keep_alive!r}: expected 1 to 3600 s")
    if not 0.5 <= options.header_timeout <= 3600:  # also refuses nan
        raise InvalidInputError(f"invalid --header-timeout {options.header_timeout!r}: expected 0.5 to 3600 s")
    if options.limit_concurrency is not None and not 1 <= options.limit_concurrency <= 1_000_000:
        raise InvalidInputError(f"invalid --limit-concurrency {options.limit_concurrency!r}: expected 1 to 1000000")
    if not 1024 <= options.max_header_bytes <= 1024 * 1024:
        raise InvalidInputError(f"invalid --max-header-bytes {options.max_header_bytes!r}: expected 1024 to 1048576")


def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline for each request's line and headers.

    The clock starts when the connection is made and again when a response is complete (the next
    request on a keep-alive connection); when it runs out while no request is being handled (its
    headers are not all in), the connection is closed. A connection upgraded to a WebSocket is no
    longer this protocol's and is left alone.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeoutH11Protocol(H11Protocol):
        header_timeout = seconds
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_header_timer()

        def _arm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(self.header_timeout, self._header_deadline)

        def _header_deadline(self) -> None:
            self._header_timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket
            if self.cycle is None or self.cycle.response_complete:  # waiting for a request's headers
                transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            super().connection_lost(exc)

    return HeaderTimeoutH11Protocol
