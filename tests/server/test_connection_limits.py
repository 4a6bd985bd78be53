"""Connection hygiene (issue 42, item 3): a real ``serve`` closes requests whose headers do not
arrive in time (slowloris), answers 503 past its connection cap instead of running out of open
files, and bounds the size of a request's headers."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from backgammon.errors import InvalidInputError
from backgammon.server.serving import ServeOptions, check_serve_options

from ._servers import Server


def _half_open(port: int) -> socket.socket:
    """A connection that sends most of a request line and headers, never the blank line."""
    conn = socket.create_connection(("127.0.0.1", port))
    conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return conn


def test_slowloris_is_closed_and_the_cap_answers_503(tmp_path):
    server = Server(tmp_path, "slow", extra=["--header-timeout", "2", "--limit-concurrency", "40"])
    try:
        slow = [_half_open(server.port) for _ in range(45)]  # more than the cap
        time.sleep(0.3)
        busy = httpx.get(f"{server.http}/api/health", timeout=5)
        assert busy.status_code == 503  # refused with an answer, not a failed accept
        time.sleep(2.5)  # the header timeout
        for conn in slow:
            conn.settimeout(5)
            assert conn.recv(100) == b""  # closed by the server
            conn.close()
        started = time.monotonic()
        assert httpx.get(f"{server.http}/api/health", timeout=5).status_code == 200
        assert time.monotonic() - started < 1.0
        # headers past --max-header-bytes (16 kB by default) while they are still arriving are refused
        # (h11 bounds an incomplete event; what one socket read brings at once, up to 64 kB, is parsed)
        try:  # (the server answers 400 and closes while the client is still sending: a reset, often)
            status = httpx.get(f"{server.http}/api/health", headers={"x-big": "a" * 200_000}, timeout=5).status_code
        except httpx.HTTPError:
            status = 400
        assert status in (400, 431)
        big = socket.create_connection(("127.0.0.1", server.port))
        big.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sent = 0
        try:
            for _ in range(40):  # 40 kB of headers, dribbled
                big.sendall(b"X-Pad: " + b"p" * 1000 + b"\r\n")
                sent += 1
                time.sleep(0.01)
            big.settimeout(5)
            answer = big.recv(100)
        except OSError:  # the server answered 400 and closed while we were sending
            answer = b"HTTP/1.1 400 (reset)"
        assert answer.startswith(b"HTTP/1.1 400"), (answer, sent)
        big.close()
        # a keep-alive client that sends its next request in time is not cut off
        with httpx.Client(base_url=server.http) as client:
            for _ in range(3):
                assert client.get("/api/health").status_code == 200
                time.sleep(1.0)
    finally:
        server.stop()


def test_serve_options_are_checked():
    check_serve_options(ServeOptions())
    for bad, word in (
        (ServeOptions(timeout_keep_alive=0), "--timeout-keep-alive"),
        (ServeOptions(header_timeout=float("nan")), "--header-timeout"),
        (ServeOptions(limit_concurrency=0), "--limit-concurrency"),
        (ServeOptions(max_header_bytes=10), "--max-header-bytes"),
    ):
        with pytest.raises(InvalidInputError, match=word):
            check_serve_options(bad)
    kwargs = ServeOptions().uvicorn_kwargs()
    assert kwargs["limit_concurrency"] >= 64 and kwargs["h11_max_incomplete_event_size"] == 16 * 1024
    assert ServeOptions.from_env() == ServeOptions()
