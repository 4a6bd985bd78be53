"""REST API of the web platform: accounts, tables, actions, bad input, persistence."""

from __future__ import annotations

import re
import time

from backgammon.position import Position

from ._wire import moves_of
from .conftest import make_client

# white to roll, bears off both checkers with any roll; black has borne off 5 (no gammon)
LATE = Position.from_points({1: 2}, {6: 10}).position_id()


def H(token):
    return {"x-seat-token": token}


def human_table(client, rules=None, **extra):
    doc = client.post(
        "/api/tables", json={"mode": "human", "rules": rules or {"match_length": 3}, "name": "Ann", **extra}
    )
    assert doc.status_code == 200, doc.text
    white = doc.json()
    joined = client.post(f"/api/tables/{white['id']}/join", json={"name": "Bob"})
    assert joined.status_code == 200, joined.text
    return white["id"], white["token"], joined.json()["token"]


def state(client, tid, token=None):
    r = client.get(f"/api/tables/{tid}", headers=H(token) if token else {})
    assert r.status_code == 200
    return r.json()


def act(client, tid, token, **doc):
    return client.post(f"/api/tables/{tid}/actions", json=doc, headers=H(token))


def token_to_act(st, tokens):
    return tokens[st["game"]["turn"]]


# ------------------------------------------------------------------ accounts
def test_register_login_me_logout(client):
    r = client.post("/api/register", json={"username": "alice", "password": "pw-123456"})
    assert r.status_code == 200 and r.json()["rating"] == 1500
    assert client.get("/api/me").json()["username"] == "alice"
    assert client.post("/api/logout").status_code == 200
    assert client.get("/api/me").status_code == 401
    assert client.post("/api/login", json={"username": "alice", "password": "wrong-pw"}).status_code == 401
    assert client.post("/api/login", json={"username": "nobody", "password": "wrong-pw"}).status_code == 401
    r = client.post("/api/login", json={"username": "alice", "password": "pw-123456"})
    assert r.status_code == 200
    assert client.get("/api/users/alice").json() == {"username": "alice", "rating": 1500.0, "experience": 0}


def test_register_errors(client):
    assert client.post("/api/register", json={"username": "bob", "password": "pw-123456"}).status_code == 200
    dup = client.post("/api/register", json={"username": "bob", "password": "pw-123456"})
    assert dup.status_code == 409 and "taken" in dup.json()["error"]
    bad = client.post("/api/register", json={"username": "b b", "password": "pw-123456"})
    assert bad.status_code == 400 and "invalid username" in bad.json()["error"]
    short = client.post("/api/register", json={"username": "carol", "password": "123"})
    assert short.status_code == 400
    malformed = client.post("/api/register", content=b"{not json", headers={"content-type": "application/json"})
    assert malformed.status_code == 400 and "malformed JSON" in malformed.json()["error"]
    assert client.post("/api/register", json=[1, 2]).status_code == 400


def test_settings_per_account(client):
    assert client.put("/api/me/settings", json={"lang": "ja"}).status_code == 401
    client.post("/api/register", json={"username": "dave", "password": "pw-123456"})
    r = client.put("/api/me/settings", json={"lang": "ja", "orientation": "top-left", "showPips": False})
    assert r.status_code == 200
    assert client.get("/api/me").json()["settings"] == {"lang": "ja", "orientation": "top-left", "showPips": False}
    assert client.put("/api/me/settings", json={"evil": 1}).status_code == 400
    assert client.put("/api/me/settings", json={"showPips": "yes"}).status_code == 400
    assert client.get("/api/me").json()["settings"]["showPips"] is False


def test_unknown_user_and_table(client):
    assert client.get("/api/users/ghost").status_code == 404
    r = client.get("/api/tables/nope")
    assert r.status_code == 404 and "no table" in r.json()["error"]


# -------------------------------------------------------------------- tables
def test_create_table_bad_input(client):
    cases = [
        {"mode": "chess"},
        {"mode": "ai", "rules": {"match_length": 26}},
        {"mode": "ai", "rules": {"match_length": -1}},
        {"mode": "ai", "rules": {"cube": "yes"}},
        {"mode": "ai", "rules": {"colour": 1}},
        {"mode": "ai", "rules": {"backgammon_value": 5}},
        {"mode": "ai", "seat": "green"},
        {"mode": "ai", "level": "godlike"},
        {"mode": "ai", "start": {"position_id": "garbage"}},
        {"mode": "human", "name": ""},
    ]
    for body in cases:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"].startswith("invalid"), r.json()


