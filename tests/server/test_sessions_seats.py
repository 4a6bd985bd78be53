"""Sessions and seats (issue 42, item 5): logout-all revokes the account's seat tokens and closes
the connections seated with them; a rematch's free seat is held for the other player of the
finished match for a while, then free for anyone."""

from __future__ import annotations

import time
import warnings

import pytest
from starlette.websockets import WebSocketDisconnect

from backgammon.server import tables

from .conftest import make_client, receive, table_socket

warnings.filterwarnings("ignore", message=".*cookies.*")
PW = "pw-123456"


def _seat(token: str | None) -> dict[str, str]:
    return {"x-seat-token": token} if token else {}


def _state(client, tid: str, token: str | None = None) -> dict:
    r = client.get(f"/api/tables/{tid}", headers=_seat(token))
    assert r.status_code == 200, r.text
    return r.json()


def test_logout_all_revokes_seat_tokens_and_closes_seated_sockets(client):
    assert client.post("/api/register", json={"username": "sybil", "password": PW}).status_code == 200
    made = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 3}}).json()
    tid, token = made["id"], made["token"]
    client.post("/api/logout")
    other = client.post(f"/api/tables/{tid}/join", json={"name": "Tom"})  # a guest
    assert other.status_code == 200, other.text
    tom = other.json()["token"]
    assert client.post("/api/login", json={"username": "sybil", "password": PW}).status_code == 200
    assert _state(client, tid, token)["you"] == made["seat"]

    with table_socket(client, tid, token) as ws:
        assert receive(ws)["state"]["you"] == made["seat"]
        r = client.post("/api/logout-all")
        assert r.status_code == 200 and r.json()["seats"] >= 1
        with pytest.raises(WebSocketDisconnect):  # the seated connection is closed
            for _ in range(20):
                receive(ws)

    assert _state(client, tid, token)["you"] is None  # the old token opens nothing now
    action = client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers=_seat(token))
    assert action.status_code == 409, action.text
    with table_socket(client, tid, token) as ws:  # a socket hello with it gets no seat
        assert receive(ws)["state"]["you"] is None
        ws.send_json({"type": "chat", "text": "still here?"})
        reply = receive(ws)
        assert reply["type"] == "error" and reply["status"] == 409, reply
    assert _state(client, tid, tom)["you"] is not None  # the guest's seat is untouched

    # logged in again, the player takes the seat back with a new token
    assert client.post("/api/login", json={"username": "sybil", "password": PW}).status_code == 200
    back = client.post(f"/api/tables/{tid}/seat")
    assert back.status_code == 200, back.text
    assert _state(client, tid, back.json()["token"])["you"] == made["seat"]


def test_logout_all_revokes_a_finished_tables_token(client):
    """A finished table's seat token asks for a rematch: after logout-all it cannot."""
    assert client.post("/api/register", json={"username": "ursula", "password": PW}).status_code == 200
    tid, mine, theirs = _finished_match(client, "ignored", "Vic", account="ursula")
    r = client.post("/api/logout-all")
    assert r.status_code == 200
    assert client.post(f"/api/tables/{tid}/rematch", headers=_seat(mine)).status_code == 409
    assert client.post(f"/api/tables/{tid}/rematch", headers=_seat(theirs)).status_code == 200


def _finished_match(client, white: str, black: str, account: str | None = None) -> tuple[str, str, str]:
    """A 1-point match between two players, over by a resignation: its id and the two tokens.
    ``account``: the white player's, logged in (logged out while a guest joins, in again after)."""
    made = client.post(
        "/api/tables", json={"mode": "human", "rules": {"match_length": 1, "cube": False}, "name": white}
    )
    assert made.status_code == 200, made.text
    tid, w = made.json()["id"], made.json()["token"]
    if account:
        client.post("/api/logout")
    b = client.post(f"/api/tables/{tid}/join", json={"name": black}).json()["token"]
    if account:
        assert client.post("/api/login", json={"username": account, "password": PW}).status_code == 200
    tokens = {"white": w, "black": b}
    mover = _state(client, tid)["game"]["turn"]
    if "roll" in _state(client, tid, tokens[mover])["allowed"]:
        assert client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers=_seat(tokens[mover])).ok
    resign = {"action": "resign", "level": "single"}
    assert client.post(f"/api/tables/{tid}/actions", json=resign, headers=_seat(tokens[mover])).status_code == 200
    other = tokens["black" if mover == "white" else "white"]
    accept = {"action": "accept_resignation"}
    assert client.post(f"/api/tables/{tid}/actions", json=accept, headers=_seat(other)).status_code == 200
    assert _state(client, tid)["match"]["over"]
    return tid, w, b


def test_a_rematch_seat_is_held_for_the_other_player(client):
    tid, ann, bob = _finished_match(client, "Ann", "Bob")
    new = client.post(f"/api/tables/{tid}/rematch", headers=_seat(ann)).json()["id"]
    stranger = client.post(f"/api/tables/{new}/join", json={"name": "Mallory"})
    assert stranger.status_code == 409 and stranger.json()["code"] == "seat_reserved", stranger.text
    assert 0 < stranger.json()["params"]["seconds"] <= tables.REMATCH_HOLD_SECONDS + 1
    second = client.post(f"/api/tables/{tid}/rematch", headers=_seat(bob))
    assert second.status_code == 200 and second.json()["id"] == new
    assert _state(client, new)["table"]["names"] == {"white": "Ann", "black": "Bob"}


