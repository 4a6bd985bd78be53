"""Hostile user text in a real browser: names made of HTML are shown literally and run nothing,
and the app's own pages run under the strict Content-Security-Policy without a violation.

Reuses the real server and Chromium fixtures of ``test_browser``.
"""

from __future__ import annotations

import secrets
import time
import urllib.parse

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import LATE, SHORT, browser, new_page, open_table, resign, server, wait_version

pytestmark = pytest.mark.browser

# at most 24 characters each (the name limit); each sets a global if it ever runs
IMG = "<img src onerror=__x=1>"
SVG = "<svg onload=__xss=1>"
SCRIPT = "<script>__xss=1</script>"
assert all(len(n) <= 24 for n in (IMG, SVG, SCRIPT))

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


def watched(page):
    """Record CSP violations (events and console lines) from the next navigation on."""
    page.add_init_script(WATCH)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.console = console  # type: ignore[attr-defined]
    return page


def assert_clean(page) -> None:
    """No script of a payload ran, no CSP violation, no page error."""
    ran = page.evaluate("() => [window.__x, window.__xss]")
    assert ran == [None, None], ran
    assert page.evaluate("() => window.__csp") == [], page.evaluate("() => window.__csp")
    csp_lines = [c for c in page.console if "Content Security Policy" in c]
    assert csp_lines == [], csp_lines
    assert page.errors == []


def text(page, selector: str) -> str:
    return page.locator(selector).first.text_content() or ""


def wait_text(page, selector: str, needle: str, timeout: float = 10_000) -> None:
    page.wait_for_function(
        "([s, n]) => [...document.querySelectorAll(s)].some((e) => e.textContent.includes(n))",
        arg=[selector, needle],
        timeout=timeout,
        polling=100,
    )


def test_policy_is_enforced_in_the_browser(browser, server):
    """The header reaches Chromium: an injected inline script and inline handler are refused."""
    page = watched(new_page(browser, server))
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    page.evaluate(
        """() => {
        const s = document.createElement('script'); s.textContent = 'window.__xss = 1'; document.body.append(s);
        document.body.insertAdjacentHTML('beforeend', '<img src="data:," onerror="window.__x = 1">');
        document.body.insertAdjacentHTML('beforeend', '<img src onerror="window.__x = 1">');
    }"""
    )
    page.wait_for_function("() => window.__csp.length >= 2")
    assert page.evaluate("() => [window.__x, window.__xss]") == [None, None]
    assert all("script-src" in v for v in page.evaluate("() => window.__csp"))


def test_hostile_names_at_a_human_table(browser, server):
    table = server.api(
        "POST",
        "/api/tables",
        {
            "mode": "human",
            "name": IMG,
            "listed": True,
            "rules": {"match_length": 1},
            "start": {"position_id": LATE, "on_roll": "white"},
        },
    )
    tid = table["id"]
    # the lobby lists the host by name
    lobby = watched(new_page(browser, server))
    lobby.goto(server.url + "/")
    wait_text(lobby, "#lobby li", IMG)
    assert lobby.locator("#lobby img, #lobby svg, #lobby script").count() == 0
    assert_clean(lobby)

    p1 = watched(new_page(browser, server))
    open_table(p1, server, table)
    p2 = watched(new_page(browser, server))
    p2.goto(f"{server.url}/t/{tid}")
    p2.wait_for_selector("#btn-join")
    p2.fill("#join-name", SVG)
    p2.click("#btn-join")
    wait_text(p2, "#player-bottom", f"{SVG} (Black) — you")
    wait_text(p1, "#player-top", f"{SVG} (Black)")
    assert f"{IMG} (White) — you" in text(p1, "#player-bottom")
    assert f"{IMG} (White)" in text(p2, "#player-top")
    # a spectator sees both names in the status line
    p3 = watched(new_page(browser, server))
    p3.goto(f"{server.url}/t/{tid}")
    wait_text(p3, "#status", IMG)

    # white resigns the one-point match, black accepts: the result dialog names the winner
    p1.wait_for_selector("#act-resign")
    resign(p1, "single")
    p2.wait_for_selector("#act-accept-resignation")
    p2.click("#act-accept-resignation")
    for page in (p1, p2, p3):
        page.wait_for_selector("#result:not([hidden])", timeout=10_000)
        result = text(page, "#result")
        assert f"{SVG} (Black) wins" in result, result
        assert "Match over" in result
        assert page.locator("#result img, #result svg, #result script").count() == 0
        assert page.locator("#result #btn-result-ok").count() == 1
        wait_text(page, "#movelist li", f"{IMG}: ")  # the move list names who resigned
    for page in (p1, p2, p3):
        assert page.locator("#player-top img, #player-top svg, #player-bottom img, #player-bottom svg").count() == 0
        assert_clean(page)
    # the buttons of the dialog still work
    p1.click("#btn-result-ok")
    assert p1.locator("#result").is_hidden()
    p2.click("#btn-result-home")
    p2.wait_for_selector("#view-home:not([hidden])")
    assert_clean(p2)


def _register(page, server) -> str:
    username = "x" + secrets.token_hex(5)
    ok = page.evaluate(
        """async (u) => (await fetch('/api/register', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({username: u, password: 'correct horse battery'})})).ok""",
        username,
    )
    assert ok
    return username