def test_start_position_needs_test_hooks(tmp_path):
    with make_client(tmp_path) as c:
        r = c.post("/api/tables", json={"mode": "ai", "start": {"position_id": LATE}})
        assert r.status_code == 400 and "test-hooks" in r.json()["error"]


def test_lobby_and_join(client):
    r = client.post("/api/tables", json={"mode": "human", "name": "Ann", "listed": True, "rules": {"match_length": 5}})
    tid = r.json()["id"]
    lobby = client.get("/api/tables").json()
    assert [t["id"] for t in lobby] == [tid] and lobby[0]["host"] == "Ann" and lobby[0]["free_seat"] == "black"
    st = state(client, tid, r.json()["token"])
    assert st["table"]["status"] == "waiting" and st["allowed"] == []
    joined = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"})
    assert joined.json()["seat"] == "black"
    assert client.get("/api/tables").json() == []
    again = client.post(f"/api/tables/{tid}/join", json={"name": "Eve"})
    assert again.status_code == 409 and "no free seat" in again.json()["error"]
    st = state(client, tid)
    assert st["table"]["status"] == "playing" and st["game"]["phase"] == "move"  # opening roll done


def test_spectator_and_wrong_seat_cannot_act(client):
    tid, w, b = human_table(client)
    st = state(client, tid, w)
    tokens = {"white": w, "black": b}
    mover = st["game"]["turn"]
    other = tokens["black" if mover == "white" else "white"]
    before = state(client, tid)
    r = client.post(f"/api/tables/{tid}/actions", json={"action": "roll"})
    assert r.status_code == 409 and "spectator" in r.json()["error"]
    r = act(client, tid, other, action="move", steps=[])
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    r = act(client, tid, "forged-token", action="roll")
    assert r.status_code == 409
    after = state(client, tid)
    assert after["version"] == before["version"] and after["game"]["board"] == before["game"]["board"]


def test_illegal_and_malformed_moves(client):
    tid, w, b = human_table(client)
    tokens = {"white": w, "black": b}
    st = state(client, tid, w)
    token = tokens[st["game"]["turn"]]
    version = st["version"]
    r = act(client, tid, token, action="move", steps=[[24, 1]])
    assert r.status_code == 422 and "illegal move" in r.json()["error"]
    r = act(client, tid, token, action="move", steps="24/18")
    assert r.status_code == 400
    r = act(client, tid, token, action="move", steps=[[24, 99]])
    assert r.status_code == 400
    r = act(client, tid, token, action="move", play="24/1")
    assert r.status_code == 422
    r = act(client, tid, token, action="move")
    assert r.status_code == 400
    r = act(client, tid, token, action="fly")
    assert r.status_code == 400 and "invalid action" in r.json()["error"]
    r = act(client, tid, token, action="roll")
    assert r.status_code == 409 and "cannot roll" in r.json()["error"]
    r = act(client, tid, token, action="take")
    assert r.status_code == 409
    r = act(client, tid, token, action="resign", level="everything")
    assert r.status_code == 400
    for level in ([], {}, 3, None):  # not a name at all (found by test_fuzz: a list crashed the handler)
        r = act(client, tid, token, action="resign", level=level)  # (None: the table's check; else the model's)
        assert r.status_code == 400 and re.search(r"invalid (resignation|action) level", r.json()["error"])
    r = client.post(
        f"/api/tables/{tid}/actions", content=b"]]", headers={**H(token), "content-type": "application/json"}
    )
    assert r.status_code == 400
    assert state(client, tid)["version"] == version
    # a stale version is refused
    st = state(client, tid, token)
    r = act(client, tid, token, action="move", steps=moves_of(st)[0], version=version - 1)
    assert r.status_code == 409 and "stale" in r.json()["error"]
    # and the real move goes through
    r = act(client, tid, token, action="move", steps=moves_of(st)[0], version=version)
    assert r.status_code == 200 and r.json()["version"] == version + 1