def test_a_rematch_seat_is_free_after_the_hold(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "REMATCH_HOLD_SECONDS", 0.3)
    with make_client(tmp_path, test_hooks=True) as client:
        tid, ann, _bob = _finished_match(client, "Ann", "Bob")
        new = client.post(f"/api/tables/{tid}/rematch", headers=_seat(ann)).json()["id"]
        early = client.post(f"/api/tables/{new}/join", json={"name": "Carol"})
        assert early.status_code == 409 and early.json()["code"] == "seat_reserved"
        time.sleep(0.4)
        late = client.post(f"/api/tables/{new}/join", json={"name": "Carol"})
        assert late.status_code == 200, late.text
        assert _state(client, new)["table"]["names"]["black"] == "Carol"


def test_the_held_seat_opens_for_the_same_account(client):
    """The other player, logged in, may take the held seat from a browser that holds no token."""
    assert client.post("/api/register", json={"username": "wendy", "password": PW}).status_code == 200
    made = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 1, "cube": False}})
    tid, w = made.json()["id"], made.json()["token"]
    client.post("/api/logout")
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Xavier"}).json()["token"]
    tokens = {"white": w, "black": b}
    mover = _state(client, tid)["game"]["turn"]
    if "roll" in _state(client, tid, tokens[mover])["allowed"]:
        client.post(f"/api/tables/{tid}/actions", json={"action": "roll"}, headers=_seat(tokens[mover]))
    client.post(
        f"/api/tables/{tid}/actions", json={"action": "resign", "level": "single"}, headers=_seat(tokens[mover])
    )
    other = tokens["black" if mover == "white" else "white"]
    client.post(f"/api/tables/{tid}/actions", json={"action": "accept_resignation"}, headers=_seat(other))
    assert _state(client, tid)["match"]["over"]
    new = client.post(f"/api/tables/{tid}/rematch", headers=_seat(b)).json()["id"]  # Xavier asks
    assert client.post(f"/api/tables/{new}/join", json={"name": "Yves"}).json()["code"] == "seat_reserved"
    assert client.post("/api/login", json={"username": "wendy", "password": PW}).status_code == 200
    r = client.post(f"/api/tables/{new}/join", json={})
    assert r.status_code == 200, r.text


def _chouette_state(client, tid: str, token: str | None = None) -> dict:
    r = client.get(f"/api/chouette/{tid}", headers=_seat(token))
    assert r.status_code == 200, r.text
    return r.json()


def test_logout_all_revokes_chouette_seats_and_closes_their_sockets(client):
    """A chouette seat taken by an account, made or joined, is revoked by logout-all like a
    table's: its token opens nothing, its sockets are closed, the guests' seats stay; logged in
    again, the account takes its seat back with a new token."""
    assert client.post("/api/register", json={"username": "wanda", "password": PW}).status_code == 200
    made = client.post("/api/chouette", json={"seats": [{"bot": None}] * 3})
    assert made.status_code == 200, made.text
    own, own_token = made.json()["id"], made.json()["token"]
    assert made.json()["name"] == "wanda"
    client.post("/api/logout")
    guests = {}
    for name in ("Xena", "Yuri"):
        j = client.post(f"/api/chouette/{own}/join", json={"name": name})
        assert j.status_code == 200, j.text
        guests[name] = j.json()["token"]
    other = client.post(
        "/api/chouette", json={"name": "Zoe", "seats": [{"bot": None}, {"bot": None}, {"bot": "greedy"}]}
    )
    theirs, zoe = other.json()["id"], other.json()["token"]
    assert client.post("/api/login", json={"username": "wanda", "password": PW}).status_code == 200
    joined = client.post(f"/api/chouette/{theirs}/join", json={})
    assert joined.status_code == 200 and joined.json()["name"] == "wanda", joined.text
    joined_token = joined.json()["token"]
    assert _chouette_state(client, own, own_token)["you"] == "wanda"
    assert _chouette_state(client, theirs, joined_token)["you"] == "wanda"

    with client.websocket_connect(f"/ws/chouette/{own}") as ws:
        ws.send_json({"type": "hello", "token": own_token})
        assert ws.receive_json()["state"]["you"] == "wanda"
        r = client.post("/api/logout-all")
        assert r.status_code == 200 and r.json()["seats"] == 2, r.text
        with pytest.raises(WebSocketDisconnect):  # the seated connection is closed
            for _ in range(20):
                ws.receive_json()

    for tid, token in ((own, own_token), (theirs, joined_token)):
        assert _chouette_state(client, tid, token)["you"] is None  # the old tokens open nothing
        refused = client.post(f"/api/chouette/{tid}/actions", json={"action": "roll"}, headers=_seat(token))
        assert refused.status_code == 409, refused.text
    assert _chouette_state(client, own, guests["Xena"])["you"] == "Xena"  # the guests' seats are untouched
    assert _chouette_state(client, theirs, zoe)["you"] == "Zoe"
    names = [p["name"] for p in _chouette_state(client, own)["players"]]
    assert "wanda" in names  # the seat is still the account's

    # logged out, the seat cannot be asked for; logged in again, it comes back with a new token
    assert client.post(f"/api/chouette/{own}/seat").status_code == 401
    assert client.post("/api/login", json={"username": "wanda", "password": PW}).status_code == 200
    back = client.post(f"/api/chouette/{own}/seat")
    assert back.status_code == 200, back.text
    assert _chouette_state(client, own, back.json()["token"])["you"] == "wanda"
    assert _chouette_state(client, own, own_token)["you"] is None
    client.post("/api/logout")
    assert client.post("/api/register", json={"username": "xavier", "password": PW}).status_code == 200
    stranger = client.post(f"/api/chouette/{own}/seat")
    assert stranger.status_code == 409 and stranger.json()["code"] == "not_your_seat", stranger.text
