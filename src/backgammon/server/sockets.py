"""The one connection loop of every kind of table's WebSocket (matches, money sessions, chouettes).

``serve_connection`` checks the Origin, accepts, finds the table (404 and close if there is none),
reads the ``hello`` message that names the seat (its token; none to watch), sends the state and
then answers each message through the connection's :class:`~backgammon.server.rooms.Outbox`, so
that replies and published states keep their order and a stalled client is dropped instead of
waited for. Every error goes through :func:`~backgammon.server.http_errors.error_status` and is followed
by the full state. Messages are typed in :mod:`backgammon.server.protocol` (docs/web-protocol.md).

With the server's :class:`~backgammon.server.quotas.Quotas`, a connection counts against its address's
cap (refused past it: an error with code ``too_many_requests``, then closed with 1013), a spectator
against the table's cap, each line of chat against its client's budget across every table, and
each message against the connection's budget per second (a connection that floods is told so and
closed with 1008).

``follow_job`` is the other kind of socket: one that follows a background job (a rollout, an
uploaded match's analysis) and pushes its progress until it ends.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.server import protocol
from backgammon.server.http_errors import HTTPError, error_info, error_status
from backgammon.server.quotas import Quotas, address_of, too_many
from backgammon.server.rooms import Outbox
from backgammon.server.security import origin_allowed

HELLO_TIMEOUT = 10.0
"""Seconds a new connection has to send its hello message."""

Reply = Callable[[dict[str, Any]], None]


async def serve_connection(
    websocket: WebSocket,
    *,
    load: Callable[[], Awaitable[Any]],
    seat_of: Callable[[Any, str | None], Any],
    state: Callable[[Any, Any], dict[str, Any]],
    handle: Callable[[Any, Any, dict[str, Any], Reply], Awaitable[None]],
    join: Callable[[Any, Outbox], None],
    leave: Callable[[Any, Outbox], None],
    greet: Callable[[Any, Reply], None] | None = None,
    quotas: Quotas | None = None,
    user_of: Callable[[Any, Any], int | None] | None = None,
) -> None:
    """Serve one table connection (see the module docstring).

    ``load()`` returns the table or raises LookupError; ``seat_of(table, token)`` is the seat the
    hello's token opens; ``state(table, seat)`` the full state message for that seat; ``handle``
    answers one message (other than hello) with ``reply``; ``join``/``leave`` add the connection
    to the table's watchers and take it away; ``greet`` sends a newcomer more after its state;
    ``quotas`` the caps (see the module's text); ``user_of(table, seat)`` the account a seat's chat
    counts against (None: the connection's address).
    """
    if not origin_allowed(websocket.headers):  # a page of another site may not act for our user
        await websocket.close(code=1008)
        return
    await websocket.accept()
    address = address_of(websocket)
    with ExitStack() as held:  # (the connection's place among its address's, given back at the end)
        if quotas is not None:
            try:
                held.enter_context(quotas.open_socket(address))
            except HTTPError as exc:
                await _refuse(websocket, exc, 1013)
                return
        try:
            table = await load()
        except LookupError as exc:
            await websocket.send_json(protocol.error_message(404, error_status(exc)[1]))
            await websocket.close()
            return
        try:  # the first message says who connects: {"type": "hello", "token": ...}
            first = await asyncio.wait_for(websocket.receive(), HELLO_TIMEOUT)
            if first["type"] == "websocket.disconnect":
                return
            hello = _parse(first)
            if hello["type"] != "hello":
                raise InvalidInputError(f"expected a hello message first, not {protocol.shown(hello['type'])}")
        except (TimeoutError, BackgammonError) as exc:
            text = "expected a hello message first" if isinstance(exc, TimeoutError) else error_status(exc)[1]
            await websocket.send_json(protocol.error_message(400, text))
            await websocket.close(code=1008)
            return
        seat = seat_of(table, hello.get("token"))
        if quotas is not None and seat is None:
            try:
                quotas.check_spectators(sum(1 for o in list(getattr(table, "outboxes", ())) if o.seat is None))
            except HTTPError as exc:
                await _refuse(websocket, exc, 1013)
                return
        meter = quotas.socket_meter() if quotas is not None else None

        async def close() -> None:
            await websocket.close(code=1013)

        outbox = Outbox(websocket.send_text, close, seat)

        def reply(doc: dict[str, Any]) -> None:
            outbox.offer(json.dumps(doc))

        join(table, outbox)  # (no await between: nothing is published in between)
        reply(state(table, seat))
        if greet is not None:
            greet(table, reply)  # what else a newcomer is told (a table's recent chat)
        try:
            while not outbox.dropped.is_set():
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if meter is not None and not meter.allow():
                    await _refuse(websocket, too_many("too many messages on this connection", 1), 1008)
                    break
                try:
                    doc = _parse(message)
                    if doc["type"] == "hello":
                        raise InvalidInputError("hello again: a connection says hello once; reconnect to change seat")
                    if doc["type"] == "chat" and quotas is not None and seat is not None:
                        quotas.chat(address, user_of(table, seat) if user_of is not None else None)
                    await handle(table, seat, doc, reply)
                except Exception as exc:  # noqa: BLE001 - every error goes through error_status (500s are logged)
                    status, text, code, params = error_info(exc)
                    reply(protocol.error_message(status, text, code, params))
                    reply(state(table, seat))
        except (WebSocketDisconnect, RuntimeError):  # RuntimeError: receive after the close
            pass
        finally:
            leave(table, outbox)


async def _refuse(websocket: WebSocket, exc: Exception, code: int) -> None:
    status, text, error_code, params = error_info(exc)
    try:
        await websocket.send_json(protocol.error_message(status, text, error_code, params))
        await websocket.close(code=code)
    except (WebSocketDisconnect, RuntimeError):
        pass


def _parse(message: Mapping[str, Any]) -> dict[str, Any]:
    text = message.get("text")
    if text is None:
        raise InvalidInputError("invalid message: a binary frame; send JSON text")
    return protocol.parse_client_message(text)


# ------------------------------------------------------------------ a job followed on its socket
FOLLOW_INTERVAL = 0.25
"""Seconds at least between two pushes of a followed job (changes meanwhile go out as one push)."""
FOLLOW_KEEPALIVE = 20.0
"""Seconds at most between two pushes while a followed job runs (queued, or a slow step)."""


@dataclass
class Followed:
    """What :func:`follow_job` streams: ``wire()`` is the job on the wire now (sent as
    ``{"type": kind, kind: wire}``) and ``done(wire)`` says whether it has ended; ``watchers``, the
    job's list of callbacks told of every change (from any thread), or None to read it every ``poll``
    seconds (a job another process runs); ``handle(text)``, if given, answers each client message
    (else messages are read and dropped)."""

    kind: str
    wire: Callable[[], Awaitable[dict[str, Any]]]
    done: Callable[[dict[str, Any]], bool]
    watchers: list[Callable[[], None]] | None = None
    poll: float = FOLLOW_KEEPALIVE
    handle: Callable[[str], Awaitable[None]] | None = None


async def follow_job(websocket: WebSocket, quotas: Quotas, load: Callable[[], Awaitable[Followed]]) -> None:
    """Stream a background job (a rollout, an upload's analysis) on its own WebSocket: check the
    Origin, accept, take a place among the address's sockets (refused past the cap: error, 1013),
    ``load()`` it (a LookupError: an error with status 404, then close), push it at once, after every
    change (at most every :data:`FOLLOW_INTERVAL`) and when it has ended; then close. A client that
    floods the socket is told so and closed with 1008; one that leaves ends the stream.
    """
    if not origin_allowed(websocket.headers):  # a page of another site may not follow our jobs
        await websocket.close(code=1008)
        return
    await websocket.accept()
    with ExitStack() as held:
        try:
            held.enter_context(quotas.open_socket(address_of(websocket)))
            job = await load()
        except (HTTPError, LookupError) as exc:
            await _refuse(websocket, exc, 1013 if isinstance(exc, HTTPError) else 1000)
            return
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def wake() -> None:
            with suppress(RuntimeError):  # the loop has closed: nobody is listening any more
                loop.call_soon_threadsafe(changed.set)

        if job.watchers is not None:
            job.watchers.append(wake)
        listener = asyncio.create_task(_read_followers(websocket, quotas, job.handle))
        try:
            while True:
                changed.clear()
                wire = await job.wire()
                await websocket.send_json({"type": job.kind, job.kind: wire})
                if job.done(wire):
                    break
                waiter = asyncio.create_task(changed.wait())
                timeout = FOLLOW_KEEPALIVE if job.watchers is not None else job.poll
                finished, _ = await asyncio.wait({waiter, listener}, timeout=timeout, return_when="FIRST_COMPLETED")
                waiter.cancel()
                if listener in finished:
                    return  # the client went away (or flooded)
                await asyncio.sleep(FOLLOW_INTERVAL)
            await websocket.close()
        except (WebSocketDisconnect, RuntimeError):
            return
        finally:
            listener.cancel()
            if job.watchers is not None:
                with suppress(ValueError):
                    job.watchers.remove(wake)


async def _read_followers(
    websocket: WebSocket, quotas: Quotas, handle: Callable[[str], Awaitable[None]] | None
) -> None:
    """A followed job's client messages, until it leaves: each one answered by ``handle`` (its
    refusal sent as an error message, the stream going on), within the socket's message budget."""
    meter = quotas.socket_meter()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not meter.allow():
            await _refuse(websocket, too_many("too many messages on this connection", 1), 1008)
            return
        if handle is None:
            continue
        try:
            await handle(message.get("text") or "")
        except Exception as exc:  # noqa: BLE001 - every refusal is told to the client, worded by its code
            status, text, code, params = error_info(exc)
            with suppress(WebSocketDisconnect, RuntimeError):
                await websocket.send_json(protocol.error_message(status, text, code, params))
