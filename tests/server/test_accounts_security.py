"""Accounts are hardened: settings cannot lock an account out, names are clean and guests
cannot pass for registered players, sessions expire and can all be revoked, logins are
rate-limited, password hashing runs off the event loop, lists are paginated and the
rollout quota holds under concurrent starts."""

from __future__ import annotations

import datetime as dt
import threading
import time
import warnings
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from backgammon.server import auth, rollouts, study
from backgammon.server.auth import AuthLimits

from .conftest import make_client

warnings.filterwarnings("ignore", message=".*cookies.*")
PW = "pw-123456"


def _db(tmp_path: Path):
    return create_engine(f"sqlite:///{tmp_path / 'backgammon.sqlite3'}")


def _register(client, name: str) -> str:
    r = client.post("/api/register", json={"username": name, "password": PW})
    assert r.status_code == 200, r.text
    return r.cookies["bg_session"]


# ------------------------------------------------------------------ settings
def test_surrogate_in_settings_does_not_lock_the_account_out(client):
    _register(client, "dora")
    r = client.put("/api/me/settings", content=b'{"lang": "\\ud800"}', headers={"content-type": "application/json"})
    assert r.status_code == 400 and "surrogate" in r.json()["error"]
    assert client.get("/api/me").status_code == 200
    client.post("/api/logout")
    assert client.post("/api/login", json={"username": "dora", "password": PW}).status_code == 200


def test_a_poisoned_stored_setting_is_left_out(client, tmp_path):
    _register(client, "edna")
    assert client.put("/api/me/settings", json={"lang": "ja"}).status_code == 200
    with _db(tmp_path).begin() as conn:  # a row written before validation existed
        conn.execute(
            text("UPDATE users SET settings = :s WHERE username = 'edna'"),
            {"s": '{"lang": "ja", "whiteColor": "\\ud800", "evil": [1]}'},
        )
    r = client.get("/api/me")
    assert r.status_code == 200 and r.json()["settings"] == {"lang": "ja"}
    assert client.put("/api/me/settings", json={"animation": "fast"}).json()["settings"] == {
        "lang": "ja",
        "animation": "fast",
    }


@pytest.mark.parametrize(
    "doc, field",
    [
        ({"orientation": "sideways"}, "orientation"),
        ({"lang": "fr"}, "lang"),
        ({"whiteColor": "red"}, "whiteColor"),
        ({"blackColor": "#12345"}, "blackColor"),
        ({"blackColor": "#1234567"}, "blackColor"),
        ({"animation": "warp"}, "animation"),
        ({"autoSwitch": 1}, "autoSwitch"),
        ({"showPips": "yes"}, "showPips"),
        ({"colour": "#ffffff"}, "colour"),
    ],
)
def test_settings_are_validated_per_key(client, doc, field):
    _register(client, "fred")
    r = client.put("/api/me/settings", json=doc)
    assert r.status_code == 400 and f"invalid setting {field}" in r.json()["error"], r.text
    assert client.get("/api/me").json()["settings"] == {}


def test_good_settings_are_kept(client):
    _register(client, "gina")
    doc = {
        "orientation": "top-left",
        "autoSwitch": True,
        "lang": "ja",
        "whiteColor": "#AABBCC",
        "blackColor": "#001122",
        "animation": "off",
        "showPips": False,
        "autoForced": False,
    }
    assert client.put("/api/me/settings", json=doc).json()["settings"] == doc


def test_every_setting_the_browser_keeps_is_accepted_for_an_account(client):
    # the browser saves its whole settings object to a new account (and each change after): a key the
    # server does not know makes the request fail, and the account then keeps none of them
    import json
    import re

    app_js = (Path(study.__file__).parent / "static" / "app.js").read_text(encoding="utf-8")
    body = re.search(r"const DEFAULTS = \{(.*?)\};", app_js, re.S).group(1)
    defaults = json.loads("{" + re.sub(r"(\w+):", r'"\1":', body).rstrip().rstrip(",") + "}")
    assert {"sound", "theme", "autoRoll", "autoConfirm"} <= defaults.keys()
    _register(client, "hilda")
    changed = {**defaults, "lang": "en", "sound": False, "theme": "dark", "autoRoll": True, "autoConfirm": True}
    r = client.put("/api/me/settings", json=changed)
    assert r.status_code == 200, r.text
    assert client.get("/api/me").json()["settings"] == changed
    r = client.put("/api/me/settings", json={"theme": "neon"})
    assert r.status_code == 400 and "invalid setting theme" in r.json()["error"], r.text


