"""Finding a game: quick pairing, the lobby's fields, games in progress to watch, the player's
unfinished games (REST, one process; two processes: tests/server/test_multiprocess.py)."""

from __future__ import annotations

import time

import pytest

from backgammon.server import pairing

from .conftest import make_client


def H(token):
    return {"x-seat-token": token}


def seek(client, length=5, clock=0, name=None):
    doc = {"length": length, "clock": clock, **({"name": name} if name else {})}
    r = client.post("/api/pair", json=doc)
    assert r.status_code == 200, r.text
    return r.json()


def poll(client, ask):
    r = client.get(f"/api/pair/{ask['id']}", headers=H(ask["token"]))
    assert r.status_code == 200, r.text
    return r.json()


def test_two_compatible_players_are_seated_at_one_new_table(client):
    ann = seek(client, 5, 5, "Ann")
    assert ann["status"] == "waiting" and ann["table"] is None and ann["token"]
    bob = seek(client, 5, 5, "Bob")
    assert bob["status"] == "paired" and bob["table"]
    ann_now = poll(client, ann)
    assert ann_now["status"] == "paired" and ann_now["table"] == bob["table"]
    assert {ann_now["seat"], bob["seat"]} == {"white", "black"}
    # each token opens its own seat at the new table, which is being played, with the clock asked for
    for ask, seat, name in ((ann, ann_now["seat"], "Ann"), (bob, bob["seat"], "Bob")):
        st = client.get(f"/api/tables/{bob['table']}", headers=H(ask["token"])).json()
        assert st["you"] == seat, st.get("you")
        assert st["table"]["names"][seat] == name
    st = client.get(f"/api/tables/{bob['table']}").json()
    assert st["table"]["status"] == "playing" and st["match"]["length"] == 5
    assert st["clock"] is not None and st["clock"]["minutes"] == 5


def test_incompatible_choices_wait_and_a_third_player_waits(client):
    five = seek(client, 5, 0)
    three = seek(client, 3, 0)
    clocked = seek(client, 5, 10)
    assert [x["status"] for x in (five, three, clocked)] == ["waiting"] * 3
    money = seek(client, 0, 0)
    assert money["status"] == "waiting"
    another_money = seek(client, 0, 0)  # money meets money
    assert another_money["status"] == "paired"
    assert client.get(f"/api/tables/{another_money['table']}").json()["match"]["length"] == 0
    # three players who want 5 points and no clock: the first two play, the third waits
    second = seek(client, 5, 0)
    assert second["status"] == "paired" and poll(client, five)["table"] == second["table"]
    third = seek(client, 5, 0)
    assert third["status"] == "waiting"
    assert poll(client, three)["status"] == "waiting" and poll(client, clocked)["status"] == "waiting"


def test_cancel_and_someone_elses_request(client):
    ann = seek(client, 7)
    # a wrong token: a clear refusal, the request untouched
    r = client.delete(f"/api/pair/{ann['id']}", headers=H("not-the-token"))
    assert r.status_code == 409 and r.json()["code"] == "pair_not_yours"
    r = client.get(f"/api/pair/{ann['id']}")
    assert r.status_code == 409 and r.json()["code"] == "pair_not_yours"
    assert poll(client, ann)["status"] == "waiting"
    r = client.delete(f"/api/pair/{ann['id']}", headers=H(ann["token"]))
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert poll(client, ann)["status"] == "expired"
    # cancelled: the next player who wants the same waits instead of being paired with nobody
    assert seek(client, 7)["status"] == "waiting"
    # a request paired before its cancel arrives stays paired: the player goes to the table
    bob = seek(client, 9)
    cid = seek(client, 9)
    r = client.delete(f"/api/pair/{bob['id']}", headers=H(bob["token"]))
    assert r.json()["status"] == "paired" and r.json()["table"] == cid["table"]
    assert client.get("/api/pair/nosuchrequest", headers=H("x")).json()["status"] == "expired"


def test_a_request_whose_browser_stops_asking_expires(client, monkeypatch):
    monkeypatch.setattr(pairing, "PAIR_TTL", 0.3)
    gone = seek(client, 11)
    alive = seek(client, 13)
    for _ in range(4):  # the one that asks stays; the other's browser has left
        time.sleep(0.15)
        assert poll(client, alive)["status"] == "waiting"
    assert poll(client, gone)["status"] == "expired"
    assert seek(client, 11)["status"] == "waiting"  # nobody left to be paired with


