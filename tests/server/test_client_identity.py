"""Client identity that cannot be forged (issue 42, item 1): forwarded headers only from configured
proxies, login limits per (account, address) counted before the hash, registrations per address."""

from __future__ import annotations

import threading
import time
import warnings
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from backgammon.errors import InvalidInputError
from backgammon.server import auth
from backgammon.server.app import ServerConfig, create_app
from backgammon.server.serving import ServeOptions, parse_trusted_proxies

from ._servers import Server

warnings.filterwarnings("ignore", message=".*cookies.*")
PW = "pw-123456"


def _client(tmp_path: Path, address: str = "203.0.113.1", app=None, **kwargs) -> TestClient:
    kwargs.setdefault("warm_engine", False)
    app = app or create_app(ServerConfig(data_dir=tmp_path, bot_delay=0.0, **kwargs))
    return TestClient(app, client=(address, 50000))


def _login(client: TestClient, name: str, password: str, **headers: str) -> int:
    return client.post("/api/login", json={"username": name, "password": password}, headers=headers).status_code


# ------------------------------------------------------------ counted before the hash
def test_concurrent_wrong_guesses_run_at_most_the_limit_of_hashes(tmp_path, monkeypatch):
    """60 guesses at once with the limit at 5: at most 5 passwords are hashed, all the others are 429
    (before: all 60 were checked, the limit being counted after the hash)."""
    checked = []
    real = auth.verify_password

    def slow_verify(password: str, stored: str) -> bool:
        checked.append(password)
        time.sleep(0.05)  # every guess is in flight while the first ones hash
        return real(password, stored)

    with _client(tmp_path, auth_attempts_per_minute=1000, auth_failures_per_minute=5) as client:
        assert client.post("/api/register", json={"username": "vera", "password": PW}).status_code == 200
        monkeypatch.setattr(auth, "verify_password", slow_verify)
        codes: list[int] = []
        start = threading.Barrier(60)

        def guess(i: int) -> None:
            start.wait()
            codes.append(_login(client, "vera", PW if i == 59 else f"wrong-{i:04d}"))

        threads = [threading.Thread(target=guess, args=(i,)) for i in range(60)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(codes) == 60
    assert len(checked) <= 5, len(checked)
    assert codes.count(429) >= 55 and set(codes) <= {200, 401, 429}


# ------------------------------------------------------------ no lock-out by a stranger
def test_a_stranger_cannot_lock_the_owner_out(tmp_path):
    app = create_app(ServerConfig(data_dir=tmp_path, bot_delay=0.0, warm_engine=False))
    with _client(tmp_path, "198.51.100.7", app=app) as owner, _client(tmp_path, "203.0.113.66", app=app) as stranger:
        assert owner.post("/api/register", json={"username": "wanda", "password": PW}).status_code == 200
        codes = [_login(stranger, "wanda", f"guess-{i}") for i in range(8)]
        assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
        r = stranger.post("/api/login", json={"username": "wanda", "password": PW})
        assert r.status_code == 429 and "from your address" in r.json()["error"]  # even the right one, from there
        assert _login(owner, "wanda", PW) == 200  # the owner's address has no failures


def test_registrations_are_limited_per_address(tmp_path):
    app = create_app(
        ServerConfig(data_dir=tmp_path, warm_engine=False, auth_attempts_per_minute=1000, registrations_per_hour=3)
    )
    with _client(tmp_path, "192.0.2.10", app=app) as one, _client(tmp_path, "192.0.2.11", app=app) as other:
        codes = [one.post("/api/register", json={"username": f"reg{i}", "password": PW}) for i in range(5)]
        assert [r.status_code for r in codes] == [200] * 3 + [429] * 2
        assert "too many registrations from your address" in codes[-1].json()["error"]
        assert other.post("/api/register", json={"username": "reg9", "password": PW}).status_code == 200


# ------------------------------------------------------------ forwarded headers
def test_forwarded_for_counts_only_behind_a_trusted_proxy(tmp_path):
    """Behind a trusted proxy (uvicorn's middleware, as serve --forwarded-allow-ips installs it) each
    X-Forwarded-For is its own client; from anyone else the header changes nothing."""
    app = create_app(ServerConfig(data_dir=tmp_path, warm_engine=False, auth_attempts_per_minute=3))
    proxied = ProxyHeadersMiddleware(app, trusted_hosts=["10.0.0.5"])
    with _client(tmp_path, "10.0.0.5", app=proxied) as proxy, _client(tmp_path, "10.0.0.9", app=proxied) as forger:
        rotating = [_login(forger, "nobody", PW, **{"x-forwarded-for": f"198.18.0.{i}"}) for i in range(5)]
        assert rotating == [401] * 3 + [429] * 2  # one bucket: the forger's own address
        assert [_login(proxy, "nobody", PW, **{"x-forwarded-for": f"198.18.1.{i}"}) for i in range(5)] == [401] * 5


def test_serve_ignores_forwarded_headers_unless_the_proxy_is_named(tmp_path):
    """A real serve: without --forwarded-allow-ips, X-Forwarded-For from loopback is ignored (uvicorn
    trusted it by default); with --forwarded-allow-ips 127.0.0.1 it names the client, and
    X-Forwarded-Proto: https makes the session cookie Secure."""
    for trusted in (False, True):
        server = Server(tmp_path, f"d{trusted}", extra=["--forwarded-allow-ips", "127.0.0.1"] if trusted else [])
        try:
            with httpx.Client(base_url=server.http) as http:
                codes = [
                    http.post(
                        "/api/login",
                        json={"username": "nobody", "password": PW},
                        headers={"x-forwarded-for": f"198.18.0.{i}"},
                    ).status_code
                    for i in range(12)
                ]
                r = http.post(
                    "/api/register",
                    json={"username": "xena", "password": PW},
                    headers={"x-forwarded-for": "198.18.9.9", "x-forwarded-proto": "https"},
                )
        finally:
            server.stop()
        if trusted:
            assert codes == [401] * 12
            assert r.status_code == 200 and "secure" in r.headers["set-cookie"].lower()
        else:
            assert codes == [401] * 10 + [429] * 2  # every forged address in one bucket: 127.0.0.1's
            assert r.status_code == 429


def test_trusted_proxies_option():
    assert parse_trusted_proxies(None) == ()
    assert parse_trusted_proxies("127.0.0.1, 10.0.0.0/8,::1") == ("127.0.0.1", "10.0.0.0/8", "::1")
    with pytest.raises(InvalidInputError, match="--forwarded-allow-ips entry 'localhost'"):
        parse_trusted_proxies("localhost")
    off = ServeOptions().uvicorn_kwargs()
    assert off["proxy_headers"] is False  # no middleware at all: loopback is not trusted either
    on = ServeOptions(forwarded_allow_ips=("10.0.0.5",)).uvicorn_kwargs()
    assert on["proxy_headers"] is True and on["forwarded_allow_ips"] == ["10.0.0.5"]