# --------------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name, why",
    [
        ("Ann\u0000", "not allowed"),
        ("\u202eevil", "not allowed"),
        ("a\u200bb", "not allowed"),
        ("line\nbreak", "not allowed"),
        ("x" * 25, "1 to 24"),
        ("   ", "1 to 24"),
        (["Ann"], "expected text"),
    ],
)
def test_bad_guest_names(client, name, why):
    r = client.post("/api/tables", json={"mode": "human", "name": name})
    assert r.status_code == 400 and why in r.json()["error"], r.text


def test_names_are_nfc_normalised(client):
    r = client.post("/api/tables", json={"mode": "human", "name": " Rene\u0301 "})
    assert r.status_code == 200 and r.json()["state"]["table"]["names"]["white"] == "Ren\u00e9"
    r = client.post("/api/tables", json={"mode": "human", "name": "\U0001f469\u200d\U0001f4bb"})  # ZWJ emoji kept
    assert r.status_code == 200


def test_guests_cannot_take_a_registered_name(client):
    _register(client, "alice")
    client.post("/api/logout")
    for name in ("alice", "ALICE", "Alice", "\uff21\uff4c\uff49\uff43\uff45"):  # fullwidth too
        r = client.post("/api/tables", json={"mode": "human", "name": name})
        assert r.status_code == 409 and "registered" in r.json()["error"], (name, r.text)
    host = client.post("/api/tables", json={"mode": "human", "name": "Bob"}).json()
    r = client.post(f"/api/tables/{host['id']}/join", json={"name": "aLiCe"})
    assert r.status_code == 409 and "registered" in r.json()["error"]
    r = client.post("/api/chouette", json={"name": "Alice", "seats": [{}, {}, {"bot": "beginner"}]})
    assert r.status_code == 409
    ch = client.post("/api/chouette", json={"name": "Cy", "seats": [{}, {}, {"bot": "beginner"}]}).json()
    assert client.post(f"/api/chouette/{ch['id']}/join", json={"name": "ALICE"}).status_code == 409
    assert client.post(f"/api/chouette/{ch['id']}/join", json={"name": "Computer 1"}).status_code == 400
    # logged in, alice plays under her own name
    client.post("/api/login", json={"username": "alice", "password": PW})
    r = client.post("/api/tables", json={"mode": "human", "name": "ignored"})
    assert r.status_code == 200 and r.json()["state"]["table"]["names"]["white"] == "alice"


def test_usernames_reserved_and_unique_ignoring_case(client):
    for name in ("guest", "Guest", "ADMIN"):
        r = client.post("/api/register", json={"username": name, "password": PW})
        assert r.status_code == 400 and "reserved" in r.json()["error"]
    _register(client, "henry")
    r = client.post("/api/register", json={"username": "HENRY", "password": PW})
    assert r.status_code == 409 and "taken" in r.json()["error"]


# ------------------------------------------------------------------ sessions
def test_sessions_expire_and_are_deleted(client, tmp_path):
    token = _register(client, "ivy")
    cookie = client.post("/api/login", json={"username": "ivy", "password": PW}).headers["set-cookie"]
    assert f"Max-Age={30 * 24 * 3600}" in cookie
    engine = _db(tmp_path)
    with engine.begin() as conn:
        expires = conn.execute(text("SELECT created_at, expires_at FROM sessions")).all()
        spans = [dt.datetime.fromisoformat(e) - dt.datetime.fromisoformat(c) for c, e in expires]
        assert len(spans) == 2 and all(span == dt.timedelta(days=30) for span in spans)
        conn.execute(
            text("UPDATE sessions SET expires_at = :t WHERE token_hash = :h"),
            {"t": "2000-01-01 00:00:00.000000", "h": auth.token_hash(client.cookies["bg_session"])},
        )
    assert client.get("/api/me").status_code == 401
    with engine.connect() as conn:
        hashes = conn.execute(text("SELECT token_hash FROM sessions")).scalars().all()
    assert hashes == [auth.token_hash(token)]  # the expired one is gone; the first is still valid
    client.cookies.set("bg_session", token)
    assert client.get("/api/me").json()["username"] == "ivy"