@pytest.mark.parametrize(
    "doc",
    [
        {},
        {"length": -1},
        {"length": 26},
        {"length": "5"},
        {"length": 5, "clock": 7},
        {"length": 5, "clock": True},
        {"length": 5, "extra": 1},
        {"length": 5, "name": "x" * 200},
        {"length": 5, "name": "bad\u0000name"},
    ],
)
def test_bad_pairing_requests_are_refused_clearly(client, doc):
    r = client.post("/api/pair", json=doc)
    assert r.status_code == 400, r.text
    assert r.json()["code"] == "invalid_input"


def test_a_flood_of_requests_from_one_client_is_refused(client):
    waiting = [seek(client, n) for n in (15, 17, 19, 21)]
    assert all(w["status"] == "waiting" for w in waiting)
    r = client.post("/api/pair", json={"length": 23})
    assert r.status_code == 409 and r.json()["code"] == "pair_limit" and r.json()["params"] == {"limit": 4}
    for w in waiting:
        client.delete(f"/api/pair/{w['id']}", headers=H(w["token"]))
    codes = [client.post("/api/pair", json={"length": 1 + 2 * (n % 3)}).status_code for n in range(30)]
    assert 429 in codes and 500 not in codes
    r = client.post("/api/pair", json={"length": 1})
    assert r.status_code == 429 and r.json()["code"] == "too_many_requests" and r.json()["params"]["seconds"] > 0
    r = client.get("/api/pair/" + "x" * 40, headers=H("t"))
    assert r.status_code == 400


def test_an_account_is_never_paired_with_itself(tmp_path):
    with make_client(tmp_path) as c:
        assert c.post("/api/register", json={"username": "carol", "password": "pw-123456"}).status_code == 200
        first = seek(c, 3)
        again = seek(c, 3)  # the same account asks again: its older request gives way
        assert again["status"] == "waiting"
        assert poll(c, first)["status"] == "expired"
        c.post("/api/logout")
        guest = seek(c, 3, name="Dan")
        assert guest["status"] == "paired"
        st = c.get(f"/api/tables/{guest['table']}").json()
        assert set(st["table"]["names"].values()) == {"carol", "Dan"}


def test_the_lobby_shows_rules_clock_and_the_hosts_rating(client):
    made = client.post(
        "/api/tables",
        json={"mode": "human", "rules": {"match_length": 7}, "name": "Gus", "listed": True, "clock": {"minutes": 5}},
    )
    assert made.status_code == 200
    assert client.post("/api/register", json={"username": "hana", "password": "pw-123456"}).status_code == 200
    rated = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 0}, "listed": True})
    lobby = {row["id"]: row for row in client.get("/api/tables").json()}
    gus, hana = lobby[made.json()["id"]], lobby[rated.json()["id"]]
    assert gus["host"] == "Gus" and gus["host_rating"] is None
    assert gus["clock"] == {"minutes": 5, "delay": 10} and gus["rules"]["match_length"] == 7
    assert hana["host"] == "hana" and hana["host_rating"] == 1500.0 and hana["clock"] is None


def test_games_in_progress_to_watch(client):
    made = client.post(
        "/api/tables", json={"mode": "human", "rules": {"match_length": 3}, "name": "Ivy", "listed": True}
    ).json()
    private = client.post("/api/tables", json={"mode": "human", "rules": {"match_length": 3}, "name": "Pat"}).json()
    assert client.get("/api/live").json() == []  # nobody playing yet
    client.post(f"/api/tables/{made['id']}/join", json={"name": "Jo"})
    client.post(f"/api/tables/{private['id']}/join", json={"name": "Quin"})
    client.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 3}})
    a, b = seek(client, 1), seek(client, 1)
    live = client.get("/api/live").json()
    ids = [row["id"] for row in live]
    # the listed table and the quick-paired one, newest first; not the private one, not the computer's
    assert ids == [b["table"], made["id"]]
    row = live[1]
    assert {row["white"], row["black"]} == {"Ivy", "Jo"}
    assert row["score"] == {"white": 0, "black": 0} and row["length"] == 3 and row["game"] == 1
    assert client.get("/api/live?limit=1").json()[0]["id"] == b["table"]
    assert a["status"] == "waiting"


