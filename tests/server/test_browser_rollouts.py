"""Rollouts with live intervals in a real browser (Playwright + Debian Chromium), on a desktop
(1280x800) and a phone (390x844) viewport: the study board's "roll out the best" and the review's
"played against better", each seen running (the progress bar moving, every candidate's equity
and 95% interval bar shown before the end) and then finished. Screenshots go to test_browser.SHOTS."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from .test_browser import SHOTS, browser, server
from .test_study_browser import OPENING_52, _finished_race, _post

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STATE = """() => {
  const bar = document.querySelector(arguments_bar);
  const rows = [...document.querySelectorAll(arguments_table + ' tr')].slice(1);
  return { hidden: bar.hidden, value: bar.value, max: bar.max,
           status: document.querySelector(arguments_status).textContent,
           bars: document.querySelectorAll(arguments_table + ' svg.ci-bar').length,
           rows: rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)),
           plays: rows.map((r) => (r.querySelector('.rollout-play') || {}).textContent),
           ranked: rows.map((r) => (r.querySelector('.rollout-ranked') || {}).textContent) };
}"""


def state_script(bar: str, table: str, status: str) -> str:
    return (
        STATE.replace("arguments_bar", repr(bar))
        .replace("arguments_table", repr(table))
        .replace("arguments_status", repr(status))
    )


def watch(page, script: str, timeout: float = 600) -> list[dict]:
    """The panel's states every 50 ms until its status says the rollout finished (or failed)."""
    seen: list[dict] = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = page.evaluate(script)
        seen.append(st)
        if (
            not st["hidden"]
            and st["max"] > 1
            and st["value"] >= st["max"]
            and st["bars"]
            and "…" not in str(st["rows"])
        ):
            if any(word in st["status"] for word in ("finished", "完了", "failed", "失敗")):
                return seen
        time.sleep(0.05)
    raise AssertionError(f"the rollout did not finish: {seen[-1] if seen else None}")


def new_page(browser, server, width: int, height: int, lang: str = "en"):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/study/lessons")
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", {"lang": lang})
    return page


