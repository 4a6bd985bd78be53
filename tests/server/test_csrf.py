"""Cross-site request forgery (issue 42, item 4): unsafe requests from a foreign Origin or Referer,
or with a body that is not JSON, are refused before the app sees them."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from backgammon.server.security import csrf_refusal

from .conftest import make_client

warnings.filterwarnings("ignore", message=".*cookies.*")
PW = "pw-123456"
STATIC = Path(__file__).parents[2] / "src" / "backgammon" / "server" / "static"


@pytest.fixture
def victim(tmp_path):
    with make_client(tmp_path, test_hooks=True) as client:
        assert client.post("/api/register", json={"username": "vicky", "password": PW}).status_code == 200
        yield client


def test_a_text_plain_form_cannot_log_the_victim_in(victim):
    """A form on another site posting text/plain that looks like JSON (the login-CSRF of the issue)."""
    victim.cookies.clear()
    r = victim.post(
        "/api/login",
        content=b'{"username": "vicky", "password": "pw-123456", "x": "="}',
        headers={"content-type": "text/plain", "origin": "https://evil.example"},
    )
    assert r.status_code == 403 and "Origin 'https://evil.example' is not this site" in r.json()["error"]
    assert r.json()["code"] == "cross_site"
    assert "bg_session" not in r.cookies
    r = victim.post(  # the same without an Origin (a non-browser client): the content type alone refuses it
        "/api/login", content=b'{"username": "vicky", "password": "pw-123456"}', headers={"content-type": "text/plain"}
    )
    assert r.status_code == 415 and "unsupported content type 'text/plain'" in r.json()["error"]
    assert r.json()["code"] == "unsupported_content_type"
    assert r.headers["x-content-type-options"] == "nosniff"  # the security headers apply to refusals
    for kind in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"):
        r = victim.post("/api/login", content=b"username=vicky", headers={"content-type": kind})
        assert r.status_code == 415, kind
    r = victim.post("/api/login", content=b'{"username": "vicky", "password": "pw-123456"}')  # no type at all
    assert r.status_code == 415 and "content type none" in r.json()["error"]


def test_with_the_victims_cookie_a_foreign_origin_changes_nothing(victim):
    for origin in ("https://evil.example", "null", "http://testserver.evil.example", "http://testserver:8081"):
        for method, path in (("POST", "/api/tables"), ("POST", "/api/logout-all"), ("PUT", "/api/me/settings")):
            r = victim.request(method, path, json={"mode": "human", "name": "X"}, headers={"origin": origin})
            assert r.status_code == 403 and "cross-site request refused" in r.json()["error"], (origin, path)
    r = victim.post("/api/logout-all", headers={"referer": "https://evil.example/page.html"})
    assert r.status_code == 403 and "Referer 'https://evil.example'" in r.json()["error"]
    r = victim.post("/api/logout-all", headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    assert victim.get("/api/me").status_code == 200  # still logged in
    # the site's own pages (Origin or Referer of this host) work; GETs never need one
    assert (
        victim.post(
            "/api/tables", json={"mode": "human", "name": "X"}, headers={"origin": "http://testserver"}
        ).status_code
        == 200
    )
    r = victim.post("/api/logout-all", headers={"referer": "http://testserver/t/abc", "sec-fetch-site": "same-origin"})
    assert r.status_code == 200
    assert victim.get("/api/health", headers={"origin": "https://evil.example"}).status_code == 200


def test_csrf_refusal_rules():
    host = {"host": "bg.example"}
    assert csrf_refusal("GET", {**host, "origin": "https://evil.example"}) is None
    assert (
        csrf_refusal(
            "POST",
            {
                **host,
                "origin": "https://bg.example",
                "content-length": "2",
                "content-type": "application/json; charset=utf-8",
            },
        )
        is None
    )
    assert csrf_refusal("POST", {**host, "origin": "https://bg.example:443"}) is None  # no body: no type needed
    assert csrf_refusal("DELETE", {**host, "origin": "https://bg.example:8443"}) == (
        403,
        "cross-site request refused: Origin 'https://bg.example:8443' is not this site",
        "cross_site",
    )
    assert csrf_refusal("PATCH", {**host, "transfer-encoding": "chunked"})[0] == 415
    assert csrf_refusal("POST", {**host, "referer": "::not a url"})[0] == 403


def test_the_browser_sends_json_with_every_unsafe_fetch():
    """Every fetch of the static scripts that sends a body names application/json (else the CSRF
    check would refuse it); a bodiless POST needs none."""
    for script in STATIC.glob("*.js"):
        text = script.read_text()
        for call in re.finditer(r"fetch\(([^;]*?)\)\s*;", text, re.S):
            args = call.group(1)
            if "body:" in args:
                assert re.search(r"content-type", args, re.I) or "headers" in args, (script.name, args[:120])
