"""The game as a player meets it (issue 41), in real Chromium at 1280×800 and 390×844: every move
is seen (the last move's marks and dice stay until the next roll; the end of a game stays on the
board until the player asks for the next one), nothing irreversible happens on one click (resign,
double, pass ask first), the invitation greets a guest with Join on the first screen, spectators
get no chat box, and a Japanese player reads every message (a failed login, a wrong typed move, a
resignation) in Japanese, with no English text from the message files on the page.

Screenshots go to test_browser's temporary folder (``BACKGAMMON_SCREENSHOTS`` names another).
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHOTS, browser, click_point, confirm_dialog, new_page, open_table, server, wait_version
from .test_browser_play import page_with, press_on_page, short_table, state

pytestmark = pytest.mark.browser

DESKTOP = (1280, 800)
PHONE = (390, 844)
VIEWPORTS = [DESKTOP, PHONE]
IDS = ["desktop", "phone"]


def history(server, table: dict) -> list[dict]:
    return server.api("GET", f"/api/tables/{table['id']}/history")["entries"]


def play_our_turn(page, server, table: dict) -> dict:
    """Roll with the key, click the first legal play's steps, confirm; the state before the move."""
    press_on_page(page, "r")
    page.wait_for_selector("#act-confirm")
    st = state(server, table)
    for a, b in moves_of(st)[0]:
        click_point(page, a)
        click_point(page, b)
    page.click("#act-confirm")
    return st


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
def test_every_move_is_seen_and_the_end_of_a_game_stays_on_the_board(browser, server, viewport):
    page = page_with(browser, server, viewport)
    table = short_table(server)
    open_table(page, server, table)
    seen_computer_move = False
    for _turn in range(15):
        page.wait_for_selector("#act-roll, #result:not([hidden])", timeout=20_000)
        if page.locator("#result:not([hidden])").count():
            break
        st = state(server, table)
        last = st["game"]["last_move"]
        if last and last["player"] == "black":
            # the computer's move: its dice stay on its side of the board until we roll, and the
            # points its checkers left and reached are marked
            seen_computer_move = True
            assert page.locator("#board .die.last").count() == 2
            shown = sorted(
                int(v) for v in page.locator("#board .die.last").evaluate_all("ds => ds.map(d => d.dataset.value)")
            )
            assert shown == sorted(last["dice"])
            assert page.locator('#board [data-last-move="to"]').count() >= 1
            assert page.locator("#movelist li.latest").count() == 1
            assert "Computer" in page.inner_text("#movelist li.latest")
            page.screenshot(path=str(SHOTS / f"journey-last-move-{viewport[0]}.png"))
        play_our_turn(page, server, table)
        page.wait_for_selector("#board .die.last, #result:not([hidden])")  # our own move's dice stay too
    else:
        raise AssertionError("game 1 did not end")
    assert seen_computer_move
    # the game is over: the server is already in game 2, the page still shows game 1's end
    st = state(server, table)
    assert st["match"]["game_number"] == 2
    text = page.inner_text("#result")
    assert re.search(r"wins \d+ points?", text), text
    assert "Game 1" in page.inner_text("#matchinfo")
    off = {side: page.locator(f'#board .offchecker[data-side="{side}"]').count() for side in ("me", "them")}
    assert 15 in off.values(), off  # the final position: the winner's 15 checkers are off
    assert page.locator('#board [data-last-move="to"]').count() >= 1  # and the winning move is marked
    assert page.locator("#act-next-game").count() == 1
    page.screenshot(path=str(SHOTS / f"journey-game-end-{viewport[0]}.png"))
    page.wait_for_timeout(500)
    assert page.locator("#result:not([hidden])").count() == 1  # nothing moves on by itself
    page.click("#btn-result-ok")
    page.wait_for_function("() => document.querySelector('#matchinfo').textContent.includes('Game 2')")
    assert page.locator("#result").is_hidden()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]
    assert page.errors == []


def test_nothing_irreversible_happens_on_one_click(browser, server):
    page = page_with(browser, server, DESKTOP)
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-double")
    version = state(server, table)["version"]
    # doubling asks; cancelled, nothing is sent
    page.click("#act-double")
    assert "Double to 2" in page.inner_text("#confirm-text")
    confirm_dialog(page, ok=False)
    # resigning asks how much, with the points each level gives; cancelled, nothing is sent
    page.click("#act-resign")
    page.wait_for_selector("#dlg-confirm[open]")
    choices = page.locator("#confirm-choice label").all_inner_texts()
    assert [c.strip() for c in choices] == ["Single game (1 point)", "Gammon (2 points)", "Backgammon (3 points)"]
    page.screenshot(path=str(SHOTS / "journey-resign-dialog-1280.png"))
    confirm_dialog(page, ok=False)
    page.wait_for_timeout(300)
    assert state(server, table)["version"] == version
    assert not any(e["kind"] in ("double", "resign") for e in history(server, table))
    # a gammon, confirmed: the computer accepts, the result says 2 points
    page.click("#act-resign")
    page.check("#confirm-choice input[value=gammon]")
    confirm_dialog(page)
    page.wait_for_selector("#result:not([hidden])", timeout=20_000)
    assert "wins 2 points" in page.inner_text("#result")
    assert [e["raw"].get("level") for e in history(server, table) if e["kind"] == "resign"] == ["gammon"]
    # with confirmations off (a setting), doubling goes at once
    page2 = page_with(browser, server, DESKTOP, confirmActions=False)
    table2 = short_table(server)
    open_table(page2, server, table2)
    page2.wait_for_selector("#act-double")
    v2 = state(server, table2)["version"]
    page2.click("#act-double")
    wait_version(server, table2["id"], v2 + 1)
    assert page2.locator("#dlg-confirm[open]").count() == 0
    assert page.errors == [] and page2.errors == []


