"""Issue 18's remaining flows in a real browser (Playwright + Debian Chromium): a money session is
ended, its dice seed shown and its review opened; the chouette move list; checkers that slide
(and do not under reduced motion or with animation off); the dark theme over whole pages, checked
with axe-core. At 1280x800 and 390x844.

Screenshots go to test_browser's temporary folder (``BACKGAMMON_SCREENSHOTS`` names another).
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import (
    SHORT,
    SHOTS,
    browser,
    center,
    click_point,
    confirm_dialog,
    open_table,
    point_selector,
    server,
    wait_version,
)
from .test_browser_play import page_with, short_table, state
from .test_browser_ux import DESKTOP, PHONE, axe_js, axe_violations, open_page, tables

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORTS = [DESKTOP, PHONE]
IDS = ["desktop", "phone"]
NOTATION = re.compile(r"^(\(no move\)|((bar|\d+)(/(\d+|off)\*?)+(\(\d\))?)( ((bar|\d+)(/(\d+|off)\*?)+(\(\d\))?))*)$")


def money_table(server) -> dict:
    body = {
        "mode": "ai",
        "level": "beginner",
        "seat": "white",
        "rules": {"match_length": 0},
        "start": {"position_id": SHORT, "on_roll": "white"},
    }
    return server.api("POST", "/api/tables", body)


def luminance(rgb: str) -> float:
    """Relative luminance of a CSS ``rgb(r, g, b)`` colour."""
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", rgb)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


# ------------------------------------------------------------ money session
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
def test_money_session_ends_reveals_the_seed_and_opens_its_review(browser, server, viewport):
    page = page_with(browser, server, viewport)
    table = money_table(server)
    open_table(page, server, table)
    st = _roll(page, server, table)  # a turn each first, so that the review has decisions to grade
    for a, b in moves_of(st)[0]:
        click_point(page, a)
        click_point(page, b)
    page.click("#act-confirm")
    wait_version(server, table["id"], st["version"] + 3, timeout=30)  # the computer rolled and moved
    page.wait_for_selector("#act-roll")
    assert page.locator("#act-end-session").count() == 1
    commitment = state(server, table)["fair_dice"]["commitment"]
    page.click("#act-end-session")  # asked first; "cancel" leaves the session going
    confirm_dialog(page, ok=False)
    page.wait_for_timeout(300)
    assert not state(server, table)["match"]["over"]
    page.click("#act-end-session")
    confirm_dialog(page)
    page.wait_for_selector("#result:not([hidden])")
    text = page.inner_text("#result")
    assert "Session over" in text and state(server, table)["table"]["names"]["white"] in text
    assert page.locator("#act-end-session").count() == 0 and page.locator("#act-roll").count() == 0
    fair = state(server, table)["fair_dice"]
    assert fair["revealed"] and fair["commitment"] == commitment
    assert fair["seed"] in page.inner_text("#fair-dice")  # the seed and the check, on the page
    assert "verify-dice" in page.inner_text("#fair-dice")
    page.wait_for_selector("#result-pr-values b.result-pr")  # the dialog's PR comes from the review
    page.screenshot(path=str(SHOTS / f"money-session-over-{viewport[0]}.png"))
    assert page.inner_text("#result-review") == "Review the session"
    page.click("#result-review")
    page.wait_for_selector("#review-list li")
    assert page.locator("#review-totals").count() == 1
    page.screenshot(path=str(SHOTS / f"money-session-review-{viewport[0]}.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]
    assert page.errors == []


def test_money_session_end_in_japanese(browser, server):
    page = page_with(browser, server, PHONE, lang="ja")
    table = money_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-end-session")
    assert page.inner_text("#act-end-session") == "セッション終了"
    page.click("#act-end-session")
    assert page.inner_text("#confirm-ok") == "セッション終了"
    confirm_dialog(page)
    page.wait_for_selector("#result:not([hidden])")
    assert "セッション終了" in page.inner_text("#result")
    assert page.inner_text("#result-review") == "セッションを検討"
    assert page.errors == []


# ------------------------------------------------------------------ chouette
@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
def test_chouette_move_list_each_play_once_in_standard_notation(browser, server, viewport):
    doc = server.api(
        "POST", "/api/chouette", {"name": "Ann", "seats": [{"bot": None}, {"bot": "greedy"}, {"bot": "greedy"}]}
    )
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "/static/chouette.html")
    page.evaluate(
        "d => { localStorage.setItem('bg.chouette.' + d.id, d.token);"
        " localStorage.setItem('bg.chouette.lang', 'en'); }",
        doc,
    )
    page.goto(f"{server.url}/static/chouette.html?id={doc['id']}")
    moved = 0
    for _ in range(40):  # Ann is the box: roll, play the first offered play; the computers answer
        page.wait_for_selector("#ch-controls button", timeout=30000)
        if page.locator("#ch-move").count():
            options = page.locator("#ch-move option").all_inner_texts()
            assert len(options) == len(set(options)), options  # no play twice
            assert all(NOTATION.match(o) for o in options), options
            page.click("button[data-action=play]")
            moved += 1
            page.wait_for_function("() => !document.querySelector('#ch-move')")
            if moved >= 2:
                break
        elif page.locator("button[data-action=roll]").count():
            page.click("button[data-action=roll]")
            page.wait_for_selector("#ch-move, button[data-action=take]", timeout=30000)
        elif page.locator("button[data-action=take]").count():
            page.click("button[data-action=take]")
        else:
            page.wait_for_timeout(200)
    assert moved >= 2
    page.wait_for_function("() => document.querySelectorAll('#ch-log li[data-kind=move]').length >= 3", timeout=30000)
    lines = page.locator("#ch-log li").all_inner_texts()
    assert len(lines) == len(set(lines)) or all(":" in x for x in lines)
    ann = [x for x in lines if x.startswith("Ann (box)")]
    assert len(ann) >= 2 and all(NOTATION.match(x.split(": ", 1)[1]) for x in ann), lines
    assert any(x.startswith("Computer") and "(team)" in x for x in lines), lines
    # the computers play their turn, then Ann is to roll again: nothing moves while we compare
    page.wait_for_selector("button[data-action=roll]", timeout=30000)
    entries = server.api("GET", f"/api/chouette/{doc['id']}")["log"]
    page.wait_for_function(f"() => document.querySelectorAll('#ch-log li').length >= {len(entries)}", timeout=10000)
    lines = page.locator("#ch-log li").all_inner_texts()
    entries = server.api("GET", f"/api/chouette/{doc['id']}")["log"]
    assert len(lines) == len(entries)  # one line per stored play or cube action, none repeated
    page.screenshot(path=str(SHOTS / f"chouette-moves-{viewport[0]}.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]
    assert errors == []


# ------------------------------------------------------------------ sliding
def _roll(page, server, table) -> dict:
    page.wait_for_selector("#act-roll")
    v = state(server, table)["version"]
    page.click("#act-roll")
    wait_version(server, table["id"], v + 1)
    page.wait_for_selector("#act-confirm")
    return state(server, table)


WATCH = """() => { window.__slides = []; const seen = new WeakSet();
    new MutationObserver(() => {
        for (const e of document.querySelectorAll('#board .sliding')) {
            if (seen.has(e)) continue;
            seen.add(e);
            const anims = e.getAnimations();
            window.__slides.push({side: e.dataset.side || null, tag: e.tagName,
                running: anims.filter(a => a.playState === 'running').length,
                keyframe: (anims[0] ? anims[0].effect.getKeyframes()[0].transform : null) || null});
        }
    }).observe(document.querySelector('#board'), {subtree: true, childList: true, attributes: true}); }"""


def _watch(page) -> None:
    """Record every checker slide the board starts from now on (its side, running CSS transform)."""
    page.evaluate(WATCH)


def _slides(page) -> list[dict]:
    return page.evaluate("() => window.__slides")


def _settled(page) -> None:
    """No checker is sliding any more (each slide lasts about 200 ms)."""
    page.wait_for_function(
        "() => !document.querySelector('#board .sliding')"
        " && document.getAnimations().filter(a => a.playState === 'running').length === 0",
        timeout=5000,
    )


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
def test_click_click_and_drop_slide_the_checker(browser, server, viewport):
    page = page_with(browser, server, viewport, animation="normal")
    table = short_table(server)
    open_table(page, server, table)
    st = _roll(page, server, table)
    _watch(page)
    (a, b), *_ = moves_of(st)[0]
    click_point(page, a)
    click_point(page, b)
    page.wait_for_function("() => window.__slides.length > 0")
    first = _slides(page)[0]
    # a checker (circle), or a chip in the tray (rect) when it bears off
    assert first["side"] == "me" and first["tag"] in ("circle", "rect") and first["running"] >= 1, first
    assert first["keyframe"].startswith("translate("), first
    _settled(page)  # and then the checker stands on its point
    if len(moves_of(st)[0]) > 1:  # the next step by drag and drop glides from where it was let go
        count = len(_slides(page))
        c, d = moves_of(st)[0][1]
        x0, y0 = center(page, point_selector(c))
        x1, y1 = center(page, point_selector(d))
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x1, y1 - 5, steps=6)
        page.mouse.up()
        page.wait_for_function(f"() => window.__slides.length > {count}")
        assert _slides(page)[count]["side"] == "me"
        _settled(page)
    page.screenshot(path=str(SHOTS / f"slide-{viewport[0]}.png"))
    assert page.errors == []


def test_the_computers_checkers_slide(browser, server):
    page = page_with(browser, server, DESKTOP, animation="normal")
    table = short_table(server)
    open_table(page, server, table)
    st = _roll(page, server, table)
    for a, b in moves_of(st)[0]:
        click_point(page, a)
        click_point(page, b)
    _watch(page)
    page.click("#act-confirm")
    wait_version(server, table["id"], st["version"] + 3, timeout=30)  # the computer rolled and moved
    page.wait_for_function("() => window.__slides.some(s => s.side === 'them' && s.running > 0)", timeout=10000)
    assert page.errors == []


def test_nothing_slides_under_reduced_motion_or_with_animation_off(browser, server):
    for page in (
        page_with(browser, server, DESKTOP, reduced_motion="reduce", animation="normal"),
        page_with(browser, server, DESKTOP, animation="off"),
    ):
        table = short_table(server)
        open_table(page, server, table)
        st = _roll(page, server, table)
        (a, b), *_ = moves_of(st)[0]
        _watch(page)
        click_point(page, a)
        click_point(page, b)
        page.wait_for_selector("#act-undo:not([disabled])")  # the step is on the board
        page.wait_for_timeout(100)
        assert _slides(page) == []
        assert page.evaluate("() => document.getAnimations().filter(a => a.playState === 'running').length") == 0
        assert page.errors == []


# ------------------------------------------------------------------ dark theme
DARK_PAGES = ["lobby", "table", "finished", "settings", "study", "lessons", "review", "game-review"]


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=IDS)
@pytest.mark.parametrize("name", DARK_PAGES)
def test_dark_theme_covers_the_page_and_passes_axe(browser, server, tables, axe_js, name, viewport):
    page = page_with(browser, server, viewport, bypass_csp=True, theme="dark")
    open_page(page, server, name, tables)
    assert page.evaluate("() => document.body.classList.contains('theme-dark')")
    colours = page.evaluate(
        """() => {
            const bg = (s) => {
                const e = document.querySelector(s);
                return e ? getComputedStyle(e).backgroundColor : null;
            };
            return {body: bg('body'), header: bg('header'),
                    panel: bg('main .card:not([hidden]), main .side, dialog[open]'), dialog: bg('dialog[open]')};
        }"""
    )
    assert luminance(colours["body"]) < 0.05 and luminance(colours["header"]) < 0.05, colours
    if colours["panel"]:
        assert luminance(colours["panel"]) < 0.06, colours
    if colours["dialog"]:
        assert luminance(colours["dialog"]) < 0.06, colours
    assert axe_violations(page, axe_js) == []
    page.screenshot(path=str(SHOTS / f"dark-{name}-{viewport[0]}.png"))
    assert page.errors == []


def test_dark_theme_on_the_chouette_page(browser, server, axe_js):
    page = page_with(browser, server, PHONE, bypass_csp=True, theme="dark")
    page.goto(server.url + "/static/chouette.html")
    page.wait_for_selector("#ch-seats li")
    assert page.evaluate("() => document.body.classList.contains('theme-dark')")
    assert luminance(page.evaluate("() => getComputedStyle(document.querySelector('.ch-card')).backgroundColor")) < 0.06
    assert axe_violations(page, axe_js) == []
    page.screenshot(path=str(SHOTS / "dark-chouette-390.png"))


def test_a_typed_move_slides_too(browser, server):
    page = page_with(browser, server, DESKTOP, animation="normal")
    table = short_table(server)
    open_table(page, server, table)
    st = _roll(page, server, table)
    steps = moves_of(st)[0]
    text = " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in steps)
    _watch(page)
    page.fill("#move-text", text)
    page.press("#move-text", "Enter")
    page.wait_for_function("() => window.__slides.some(s => s.side === 'me' && s.running > 0)", timeout=10000)
    wait_version(server, table["id"], st["version"] + 1)
    assert page.errors == []


def test_dark_theme_on_the_puzzles_page(browser, server, axe_js):
    page = page_with(browser, server, PHONE, bypass_csp=True, theme="dark")
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-message a[href='/']")  # a guest is asked to log in
    assert page.evaluate("() => document.body.classList.contains('theme-dark')")
    assert luminance(page.evaluate("() => getComputedStyle(document.body).backgroundColor")) < 0.05
    assert luminance(page.evaluate("() => getComputedStyle(document.querySelector('header')).backgroundColor")) < 0.05
    assert axe_violations(page, axe_js) == []
    page.screenshot(path=str(SHOTS / "dark-puzzles-390.png"))
    assert page.errors == []
