"""Finding a game in Chromium: two pages press quick-pair and land at the same table (at 1280×800
and 390×844, and in Japanese); the home page lists the player's unfinished games when they come back
through the site's own link, and the games in progress to watch. Screenshots go to SHOTS."""

from __future__ import annotations

import json
import re

import httpx
import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._servers import Server as Process
from ._wire import moves_of
from .test_browser import SHOTS, Server, browser, new_page, shot
from .test_browser_ux import axe_js, axe_violations, page_at

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The site, answering before its engine is warm: nobody here plays the computer."""
    srv = Server(tmp_path_factory.mktemp("bgdata"), engine=False)
    srv.start()
    yield srv
    srv.kill()


DESKTOP, PHONE = (1280, 800), (390, 844)


def home(browser, server, viewport, lang="en"):
    page = new_page(browser, server, {"lang": lang}, viewport=viewport)
    page.reload()
    page.wait_for_selector("#form-pair")
    return page


def go_home(page) -> None:
    """Back to the home page through the site's own link: the brand (a wide screen) or Play (a phone)."""
    page.click("#home-link" if page.is_visible("#home-link") else "#nav-play")
    page.wait_for_selector("#view-home:not([hidden])")


def seat_of(page, table: str) -> dict:
    return json.loads(page.evaluate("id => localStorage.getItem('bg.seat.' + id)", table))


def pair_two(browser, server, viewport, length: str, lang="en", name: str = ""):
    first, second = home(browser, server, viewport, lang), home(browser, server, viewport, lang)
    for page, who in ((first, "Ann"), (second, "Bob")):
        page.select_option("#form-pair select[name=length]", length)
        page.fill("#form-pair input[name=name]", f"{who}{name}")
    first.click("#btn-pair")
    first.wait_for_selector("#pair-wait:not([hidden])")
    assert first.is_hidden("#btn-pair")
    first.wait_for_function("() => /\\d/.test(document.querySelector('#pair-elapsed').textContent)")
    shot(first, f"pair-waiting-{viewport[0]}-{lang}.png")
    second.click("#btn-pair")
    for page in (second, first):  # the newcomer at once; the waiting page at its next poll
        page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"), timeout=15_000)
        page.wait_for_selector("#board .checker")
    table = first.url.rsplit("/", 1)[1]
    assert second.url.rsplit("/", 1)[1] == table
    seats = {seat_of(first, table)["seat"], seat_of(second, table)["seat"]}
    assert seats == {"white", "black"}
    for page in (first, second):
        state = server.api("GET", f"/api/tables/{table}", token=seat_of(page, table)["token"])
        assert state["you"] in ("white", "black") and state["table"]["status"] == "playing"
        assert state["match"]["length"] == int(length)
    return first, second, table


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_pages_quick_pair_and_land_at_one_table(browser, server, viewport):
    length = "3" if viewport == DESKTOP else "7"
    first, second, table = pair_two(browser, server, viewport, length)
    shot(first, f"pair-landed-{viewport[0]}.png")
    # back home through the site's own link: the game is listed to go back to, with the player's turn
    go_home(first)
    first.wait_for_selector(f"#my-games li[data-id='{table}'] a.resume-link")
    row = first.locator(f"#my-games li[data-id='{table}']")
    assert "Bob" in row.inner_text()
    # and anyone sees it among the games to watch, with both names and the score
    watcher = home(browser, server, viewport)
    watcher.wait_for_selector(f"#live-games li[data-id='{table}']")
    text = watcher.locator(f"#live-games li[data-id='{table}']").inner_text()
    assert "Ann" in text and "Bob" in text and "0–0" in text
    shot(first, f"home-{viewport[0]}.png")
    shot(watcher, f"home-watcher-{viewport[0]}.png")
    watcher.click(f"#live-games li[data-id='{table}'] a.watch-link")
    watcher.wait_for_url(re.compile(f"/t/{table}$"))
    watcher.wait_for_selector("#board .checker")
    first.click(f"#my-games li[data-id='{table}'] a.resume-link")
    first.wait_for_url(re.compile(f"/t/{table}$"))
    first.wait_for_selector("#board .checker")
    for page in (first, second, watcher):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
        page.context.close()