def test_the_invitation_greets_the_guest_and_spectators_get_no_chat_box(browser, server):
    host_table = server.api(
        "POST", "/api/tables", {"mode": "human", "name": "Hana", "seat": "white", "rules": {"match_length": 3}}
    )
    tid = host_table["id"]
    guest = new_page(browser, server, viewport=PHONE)
    guest.goto(f"{server.url}/t/{tid}")
    guest.wait_for_selector("#btn-join")
    assert guest.inner_text("#join-title") == "Join Hana's 3-point match"
    box = guest.locator("#btn-join").bounding_box()
    assert box["y"] + box["height"] <= PHONE[1]  # on the first screen of a phone
    status = guest.inner_text("#status")
    assert "Send them this link" not in status and "invited" in status
    assert guest.inner_text("#player-top") == "Waiting for a player (Black)"
    guest.screenshot(path=str(SHOTS / "journey-invitation-390.png"))
    guest.fill("#join-name", "Bob")
    guest.click("#btn-join")
    guest.wait_for_selector("text=Bob (Black) — you")
    # a spectator reads the chat but has no box to write in
    watcher = new_page(browser, server, viewport=DESKTOP)
    watcher.goto(f"{server.url}/t/{tid}")
    watcher.wait_for_selector("#chat:not([hidden])")
    assert watcher.locator("#chat-form").is_hidden()
    assert watcher.locator("#chat-text").is_hidden()
    guest.fill("#chat-text", "good luck")
    guest.press("#chat-text", "Enter")
    watcher.wait_for_selector("#chat-lines li:has-text('good luck')")
    assert guest.errors == [] and watcher.errors == []


ENGLISH_TEXTS = """async () => {
  const { MESSAGES } = await import('/static/i18n.js');
  return Object.entries(MESSAGES.en)
    .filter(([k, v]) => !v.includes('{') && /[a-z]{3,} [a-z]{3,}/i.test(v) && MESSAGES.ja[k] !== v)
    .map(([k, v]) => v);
}"""


def english_on_page(page) -> list[str]:
    """The English message texts (of two words or more) that show on the page."""
    texts = page.evaluate(ENGLISH_TEXTS)
    body = page.evaluate("() => document.body.innerText")
    return [t for t in texts if t in body]


def test_a_japanese_player_reads_every_message_in_japanese(browser, server):
    page = page_with(browser, server, PHONE, lang="ja")
    page.reload()
    page.wait_for_selector("#form-login")
    assert "パスワードは8文字以上" in page.inner_text("#password-rule")  # the rule, before any try
    page.fill("#form-login [name=username]", "nobody_here")
    page.fill("#form-login [name=password]", "wrong-password")
    page.click("#form-login button[type=submit]")
    page.wait_for_function("() => document.querySelector('#account-error').textContent.length > 0")
    assert page.inner_text("#account-error") == "ユーザー名またはパスワードが違います。"
    assert english_on_page(page) == []
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    press_on_page(page, "r")
    page.wait_for_selector("#act-confirm")
    for typed, expected in (
        ("hello", "「hello」は指し手として読めません"),
        ("13/7", "で13/7は指せません。"),  # white has no checker on 13 in this race (the roll comes first)
    ):
        page.fill("#move-text", typed)
        page.press("#move-text", "Enter")
        page.wait_for_function("t => document.querySelector('#flash').textContent.includes(t)", arg=expected)
        flash = page.inner_text("#flash")
        assert not re.search(r"illegal|invalid|position", flash, re.I), flash
    assert english_on_page(page) == []
    page.click("#act-resign")
    page.wait_for_selector("#dlg-confirm[open]")
    assert page.inner_text("#confirm-text") == "このゲームを投了しますか?失うポイントを選んでください:"
    assert page.inner_text("#confirm-ok") == "投了"
    page.screenshot(path=str(SHOTS / "journey-resign-ja-390.png"))
    assert english_on_page(page) == []
    confirm_dialog(page)
    page.wait_for_selector("#result:not([hidden])", timeout=20_000)
    assert "勝ち" in page.inner_text("#result")
    assert english_on_page(page) == []
    assert page.errors == []


PAGES = {
    "play": "/",
    "study": "/study",
    "puzzles": "/puzzles",
    "chouette": "/static/chouette.html",
    "dicestats": "/static/dicestats.html",
}


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
def test_one_header_on_every_page(browser, server, viewport):
    page = new_page(browser, server, viewport=viewport)
    for name, path in PAGES.items():
        page.goto(server.url + path)
        page.wait_for_selector("nav.site-nav #nav-play")
        texts = [x.strip() for x in page.locator("nav.site-nav > a, nav.site-nav > button").all_inner_texts()]
        assert texts[:4] == ["Play", "Study", "Puzzles", "Settings"], (name, texts)
        assert page.locator("nav.site-nav a.active").get_attribute("id") == f"nav-{name}"
        height = page.locator("header").bounding_box()["height"]
        if viewport == PHONE:
            assert height <= 64, (name, height)  # one row on a phone
        assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0], name
        page.screenshot(path=str(SHOTS / f"journey-header-{name}-{viewport[0]}.png"))
    # Settings from a study page opens the settings on the play page
    page.goto(server.url + "/study")
    page.click("#nav-settings")
    page.wait_for_selector("#dlg-settings[open]")
    assert page.errors == []