def test_hostile_opponent_in_history_review_and_dice_stats(browser, server):
    page = watched(new_page(browser, server))
    _register(page, server)
    table = page.evaluate(
        """async (start) => (await fetch('/api/tables', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({mode: 'human', listed: false, rules: {match_length: 1}, start})})).json()""",
        {"position_id": SHORT, "on_roll": "white"},
    )
    tid = table["id"]
    black = server.api("POST", f"/api/tables/{tid}/join", {"name": SCRIPT})
    seat_tokens = {table["seat"]: table["token"], black["seat"]: black["token"]}
    st = server.api("GET", f"/api/tables/{tid}")
    mover = st["game"]["turn"]
    other = "black" if mover == "white" else "white"
    for side in (mover, other):  # a roll and a move each, then the first resigns
        server.api("POST", f"/api/tables/{tid}/actions", {"action": "roll"}, seat_tokens[side])
        st = server.api("GET", f"/api/tables/{tid}", token=seat_tokens[side])
        server.api(
            "POST", f"/api/tables/{tid}/actions", {"action": "move", "steps": moves_of(st)[0]}, seat_tokens[side]
        )
    server.api("POST", f"/api/tables/{tid}/actions", {"action": "resign", "level": "single"}, seat_tokens[mover])
    server.api("POST", f"/api/tables/{tid}/actions", {"action": "accept_resignation"}, seat_tokens[other])
    assert wait_version(server, tid, 0)["match"]["over"]

    page.goto(server.url + "/")
    wait_text(page, "#history li", SCRIPT)
    assert page.locator("#history script").count() == 0
    assert_clean(page)

    page.goto(server.url + "/study/review")
    wait_text(page, "#review-games li", SCRIPT)
    assert page.locator("#review-games script").count() == 0
    assert_clean(page)

    page.goto(f"{server.url}/study/review/{tid}")
    wait_text(page, "#review-totals", SCRIPT, timeout=60_000)
    page.wait_for_selector("#review-list li")  # white's decisions (black only resigned)
    assert page.locator("#review-totals script, #review-list script").count() == 0
    assert_clean(page)

    page.goto(f"{server.url}/static/dicestats.html?name={urllib.parse.quote(SCRIPT)}")
    wait_text(page, "#ds-summary", SCRIPT)
    assert page.locator("#ds-dist tr").count() == 22  # a head and the 21 rolls
    assert_clean(page)
    nobody = f"<b>{secrets.token_hex(4)}</b>"  # the error names the player
    page.fill("#ds-form input[name=name]", nobody)
    page.click("#ds-form button")
    wait_text(page, "#ds-error", nobody)
    assert page.locator("#ds-error b").count() == 0
    assert_clean(page)


def test_hostile_names_at_a_chouette(browser, server):
    doc = server.api(
        "POST", "/api/chouette", {"name": SCRIPT, "seats": [{"bot": None}, {"bot": None}, {"bot": "greedy"}]}
    )
    server.api("POST", f"/api/chouette/{doc['id']}/join", {"name": IMG})
    page = watched(new_page(browser, server))
    page.evaluate("d => localStorage.setItem('bg.chouette.' + d.id, d.token)", doc)
    page.goto(f"{server.url}/static/chouette.html?id={doc['id']}")
    wait_text(page, "#ch-players", IMG)
    players = text(page, "#ch-players")
    assert f"{SCRIPT} (you)" in players and IMG in players
    assert page.locator(f"#ch-players tr[data-name='{IMG}']").count() == 1
    assert page.locator("#ch-players img, #ch-players script").count() == 0
    page.wait_for_function("() => document.querySelector('#ch-status').textContent.startsWith('To act:')")
    status = text(page, "#ch-status")  # the box or the captain, as the opening roll fell
    assert SCRIPT in status or IMG in status, status
    assert_clean(page)


def test_pages_run_without_a_policy_violation(browser, server):
    ai = server.api("POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 3}})
    page = watched(new_page(browser, server))
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai .rules-fields select[name=match_length] option", state="attached")
    page.click("#btn-rules")
    wait_text(page, "#dlg-rules h3", "Bearing off")
    assert page.locator("#dlg-rules p b").count() >= 3
    assert_clean(page)
    open_table(page, server, ai)
    page.wait_for_selector("#act-roll, #act-confirm")
    assert_clean(page)
    for path, ready in [
        ("/study", "#id-pos:not(:empty)"),
        ("/study/lessons", "#lesson-list li a"),
        ("/study/review", "#review-games li"),
        ("/static/chouette.html", "#ch-seats li select"),
        ("/static/dicestats.html", "#ds-form"),
    ]:
        page.goto(server.url + path)
        page.wait_for_selector(ready)
        time.sleep(0.3)
        assert_clean(page)
    # a lesson, and the analysis tables of the study board
    page.goto(server.url + "/study/lessons")
    page.click("#lesson-list li a")
    page.wait_for_selector("#lesson-prompt:not(:empty)")
    assert_clean(page)
    page.goto(server.url + "/study?id=4HPwATDgc%2FABMA")
    page.wait_for_selector("#id-pos:not(:empty)")
    page.select_option("#die1", "3")
    page.select_option("#die2", "1")
    page.click("#btn-analyze")
    page.wait_for_selector("#plays tr td")
    page.wait_for_selector("#cubetable .cube-action")
    assert_clean(page)
