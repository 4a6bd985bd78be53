"""Spectators whose connections never read do not slow the players (a real server, real sockets).

Each stuck spectator is a raw TCP client with a tiny receive buffer: it does the WebSocket handshake
and then reads nothing. The players on the same table play 1,000 actions meanwhile, none of which
may wait on the stuck connections. (Whether a send to them blocks depends on the kernel's buffers
and uvicorn's keep-alive pings; the dropping itself is tested on the outboxes in test_rooms.py.)
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket

import httpx
import pytest

from ._servers import Client, Server, new_table, play

pytestmark = pytest.mark.slow


def _stuck_spectator(port: int, table: str) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # before connect: a small window
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/tables/{table} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    hello = b'{"type": "hello"}'  # one masked text frame (mask of zeros)
    sock.sendall(bytes([0x81, 0x80 | len(hello), 0, 0, 0, 0]) + hello)
    return sock  # and never reads again


def test_a_spectator_that_never_reads_does_not_stop_the_players(tmp_path):
    server = Server(tmp_path, "one")
    stuck = []
    try:
        table, tokens = new_table(server, 0)  # a money session: as long as we like
        joined = httpx.post(f"{server.http}/api/tables/{table}/join", json={"name": "Bea"})
        tokens[joined.json()["seat"]] = joined.json()["token"]
        stuck = [_stuck_spectator(server.port, table) for _ in range(3)]

        async def main():
            white, black = Client("white"), Client("black")
            await white.connect(server.ws, table, tokens["white"])
            await black.connect(server.ws, table, tokens["black"])
            waits = []
            last = await play({"white": white, "black": black}, stop_after=1000, waits=waits)
            await white.close()
            await black.close()
            return last, max(waits)

        last, slowest = asyncio.run(main())
        st = httpx.get(f"{server.http}/api/tables/{table}").json()
        # all played past the stuck readers; the server may have moved one step further by itself
        # (after a game ends it rolls the next opening), so the table may be ahead of what we saw
        assert st["version"] >= last >= 1000
        # no action waited on the stuck connections (one action takes milliseconds; a send that
        # blocked would hold an action until uvicorn's ping timeout, 20 s and more)
        assert slowest < 5, slowest
    finally:
        for sock in stuck:
            sock.close()
        server.stop()
