"""The match review in a real browser (Playwright + Debian Chromium), at 1280x800 and 390x844:
the winning-chances chart with luck marks, PR by player, the biggest mistakes (clicking one shows
its position), no horizontal scroll on a phone; and the end-of-match dialog with both players' PR.
Screenshots go where test_browser.SHOTS says.
"""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHOTS, browser, server, shot
from .test_study_browser import _finished_race

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}


def _played_match(server, length=3):
    """A human match from the opening, each side playing the first legal play; White doubles at
    its first chance and Black takes. Returns the table's id."""
    table = server.api("POST", "/api/tables", {"mode": "human", "name": "Ann", "rules": {"match_length": length}})
    tid = table["id"]
    tokens = {"white": table["token"], "black": server.api("POST", f"/api/tables/{tid}/join", {"name": "Bob"})["token"]}
    doubled = False
    for _ in range(3000):
        st = server.api("GET", f"/api/tables/{tid}")
        if st["match"]["over"]:
            return tid
        turn = st["game"]["turn"]
        st = server.api("GET", f"/api/tables/{tid}", token=tokens[turn])
        allowed = st["allowed"]
        if "move" in allowed:
            body = {"action": "move", "steps": moves_of(st)[0] if moves_of(st) else []}
        elif "take" in allowed:
            body = {"action": "take"}
        elif "double" in allowed and turn == "white" and not doubled:
            body, doubled = {"action": "double"}, True
        elif "roll" in allowed:
            body = {"action": "roll"}
        else:
            body = {"action": allowed[0]}
        server.api("POST", f"/api/tables/{tid}/actions", body, token=tokens[turn])
    raise AssertionError("the match did not finish")


def _page(browser, server, viewport, lang="en"):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/study/lessons")
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", {"lang": lang, "animation": "off"})
    return page


@pytest.fixture(scope="module")
def reviewed(server):
    tid = _played_match(server)
    review = server.api("POST", f"/api/study/reviews/{tid}")
    return tid, review


@pytest.mark.parametrize("kind", list(VIEWPORTS))
def test_review_page_draws_the_chart_and_the_mistakes(browser, server, reviewed, kind):
    tid, review = reviewed
    page = _page(browser, server, VIEWPORTS[kind])
    page.goto(f"{server.url}/study/review/{tid}")
    page.wait_for_selector("#review-charts svg.win-chart path.chart-line")
    assert page.locator("#review-charts svg.win-chart").count() == len(review["games"]) >= 1
    lucky = page.locator("#review-charts .luck-mark.luck-good").count()
    unlucky = page.locator("#review-charts .luck-mark.luck-bad").count()
    rolls = sum(1 for g in review["games"] for p in g["points"] if p["luck"] is not None)
    assert lucky + unlucky == rolls > 0 and lucky > 0 and unlucky > 0
    # the line has one vertex per decision of the game
    d = page.locator("#review-charts svg.win-chart path.chart-line").first.get_attribute("d")
    assert d.count("L") + 1 == len(review["games"][0]["points"])
    # PR per player, overall, checker and cube
    totals = page.inner_text("#review-totals")
    for p in review["players"].values():
        assert p["name"] in totals and f"{p['pr']:.1f}" in totals and f"{p['pr_checker']:.1f}" in totals
    assert "Checker PR" in totals and "Cube PR" in totals
    # the biggest mistakes: at most five a player, the largest first
    lists = page.locator("#review-mistakes ol.mistake-list")
    assert lists.count() == 2
    for i in range(2):
        assert 1 <= lists.nth(i).locator("li").count() <= 5
    first = page.locator("#review-mistakes li.mistake").first
    i = int(first.get_attribute("data-i"))
    decision = review["decisions"][i]
    mine = [x["error"] for x in review["decisions"] if x["player"] == decision["player"]]
    assert decision["error"] == max(mine)
    text = first.inner_text()
    assert decision["chosen"] in text and decision["best"] in text and f"{decision['error']:.3f}" in text
    first.click()
    page.wait_for_selector(f'#review-list li.current[data-i="{i}"]')
    page.wait_for_selector(f'#review-charts circle.chart-dot.current[data-decision="{i}"]')
    caption = "w => document.querySelector('#review-caption').textContent.includes(w)"
    page.wait_for_function(caption, arg=decision["best"])
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS["phone"][0]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"review-{kind}.png"), full_page=True)
    # tapping the chart at a decision's column selects that decision
    column = page.locator("#review-charts rect.chart-hit").nth(2)
    j = int(column.get_attribute("data-decision"))
    column.click()
    page.wait_for_selector(f'#review-list li.current[data-i="{j}"]')
    page.wait_for_selector(f'#review-charts circle.chart-dot.current[data-decision="{j}"]')
    assert page.errors == []


def test_review_page_in_japanese(browser, server, reviewed):
    tid, _ = reviewed
    page = _page(browser, server, VIEWPORTS["phone"], lang="ja")
    page.goto(f"{server.url}/study/review/{tid}")
    page.wait_for_selector("#review-charts figcaption")
    assert "勝率" in page.inner_text("#review-charts figcaption >> nth=0")
    assert "大きなミス" in page.inner_text("#view-review")
    assert "チェッカー PR" in page.inner_text("#review-totals")
    assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS["phone"][0]
    assert page.errors == []


@pytest.mark.parametrize("kind", list(VIEWPORTS))
def test_end_of_match_dialog_shows_both_prs(browser, server, kind):
    tid = _finished_race(server)
    page = _page(browser, server, VIEWPORTS[kind])
    page.goto(f"{server.url}/t/{tid}")
    page.wait_for_selector("#result:not([hidden]) #result-review")
    page.wait_for_selector("#result .result-pr[data-side=Black]", timeout=30_000)
    review = server.api("GET", f"/api/study/reviews/{tid}")  # the dialog made it
    shown = {side: page.inner_text(f"#result .result-pr[data-side={side}]") for side in ("White", "Black")}
    assert shown == {side: f"{review['players'][side]['pr']:.1f}" for side in ("White", "Black")}
    text = page.inner_text("#result")
    assert "Ann" in text and "Bob" in text and "PR" in text
    if len(review["games"][-1]["points"]) > 1:
        assert page.locator("#result svg.win-chart path.chart-line").count() == 1
    if kind == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= VIEWPORTS["phone"][0]
    shot(page, f"result-dialog-{kind}.png")
    assert page.errors == []
