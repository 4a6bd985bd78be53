"""The load generator's lean WebSocket client (benchmarks/web_load.py): its reading of the server's
messages agrees with a full JSON decode, and its framing follows RFC 6455."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from ._wire import moves_of
from .conftest import table_socket
from .test_api import human_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def web_load():
    spec = importlib.util.spec_from_file_location("web_load_under_test", ROOT / "benchmarks" / "web_load.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def _expected(doc: dict):
    state = doc["state"]
    first = moves_of(state)[0] if "move" in state["allowed"] else None
    return state["version"], tuple(state["allowed"]), first, state["match"]["over"]


def test_read_state_agrees_with_json_on_a_played_session(client, web_load):
    tid, w, b = human_table(client)
    tokens = {"white": w, "black": b}
    checked = Counter()
    with table_socket(client, tid, w) as ws_w, table_socket(client, tid, b) as ws_b, table_socket(client, tid) as ws_s:
        sockets = {"white": ws_w, "black": ws_b}
        states = {}

        def take(ws, seat):
            while True:
                text = ws.receive_text()
                doc = json.loads(text)
                lean = web_load.read_state(text)
                if "state" not in doc:
                    assert lean is None, text[:200]
                    continue
                got = (lean.version, lean.allowed, lean.first_move, lean.over)
                assert got == _expected(doc), text[:300]
                checked[doc["type"]] += 1
                checked["with a move"] += lean.first_move is not None
                states[seat] = lean
                return lean

        for seat in ("white", "black"):
            take(sockets[seat], seat)
        take(ws_s, None)
        for _ in range(40):
            seat = next(s for s in ("white", "black") if states[s].allowed)
            lean = states[seat]
            kind = next(k for k in web_load.PREFERRED if k in lean.allowed)
            message = {"type": "action", "action": kind, "version": lean.version}
            if kind == "move":
                message["steps"] = lean.first_move
            sockets[seat].send_json(message)
            for s in ("white", "black"):
                assert take(sockets[s], s).version == lean.version + 1
            take(ws_s, None)
    assert tokens and checked["event"] == 120 and checked["with a move"] >= 10, checked


def test_read_state_ignores_other_messages_and_refuses_a_changed_format(web_load):
    assert web_load.read_state('{"type": "pong"}') is None
    assert web_load.read_state('{"type": "presence", "present": {"white": 1}}') is None
    with pytest.raises(ValueError, match="unexpected state message"):
        web_load.read_state('{"type": "state", "state": {"revision": 3}}')


class _Transport:
    def __init__(self) -> None:
        self.written = bytearray()
        self.closing = False

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True


def _server_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    size = len(payload)
    if size < 126:
        head = bytes((opcode | 0x80 * fin, size))
    elif size < 1 << 16:
        head = bytes((opcode | 0x80 * fin, 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((opcode | 0x80 * fin, 127)) + size.to_bytes(8, "big")
    return head + payload


def _unmask(frame: bytes) -> tuple[int, bytes]:
    assert frame[1] & 0x80, "a client's frames are masked"
    size, at = frame[1] & 0x7F, 2
    if size == 126:
        size, at = int.from_bytes(frame[2:4], "big"), 4
    mask, body = frame[at : at + 4], frame[at + 4 : at + 4 + size]
    assert len(body) == size
    return frame[0], bytes(x ^ mask[i % 4] for i, x in enumerate(body))


def test_lean_socket_frames(web_load):
    async def scenario():
        run = web_load.Run(["http://127.0.0.1:1"], 1, "flat", None, 0.0, 1.0, 1.0, 0)
        changed = asyncio.Event()
        seat = web_load.Seat("white", changed, run)
        transport = _Transport()
        seat.connection_made(transport)
        seat.expected_accept = b"abc="
        seat.data_received(b"HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: abc=\r\n\r\n")
        await seat.opened
        # a client frame: FIN + text, masked, the text intact under the mask
        seat.send_text("x" * 300)
        first, body = _unmask(bytes(transport.written))
        assert first == 0x81 and body == b"x" * 300
        # a state split over reads, then in two fragments, then a ping: all read, the ping answered
        state = {"type": "state", "state": {"table": {}, "version": 7, "match": {"score": {}, "over": False}}}
        state["state"] |= {
            "allowed": ["move"],
            "move_graph": {"length": 2, "nodes": [[[24, 21, 1], [13, 9, 2]], [[13, 12, 2]], []]},
        }
        text = json.dumps(state).encode()
        frame = _server_frame(0x1, text)
        seat.data_received(frame[:1])
        seat.data_received(frame[1:40])
        assert seat.state is None
        seat.data_received(frame[40:])
        assert (seat.state.version, seat.state.first_move) == (7, [[24, 21], [13, 12]]) and changed.is_set()
        big = json.dumps({**state, "state": {**state["state"], "version": 8, "pad": "y" * 70000}}).encode()
        seat.data_received(_server_frame(0x1, big[:100], fin=False) + _server_frame(0x0, big[100:]))
        assert seat.state.version == 8
        transport.written.clear()
        seat.data_received(_server_frame(0x9, b"hi"))
        assert _unmask(bytes(transport.written)) == (0x8A, b"hi")
        # an error message is counted as the server's
        seat.data_received(_server_frame(0x1, b'{"type": "error", "status": 409, "message": "stale"}'))
        assert seat.errors == 1 and run.errors["server 409"] == 1
        # a masked frame from the server is a protocol error: counted, the connection closed
        seat.data_received(bytes((0x81, 0x81)) + b"\0\0\0\0x")
        assert seat.closed and transport.closing and run.errors["socket the server masked a frame"] == 1

    asyncio.run(scenario())


def test_lean_socket_checks_the_servers_accept_key(web_load):
    assert web_load.accept_for("dGhlIHNhbXBsZSBub25jZQ==") == b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="  # RFC 6455 1.3


def test_lean_socket_refuses_a_failed_handshake(web_load):
    async def scenario():
        run = web_load.Run(["http://127.0.0.1:1"], 1, "flat", None, 0.0, 1.0, 1.0, 0)
        seat = web_load.Seat("white", asyncio.Event(), run)
        seat.connection_made(_Transport())
        seat.expected_accept = b"abc="
        seat.data_received(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
        with pytest.raises(ConnectionError, match="403"):
            await seat.opened

    asyncio.run(scenario())
