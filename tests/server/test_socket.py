"""The table WebSocket: state on connect, versioned events to every viewer, errors + resync."""

from __future__ import annotations

from ._wire import moves_of
from .conftest import receive, receive_within, table_socket
from .test_api import human_table, state


def test_socket_events_errors_and_resync(client):
    tid, w, b = human_table(client)
    tokens = {"white": w, "black": b}
    st = state(client, tid)
    mover = st["game"]["turn"]
    other = "black" if mover == "white" else "white"
    with (
        table_socket(client, tid, tokens[mover]) as ws_m,
        table_socket(client, tid, tokens[other]) as ws_o,
        table_socket(client, tid) as ws_s,
    ):
        first = receive(ws_m)
        assert first["type"] == "state" and first["state"]["you"] == mover and moves_of(first["state"])
        assert receive(ws_o)["state"]["you"] == other
        spect = receive(ws_s)["state"]
        assert spect["you"] is None and moves_of(spect) == [] and spect["allowed"] == []
        version = first["state"]["version"]

        # malformed JSON: an error, then the full state again
        ws_m.send_text("{oops")
        err = receive(ws_m)
        assert err["type"] == "error" and err["status"] == 400 and "malformed JSON" in err["message"]
        assert receive(ws_m)["type"] == "state"
        ws_m.send_json({"type": "dance"})
        assert receive(ws_m)["status"] == 400
        receive(ws_m)
        # out of turn
        ws_o.send_json({"type": "action", "action": "roll"})
        err = receive(ws_o)
        assert err["status"] == 409 and "not your turn" in err["message"]
        assert receive(ws_o)["state"]["version"] == version
        # a spectator cannot act
        ws_s.send_json({"type": "action", "action": "move", "steps": []})
        assert receive(ws_s)["status"] == 409
        receive(ws_s)
        # an illegal move
        ws_m.send_json({"type": "action", "action": "move", "steps": [[1, 2]]})
        err = receive(ws_m)
        assert err["status"] == 422
        assert receive(ws_m)["state"]["version"] == version

        # a legal move reaches everyone as a versioned event
        steps = moves_of(first["state"])[0]
        ws_m.send_json({"type": "action", "action": "move", "steps": steps, "version": version})
        for ws, seat in ((ws_m, mover), (ws_o, other), (ws_s, None)):
            ev = receive(ws)
            assert ev["type"] == "event" and ev["state"]["version"] == version + 1
            assert ev["event"]["kind"] == "move" and ev["event"]["player"] == mover
            assert ev["event"]["steps"] == steps
            assert ev["state"]["you"] == seat
        # resync on request
        ws_s.send_json({"type": "resync"})
        again = receive(ws_s)
        assert again["type"] == "state" and again["state"]["version"] == version + 1
        # the other player now rolls: the dice come from the server (a client's dice are refused)
        ws_o.send_json({"type": "action", "action": "roll", "dice": [6, 6]})
        err = receive(ws_o)
        assert err["status"] == 400 and "dice" in err["message"]
        receive(ws_o)
        ws_o.send_json({"type": "action", "action": "roll"})
        ev = receive(ws_o)
        assert ev["event"]["kind"] == "roll" and len(ev["event"]["dice"]) == 2
        receive(ws_m)
        receive(ws_s)
        ws_o.send_json({"type": "ping"})
        assert receive(ws_o) == {"type": "pong"}


def test_socket_unknown_table(client):
    with client.websocket_connect("/ws/tables/missing") as ws:
        msg = ws.receive_json()
        assert msg["type"] == "error" and msg["status"] == 404


def test_hint_over_socket(client):
    from .test_api import LATE

    r = client.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 1}, "start": {"position_id": LATE}})
    tid, tok = r.json()["id"], r.json()["token"]
    with table_socket(client, tid, tok) as ws:
        ws.receive_json()
        ws.send_json({"type": "hint"})
        assert ws.receive_json()["status"] == 409
        ws.receive_json()
        ws.send_json({"type": "action", "action": "roll"})
        assert ws.receive_json()["type"] == "event"
        ws.send_json({"type": "hint"})
        hint = ws.receive_json()
        assert hint["type"] == "hint" and hint["plays"][0]["play"] == "1/off(2)"