def test_the_players_unfinished_games(tmp_path):
    with make_client(tmp_path) as c:
        ai = c.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 3}}).json()
        human = c.post("/api/tables", json={"mode": "human", "rules": {"match_length": 5}, "name": "Kim"}).json()
        other = c.post("/api/tables", json={"mode": "human", "rules": {"match_length": 5}, "name": "Lee"}).json()
        seats = [
            {"id": ai["id"], "token": ai["token"]},
            {"id": human["id"], "token": human["token"]},
            {"id": other["id"], "token": "someone-elses-guess"},  # a token that opens nothing: not listed
            {"id": "nosuchtable", "token": "x"},
        ]
        rows = c.post("/api/unfinished", json={"seats": seats}).json()
        assert [r["id"] for r in rows] == [human["id"], ai["id"]]  # newest first
        by_id = {r["id"]: r for r in rows}
        assert by_id[ai["id"]]["mode"] == "ai" and by_id[ai["id"]]["opponent"].startswith("Computer")
        assert by_id[ai["id"]]["status"] == "playing" and by_id[ai["id"]]["held"] is True
        assert by_id[human["id"]]["status"] == "waiting" and by_id[human["id"]]["opponent"] is None
        # a finished table is no longer listed
        for _ in range(100):  # resign when the computer lets us (it accepts a backgammon)
            st = c.get(f"/api/tables/{ai['id']}", headers=H(ai["token"])).json()
            if st["match"]["over"]:
                break
            if "resign" in st["allowed"]:
                c.post(
                    f"/api/tables/{ai['id']}/actions",
                    json={"action": "resign", "level": "backgammon"},
                    headers=H(ai["token"]),
                )
            elif "roll" in st["allowed"]:
                c.post(f"/api/tables/{ai['id']}/actions", json={"action": "roll"}, headers=H(ai["token"]))
            time.sleep(0.05)
        assert st["match"]["over"]
        rows = c.post("/api/unfinished", json={"seats": seats}).json()
        assert ai["id"] not in [r["id"] for r in rows]
        # a logged-in user's games come from the database, with or without tokens
        assert c.post("/api/register", json={"username": "mia", "password": "pw-123456"}).status_code == 200
        mine = c.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 1}}).json()
        rows = c.post("/api/unfinished", json={}).json()
        assert [(r["id"], r["held"]) for r in rows] == [(mine["id"], False)]
        rows = c.post("/api/unfinished", json={"seats": [{"id": mine["id"], "token": mine["token"]}]}).json()
        assert [(r["id"], r["held"]) for r in rows] == [(mine["id"], True)]
        # hostile bodies: a clear 400
        assert c.post("/api/unfinished", json={"seats": "all"}).status_code == 400
        assert c.post("/api/unfinished", json={"seats": [{"id": "a", "token": "b"}] * 51}).status_code == 400
        assert c.post("/api/unfinished", json={"seats": [{"id": "a" * 33, "token": "b"}]}).status_code == 400


def test_an_account_takes_its_seat_back_from_another_browser(tmp_path):
    with make_client(tmp_path) as c:
        assert c.post("/api/register", json={"username": "nina", "password": "pw-123456"}).status_code == 200
        made = c.post("/api/tables", json={"mode": "ai", "rules": {"match_length": 3}}).json()
        # another browser: logged in, but holding no seat token; the game is listed, not held
        rows = c.post("/api/unfinished", json={}).json()
        assert [(r["id"], r["held"]) for r in rows] == [(made["id"], False)]
        r = c.post(f"/api/tables/{made['id']}/seat")
        assert r.status_code == 200, r.text
        doc = r.json()
        assert doc["seat"] == made["seat"] and doc["token"] != made["token"]
        assert c.get(f"/api/tables/{made['id']}", headers=H(doc["token"])).json()["you"] == made["seat"]
        assert c.get(f"/api/tables/{made['id']}", headers=H(made["token"])).json()["you"] is None  # the old one
        # someone else's seat: refused clearly
        c.post("/api/logout")
        r = c.post(f"/api/tables/{made['id']}/seat")
        assert r.status_code == 401 and r.json()["code"] == "not_logged_in"
        assert c.post("/api/register", json={"username": "omar", "password": "pw-123456"}).status_code == 200
        r = c.post(f"/api/tables/{made['id']}/seat")
        assert r.status_code == 409 and r.json()["code"] == "not_your_seat"
        assert c.post("/api/tables/nosuchtable/seat").status_code == 404
