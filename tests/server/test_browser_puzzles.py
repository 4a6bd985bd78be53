"""Puzzles from the player's own games in a real browser (Playwright + Debian Chromium), at 1280x800
and 390x844: a logged-in player finishes a race with wasteful plays, the puzzles page lists the
errors (the review is made on the way), one puzzle is solved by clicking the checkers (desktop) or
typing the move (phone), a wrong answer gets a second try, axe-core finds no serious or critical
violation, and the phone page does not scroll sideways. Screenshots go where test_browser.SHOTS says.
"""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from backgammon.moves import find_play
from backgammon.position import Position

from ._wire import moves_of
from .test_browser import SHOTS, browser, center, server, shot
from .test_browser_ux import DESKTOP, PHONE, axe_js, axe_violations
from .test_puzzles_api import RACE

pytestmark = [pytest.mark.browser, pytest.mark.slow]
_ = (browser, server, axe_js)  # fixtures


def _page(browser, server, viewport, bypass_csp=True, orientation="bottom-right"):
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]}, locale="en-US", bypass_csp=bypass_csp
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/puzzles")
    page.evaluate(
        "s => localStorage.setItem('bg.settings', JSON.stringify(s))",
        {"lang": "en", "animation": "off", "orientation": orientation},
    )
    return page


def _fetch(page, method, path, body=None):
    """A request from the page (with its session cookie): [status, JSON]."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                         body: body === null ? undefined : JSON.stringify(body)});
            return [r.status, await r.json()];
        }""",
        [method, path, body],
    )


def _race_with_errors(server, page):
    """A finished 1-point race: a guest (White) against the page's logged-in player (Black), both
    bearing off as few checkers as they can. The table's id."""
    table = server.api(
        "POST",
        "/api/tables",
        {"mode": "human", "name": "Guest", "rules": {"match_length": 1}, "start": {"position_id": RACE}},
    )
    tid = table["id"]
    status, joined = _fetch(page, "POST", f"/api/tables/{tid}/join", {})
    assert status == 200, joined
    tokens = {"white": table["token"], "black": joined["token"]}
    for _ in range(100):
        st = server.api("GET", f"/api/tables/{tid}")
        if st["match"]["over"]:
            return tid
        tok = tokens[st["game"]["turn"]]
        st = server.api("GET", f"/api/tables/{tid}", token=tok)
        if "move" in st["allowed"]:
            steps = min(moves_of(st), key=lambda seq: sum(1 for s in seq if s[1] == 0))
            server.api("POST", f"/api/tables/{tid}/actions", {"action": "move", "steps": steps}, tok)
        else:
            server.api("POST", f"/api/tables/{tid}/actions", {"action": st["allowed"][0]}, tok)
    raise AssertionError("the race did not finish")


def _logged_in_with_puzzles(browser, server, viewport, username, orientation):
    page = _page(browser, server, viewport, orientation=orientation)
    status, doc = _fetch(page, "POST", "/api/register", {"username": username, "password": "pw-123456"})
    assert status == 200, doc
    for _ in range(5):  # the dice decide how much the wasteful plays cost
        _race_with_errors(server, page)
        status, doc = _fetch(page, "GET", "/api/puzzles?limit=100", None)
        assert status == 200, doc
        plays = [p for p in doc["puzzles"] if p["kind"] == "play"]
        if plays:
            return page, plays
    raise AssertionError("wasting checkers in a race must make a puzzle")


def _best(server, puzzle):
    doc = server.api("POST", "/api/study/analyze", {"setup": puzzle["setup"], "depth": puzzle["depth"]})
    return doc["plays"][0]["play"]


def _click(page, p):
    selector = "#pz-board .my-tray" if p == 0 else f'#pz-board polygon[data-point="{p}"]'
    x, y = center(page, selector)
    page.mouse.click(x, y)