@pytest.mark.parametrize("width, height, lang", [(1280, 800, "en"), (390, 844, "ja")])
def test_study_board_rollout_shows_live_intervals(browser, server, width, height, lang):
    page = new_page(browser, server, width, height, lang)
    page.goto(server.url + "/study?id=" + OPENING_52)
    page.wait_for_function("() => document.querySelector('#id-xgid').textContent.startsWith('XGID=')")
    page.fill("#play-text", "13/11 13/8")
    page.click("#btn-check")
    page.wait_for_selector("#plays tr.mine")
    page.select_option("#rollout-top", "3")
    page.select_option("#rollout-trials", "144")
    page.select_option("#rollout-ply", "0")
    page.click("#btn-rollout")
    page.wait_for_selector("#rollout-table svg.ci-bar", timeout=120_000)
    shot_mid = SHOTS / f"rollout-study-{width}-running.png"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot_mid), full_page=True)
    seen = watch(page, state_script("#rollout-progress", "#rollout-table", "#rollout-status"))
    page.screenshot(path=str(SHOTS / f"rollout-study-{width}-done.png"), full_page=True)
    running = [st for st in seen if 0 < st["value"] < st["max"] and st["bars"] == 3]
    assert running, "no running state with intervals was seen"
    values = [st["value"] for st in seen if not st["hidden"]]
    assert values == sorted(values) and len(set(values)) >= 3  # the bar moved, more than once
    final = seen[-1]
    assert len(final["rows"]) == 3 and final["bars"] == 3
    for cells in final["rows"]:
        assert cells[3].startswith("±") and cells[5] == "144"  # the interval and the trials it rests on
    assert final["ranked"] == ["0-ply cubeful money"] * 3  # the ranking's depth and kind beside each play
    # the intervals shrank from the first figures shown to the last
    first = next(st for st in seen if st["bars"] == 3 and all(c[3].startswith("±") for c in st["rows"]))
    width_of = dict(zip(first["plays"], (float(c[3][1:]) for c in first["rows"]), strict=True))
    assert all(float(c[3][1:]) < width_of[p] for p, c in zip(final["plays"], final["rows"], strict=True))
    assert ("Rollout finished" if lang == "en" else "ロールアウト完了") in final["status"]
    # the ranked plays and the rollout table scroll inside the page on a phone, never widen it
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.errors == []


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_review_rolls_out_a_mistake(browser, server, width, height):
    for _ in range(4):
        tid = _finished_race(server)
        review = _post(server, f"/api/study/reviews/{tid}")
        errors = [
            i
            for i, d in enumerate(review["decisions"])
            if d["grade"] != "good" and d["kind"] == "play" and d["best"] != d["chosen"]
        ]
        if errors:
            break
    else:
        pytest.fail("no checker-play error in four wasteful games")
    page = new_page(browser, server, width, height)
    page.goto(f"{server.url}/study/review/{tid}")
    page.wait_for_selector("#review-list li.err")
    # the page shows its first error by itself; clicking it while that is still loading must not
    # draw the panel twice (a second drawing would reset the chosen trials to 144)
    page.locator(f'#review-list li[data-i="{errors[0]}"]').click()
    page.wait_for_selector("#btn-review-rollout")
    page.select_option("#review-rollout-trials", "432")
    # showing the same decision again keeps its panel and the trials chosen in it
    with page.expect_response(lambda r: "/api/study/parse" in r.url):
        page.locator(f'#review-list li[data-i="{errors[0]}"]').click()
    page.wait_for_timeout(300)
    assert page.input_value("#review-rollout-trials") == "432"
    page.click("#btn-review-rollout")
    seen = watch(page, state_script("#review-rollout-progress", "#review-rollout-table", "#review-rollout-status"))
    page.locator("#review-rollout").scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"rollout-review-{width}.png"), full_page=True)
    final = seen[-1]
    assert len(final["rows"]) == 2 and final["bars"] == 2  # the played move and the better one
    caption = page.text_content("#review-caption")
    assert all(play in caption for play in final["plays"])
    assert all(label and f"[{label}]" in caption for label in final["ranked"])  # the review's depth and kind
    assert all(cells[3].startswith("±") and cells[5] == "432" for cells in final["rows"])
    values = [st["value"] for st in seen if not st["hidden"]]
    assert values == sorted(values) and values[-1] == final["max"]
    assert page.errors == []


@pytest.mark.parametrize("width, height, lang", [(1280, 800, "en"), (390, 844, "ja")])
def test_study_rollout_streams_over_its_socket_and_stops(browser, server, width, height, lang):
    """The page follows the job on /ws/study/rollouts/{id} (never polls it), and "Stop" cancels it."""
    page = new_page(browser, server, width, height, lang)
    polls: list[str] = []
    sockets: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.method == "GET" and "/api/study/rollouts/" in r.url else None)
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(server.url + "/study?id=" + OPENING_52)
    page.wait_for_function("() => document.querySelector('#id-xgid').textContent.startsWith('XGID=')")
    page.fill("#play-text", "13/11 13/8")
    page.click("#btn-check")
    page.wait_for_selector("#plays tr.mine")
    page.select_option("#rollout-top", "2")
    page.select_option("#rollout-trials", "1296")
    page.click("#btn-rollout")
    page.wait_for_function("() => document.querySelector('#rollout-progress').value > 0", timeout=120_000)
    assert page.is_visible(".rollout-stop") and page.is_disabled("#btn-rollout")
    page.click(".rollout-stop")
    stopped = "Rollout stopped" if lang == "en" else "ロールアウトを停止しました"
    page.wait_for_function(
        "t => document.querySelector('#rollout-status').textContent.includes(t)", arg=stopped, timeout=120_000
    )
    page.wait_for_function("() => !document.querySelector('#btn-rollout').disabled")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"rollout-stopped-{width}-{lang}.png"), full_page=True)
    status = page.text_content("#rollout-status")
    assert "1296" in status and not page.is_visible(".rollout-stop")
    assert [u for u in sockets if "/ws/study/rollouts/" in u], sockets
    assert polls == []  # pushed, not polled
    assert page.errors == []
