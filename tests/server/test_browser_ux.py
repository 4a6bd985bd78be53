"""The web UI's fit and finish in a real browser (Playwright + Debian Chromium): every page fits a
390 px phone, the rules of a table are on show, controls that do not apply are hidden, small
broken flows stay fixed, and axe-core finds no serious or critical accessibility violation.

Screenshots go to test_browser's temporary folder (``BACKGAMMON_SCREENSHOTS=docs/screenshots`` refreshes the
README's: lobby and table at 1280x800 and 390x844).
axe-core comes from the npm registry into a temporary folder, once per session.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.lessons import get_lesson
from backgammon.position import Position

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHOTS, browser, click_point, open_table, server
from .test_study_browser import _finished_race

pytestmark = pytest.mark.browser

PHONE = (390, 844)
DESKTOP = (1280, 800)


# ------------------------------------------------------------------ helpers
def table(server, **rules) -> dict:
    body = {"mode": "ai", "seat": "white", "level": "beginner", "rules": {"match_length": 5, **rules}}
    return server.api("POST", "/api/tables", body)


def human_table(server, **rules) -> dict:
    body = {"mode": "human", "seat": "white", "name": "Ann", "listed": True, "rules": {"match_length": 5, **rules}}
    return server.api("POST", "/api/tables", body)


def page_at(browser, server, viewport, lang="en", bypass_csp=False):
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]}, locale="en-US", bypass_csp=bypass_csp
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    page.evaluate(
        "s => localStorage.setItem('bg.settings', JSON.stringify(s))",
        {"animation": "off", "autoForced": False, "lang": lang},
    )
    return page


def open_page(page, server, name: str, tables: dict) -> None:
    """Open one of the pages by name and wait until it has drawn."""
    if name == "lobby":
        page.goto(server.url + "/")
        page.wait_for_selector("#lobby li")
    elif name == "table":
        open_table(page, server, tables["ai"])
        page.wait_for_selector("#controls button")
    elif name == "settings":
        page.goto(server.url + "/")
        page.wait_for_selector("#lobby li")
        page.click("#btn-settings")
        page.wait_for_selector("#dlg-settings[open]")
    elif name == "study":
        page.goto(server.url + "/study")
        page.wait_for_selector("#board polygon")
    elif name == "lessons":
        page.goto(server.url + "/study/lessons")
        page.wait_for_selector("#lesson-list a")
    elif name == "lesson":
        page.goto(server.url + "/study/lessons/bar-entry")
        page.wait_for_selector("#lesson-board polygon")
    elif name == "review":
        page.goto(server.url + "/study/review")
        page.wait_for_selector("#review-pick:not([hidden])")
    elif name == "game-review":
        page.goto(server.url + f"/study/review/{tables['finished']}")
        page.wait_for_selector("#review-list li")
    elif name == "invite":
        open_table(page, server, tables["listed"])
        page.wait_for_selector("#share:not([hidden])")
    elif name == "finished":
        page.goto(server.url + f"/t/{tables['finished']}")
        page.wait_for_selector("#result:not([hidden])")
    elif name == "chouette":
        page.goto(server.url + "/static/chouette.html")
        page.wait_for_load_state("networkidle")
    elif name == "dicestats":
        page.goto(server.url + "/static/dicestats.html")
        page.wait_for_load_state("networkidle")
    elif name == "upload":
        page.goto(server.url + "/upload")
        page.wait_for_selector("#up-form")
        page.wait_for_load_state("networkidle")
    elif name == "puzzles":
        page.goto(server.url + "/puzzles")
        page.wait_for_load_state("networkidle")
    else:  # pragma: no cover
        raise AssertionError(name)


PAGES = [
    "lobby",
    "table",
    "invite",
    "finished",
    "settings",
    "study",
    "lessons",
    "lesson",
    "review",
    "game-review",
    "chouette",
    "dicestats",
    "upload",
]


@pytest.fixture(scope="module")
def tables(server):
    finished = _finished_race(server)
    server.api("POST", f"/api/study/reviews/{finished}", {})
    return {"ai": table(server), "listed": human_table(server, crawford=True, jacoby=False), "finished": finished}


@pytest.fixture(scope="session")
def axe_js(tmp_path_factory) -> Path:
    npm = shutil.which("npm")
    assert npm, "npm is needed to fetch axe-core"
    folder = tmp_path_factory.mktemp("axe")
    subprocess.run(
        [npm, "install", "axe-core@4", "--prefix", str(folder), "--no-audit", "--no-fund", "--silent"],
        check=True,
        timeout=300,
    )
    path = folder / "node_modules" / "axe-core" / "axe.min.js"
    assert path.exists()
    return path


# ------------------------------------------------------------------ 1. phone layout
@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_a_phone(browser, server, tables, name):
    page = page_at(browser, server, PHONE)
    open_page(page, server, name, tables)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE[0], f"{name}: {width} px wide in a {PHONE[0]} px viewport"
    assert page.errors == []


@pytest.mark.parametrize("name", ["lobby", "table", "settings", "lesson"])
def test_japanese_pages_fit_a_narrow_phone(browser, server, tables, name):
    page = page_at(browser, server, (360, 740), lang="ja")
    open_page(page, server, name, tables)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"{name}: {width} px wide in a 360 px viewport"


def test_phone_board_scales_and_controls_are_big_enough(browser, server, tables):
    page = page_at(browser, server, PHONE)
    open_page(page, server, "table", tables)
    box = page.locator("#board").bounding_box()
    assert 300 <= box["width"] <= PHONE[0]
    for sel in ["#controls button", "header nav a", "header nav button", "#btn-prev", "#btn-next"]:
        for i in range(page.locator(sel).count()):
            b = page.locator(sel).nth(i).bounding_box()
            if b is None:  # hidden
                continue
            assert b["height"] >= 44 and b["width"] >= 44, f"{sel} #{i} is {b['width']}x{b['height']}"
    page.screenshot(path=str(SHOTS / "table-phone.png"))
    page = page_at(browser, server, PHONE)
    open_page(page, server, "lobby", tables)
    for sel in [".lobby-join", "#form-ai button", "#form-ai select", "#form-login button"]:
        b = page.locator(sel).first.bounding_box()
        assert b["height"] >= 44 and b["width"] >= 44, f"{sel} is {b['width']}x{b['height']}"
    page.screenshot(path=str(SHOTS / "lobby-phone.png"), full_page=True)


def test_desktop_screenshots(browser, server, tables):
    page = page_at(browser, server, DESKTOP)
    open_page(page, server, "lobby", tables)
    page.screenshot(path=str(SHOTS / "lobby-desktop.png"))
    open_page(page, server, "table", tables)
    page.screenshot(path=str(SHOTS / "table-desktop.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP[0]
    # the pip counts beside the trays say whose they are, on chips of each side's colour
    mine = page.text_content("#board .pips-me title")
    theirs = page.text_content("#board .pips-them title")
    assert mine.startswith("Your pip count: ") and theirs.startswith("Your opponent's pip count: ")
    assert mine.endswith(page.text_content("#board .pips-me text"))
    fills = page.locator("#board .pips rect").evaluate_all("rs => rs.map(r => r.getAttribute('fill'))")
    assert len(set(fills)) == 2
    assert (SHOTS / "table-desktop.png").stat().st_size > 10_000


# ------------------------------------------------------------------ 2. rules on show
def lobby_tags(page, table_id: str) -> list[str]:
    sel = f"#lobby li.lobby-entry[data-id='{table_id}'] .rule-tags li"
    page.wait_for_selector(sel)
    return [x.strip() for x in page.locator(sel).all_inner_texts()]


def test_rules_on_show_in_the_lobby_and_the_table_header(browser, server, tables):
    money = human_table(server, match_length=0, jacoby=True, beavers=True, automatic_doubles=2, backgammon_value=2)
    casual = human_table(server, match_length=7, casual=True)
    page = page_at(browser, server, DESKTOP)
    page.goto(server.url + "/")
    assert lobby_tags(page, money["id"]) == [
        "Money session",
        "Cube",
        "Jacoby",
        "Beavers",
        "Automatic doubles: up to 2",
        "Backgammon ×2",
        "No clock",  # the lobby names the clock after the rules
    ]
    assert lobby_tags(page, tables["listed"]["id"]) == [
        "5-point match",
        "Cube",
        "Crawford",
        "Backgammon ×3",
        "No clock",
    ]
    assert lobby_tags(page, casual["id"]) == [
        "7-point match",
        "No cube",
        "Backgammon ×3",
        "Casual (draws allowed)",
        "No clock",
    ]
    # the table header shows the same
    open_table(page, server, money)
    page.wait_for_selector("#table-rules li")
    assert page.locator("#table-rules li").all_inner_texts()[:3] == ["Money session", "Cube", "Jacoby"]
    # and in Japanese
    ja = page_at(browser, server, PHONE, lang="ja")
    ja.goto(server.url + "/")
    assert lobby_tags(ja, casual["id"]) == [
        "7ポイントマッチ",
        "キューブなし",
        "バックギャモン3倍",
        "カジュアル(引き分けあり)",
        "なし",  # (no clock)
    ]
    no_crawford = table(server, crawford=False)
    open_table(ja, server, no_crawford)
    ja.wait_for_selector("#table-rules li")
    assert "クロフォードなし" in ja.locator("#table-rules li").all_inner_texts()
    assert ja.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


# ------------------------------------------------------------------ 3. controls that do not apply
def _late() -> str:
    """White to roll in a short race (so the cube question comes up at once)."""
    return Position.from_points({1: 2}, {6: 10}).position_id()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE])
def test_no_double_button_in_a_one_point_match_or_casual_mode(browser, server, viewport):
    start = {"position_id": _late(), "on_roll": "white"}
    shown = {}
    for name, rules in [
        ("3", {"match_length": 3}),
        ("1", {"match_length": 1}),
        ("casual", {"match_length": 3, "casual": True}),
    ]:
        tb = server.api("POST", "/api/tables", {"mode": "ai", "seat": "white", "rules": rules, "start": start})
        page = page_at(browser, server, viewport)
        open_table(page, server, tb)
        page.wait_for_selector("#act-roll")
        shown[name] = page.locator("#act-double").count()
        if name != "3":
            assert "double" not in page.inner_text("#status").lower()
    assert shown == {"3": 1, "1": 0, "casual": 0}


# ------------------------------------------------------------------ 4. small broken flows
def test_a_stale_illegal_move_message_clears_on_the_next_state(browser, server):
    tb = server.api(
        "POST",
        "/api/tables",
        {
            "mode": "ai",
            "seat": "white",
            "rules": {"match_length": 3},
            "start": {"position_id": _late(), "on_roll": "white"},
        },
    )
    page = page_at(browser, server, DESKTOP)
    open_table(page, server, tb)
    page.click("#act-roll")
    page.wait_for_selector("#act-confirm")
    st = server.api("GET", f"/api/tables/{tb['id']}", token=tb["token"])
    source = moves_of(st)[0][0][0]
    reachable = {seq[0][1] for seq in moves_of(st) if seq[0][0] == source}
    bad = next(p for p in range(24, 0, -1) if p not in reachable and p != source)
    click_point(page, source)
    click_point(page, bad)
    page.wait_for_selector("#flash:has-text('not legal')")
    # record what #flash says whenever the status line is redrawn (each new state redraws it)
    page.evaluate(
        """() => { window.flashAtStatus = [];
        new MutationObserver(() => window.flashAtStatus.push(document.querySelector('#flash').textContent))
          .observe(document.querySelector('#status'), {childList: true, characterData: true, subtree: true}); }"""
    )
    body = {"action": "move", "steps": moves_of(st)[0], "version": st["version"]}
    server.api("POST", f"/api/tables/{tb['id']}/actions", body, token=tb["token"])
    page.wait_for_function("() => window.flashAtStatus.length > 0")
    assert page.evaluate("window.flashAtStatus[0]") == ""


def test_supremo_is_offered_and_named(browser, server):
    page = page_at(browser, server, DESKTOP)
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    assert "supremo" in page.locator("#form-ai [name=level] option").evaluate_all("os => os.map(o => o.value)")
    tb = server.api(
        "POST", "/api/tables", {"mode": "ai", "seat": "white", "level": "supremo", "rules": {"match_length": 1}}
    )
    open_table(page, server, tb)
    page.wait_for_selector("#player-top:has-text('Supremo')")


def test_invite_link_is_explained_and_labelled(browser, server):
    tb = human_table(server)
    page = page_at(browser, server, PHONE)
    open_table(page, server, tb)
    page.wait_for_selector("#share:not([hidden])")
    text = page.inner_text("#share")
    assert "Send them this link" in text and "takes the free seat" in text
    assert page.get_attribute("#share-link", "aria-label") == "Invitation link"
    assert page.input_value("#share-link").endswith(f"/t/{tb['id']}")


def test_a_lesson_gives_a_second_try_before_the_answer(browser, server):
    lesson = get_lesson("bar-entry")
    answer = str(lesson.exercises[1].answers[0])  # "Only bar/22 is legal here" is the text of a wrong answer
    page = page_at(browser, server, DESKTOP)
    page.goto(server.url + f"/study/lessons/{lesson.id}")
    page.wait_for_function("() => document.querySelector('#lesson-count').textContent.includes('1')")
    page.fill("#lesson-play", str(lesson.exercises[0].answers[0]))
    page.click("#lesson-submit")
    page.wait_for_selector("#lesson-feedback.right")
    page.click("#lesson-next")
    page.wait_for_function("() => document.querySelector('#lesson-count').textContent.includes('2')")
    wrong = "bar/19"  # the 6 is blocked
    page.fill("#lesson-play", wrong)
    page.click("#lesson-submit")
    page.wait_for_selector("#lesson-feedback.wrong")
    first = page.inner_text("#lesson-feedback")
    assert "try" in first.lower()
    assert answer not in first and "Engine" not in first  # the answer is not given away
    assert page.locator("#lesson-next").is_hidden()
    page.fill("#lesson-play", wrong)
    page.click("#lesson-submit")
    page.wait_for_function(f"() => document.querySelector('#lesson-feedback').textContent.includes({answer!r})")
    # the right answer still counts after that
    page.fill("#lesson-play", answer)
    page.click("#lesson-submit")
    page.wait_for_selector("#lesson-feedback.right")
    assert page.errors == []


# ------------------------------------------------------------------ 5. axe-core
AXE_PAGES = [*PAGES, "puzzles"]
THEMES = ["classic", "dark", "high-contrast"]  # static/theme.js
SET_THEME = """t => {
  const saved = JSON.parse(localStorage.getItem('bg.settings') || '{}');
  localStorage.setItem('bg.settings', JSON.stringify({ ...saved, theme: t }));
}"""


def axe_violations(page, axe_js: Path) -> list[str]:
    page.add_script_tag(path=str(axe_js))
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:5])
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("name", AXE_PAGES)
def test_axe_finds_no_serious_violation_in_any_theme(browser, server, tables, axe_js, name):
    """Every page in each of the three themes (desktop), and on a phone in the default theme."""
    found = {}
    for theme, viewport in [*((t, DESKTOP) for t in THEMES), ("classic", PHONE)]:
        page = page_at(browser, server, viewport, bypass_csp=True)
        page.evaluate(SET_THEME, theme)
        open_page(page, server, name, tables)
        assert page.evaluate("t => document.body.classList.contains('theme-' + t)", theme), (name, theme)
        found[f"{theme} {viewport[0]}"] = axe_violations(page, axe_js)
        page.context.close()
    assert all(v == [] for v in found.values()), found


def test_presence_notice_and_rematch_in_the_browser(browser, server):
    """Ann's page says when Bob is not connected; after the match both ask for a rematch through
    the button and meet at the new table."""
    made = server.api(
        "POST", "/api/tables", {"mode": "human", "name": "Ann", "rules": {"match_length": 1, "cube": False}}
    )
    joined = server.api("POST", f"/api/tables/{made['id']}/join", {"name": "Bob"})
    ann, bob = page_at(browser, server, DESKTOP), page_at(browser, server, DESKTOP)
    open_table(ann, server, made)
    # Bob away since before Ann came: the game is adjourned (no countdown); the rule is on the table
    ann.wait_for_function("() => document.querySelector('#status').textContent.includes('has not come back')")
    assert "60 s to reconnect" in ann.inner_text("#table-rules")
    open_table(bob, server, joined)
    ann.wait_for_function("() => !document.querySelector('#status').textContent.includes('come back')")
    # Bob drops: a countdown while he may reconnect; he comes back and the notice goes
    bob.goto(server.url + "/")
    ann.wait_for_function("() => /dropped: waiting 0:[0-9]{2}/.test(document.querySelector('#status').textContent)")
    first = ann.inner_text("#status")
    ann.screenshot(path=str(SHOTS / "presence-countdown.png"))
    ann.wait_for_timeout(2200)
    assert ann.inner_text("#status") != first  # it counts down
    open_table(bob, server, joined)
    ann.wait_for_function("() => !document.querySelector('#status').textContent.includes('dropped')")
    # end the match: whoever is to act resigns, the other accepts
    st = server.api("GET", f"/api/tables/{made['id']}")
    tokens = {"white": made["token"], "black": joined["token"]}
    mover = st["game"]["turn"]
    if "roll" in server.api("GET", f"/api/tables/{made['id']}", token=tokens[mover])["allowed"]:
        server.api("POST", f"/api/tables/{made['id']}/actions", {"action": "roll"}, token=tokens[mover])
    server.api(
        "POST", f"/api/tables/{made['id']}/actions", {"action": "resign", "level": "single"}, token=tokens[mover]
    )
    other = "black" if mover == "white" else "white"
    server.api("POST", f"/api/tables/{made['id']}/actions", {"action": "accept_resignation"}, token=tokens[other])
    ann.wait_for_selector("#controls #act-rematch")
    ann.click("#controls #act-rematch")
    ann.wait_for_url(lambda url: made["id"] not in url)
    new_id = ann.url.rsplit("/", 1)[-1]
    bob.wait_for_function("() => document.querySelector('#controls #act-rematch')?.textContent.includes('Accept')")
    bob.click("#controls #act-rematch")
    bob.wait_for_url(f"**/t/{new_id}")
    state = server.api("GET", f"/api/tables/{new_id}")
    assert state["table"]["status"] == "playing" and state["table"]["names"] == {"white": "Ann", "black": "Bob"}
    assert not ann.errors and not bob.errors


def test_chat_at_a_table_between_people(browser, server):
    """Two players chat; a line with markup is shown as text; muting hides the other player's lines."""
    made = server.api("POST", "/api/tables", {"mode": "human", "name": "Ann", "rules": {"match_length": 3}})
    joined = server.api("POST", f"/api/tables/{made['id']}/join", {"name": "Bob"})
    ann, bob = page_at(browser, server, PHONE), page_at(browser, server, DESKTOP)
    open_table(ann, server, made)
    open_table(bob, server, joined)
    ann.fill("#chat-text", "<img src=x onerror=alert(1)> good luck")
    ann.press("#chat-text", "Enter")
    bob.wait_for_function("() => document.querySelector('#chat-lines').textContent.includes('good luck')")
    assert bob.locator("#chat-lines img").count() == 0
    assert "<img src=x onerror=alert(1)> good luck" in bob.inner_text("#chat-lines")
    ann.screenshot(path=str(SHOTS / "chat-phone.png"))
    ann.check("#chat-mute")
    bob.fill("#chat-text", "thanks")
    bob.click("#chat-form button")
    bob.wait_for_function("() => document.querySelector('#chat-lines').textContent.includes('thanks')")
    ann.reload()
    ann.wait_for_function("() => document.querySelector('#chat-lines').textContent.includes('good luck')")
    assert "thanks" not in ann.inner_text("#chat-lines")  # muted: Bob's line is hidden, Ann's own shown
    assert ann.evaluate("() => document.documentElement.scrollWidth") <= PHONE[0]
    assert not ann.errors and not bob.errors