@pytest.mark.parametrize("kind", ["desktop", "phone"])
def test_solve_a_puzzle(browser, server, axe_js, kind):
    viewport = DESKTOP if kind == "desktop" else PHONE
    # the player's own board orientation: home board bottom right (desktop) or bottom left (phone)
    orientation = "bottom-right" if kind == "desktop" else "bottom-left"
    page, plays = _logged_in_with_puzzles(browser, server, viewport, f"pz{kind}", orientation)
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-list li a.pz-open")
    assert "Score: 0 (" in page.locator("#pz-score").inner_text()
    shot(page, f"puzzles-list-{kind}.png")
    assert axe_violations(page, axe_js) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]

    target = plays[0]
    page.locator(f'#pz-list a[href="/puzzles/{target["id"]}"]').click()
    page.wait_for_selector("#pz-board .checker")
    puzzle = _fetch(page, "GET", f"/api/puzzles/{target['id']}", None)[1]
    assert page.locator("#pz-prompt").inner_text().startswith("You rolled")
    board = page.locator("#pz-board").bounding_box()
    ace = page.locator('#pz-board polygon[data-point="1"]').bounding_box()
    assert (ace["x"] > board["x"] + board["width"] / 2) == (orientation == "bottom-right")
    assert ace["y"] > board["y"] + board["height"] / 2
    # a wrong answer first (the player's own play in the game): a second try, the answer not shown
    review = server.api("GET", f"/api/study/reviews/{target['table_id']}")
    original = next(
        d["chosen"] for d in review["decisions"] if f"{target['table_id']}.{d['game']}.{d['index']}" == target["id"]
    )
    page.fill("#pz-play", original)
    page.click("#pz-submit")
    page.wait_for_selector("#pz-feedback.wrong")
    assert "Try again" in page.locator("#pz-feedback").inner_text()
    assert "Best" not in page.locator("#pz-feedback").inner_text()

    best = _best(server, puzzle)
    if kind == "desktop":  # click-click each die's step of the best play
        position = Position.from_position_id(puzzle["setup"]["position_id"])
        play = find_play(position, *puzzle["setup"]["dice"], best)
        for step in play.steps:
            _click(page, step.source)
            _click(page, step.destination)
        whole = page.input_value("#pz-play")
        assert whole == str(play)  # the whole play: the server's text of it
        page.click("#pz-undo")  # Undo takes back the last checker moved, as on the table page
        assert page.input_value("#pz-play") != whole
        _click(page, play.steps[-1].source)
        _click(page, play.steps[-1].destination)
        assert page.input_value("#pz-play") == whole
    else:
        page.fill("#pz-play", best)
    page.click("#pz-submit")
    page.wait_for_selector("#pz-feedback.right")
    text = page.locator("#pz-feedback").inner_text()
    assert "Right!" in text and f"Best: {best}" in text and "0-ply cubeful" in text
    assert "which lost" in text
    assert "Score: 1 (" in page.locator("#pz-score2").inner_text()
    shot(page, f"puzzles-solved-{kind}.png")
    assert axe_violations(page, axe_js) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
    page.click("#pz-next")
    page.wait_for_selector("#pz-list-view:not([hidden]), #pz-view:not([hidden]) #pz-board .checker")
    assert page.errors == []


def test_a_guest_is_asked_to_log_in(browser, server, axe_js):
    page = _page(browser, server, PHONE)
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-message a[href='/']")
    assert "Log in" in page.locator("#pz-message").inner_text()
    assert axe_violations(page, axe_js) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    # Japanese
    page.select_option("#lang", "ja")
    page.wait_for_function("document.querySelector('#pz-message').innerText.includes('ログイン')")
    shot(page, "puzzles-guest-phone-ja.png")
    assert page.errors == []
    assert SHOTS.exists()


def test_cube_puzzle_is_answered_with_buttons(browser, server):
    """A cube error (doubling far behind in a 3-point match) is asked as "double or not?", answered
    with the buttons: a second try, then the answer. Under the site's Content-Security-Policy
    (not bypassed here): no violation."""
    from .test_browser_xss import assert_clean, watched

    far_behind = Position.from_points({10: 3, 8: 3, 6: 3, 5: 3, 4: 3}, {1: 2}).position_id()
    page = watched(_page(browser, server, DESKTOP, bypass_csp=False))
    status, doc = _fetch(page, "POST", "/api/register", {"username": "pzcube", "password": "pw-123456"})
    assert status == 200, doc
    table = server.api(
        "POST",
        "/api/tables",
        {
            "mode": "human",
            "name": "Guest",
            "rules": {"match_length": 3},
            "start": {"position_id": far_behind, "on_roll": "black"},
        },
    )
    tid = table["id"]
    black = _fetch(page, "POST", f"/api/tables/{tid}/join", {})[1]["token"]
    server.api("POST", f"/api/tables/{tid}/actions", {"action": "double"}, black)
    server.api("POST", f"/api/tables/{tid}/actions", {"action": "take"}, table["token"])
    for _ in range(50):
        st = server.api("GET", f"/api/tables/{tid}")
        if st["match"]["over"]:
            break
        tok = {"white": table["token"], "black": black}[st["game"]["turn"]]
        st = server.api("GET", f"/api/tables/{tid}", token=tok)
        body = {"action": "move", "steps": moves_of(st)[0]} if "move" in st["allowed"] else {"action": st["allowed"][0]}
        server.api("POST", f"/api/tables/{tid}/actions", body, tok)
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-list li a.pz-open")
    page.locator("#pz-list li", has_text="Double or not?").locator("a.pz-open").click()
    page.wait_for_selector("#pz-choices button")
    assert page.locator("#pz-choices button").all_inner_texts() == ["Double", "No double"]
    assert page.locator("#pz-form").is_hidden()
    page.click("#pz-choices button[data-choice='double']")
    page.wait_for_selector("#pz-feedback.wrong")
    page.click("#pz-choices button[data-choice='no double']")
    page.wait_for_selector("#pz-feedback.right")
    text = page.locator("#pz-feedback").inner_text()
    assert "In the game you chose Double" in text and "cubeful match" in text
    shot(page, "puzzles-cube-desktop.png")
    assert_clean(page)
