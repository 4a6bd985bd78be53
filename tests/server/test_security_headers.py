"""Security headers on every kind of HTTP response, and the WebSocket Origin check."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from backgammon.server.security import content_security_policy, origin_allowed


def _policy(value: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in value.split(";"):
        words = part.split()
        if words:
            assert words[0] not in out, f"directive {words[0]} twice"
            out[words[0]] = words[1:]
    return out


def _check(res) -> None:
    policy = _policy(res.headers["content-security-policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["connect-src"] == ["'self'", "ws://testserver", "wss://testserver"]
    assert not any("unsafe" in w for words in policy.values() for w in words)
    assert res.headers["x-content-type-options"] == "nosniff"
    assert res.headers["referrer-policy"] == "no-referrer"
    assert res.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/t/abc",
        "/study",
        "/static/app.js",
        "/static/style.css",
        "/static/chouette.html",
        "/api/health",
        "/api/tables",
        "/api/tables/missing",  # an error answer too
        "/static/missing.js",
    ],
)
def test_headers_on_pages_static_files_and_api(client, path):
    res = client.get(path)
    assert res.status_code in (200, 404), (path, res.status_code)
    _check(res)


def test_headers_on_a_post_with_bad_input(client):
    res = client.post("/api/tables", json={"mode": "nonsense"})
    assert res.status_code == 400
    assert "error" in res.json()
    _check(res)


def test_headers_set_once(client):
    res = client.get("/static/app.js")
    for name in ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy"):
        assert len(res.headers.get_list(name)) == 1, name


def test_policy_leaves_out_an_odd_host():
    assert "ws://" not in content_security_policy("evil.example; script-src *")
    assert "ws://" not in content_security_policy(None)
    assert "connect-src 'self' ws://h:8080 wss://h:8080" in content_security_policy("h:8080")


def _table(client) -> str:
    res = client.post("/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": 1}})
    assert res.status_code == 200, res.text
    return res.json()["id"]


def test_socket_with_a_foreign_origin_is_refused(client):
    tid = _table(client)
    for origin in ("http://evil.example", "http://testserver.evil.example", "null", "file://", "http://testserver:81"):
        with pytest.raises(WebSocketDisconnect) as info:
            with client.websocket_connect(f"/ws/tables/{tid}", headers={"origin": origin}) as ws:
                ws.receive_json()
        assert info.value.code == 1008, origin


@pytest.mark.parametrize("headers", [{}, {"origin": "http://testserver"}, {"origin": "https://testserver"}])
def test_socket_same_origin_and_no_origin_connect(client, headers):
    tid = _table(client)
    with client.websocket_connect(f"/ws/tables/{tid}", headers=headers) as ws:
        ws.send_json({"type": "hello"})
        msg = ws.receive_json()
    assert msg["type"] == "state" and msg["state"]["table"]["id"] == tid


@pytest.mark.parametrize(
    ("origin", "host", "ok"),
    [
        (None, "example.com", True),
        ("http://example.com", "example.com", True),
        ("https://example.com", "example.com", True),
        ("https://EXAMPLE.com", "example.com", True),
        ("http://example.com:80", "example.com", True),
        ("https://example.com", "example.com:443", True),
        ("http://127.0.0.1:8080", "127.0.0.1:8080", True),
        ("http://[::1]:8080", "[::1]:8080", True),
        ("http://127.0.0.1:8081", "127.0.0.1:8080", False),
        ("http://example.com", "example.com:8080", False),
        ("https://example.com:80", "example.com", False),
        ("http://evil.com", "example.com", False),
        ("http://example.com.evil.com", "example.com", False),
        ("http://evil.com/example.com", "example.com", False),
        ("ws://example.com", "example.com", False),
        ("null", "example.com", False),
        ("", "example.com", False),
        ("http://example.com:99999", "example.com", False),
        ("http://example.com", None, False),
        ("http://example.com", "example.com; x", False),
    ],
)
def test_origin_allowed(origin, host, ok):
    headers = {} if origin is None else {"origin": origin}
    if host is not None:
        headers["host"] = host
    assert origin_allowed(headers) is ok
    assert origin_allowed({k: v for k, v in headers.items() if k != "host"}, host) is (ok if host else origin is None)
