"""Whole matches as a player meets them (issue 41's journeys), in real Chromium:

- a whole 3-point match against the computer, started from the home page's form, played by clicking
  (roll, the checkers, confirm; take when the computer doubles), every game's end read on the board
  and the next game asked for, until the match is won; at 1280×800 in English and 390×844 in Japanese;
- two people at a table with a spectator: the invitation, chat, a reload in the middle of the game,
  the end of the match and a rematch that seats both again.

The moves are the first legal play the server lists (the tests do not play well; they play like a
person who clicks). Screenshots go to test_browser's folder (``BACKGAMMON_SCREENSHOTS`` names another).
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from ._wire import moves_of
from .test_browser import SHOTS, browser, click_point, new_page, server, shot, wait_version
from .test_browser_journey import english_on_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]
_ = (browser, server)  # fixtures

DESKTOP, PHONE = (1280, 800), (390, 844)
BUSY = "#act-roll, #act-confirm, #act-take, #act-next-game, #result:not([hidden])"


def seat(page, table: str) -> dict:
    return json.loads(page.evaluate("id => localStorage.getItem('bg.seat.' + id)", table))


def table_state(server, page, table: str) -> dict:
    return server.api("GET", f"/api/tables/{table}", token=seat(page, table)["token"])


def take_turn(page, server, table: str) -> str:
    """Do what the page asks of the player now; say what it was ("roll" when there is no move before it
    to show, "roll, the last move marked" or "roll, the last move not marked", "move", "take", "next",
    "over")."""
    try:
        page.wait_for_selector(BUSY, timeout=60_000)
    except PlaywrightTimeout:
        shot(page, "whole-match-stuck.png")
        st = table_state(server, page, table)
        controls = page.inner_html("#controls")
        raise AssertionError(f"nothing to do on the page: {st['game']}, controls {controls!r}") from None
    if page.locator("#result:not([hidden])").count():
        if table_state(server, page, table)["match"]["over"]:
            return "over"
        page.click("#btn-result-ok")
        return "next"
    if page.locator("#act-next-game").count():
        page.click("#act-next-game")
        return "next"
    version = table_state(server, page, table)["version"]
    if page.locator("#act-take").count():
        page.click("#act-take")
        wait_version(server, table, version + 1, 30)
        return "take"
    if page.locator("#act-roll").count():
        last = table_state(server, page, table)["game"]["last_move"]
        if last and last["steps"]:  # a move to show (not a dance): marked once its checkers have slid
            try:
                page.wait_for_selector("#board [data-last-move]", timeout=5_000)
                did = "roll, the last move marked"
            except PlaywrightTimeout:
                did = "roll, the last move not marked"
        else:
            did = "roll"  # the game's first roll, or the other side could not move
        page.click("#act-roll")
        wait_version(server, table, version + 1, 30)  # rolled (a roll with no play passes the turn by itself)
        return did
    st = table_state(server, page, table)
    for a, b in moves_of(st)[0]:
        click_point(page, a)
        click_point(page, b)
    page.click("#act-confirm")
    wait_version(server, table, version + 1, 30)  # the server took the move (the next turn is decided)
    return "move"


@pytest.mark.parametrize(("viewport", "lang"), [(DESKTOP, "en"), (PHONE, "ja")], ids=["desktop-en", "phone-ja"])
def test_a_whole_three_point_match_against_the_computer(browser, server, viewport, lang):
    page = new_page(browser, server, {"lang": lang}, viewport=viewport)
    page.reload()
    page.wait_for_selector("#form-ai")
    page.select_option("#form-ai select[name=level]", "beginner")
    page.select_option("#form-ai select[name=seat]", "white")
    page.select_option("#form-ai select[name=match_length]", "3")
    page.click("#form-ai button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    page.wait_for_selector("#board .checker")
    table = page.url.rsplit("/", 1)[1]
    assert table_state(server, page, table)["match"]["length"] == 3
    kinds = ("move", "next", "take", "roll", "roll, the last move marked", "roll, the last move not marked")
    seen = dict.fromkeys(kinds, 0)
    for _ in range(1500):
        did = take_turn(page, server, table)
        if did == "over":
            break
        seen[did] += 1
        if did == "next":
            shot(page, f"whole-match-game-{seen['next']}-{viewport[0]}-{lang}.png")
    else:
        raise AssertionError("the match did not end")
    st = table_state(server, page, table)
    assert st["match"]["over"] and max(st["match"]["score"].values()) >= 3, st["match"]
    # every roll after a move shows that move (the computer's) still marked
    assert seen["move"] >= 10 and seen["roll, the last move marked"] >= 5, seen
    assert seen["roll, the last move not marked"] == 0, seen
    result = page.inner_text("#result")
    assert page.locator("#act-rematch").count() == 1 and page.locator("#btn-result-rematch").count() == 1
    shot(page, f"whole-match-over-{viewport[0]}-{lang}.png")
    if lang == "ja":
        assert "勝ち" in result, result
        assert english_on_page(page) == []
    else:
        assert re.search(r"Match over: .+ wins \d+–\d+\.", result), result
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]
    assert page.errors == []


def test_two_people_a_spectator_chat_a_reload_and_a_rematch(browser, server):
    host = new_page(browser, server, viewport=DESKTOP)
    host.reload()
    host.wait_for_selector("#form-human")
    host.fill("#form-human input[name=name]", "Hana")
    host.select_option("#form-human select[name=seat]", "white")
    host.select_option("#form-human select[name=match_length]", "1")
    host.click("#form-human button[type=submit]")
    host.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    table = host.url.rsplit("/", 1)[1]
    guest = new_page(browser, server, viewport=PHONE)
    guest.goto(f"{server.url}/t/{table}")
    guest.wait_for_selector("#btn-join")
    assert "Hana" in guest.inner_text("#join-title")
    guest.fill("#join-name", "Bob")
    guest.click("#btn-join")
    guest.wait_for_selector("text=Bob (Black) — you")
    watcher = new_page(browser, server, viewport=DESKTOP)
    watcher.goto(f"{server.url}/t/{table}")
    watcher.wait_for_selector("#chat:not([hidden])")
    assert watcher.locator("#chat-form").is_hidden()
    host.fill("#chat-text", "good luck, Bob")
    host.press("#chat-text", "Enter")
    for page in (guest, watcher):
        page.wait_for_selector("#chat-lines li:has-text('good luck, Bob')")
    players = {"white": host, "black": guest}
    reloaded = False
    for turn in range(800):
        st = table_state(server, host, table)
        if st["match"]["over"]:
            break
        page = players.get(st["game"]["turn"])
        if page is None:  # between two states: wait for the next one
            host.wait_for_timeout(100)
            continue
        did = take_turn(page, server, table)
        if did == "move" and not reloaded and turn > 6:
            guest.reload()  # a reload in the middle of the game: the seat and the board come back
            guest.wait_for_selector("#board .checker")
            guest.wait_for_selector("text=Bob (Black) — you")
            reloaded = True
    else:
        raise AssertionError("the match did not end")
    assert reloaded
    for page in (host, guest, watcher):
        page.wait_for_selector("#result:not([hidden])", timeout=30_000)
    shot(watcher, "two-people-over-watcher-1280.png")
    shot(guest, "two-people-over-guest-390.png")
    # both ask for a rematch and meet at the new table; the spectator stays at the old one
    host.click("#btn-result-rematch")
    guest.click("#btn-result-ok")  # the result box closed, the controls below it offer the rematch
    guest.wait_for_function("() => /accept/i.test(document.querySelector('#act-rematch')?.textContent || '')")
    guest.click("#act-rematch")
    for page in (host, guest):
        page.wait_for_url(lambda url: not url.endswith(table), timeout=30_000)
        page.wait_for_selector("#board .checker")
    assert host.url == guest.url
    new = host.url.rsplit("/", 1)[1]
    assert {seat(host, new)["seat"], seat(guest, new)["seat"]} == {"white", "black"}
    shot(guest, "two-people-rematch-390.png")
    assert host.errors == [] and guest.errors == [] and watcher.errors == []
    assert (SHOTS / "two-people-rematch-390.png").exists()