def test_quick_pair_in_japanese_and_cancel(browser, server):
    page = home(browser, server, DESKTOP, "ja")
    assert page.inner_text("#btn-pair") == "相手を探す"
    page.select_option("#form-pair select[name=length]", "11")
    page.click("#btn-pair")
    page.wait_for_selector("#pair-wait:not([hidden])")
    wait_text = page.inner_text("#pair-wait")
    assert "対戦相手を探しています" in wait_text and "11ポイント" in wait_text
    page.click("#btn-pair-cancel")
    page.wait_for_selector("#btn-pair:not([hidden])")
    assert page.is_hidden("#pair-wait")
    # cancelled: someone who wants the same now waits rather than being seated with nobody
    alone = server.api("POST", "/api/pair", {"length": 11, "clock": 0})
    assert alone["status"] == "waiting"
    server.api("DELETE", f"/api/pair/{alone['id']}", token=alone["token"])
    first, second, table = pair_two(browser, server, PHONE, "9", lang="ja", name="さん")
    go_home(first)
    first.wait_for_selector(f"#my-games li[data-id='{table}']")
    text = first.inner_text("#view-home")
    assert "あなたの対局" in text and "観戦できる対局" in text and "再開" in text
    shot(first, "home-390-ja.png")
    for p in (page, first, second):
        assert not p.errors, p.errors  # type: ignore[attr-defined]
        p.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_home_page_with_its_lists_passes_axe_in_every_theme(browser, server, axe_js, viewport):
    ann = server.api("POST", "/api/pair", {"length": 13, "clock": 5, "name": "Ann"})
    bob = server.api("POST", "/api/pair", {"length": 13, "clock": 5, "name": "Bob"})
    server.api(
        "POST", "/api/tables", {"mode": "human", "rules": {"match_length": 5}, "listed": True, "clock": {"minutes": 10}}
    )
    table = bob["table"]
    for theme in ("classic", "dark", "high-contrast"):
        page = page_at(browser, server, viewport, bypass_csp=True)
        page.evaluate(
            "d => { localStorage.setItem('bg.settings', JSON.stringify({lang: 'en', theme: d.theme}));"
            " localStorage.setItem('bg.seat.' + d.id, JSON.stringify({token: d.token, seat: d.seat})); }",
            {"theme": theme, "id": table, "token": bob["token"], "seat": bob["seat"]},
        )
        page.reload()
        page.wait_for_selector(f"#my-games li[data-id='{table}'] a.resume-link")
        page.wait_for_selector(f"#live-games li[data-id='{table}']")
        page.wait_for_selector("#lobby li.lobby-entry")
        assert "10 minutes each" in page.inner_text("#lobby")
        assert axe_violations(page, axe_js) == [], theme
        shot(page, f"home-{viewport[0]}-{theme}.png")
        page.context.close()
    assert ann["status"] == "waiting"


def test_an_account_resumes_a_game_started_in_another_browser(browser, server):
    page = home(browser, server, PHONE)
    made = page.evaluate(
        """async () => {
            const post = (path, body) => fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json'},
                                                      body: JSON.stringify(body)}).then((r) => r.json());
            await post('/api/register', {username: 'petra', password: 'pw-123456'});
            return post('/api/tables', {mode: 'human', rules: {match_length: 3}, name: 'x'});  // its token is not kept
        }"""
    )
    page.reload()
    row = f"#my-games li[data-id='{made['id']}']"
    page.wait_for_selector(row)
    assert "started in another browser" in page.inner_text(row)
    page.click(f"{row} a.resume-link")
    page.wait_for_url(re.compile(f"/t/{made['id']}$"))
    held = seat_of(page, made["id"])
    assert held["seat"] == made["seat"] and held["token"] != made["token"]
    assert server.api("GET", f"/api/tables/{made['id']}", token=held["token"])["you"] == made["seat"]
    assert not page.errors, page.errors  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_pages_on_two_processes_quick_pair_and_play(browser, tmp_path, fresh_database, viewport):
    """Ann's page is served by one process and Bob's by another (one PostgreSQL database): both press
    quick-pair, land at the same table, and a move made on one page shows on the other."""
    from types import SimpleNamespace

    one = Process(tmp_path, "one", database_url=fresh_database, engine=False)
    try:
        two = Process(tmp_path, "two", database_url=fresh_database, engine=False)
    except BaseException:
        one.kill()
        raise
    try:
        sites = [SimpleNamespace(url=one.http), SimpleNamespace(url=two.http)]
        ann, bob = (home(browser, site, viewport) for site in sites)
        for page, who in ((ann, "Ann"), (bob, "Bob")):
            page.select_option("#form-pair select[name=length]", "5")
            page.fill("#form-pair input[name=name]", who)
        ann.click("#btn-pair")
        ann.wait_for_selector("#pair-wait:not([hidden])")
        bob.click("#btn-pair")
        for page in (bob, ann):
            page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"), timeout=30_000)
            page.wait_for_selector("#board .checker")
        table = ann.url.rsplit("/", 1)[1]
        assert bob.url.rsplit("/", 1)[1] == table and ann.url.startswith(one.http) and bob.url.startswith(two.http)
        seats = {seat_of(ann, table)["seat"]: ann, seat_of(bob, table)["seat"]: bob}
        assert set(seats) == {"white", "black"}
        # whoever is on roll moves, on the page its own process serves; the other page sees the move
        state = httpx_get(one.http, table, seat_of(ann, table)["token"])
        mover = seats[state["game"]["turn"]]
        other = bob if mover is ann else ann
        token = seat_of(mover, table)["token"]
        if state["game"]["dice"] is None:
            mover.click("#act-roll")
        mover.wait_for_selector("#act-confirm")
        state = httpx_get(one.http, table, token)
        before = other.evaluate(MOVE_LIST)
        text = " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in moves_of(state)[0])
        mover.fill("#move-text", text)
        mover.press("#move-text", "Enter")  # a typed move is played at once
        other.wait_for_function(f"b => ({MOVE_LIST})() !== b", arg=before, timeout=30_000)
        other.wait_for_selector('#board [data-last-move="to"]')
        shot(other, f"pair-two-processes-{viewport[0]}.png")
        for page in (ann, bob):
            assert not page.errors, page.errors  # type: ignore[attr-defined]
            page.context.close()
    finally:
        one.kill()
        two.kill()


MOVE_LIST = "() => document.querySelector('#movelist').textContent"


def httpx_get(base: str, table: str, token: str) -> dict:
    r = httpx.get(f"{base}/api/tables/{table}", headers={"x-seat-token": token}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()
