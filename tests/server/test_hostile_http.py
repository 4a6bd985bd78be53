"""Hostile HTTP input never crashes a handler: every endpoint of the app (found from
``app.routes``, so new ones are covered) gets malformed bodies, query strings, path values
and headers (seeded, bounded), and answers below 500; the server still answers
``/api/health``. Then one test per problem found on the way: huge integers, deep nesting,
lone surrogates, 413 on big bodies, ``automatic_doubles``, echoed values cut short."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import warnings
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from backgammon.errors import InvalidInputError
from backgammon.server import protocol
from backgammon.server.app import ServerConfig, create_app
from backgammon.server.security import BodyLimitMiddleware

warnings.filterwarnings("ignore", message=".*cookies.*")

SEED = 20261202
KEYS = [
    "name", "mode", "rules", "seat", "level", "listed", "start", "clock", "username", "password", "action",
    "steps", "play", "version", "seats", "text", "setup", "depth", "top", "trials", "ply", "answer", "lang",
    "orientation", "whiteColor", "showPips", "type", "match_length", "automatic_doubles", "mine", "theirs", "dice",
]  # fmt: skip
HUGE_INT = "1" * 5000
DEEP = "[" * 5000 + "]" * 5000


def hostile_raw(rng: random.Random) -> bytes:
    """One malformed or hostile request body."""
    key = rng.choice(KEYS)
    pick = rng.randrange(16)
    if pick == 0:
        return f'{{"{key}": {HUGE_INT}}}'.encode()
    if pick == 1:
        return f'{{"{key}": -{HUGE_INT}.5e3}}'.encode()
    if pick == 2:
        return f'{{"{key}": {DEEP}}}'.encode()
    if pick == 3:
        return ('{"a":' * 3000 + "1" + "}" * 3000).encode()
    if pick == 4:
        return f'{{"{key}": "x\\ud800y"}}'.encode()
    if pick == 5:
        return f'{{"\\udfff{key}": 1}}'.encode()
    if pick == 6:
        return f'{{"{key}": {rng.choice(["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])}}}'.encode()
    if pick == 7:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 200)))
    if pick == 8:
        return b'{"' + key.encode() + b'": "\xff\xfe\xc3("}'
    if pick == 9:
        return json.dumps({key: "x" * rng.choice([100, 10_000, 60_000])}).encode()
    if pick == 10:
        return json.dumps(rng.choice([[1, 2], "text", 3, None, True, [{key: 1}]])).encode()
    if pick == 11:
        wrong = rng.choice(
            [[], {}, [[[]]], {"a": {"b": {}}}, -1, 2**62, 1.5, True, None, "", "\u202e\u0000", [0] * 200]
        )
        return json.dumps(dict.fromkeys(rng.sample(KEYS, 4), wrong)).encode()
    if pick == 12:
        return json.dumps({key: "\u0000\u0007\u202eadmin\u200b"}).encode()
    if pick == 13:
        return b"{" + b'"k":1,' * 5000 + b'"k":2}'
    if pick == 14:
        return json.dumps({"setup": {"mine": [HUGE_INT[:30]] * 25, "theirs": [[]] * 25}, "rules": {key: [1]}}).encode()
    return b'{"' + key.encode() + b'": ' + rng.choice([b"01", b"1.", b"--1", b"[1,]", b"tru", b'"\\x"']) + b"}"


def hostile_query(rng: random.Random) -> str:
    values = [HUGE_INT, "-1", "0", "abc", "%ED%A0%80", "%FF%FE", "1e999", "NaN", "101", "x" * 3000, "%00"]
    names = ["limit", "offset", "lang", "name", "token"]
    return "&".join(f"{rng.choice(names)}={rng.choice(values)}" for _ in range(rng.randrange(1, 4)))


def hostile_path_value(rng: random.Random, good: str) -> str:
    return rng.choice([good, good, HUGE_INT, "-1", "%ED%A0%80", "x" * 2000, "..%2F..%2Fetc", "0", "%00", "nope"])


def all_routes(routes) -> list[APIRoute]:
    """Every API route of the app, those of included routers too."""
    out: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            out.append(route)
        inner = getattr(route, "original_router", None)
        if inner is not None:
            out.extend(all_routes(inner.routes))
    return out


@pytest.fixture
def hostile_client(tmp_path: Path):
    config = ServerConfig(
        data_dir=tmp_path,
        bot_delay=0.0,
        dice_seed=7,
        warm_engine=False,
        test_hooks=True,
        auth_attempts_per_minute=10_000,
    )
    with TestClient(create_app(config), raise_server_exceptions=False) as client:
        yield client


def test_every_endpoint_survives_hostile_requests(hostile_client):
    client = hostile_client
    rng = random.Random(SEED)
    table = client.post("/api/tables", json={"mode": "human", "name": "Ann", "listed": True}).json()
    chouette = client.post("/api/chouette", json={"name": "Cy", "seats": [{}, {}, {"bot": "beginner"}]}).json()
    goods = {"table_id": table["id"], "job_id": "abc", "lesson_id": "basics", "number": "0", "username": "ann"}
    routes = all_routes(client.app.routes)
    paths = {r.path for r in routes}
    assert {"/api/register", "/api/me/settings", "/api/tables", "/api/chouette", "/api/study/analyze"} <= paths
    failures: list[str] = []
    count = 0
    started = time.monotonic()
    for route in routes:
        for method in sorted(route.methods - {"HEAD"}):
            for i in range(40):
                path = route.path
                for param in re.findall(r"{(\w+)(?::\w+)?}", path):
                    good = chouette["id"] if "chouette" in path and param == "table_id" else goods.get(param, "x")
                    path = re.sub(r"{" + param + r"(?::\w+)?}", hostile_path_value(rng, good), path)
                if i % 3 == 0:
                    path += "?" + hostile_query(rng)
                headers = {"content-type": "application/json"}
                if i % 4 == 1:
                    headers["x-seat-token"] = rng.choice([table["token"], "x" * 5000, "\t", chouette["token"]])
                if i % 5 == 2:
                    headers["cookie"] = "bg_session=" + rng.choice(["x" * 5000, "%ED%A0%80", "a;b", ""])
                raw = hostile_raw(rng) if method != "GET" else b""
                r = client.request(method, path, content=raw, headers=headers)
                count += 1
                if r.status_code >= 500:
                    failures.append(f"{method} {path[:80]} {raw[:80]!r} -> {r.status_code} {r.text[:100]}")
                elif r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
                    message = r.json().get("error", r.json().get("detail"))
                    assert isinstance(message, str) and len(message) <= 300, (path, message)
    assert client.get("/api/health").status_code == 200
    assert not failures, f"{len(failures)} of {count} requests failed:\n" + "\n".join(failures[:20])
    assert count > 1000 and time.monotonic() - started < 60


@pytest.mark.parametrize(
    "raw, expect",
    [
        (b'{"username": ' + HUGE_INT.encode() + b"}", "an integer of 5000 digits (at most 40)"),
        (b'{"username": ' + DEEP.encode() + b"}", "nested deeper than 32"),
        (b'{"username": "\\ud800", "password": "pw-123456"}', "lone surrogate"),
        (b'{"\\ud800": 1}', "lone surrogate"),
        (b'{"username": NaN}', "NaN is not a JSON number"),
        (b'{"username": 1e999}', "out of range"),
        (b'{"username": "\xff"}', "not UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
        (b"{not json", "malformed JSON"),
    ],
)
def test_bad_json_is_400_with_a_reason(hostile_client, raw, expect):
    r = hostile_client.post("/api/register", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 400 and expect in r.json()["error"], r.text


def test_parse_json_object_accepts_ordinary_json():
    doc = protocol.parse_json_object(b'{"a": [1, -2.5, "\\u00e9\\ud83d\\ude00", {"b": null}], "c": true}')
    assert doc == {"a": [1, -2.5, "é😀", {"b": None}], "c": True}
    deepest = "[" * 31 + "]" * 31  # 31 arrays in the object: 32 levels
    assert protocol.parse_json_object(f'{{"a": {deepest}}}') == {"a": json.loads(deepest)}
    with pytest.raises(InvalidInputError, match="deeper than 32"):
        protocol.parse_json_object(f'{{"a": [{deepest}]}}')
    in_string = '{"a": "' + "[" * 100 + '\\"{"}'  # brackets (and an escaped quote) inside a string
    assert protocol.parse_json_object(in_string) == {"a": "[" * 100 + '"{'}


def test_big_body_is_413_without_reading_it(hostile_client):
    r = hostile_client.post("/api/register", content=b"x" * (protocol.MAX_BODY + 1))
    assert r.status_code == 413 and "too large" in r.json()["error"]
    assert r.headers["x-content-type-options"] == "nosniff"  # the security headers apply to it too
    ok = hostile_client.post(
        "/api/register", content=b" " * (protocol.MAX_BODY - 10) + b"{}", headers={"content-type": "application/json"}
    )
    assert ok.status_code == 400  # read, parsed: no username


def test_streamed_body_stops_at_the_limit():
    """A chunked body (no Content-Length) is read only up to the chunk that crosses the limit."""
    reads = 0

    async def receive():
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}  # endless

    async def app(scope, receive, send):
        while True:
            await receive()

    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(BodyLimitMiddleware(app, max_bytes=10_000)({"type": "http", "headers": []}, receive, send))
    assert reads == 11
    assert sent[0]["status"] == 413 and b"too large" in sent[1]["body"]


def test_declared_length_over_the_limit_is_refused_before_the_app():
    called = False

    async def app(scope, receive, send):
        nonlocal called
        called = True

    sent = []

    async def send(message):
        sent.append(message)

    for length in (b"70000", b"9" * 5000, b"-1", b"abc"):
        sent.clear()
        scope = {"type": "http", "headers": [(b"content-length", length)]}
        asyncio.run(BodyLimitMiddleware(app, max_bytes=65536)(scope, None, send))
        assert sent[0]["status"] == 413
    assert not called


@pytest.mark.parametrize("value, ok", [(0, True), (4, True), (5, False), (-1, False), (10**9, False), (True, False)])
def test_automatic_doubles_range(hostile_client, value, ok):
    r = hostile_client.post("/api/tables", json={"mode": "ai", "rules": {"automatic_doubles": value}})
    assert (r.status_code == 200) is ok, r.text
    if not ok:
        assert r.status_code == 400 and "automatic_doubles" in r.json()["error"]


def test_echoed_values_are_cut_short(hostile_client):
    long = "A" * 50_000
    cases = [
        ("/api/tables", {"mode": long}),
        ("/api/tables", {"mode": "human", "name": long}),
        ("/api/tables", {"mode": "ai", "rules": {"match_length": long}}),
        ("/api/register", {"username": long, "password": "pw-123456"}),
        ("/api/study/setup", {"setup": {"mine": long}}),
        ("/api/chouette", {"name": "Cy", "seats": long}),
    ]
    for path, doc in cases:
        r = hostile_client.post(path, json=doc)
        assert r.status_code == 400, (path, r.text[:200])
        error = r.json()["error"]
        assert len(error) < 200 and ("AAAA..." in error or "AAAA…" in error), error[:300]  # cut short
    r = hostile_client.get("/api/users/" + "B" * 3000)
    assert r.status_code == 404 and len(r.json()["error"]) < 100


def test_query_parameters_are_validated_readably(hostile_client):
    for query in ("limit=abc", "limit=0", "limit=101", "offset=-1", "limit=" + HUGE_INT):
        r = hostile_client.get(f"/api/tables?{query}")
        assert r.status_code == 400, (query, r.text[:200])
        error = r.json()["error"]
        assert error.startswith(("invalid query parameter limit", "invalid query parameter offset"))
        assert len(error) < 200