def test_double_take_crawford_and_rating(client):
    # both players have accounts; the match is rated
    a = client.post("/api/register", json={"username": "ann", "password": "pw-123456"})
    assert a.status_code == 200
    r = client.post(
        "/api/tables",
        json={"mode": "human", "rules": {"match_length": 3}, "start": {"position_id": LATE, "on_roll": "white"}},
    )
    tid, w = r.json()["id"], r.json()["token"]
    client.post("/api/logout")
    client.post("/api/register", json={"username": "bob", "password": "pw-123456"})
    b = client.post(f"/api/tables/{tid}/join", json={}).json()["token"]
    st = state(client, tid, w)
    assert st["game"]["phase"] == "roll" and st["allowed"][:2] == ["roll", "double"]
    assert act(client, tid, w, action="double").status_code == 200
    st = state(client, tid, b)
    assert st["allowed"] == ["take", "pass"] and st["game"]["cube"]["offered_by"] == "white"
    assert act(client, tid, w, action="take").status_code == 409  # not white's decision
    assert act(client, tid, b, action="take").status_code == 200
    st = state(client, tid, w)
    assert st["game"]["cube"] == {"value": 2, "owner": "black", "offered_by": None, "enabled": True}
    assert "double" not in st["allowed"]  # black owns the cube
    assert act(client, tid, w, action="roll").status_code == 200
    st = state(client, tid, w)
    assert act(client, tid, w, action="move", steps=moves_of(st)[0]).status_code == 200
    st = state(client, tid, w)
    assert st["match"]["score"] == {"white": 2, "black": 0}
    assert st["match"]["last_result"]["points"] == 2
    assert st["match"]["crawford"] is True and st["game"]["cube"]["enabled"] is False
    tokens = {"white": w, "black": b}
    # Crawford game: the side to act resigns, the other accepts; nobody may double
    mover = st["game"]["turn"]
    assert "double" not in state(client, tid, tokens[mover])["allowed"]
    assert act(client, tid, tokens[mover], action="resign", level="single").status_code == 200
    other = "black" if mover == "white" else "white"
    assert act(client, tid, tokens[other], action="accept_resignation").status_code == 200
    st = state(client, tid, w)
    if st["match"]["over"]:
        assert st["match"]["winner"] == "white"
        me = client.get("/api/users/ann").json()
        assert me["rating"] > 1500 and me["experience"] == 3
        assert client.get("/api/users/bob").json()["rating"] < 1500
    else:
        assert st["match"]["score"] == {"white": 2, "black": 1}
        assert st["match"]["post_crawford"] is True and st["match"]["crawford"] is False
    hist = client.get(f"/api/tables/{tid}/history").json()
    kinds = [e["kind"] for e in hist["entries"]]
    assert kinds[:6] == ["start", "double", "take", "roll", "move", "opening_roll"]
    assert len(hist["entries"]) == state(client, tid)["version"] + 1


def test_ai_game_to_the_end_and_history(client):
    r = client.post(
        "/api/tables",
        json={"mode": "ai", "level": "beginner", "rules": {"match_length": 1}, "start": {"position_id": LATE}},
    )
    tid, tok = r.json()["id"], r.json()["token"]
    st = state(client, tid, tok)
    assert st["table"]["ai_seat"] == "black" and st["allowed"][0] == "roll"
    assert act(client, tid, tok, action="roll").status_code == 200
    st = state(client, tid, tok)
    assert st["plays"] >= 1 and moves_of(st)
    assert act(client, tid, tok, action="move", steps=moves_of(st)[0]).status_code == 200
    st = state(client, tid, tok)
    assert st["match"]["over"] and st["match"]["winner"] == "white" and st["allowed"] == []
    assert act(client, tid, tok, action="roll").status_code == 409
    hist = client.get(f"/api/tables/{tid}/history").json()
    assert hist["entries"][-1]["board"]["mine"][0] == 0


