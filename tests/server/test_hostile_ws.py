"""Hostile messages on the table WebSocket: each gets a protocol error (400) and the full
state again, and the same connection stays usable (a ping still gets its pong, a legal move
still goes through)."""

from __future__ import annotations

import json
import random

import pytest

from backgammon.errors import InvalidInputError
from backgammon.server import protocol

from ._wire import moves_of
from .conftest import make_client, table_socket
from .test_api import human_table, state


@pytest.fixture
def client(tmp_path):
    """The app with the per-socket flood limit lifted: these tests send hundreds of hostile
    messages on one socket to check each is refused and the socket stays usable (the flood
    limit itself is tested in test_quotas.py)."""
    with make_client(tmp_path, test_hooks=True, socket_messages_per_second=100_000) as c:
        yield c


HUGE_INT = "1" * 5000
MALFORMED = [
    '{"type": "action", "action": "move", "version": ' + HUGE_INT + "}",
    '{"type": "action", "steps": [[' + HUGE_INT + ", 1]]}",
    '{"type": ' + "[" * 5000 + "]" * 5000 + "}",
    '{"type": "action", "action": "roll", "x": ' + '{"a":' * 2000 + "1" + "}" * 2000 + "}",
    '{"type": "action", "action": "\\ud800"}',
    '{"\\udc00": "ping", "type": "ping"}',
    '{"type": "action", "action": "move", "version": NaN}',
    '{"type": "action", "action": "move", "version": 1e999}',
    '{"type": "action", "action": "move", "version": -Infinity}',
    "[1, 2, 3]",
    '"ping"',
    "null",
    "{" * 10,
    "x" * (protocol.MAX_MESSAGE + 1),
    '{"type": 5}',
    '{"type": ["ping"]}',
]
WRONG_TYPES = [  # well-formed messages with fields of the wrong type: the table refuses them
    '{"type": "action", "action": {"roll": true}}',
    '{"type": "action", "action": "move", "steps": "24/18"}',
    '{"type": "action", "action": "move", "steps": [[1, 2, 3]]}',
    '{"type": "action", "action": "resign", "level": []}',
    '{"type": "action", "action": "move", "version": "7"}',
]
HOSTILE_TEXT = MALFORMED + WRONG_TYPES
HOSTILE_BYTES = [b"\xff\xfe\x00", b'{"type": "ping"}', bytes(range(256)), b"\x80" * 100]


def _error_then_state(ws, version):
    reply = ws.receive_json()
    assert reply["type"] == "error" and 400 <= reply["status"] < 500, reply
    assert len(reply["message"]) <= 300
    after = ws.receive_json()
    assert after["type"] == "state" and after["state"]["version"] == version
    return reply


def _still_usable(ws):
    ws.send_json({"type": "ping"})
    assert ws.receive_json() == {"type": "pong"}


def test_hostile_text_messages_get_an_error_and_the_socket_stays_usable(client):
    tid, w, _b = human_table(client)
    version = state(client, tid)["version"]
    with table_socket(client, tid, w) as ws:
        assert ws.receive_json()["type"] == "state"
        for text in HOSTILE_TEXT:
            ws.send_text(text)
            reply = _error_then_state(ws, version)
            assert reply["status"] in (400, 409), (text[:60], reply)
            _still_usable(ws)
    assert state(client, tid)["version"] == version


def test_a_lone_surrogate_sent_raw_is_refused(client):
    """A text frame is str in ASGI: a client library may pass a lone surrogate through."""
    tid, w, _b = human_table(client)
    with table_socket(client, tid, w) as ws:
        version = ws.receive_json()["state"]["version"]
        ws.send_text('{"type": "ping", "x": "\ud800"}')
        assert "surrogate" in _error_then_state(ws, version)["message"]
        _still_usable(ws)


def test_binary_frames_are_invalid_messages(client):
    tid, w, _b = human_table(client)
    with table_socket(client, tid, w) as ws:
        version = ws.receive_json()["state"]["version"]
        for raw in HOSTILE_BYTES:
            ws.send_bytes(raw)
            assert _error_then_state(ws, version)["status"] == 400
            _still_usable(ws)


def test_seeded_random_messages_then_a_legal_move(client):
    rng = random.Random(1202)
    tid, w, b = human_table(client)
    tokens = {"white": w, "black": b}
    st = state(client, tid)
    mover = tokens[st["game"]["turn"]]
    with table_socket(client, tid, mover) as ws:
        first = ws.receive_json()["state"]
        version = first["version"]
        for _ in range(60):
            pick = rng.randrange(4)
            if pick == 0:
                ws.send_text(rng.choice(HOSTILE_TEXT))
            elif pick == 1:
                ws.send_bytes(bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64))))
            elif pick == 2:
                ws.send_text("".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(1, 40))))
            else:
                doc = {"type": "action", "action": rng.choice(["move", "roll", "take", 7, None]), "steps": [[25, 99]]}
                ws.send_text(json.dumps(doc))
            _error_then_state(ws, version)
        ws.send_json({"type": "action", "action": "move", "steps": moves_of(first)[0], "version": version})
        event = ws.receive_json()
        assert event["type"] == "event" and event["state"]["version"] == version + 1


@pytest.mark.parametrize("text", MALFORMED)
def test_parse_client_message_refuses_malformed_messages(text):
    with pytest.raises(InvalidInputError):
        protocol.parse_client_message(text)


@pytest.mark.parametrize(
    ("text", "field"), list(zip(WRONG_TYPES, ["action", "steps", "steps", "level", "version"], strict=True))
)
def test_parse_client_message_refuses_fields_of_the_wrong_type(text, field):
    """Each field is checked against the message's model (docs/web-protocol.md), naming it."""
    with pytest.raises(InvalidInputError) as info:
        protocol.parse_client_message(text)
    assert f"message {field}" in str(info.value)