def test_logout_all_revokes_every_session(client):
    first = _register(client, "jack")
    second = client.post("/api/login", json={"username": "jack", "password": PW}).cookies["bg_session"]
    assert first != second
    other = _register(client, "kate")
    client.cookies.set("bg_session", first)
    assert client.get("/api/me").json()["username"] == "jack"
    r = client.post("/api/logout-all")
    assert r.status_code == 200 and r.json() == {"ok": True, "sessions": 2, "seats": 0}
    for token in (first, second):
        client.cookies.set("bg_session", token)
        assert client.get("/api/me").status_code == 401
    client.cookies.set("bg_session", other)
    assert client.get("/api/me").json()["username"] == "kate"  # other users keep theirs
    client.cookies.clear()
    assert client.post("/api/logout-all").status_code == 401


# --------------------------------------------------------------- rate limits
def test_auth_limits_windows_and_backoff(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr("time.time", lambda: now[0])  # the limits library's clock and ours
    limits = AuthLimits(attempts_per_minute=3, free_failures=2, registrations_per_hour=2)
    assert [limits.attempt("a") for _ in range(3)] == [0.0] * 3
    assert limits.attempt("a") == pytest.approx(60.0, abs=1)
    assert limits.attempt("b") == 0.0  # per address
    now[0] += 61
    assert limits.registration("a") == 0.0 and limits.registration("a") == 0.0
    assert limits.registration("a") > 0  # 2 an hour
    # failed logins: 2 a minute, 3 in 2 minutes, 4 in 4 minutes...: the wait doubles
    waits = []
    for _ in range(5):
        while (wait := limits.start_login("Ann", "a")) == 0.0:
            pass
        waits.append(wait)
        now[0] += wait + 0.01
    assert [round(w / 60) for w in waits] == [1, 1, 2, 4, 8]  # 60 s windows, then doubling
    assert limits.start_login("ann", "b") == 0.0  # another address is not locked (the case of the name ignored)
    limits.login_succeeded("ann", "a")
    assert limits.start_login("Ann", "a") == 0.0  # forgiven


def test_logins_are_limited_per_address(client):
    _register(client, "liam")
    codes = [client.post("/api/login", json={"username": "liam", "password": PW}).status_code for _ in range(12)]
    assert codes[:9] == [200] * 9 and codes[9:] == [429] * 3  # 10 attempts a minute, the registration included
    r = client.post("/api/register", json={"username": "mona", "password": PW})
    assert r.status_code == 429 and "try again" in r.json()["error"]


def test_failed_logins_are_limited_per_account(tmp_path):
    with make_client(tmp_path, auth_attempts_per_minute=1000) as client:
        _register(client, "nina")
        _register(client, "otto")
        wrong = [client.post("/api/login", json={"username": "nina", "password": "nope-nope"}) for _ in range(6)]
        assert [r.status_code for r in wrong] == [401] * 5 + [429]
        assert "too many failed logins" in wrong[-1].json()["error"]
        assert client.post("/api/login", json={"username": "nina", "password": PW}).status_code == 429  # locked
        assert client.post("/api/login", json={"username": "otto", "password": PW}).status_code == 200
        # unknown accounts are not tracked (that would be memory for the asking)
        assert all(
            client.post("/api/login", json={"username": f"ghost{i}", "password": PW}).status_code == 401
            for i in range(8)
        )


def test_bad_login_bodies(client):
    for doc in ({"username": ["a"], "password": PW}, {"username": "a" * 100, "password": PW}, {"username": "a"}):
        r = client.post("/api/login", json=doc)
        assert r.status_code == 400 and r.json()["error"].startswith("invalid"), r.text


# -------------------------------------------------------------- off the loop
def test_password_hashing_runs_off_the_event_loop(client, monkeypatch):
    threads: list[str] = []
    real_hash, real_verify = auth.hash_password, auth.verify_password

    def slow_hash(password):
        threads.append(threading.current_thread().name)
        time.sleep(0.6)
        return real_hash(password)

    def slow_verify(password, stored):
        threads.append(threading.current_thread().name)
        time.sleep(0.6)
        return real_verify(password, stored)

    monkeypatch.setattr(auth, "hash_password", slow_hash)
    monkeypatch.setattr(auth, "verify_password", slow_verify)
    results = {}

    def login():
        results["register"] = client.post("/api/register", json={"username": "pete", "password": PW}).status_code
        results["login"] = client.post("/api/login", json={"username": "pete", "password": PW}).status_code

    worker = threading.Thread(target=login)
    worker.start()
    time.sleep(0.2)
    started = time.monotonic()
    assert client.get("/api/health").status_code == 200  # answered while scrypt runs
    assert time.monotonic() - started < 0.4
    worker.join()
    assert results == {"register": 200, "login": 200}
    assert len(threads) == 2 and all(name.startswith("scrypt") for name in threads)


# ---------------------------------------------------------------- pagination
def test_lobby_is_paginated_newest_first(tmp_path):
    with make_client(tmp_path, budgets={"listed_tables": [100, None]}) as client:  # (10 an hour by default)
        _lobby_is_paginated_newest_first(client)


def _lobby_is_paginated_newest_first(client):
    ids = [
        client.post("/api/tables", json={"mode": "human", "name": f"Host {i}", "listed": True}).json()["id"]
        for i in range(60)
    ]
    lobby = client.get("/api/tables").json()
    assert [t["id"] for t in lobby] == ids[::-1][:50]
    assert [t["id"] for t in client.get("/api/tables?limit=100").json()] == ids[::-1]
    assert [t["id"] for t in client.get("/api/tables?limit=5&offset=58").json()] == ids[1::-1]
    assert client.get("/api/tables?offset=60").json() == []
    r = client.get("/api/tables?limit=101")
    assert r.status_code == 400 and "limit" in r.json()["error"]


def test_history_and_reviews_are_paginated(client):
    _register(client, "quin")
    for _ in range(4):
        assert client.post("/api/tables", json={"mode": "human"}).status_code == 200
    assert len(client.get("/api/me/history").json()) == 4
    page = client.get("/api/me/history?limit=3").json()
    rest = client.get("/api/me/history?limit=3&offset=3").json()
    assert len(page) == 3 and len(rest) == 1 and {r["id"] for r in page}.isdisjoint({r["id"] for r in rest})
    assert client.get("/api/me/history?limit=1000").status_code == 400
    assert client.get("/api/study/reviews?limit=2").json() == []
    assert client.get("/api/study/reviews?limit=-2").status_code == 400


# ------------------------------------------------------------ rollout quota
def test_rollout_quota_holds_under_concurrent_starts(monkeypatch):
    release = threading.Event()

    def slow_rank(setup, plies):
        time.sleep(0.2)  # every start is inside the slow part at once
        return []

    monkeypatch.setattr(rollouts, "ranked_plays", slow_rank)
    monkeypatch.setattr(rollouts.RolloutJobs, "_run", lambda self, job, plays: release.wait(10))
    jobs = rollouts.RolloutJobs()
    setup = study.Setup(study.Position.initial(), dice=(3, 1))
    outcomes: list[str] = []

    def start():
        try:
            jobs.start(setup, 1, 10, 0)
            outcomes.append("started")
        except study.IllegalActionError:
            outcomes.append("refused")

    threads = [threading.Thread(target=start) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    release.set()
    assert outcomes.count("started") == rollouts.MAX_JOBS and outcomes.count("refused") == 12 - rollouts.MAX_JOBS
    assert jobs.starting == 0