def test_ai_answers_by_itself(client):
    r = client.post(
        "/api/tables", json={"mode": "ai", "seat": "black", "level": "beginner", "rules": {"match_length": 3}}
    )
    tid, tok = r.json()["id"], r.json()["token"]
    deadline = time.time() + 180  # the computer (white) acts in a background task (a cold engine compiles first)
    while time.time() < deadline:
        st = state(client, tid, tok)
        if st["allowed"]:
            break
        time.sleep(0.05)
    assert st["allowed"], st["game"]
    assert st["you"] == "black" and st["game"]["turn"] == "black"
    assert (
        any(e["player"] == "white" for e in client.get(f"/api/tables/{tid}/history").json()["entries"][1:])
        or st["game"]["phase"] == "move"
    )


def test_hint(client):
    r = client.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 1}, "start": {"position_id": LATE}})
    tid, tok = r.json()["id"], r.json()["token"]
    assert client.post(f"/api/tables/{tid}/hint", headers=H(tok)).status_code == 409  # must roll first
    act(client, tid, tok, action="roll")
    h = client.post(f"/api/tables/{tid}/hint", headers=H(tok)).json()
    assert h["source"] == "engine" and h["plays"][0]["play"] == "1/off(2)"


def test_restart_resumes_tables(tmp_path):
    with make_client(tmp_path) as c:
        tid, w, b = human_table(c)
        tokens = {"white": w, "black": b}
        st = state(c, tid, w)
        tok = tokens[st["game"]["turn"]]
        assert act(c, tid, tok, action="move", steps=moves_of(state(c, tid, tok))[0]).status_code == 200
        before = state(c, tid)
    with make_client(tmp_path) as c:
        # an idle table between people (no clock, nobody to wake) is read when first asked for, not
        # at start: a site's abandoned sessions cost no memory and, on PostgreSQL, hold no lease
        assert c.get("/api/health").json()["tables"] == 0
        after = state(c, tid)
        assert c.get("/api/health").json()["tables"] == 1
        assert after["version"] == before["version"]
        assert after["game"]["board"] == before["game"]["board"]
        assert after["game"]["position_id"] == before["game"]["position_id"]
        # the seat tokens still open the same seats
        assert state(c, tid, b)["you"] == "black" and state(c, tid, w)["you"] == "white"


def test_export_mat(client):
    tid, w, b = human_table(client)
    tokens = {"white": w, "black": b}
    for _ in range(4):  # a few moves, rolling where needed
        tok = tokens[state(client, tid)["game"]["turn"]]
        if "roll" in state(client, tid, tok)["allowed"]:
            assert act(client, tid, tok, action="roll").status_code == 200
        assert act(client, tid, tok, action="move", steps=moves_of(state(client, tid, tok))[0]).status_code == 200
    r = client.get(f"/api/tables/{tid}/export.mat")
    try:
        from backgammon.formats.mat import read_mat, replay
    except ImportError:
        assert r.status_code == 409 and "not available" in r.json()["error"]
    else:
        assert r.status_code == 200 and " 3 point match" in r.text and "Ann" in r.text and "Bob" in r.text
        assert r.headers["content-disposition"].startswith("attachment")
        # read back, the match is at the same position
        match = replay(read_mat(r.text))
        assert match.game.position.position_id() == state(client, tid)["game"]["position_id"]


def test_health(client):
    health = client.get("/api/health").json()
    assert {k: health[k] for k in ("ok", "tables", "engine")} == {"ok": True, "tables": 0, "engine": "not warmed"}
    assert isinstance(health["process"], str) and health["process"]


def test_index_and_static(client):
    r = client.get("/")
    assert r.status_code == 200 and '<svg id="board"' in r.text
    assert client.get("/t/whatever").status_code == 200
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/board.js").status_code == 200


def test_xgid_in_state_and_history(client):
    from backgammon.formats.xgid import Xgid

    tid, _white, _black = human_table(client)
    st = state(client, tid)
    x = Xgid.parse(st["game"]["xgid"])
    assert x.position.position_id() == st["game"]["position_id"]
    assert x.match_length == 3 and x.dice == tuple(st["game"]["dice"])
    assert x.turn == (1 if st["game"]["on_roll"] == "white" else -1)
    entries = client.get(f"/api/tables/{tid}/history").json()["entries"]
    assert entries[0]["xgid"] is None  # before the opening roll
    assert Xgid.parse(entries[-1]["xgid"]).position.position_id() == entries[-1]["position_id"]


