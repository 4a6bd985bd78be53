"""The study pages in a real browser (Playwright + Debian Chromium): an analysis from a pasted
XGID with a tactical check and a tiny rollout, a lesson answered wrong then right, and a
finished game reviewed with an error marked on the board. Screenshots go where test_browser.SHOTS says.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from backgammon.lessons import get_lesson
from backgammon.position import Position

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHOTS, browser, server

pytestmark = pytest.mark.browser

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
RACE = Position.from_points({6: 2, 5: 2, 4: 2, 3: 2}, {6: 4, 5: 4, 4: 3}).position_id()


def page_for(browser, server, lang="en"):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/study/lessons")
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", {"lang": lang})
    return page


def click_point(page, svg, point):
    box = page.locator(f'{svg} polygon[data-point="{point}"]').bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def paste_opening(page) -> None:
    """Paste the 5-2 opening and wait until the page has taken it. The page starts on the initial position (the
    same board and IDs, no dice), so only the dice tell that the pasted position has arrived."""
    page.fill("#paste-text", OPENING_52)
    page.click("#paste button[type=submit]")
    page.wait_for_function("() => ['#die1', '#die2'].map((d) => document.querySelector(d).value).join() === '5,2'")


def test_analysis_from_pasted_xgid(browser, server):
    page = page_for(browser, server)
    page.goto(server.url + "/study")
    paste_opening(page)
    page.wait_for_function("() => document.querySelector('#id-xgid').textContent.startsWith('XGID=-b----E-C')")
    assert page.text_content("#id-pos") == "4HPwATDgc/ABMA"
    assert page.input_value("#die1") == "5" and page.input_value("#die2") == "2"
    # the engine's list is hidden until the user has chosen a play (tactical check)
    assert page.locator("#analysis").is_hidden()
    for point in (13, 11, 13, 8):  # make 13/11 13/8 on the board
        click_point(page, "#board", point)
    assert page.input_value("#play-text") == "13/11 13/8"
    page.click("#btn-check")
    page.wait_for_selector("#check-result:not([hidden])")
    assert "good" in page.text_content("#check-result").lower()
    page.wait_for_selector("#plays tr.mine")
    rows = page.locator("#plays tr").count()
    assert rows == 1 + len(Position.initial().legal_plays(5, 2))
    assert "13/11 13/8" in page.text_content("#plays tr.mine")
    # a tiny rollout of the best two, with a progress bar, off the request path
    page.select_option("#rollout-top", "2")
    page.select_option("#rollout-trials", "36")
    page.select_option("#rollout-ply", "1")
    page.click("#btn-rollout")
    page.wait_for_selector("#rollout-table tr:nth-child(3)", timeout=180_000)
    # the rows come at once (the job may first wait for a free worker): wait for the finished status,
    # which says the trials chose their plays at 1-ply
    page.wait_for_function(
        "() => document.querySelector('#rollout-status').textContent.includes('1-ply')", timeout=180_000
    )
    assert "±" in page.text_content("#rollout-table") or "95" in page.text_content("#rollout-status")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "study-analysis.png"), full_page=True)
    # editing changes the IDs: take one of our checkers off the 24-point
    page.select_option("#click-mode", "remove")
    before = page.text_content("#id-pos")
    click_point(page, "#board", 24)
    page.wait_for_function(f"() => document.querySelector('#id-pos').textContent !== {json.dumps(before)}")
    assert page.locator("#analysis").is_hidden()  # a new position: the old analysis is gone
    assert page.errors == []


def test_an_illegal_clicked_step_is_refused_with_a_message(browser, server):
    """Issue 16, item 6: the server checks each clicked step; one no legal play starts with is undone."""
    page = page_for(browser, server)
    page.goto(server.url + "/study")
    paste_opening(page)
    page.wait_for_function("() => document.querySelector('#id-pos').textContent === '4HPwATDgc/ABMA'")
    for point in (6, 3):  # 6/3: there is no 3 in 5-2
        click_point(page, "#board", point)
    page.wait_for_function("() => document.querySelector('#analysis-error').textContent.includes('not possible')")
    assert page.text_content("#analysis-error") == "6/3 is not possible with 5-2."  # the page's words for its code
    assert page.input_value("#play-text") == ""  # the step is undone: the board shows the setup again
    for point in (13, 11, 13, 8):  # then a legal play goes through, and the message goes away
        click_point(page, "#board", point)
    page.wait_for_function("() => document.querySelector('#analysis-error').textContent === ''")
    assert page.input_value("#play-text") == "13/11 13/8"
    page.click("#btn-undo-play")  # Undo takes back the last checker moved (clickplay.js, as on the table page)
    assert page.input_value("#play-text") == "13/11"
    assert page.locator("#board .checker.movable").count() > 0  # the checkers the 5 can move are marked
    click_point(page, "#board", 13)
    click_point(page, "#board", 8)
    assert page.input_value("#play-text") == "13/11 13/8"  # the whole play: the server's text of it
    page.click("#btn-check")
    page.wait_for_selector("#check-result:not([hidden])")
    assert "0-ply cubeful money" in page.text_content("#check-result")  # the equities say what they are
    page.wait_for_selector("#plays tr.mine")
    assert "0-ply cubeful money" in page.text_content("#cubetable")
    assert page.errors == []


def test_analysis_in_japanese(browser, server):
    page = page_for(browser, server, "ja")
    page.goto(server.url + "/study?id=" + OPENING_52)
    page.wait_for_function("() => document.querySelector('#id-xgid').textContent.startsWith('XGID=')")
    page.fill("#play-text", "24/22 13/8")
    page.click("#btn-check")
    page.wait_for_selector("#plays tr.mine")
    assert "評価" in page.text_content("#check-result") and "解析ボード" in page.text_content(".study-tabs")
    assert "学習" in page.text_content("header")  # the site's header, in Japanese
    page.screenshot(path=str(SHOTS / "study-analysis-ja.png"), full_page=True)
    assert page.errors == []


def test_lesson_wrong_then_right(browser, server):
    lesson = get_lesson("bar-entry")
    page = page_for(browser, server)
    page.goto(server.url + "/study/lessons")
    page.click(f"a[data-id='{lesson.id}']")
    page.wait_for_function("() => document.querySelector('#lesson-count').textContent.includes('1')")
    page.fill("#lesson-play", "13/11 13/8")
    page.click("#lesson-submit")
    page.wait_for_selector("#lesson-feedback.wrong")
    assert "bar" in page.text_content("#lesson-feedback").lower()
    assert page.locator("#lesson-next").is_hidden()
    assert "bar/18" in [str(a) for a in lesson.exercises[0].answers]
    bar = page.locator("#lesson-board rect.bar").bounding_box()
    page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] * 0.3)  # our checker on the bar
    click_point(page, "#lesson-board", 23)  # the 2 cannot enter: the opponent holds the 23-point
    assert page.text_content("#lesson-error") == "bar/23 is not possible with 5-2."
    assert page.input_value("#lesson-play") == ""
    page.mouse.click(bar["x"] + bar["width"] / 2, bar["y"] + bar["height"] * 0.3)
    click_point(page, "#lesson-board", 18)
    assert page.text_content("#lesson-error") == ""
    assert page.input_value("#lesson-play") == "bar/18"
    page.click("#lesson-submit")
    page.wait_for_selector("#lesson-feedback.right")
    assert page.locator("#lesson-next").is_visible()
    page.screenshot(path=str(SHOTS / "study-lesson.png"), full_page=True)
    # the rest of the lesson: typed plays, a roll that cannot be played, then a choice
    for number in range(1, len(lesson.exercises)):
        page.click("#lesson-next")
        page.wait_for_function(f"() => document.querySelector('#lesson-count').textContent.includes('{number + 1}')")
        exercise = lesson.exercises[number]
        if hasattr(exercise, "answers"):
            page.fill("#lesson-play", str(exercise.answers[0]))
            page.click("#lesson-submit")
        else:
            page.locator("#lesson-choices button").nth(exercise.answer).click()
        page.wait_for_selector("#lesson-feedback.right")
    page.click("#lesson-next")
    page.wait_for_function("() => document.querySelector('#lesson-count').textContent.includes('finished')")
    assert page.errors == []


def _post(server, path, body=None, token=None):
    return server.api("POST", path, body if body is not None else {}, token)


def _finished_race(server):
    table = _post(
        server,
        "/api/tables",
        {
            "mode": "human",
            "name": "Ann",
            "rules": {"match_length": 1},
            "start": {"position_id": RACE, "on_roll": "white"},
        },
    )
    tid = table["id"]
    tokens = {"white": table["token"], "black": _post(server, f"/api/tables/{tid}/join", {"name": "Bob"})["token"]}
    for _ in range(100):
        st = server.api("GET", f"/api/tables/{tid}")
        if st["match"]["over"]:
            return tid
        tok = tokens[st["game"]["turn"]]
        st = server.api("GET", f"/api/tables/{tid}", token=tok)
        if "move" in st["allowed"]:
            steps = min(moves_of(st), key=lambda seq: sum(1 for s in seq if s[1] == 0))
            _post(server, f"/api/tables/{tid}/actions", {"action": "move", "steps": steps}, tok)
        else:
            _post(server, f"/api/tables/{tid}/actions", {"action": st["allowed"][0]}, tok)
    raise AssertionError("the race did not finish")


def test_review_marks_an_error(browser, server):
    for _ in range(4):
        tid = _finished_race(server)
        review = _post(server, f"/api/study/reviews/{tid}")
        if any(d["grade"] != "good" for d in review["decisions"] if d["kind"] == "play"):
            break
    else:
        pytest.fail("no error in four wasteful games")
    page = page_for(browser, server)
    page.goto(f"{server.url}/study/review/{tid}")
    page.wait_for_selector("#review-list li.err")
    page.wait_for_selector("#review-board .arrow-best")
    assert page.locator("#review-board line.arrow-played").count() >= 1
    assert page.locator("#review-board line.arrow-best").count() >= 1
    totals = page.text_content("#review-totals")
    assert "Ann" in totals and "Bob" in totals and "Checker PR" in totals and "Cube PR" in totals
    caption = page.text_content("#review-caption")
    assert any(word in caption for word in ("inaccuracy", "error", "blunder", "very bad"))
    page.screenshot(path=str(SHOTS / "study-review.png"), full_page=True)
    # the review is stored: it comes back without the engine
    with urllib.request.urlopen(f"{server.url}/api/study/reviews/{tid}", timeout=10) as res:
        assert json.loads(res.read())["table_id"] == tid
    assert page.errors == []