def test_the_seat_token_comes_in_the_hello_message_not_the_url(client):
    import pytest
    from starlette.websockets import WebSocketDisconnect

    tid, w, _b = human_table(client)
    with client.websocket_connect(f"/ws/tables/{tid}?token={w}") as ws:  # a token in the URL seats nobody
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["state"]["you"] is None
    with table_socket(client, tid, w) as ws:
        assert ws.receive_json()["state"]["you"] == "white"
        ws.send_json({"type": "hello", "token": w})  # once per connection
        error = ws.receive_json()
        assert error["type"] == "error" and error["status"] == 400 and "hello" in error["message"]
    for first in ({"type": "ping"}, {"type": "hello", "token": 5}, {"type": "hello", "extra": 1}):
        with pytest.raises(WebSocketDisconnect) as info:
            with client.websocket_connect(f"/ws/tables/{tid}") as ws:
                ws.send_json(first)
                error = ws.receive_json()
                assert error["type"] == "error" and error["status"] == 400, first
                ws.receive_json()
        assert info.value.code == 1008, first


def test_presence_says_who_is_connected(client):
    """Each connection is told who is connected: a seat's player joining or leaving, and how many watch."""
    tid, w, b = human_table(client)
    with table_socket(client, tid, w) as white:
        first = white.receive_json()["state"]
        assert first["present"] == {"white": True, "black": False, "watchers": 0}
        with table_socket(client, tid, b) as black:
            assert white.receive_json()["present"] == {"white": True, "black": True, "watchers": 0}
            assert black.receive_json()["state"]["present"]["black"] is True
            with table_socket(client, tid) as watcher:
                assert white.receive_json()["present"]["watchers"] == 1
                watcher.receive_json()
        # black went away (the watcher first): told in one message or two, as the changes fall in
        # presence's interval (rooms.PRESENCE_EVERY: at most one a quarter second per table)
        seen = [receive_within(white)["present"]]
        while seen[-1] != {"white": True, "black": False, "watchers": 0}:
            assert len(seen) < 2 and seen[-1]["watchers"] == 0, seen
            seen.append(receive_within(white)["present"])


def test_chat_between_the_players(client):
    """Players chat (text checked, shown literally to every connection, kept for newcomers); a
    spectator cannot write; too many lines too fast are refused."""
    tid, w, b = human_table(client)
    with table_socket(client, tid, w) as white, table_socket(client, tid, b) as black:
        receive(white), receive(black)
        white.send_json({"type": "chat", "text": "  <b>hi</b> & good luck  "})
        for ws in (white, black):
            line = receive(ws)
            assert line["type"] == "chat" and line["lines"][0]["text"] == "<b>hi</b> & good luck"
            assert line["lines"][0]["seat"] == "white" and line["lines"][0]["name"]
        white.send_json({"type": "chat", "text": "bad\u0007bell"})
        assert receive(white)["status"] == 400
        receive(white)
        white.send_json({"type": "chat", "text": "x" * 301})
        assert receive(white)["status"] == 400
        receive(white)
        for i in range(4):
            white.send_json({"type": "chat", "text": f"line {i}"})
            assert receive(white)["lines"][0]["text"] == f"line {i}"
        white.send_json({"type": "chat", "text": "one too many"})
        assert "too many chat lines" in receive(white)["message"]
    with table_socket(client, tid) as watcher:
        assert receive(watcher)["type"] == "state"
        history = receive(watcher)
        assert history["lines"][0]["text"] == "<b>hi</b> & good luck" and len(history["lines"]) == 5
        watcher.send_json({"type": "chat", "text": "hello"})
        assert receive(watcher)["status"] == 409