def test_casual_draw_and_beaver(client):
    tid, w, b = human_table(client, rules={"casual": True})
    tokens = {"white": w, "black": b}
    st = state(client, tid, w)
    assert st["game"]["turn"] == "white" and "double" not in st["allowed"]  # casual: white starts, no cube
    assert "offer_draw" in st["allowed"]
    assert act(client, tid, w, action="offer_draw").status_code == 200
    assert state(client, tid, b)["allowed"] == ["accept_draw", "reject_draw"]
    assert act(client, tid, w, action="accept_draw").status_code == 409  # not the offerer's answer
    assert act(client, tid, b, action="reject_draw").status_code == 200
    assert act(client, tid, w, action="offer_draw").status_code == 200
    assert act(client, tid, b, action="accept_draw").status_code == 200
    st = state(client, tid)
    assert st["match"]["last_result"]["winner"] is None and st["match"]["last_result"]["points"] == 0
    # money game with beavers: double, beaver, then the doubler takes or passes
    r = client.post(
        "/api/tables",
        json={"mode": "human", "rules": {"match_length": 0, "beavers": True}, "start": {"position_id": LATE}},
    )
    tid, w = r.json()["id"], r.json()["token"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    assert act(client, tid, w, action="double").status_code == 200
    assert "beaver" in state(client, tid, b)["allowed"]
    assert act(client, tid, b, action="beaver").status_code == 200
    st = state(client, tid, w)
    # a beaver takes and redoubles at once: the cube is at 4, owned by the beaver, white rolls
    assert st["game"]["cube"] == {"value": 4, "owner": "black", "offered_by": None, "enabled": True}
    assert st["allowed"] == ["roll", "resign"] and tokens


def test_match_id_in_state_and_history(client):
    from backgammon.formats.match_id import MatchState

    tid, w, b = human_table(client)
    st = state(client, tid)
    m = MatchState.from_match_id(st["game"]["match_id"])
    on_roll = 1 if st["game"]["on_roll"] == "white" else 0  # gnubg: white is player 1
    assert m.match_length == 3 and m.dice_owner == on_roll and m.turn == on_roll
    assert m.dice is not None and sorted(m.dice) == sorted(st["game"]["dice"]) and m.cube_value == 1
    tokens = {"white": w, "black": b}
    mover = st["game"]["turn"]
    act(client, tid, tokens[mover], action="move", steps=moves_of(state(client, tid, tokens[mover]))[0])
    other = "black" if mover == "white" else "white"
    act(client, tid, tokens[other], action="double")
    m = MatchState.from_match_id(state(client, tid)["game"]["match_id"])
    assert m.doubled and m.turn == (1 if mover == "white" else 0) and m.dice is None
    entries = client.get(f"/api/tables/{tid}/history").json()["entries"]
    assert entries[-1]["match_id"] == state(client, tid)["game"]["match_id"]


def test_no_double_is_offered_or_taken_in_a_one_point_match(client):
    r = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 1}})
    tid, w = r.json()["id"], r.json()["token"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    tokens = {"white": w, "black": b}
    for _ in range(6):  # a few turns: whoever is to roll never sees 'double'
        st = state(client, tid)
        seat = st["game"]["turn"]
        mine = state(client, tid, tokens[seat])
        assert "double" not in mine["allowed"]
        if "roll" in mine["allowed"]:
            refused = act(client, tid, tokens[seat], action="double")
            assert refused.status_code == 409 and "1-point" in refused.json()["error"]
            assert act(client, tid, tokens[seat], action="roll").status_code == 200
        else:
            assert act(client, tid, tokens[seat], action="move", steps=moves_of(mine)[0]).status_code == 200


def test_rematch_with_the_same_settings(client):
    r = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 1, "cube": False}, "name": "Ann"})
    tid, w = r.json()["id"], r.json()["token"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    tokens = {"white": w, "black": b}
    early = client.post(f"/api/tables/{tid}/rematch", headers={"x-seat-token": w})
    assert early.status_code == 409 and "not over" in early.json()["error"]
    st = state(client, tid)
    mover = st["game"]["turn"]
    if "roll" in state(client, tid, tokens[mover])["allowed"]:
        assert act(client, tid, tokens[mover], action="roll").status_code == 200
    assert act(client, tid, tokens[mover], action="resign", level="single").status_code == 200
    assert (
        act(client, tid, tokens[(mover == "white" and "black") or "white"], action="accept_resignation").status_code
        == 200
    )
    assert state(client, tid)["match"]["over"]
    assert client.post(f"/api/tables/{tid}/rematch").status_code == 409  # a spectator cannot ask

    first = client.post(f"/api/tables/{tid}/rematch", headers={"x-seat-token": w})
    assert first.status_code == 200, first.text
    new = first.json()
    assert new["seat"] == "white" and new["id"] != tid and new["state"]["table"]["status"] == "waiting"
    assert new["state"]["table"]["rules"] == state(client, tid)["table"]["rules"]
    assert state(client, tid)["table"]["rematch"] == new["id"]  # the other player is offered the seat
    again = client.post(f"/api/tables/{tid}/rematch", headers={"x-seat-token": w})
    assert again.status_code == 409
    second = client.post(f"/api/tables/{tid}/rematch", headers={"x-seat-token": b})
    assert second.status_code == 200 and second.json()["id"] == new["id"] and second.json()["seat"] == "black"
    st = state(client, new["id"], second.json()["token"])
    assert st["table"]["status"] == "playing" and st["table"]["names"] == {"white": "Ann", "black": "Bob"}


def test_rematch_against_the_computer(client):
    r = client.post(
        "/api/tables",
        json={"mode": "ai", "level": "beginner", "rules": {"match_length": 1}, "start": {"position_id": LATE}},
    )
    tid, tok = r.json()["id"], r.json()["token"]
    for _ in range(40):
        st = state(client, tid, tok)
        if st["match"]["over"]:
            break
        if "roll" in st["allowed"]:
            act(client, tid, tok, action="roll")
        elif "move" in st["allowed"]:
            act(client, tid, tok, action="move", steps=moves_of(st)[0])
    assert state(client, tid)["match"]["over"]
    again = client.post(f"/api/tables/{tid}/rematch", headers={"x-seat-token": tok})
    assert again.status_code == 200, again.text
    new = again.json()["state"]
    assert new["table"]["mode"] == "ai" and new["table"]["level"] == "beginner" and new["table"]["status"] == "playing"


def test_idle_tables_leave_memory_and_come_back(tmp_path, monkeypatch):
    # a table nobody watches or uses, with nothing due, leaves memory; the next request reads it again
    from backgammon.server import rooms

    from .conftest import table_socket

    monkeypatch.setattr(rooms, "IDLE_SECONDS", 0.2)
    monkeypatch.setattr(rooms, "SWEEP_EVERY", 0.05)

    def in_memory(c):
        return c.get("/api/health").json()["tables"]

    def wait_for(c, n):
        deadline = time.time() + 10
        while in_memory(c) != n and time.time() < deadline:
            time.sleep(0.05)
        return in_memory(c)

    with make_client(tmp_path) as c:
        tid, w, b = human_table(c)
        tokens = {"white": w, "black": b}
        tok = tokens[state(c, tid)["game"]["turn"]]
        assert act(c, tid, tok, action="move", steps=moves_of(state(c, tid, tok))[0]).status_code == 200
        before = state(c, tid)
        with table_socket(c, tid, w) as ws:
            assert ws.receive_json()["type"] in ("state", "presence")
            time.sleep(0.6)  # three idle periods: a watched table stays
            assert in_memory(c) == 1
        assert wait_for(c, 0) == 0
        after = state(c, tid)  # read again from the database: the same table, the same seats
        assert in_memory(c) == 1
        assert after["version"] == before["version"] and after["game"]["board"] == before["game"]["board"]
        assert state(c, tid, b)["you"] == "black"
        tok = tokens[after["game"]["turn"]]
        if "roll" in state(c, tid, tok)["allowed"]:
            assert act(c, tid, tok, action="roll").status_code == 200
        assert act(c, tid, tok, action="move", steps=moves_of(state(c, tid, tok))[0]).status_code == 200
        assert state(c, tid)["version"] > before["version"]
        assert wait_for(c, 0) == 0  # and leaves again once idle
