"""Browser test of a chouette table: one person and two computer players, a box double the person passes."""

from __future__ import annotations

import time

import pytest

from backgammon.position import Position

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHOTS, browser, server

pytestmark = pytest.mark.browser

# box (white, on roll) 73 pips, team 84, a race: the greedy computer box doubles, the greedy member takes
RACE = Position.from_points({6: 5, 5: 5, 4: 3, 3: 2}, {8: 3, 6: 4, 5: 4, 4: 4}).position_id()


def open_page(browser, server, path, lang="en"):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/static/chouette.html")
    page.evaluate("l => localStorage.setItem('bg.chouette.lang', l)", lang)
    if path:
        page.goto(server.url + path)
    return page


def test_chouette_setup_page(browser, server):
    page = open_page(browser, server, "/static/chouette.html")
    page.wait_for_selector("#ch-seats li")
    assert page.locator("#ch-seats li").count() == 2
    page.click("#ch-add")
    assert page.locator("#ch-seats li").count() == 3
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "chouette-setup.png"))
    page.click("#ch-form button[type=submit]")  # a table with one free seat for a person: waiting
    page.wait_for_selector("#ch-invite:has-text('Invite link')")
    assert not page.errors


def test_the_default_name_is_in_the_pages_language(browser, server):
    page = open_page(browser, server, "/static/chouette.html", lang="ja")
    page.wait_for_selector("#ch-seats li")
    assert page.input_value("#ch-form input[name=name]") == "ゲスト"
    page.select_option("#ch-lang", "en")
    assert page.input_value("#ch-form input[name=name]") == "Guest"  # follows the language
    page.fill("#ch-form input[name=name]", "Hana")
    page.select_option("#ch-lang", "ja")
    assert page.input_value("#ch-form input[name=name]") == "Hana"  # a name of one's own stays
    assert not page.errors


def test_chouette_box_double_one_member_passes(browser, server):
    doc = server.api(
        "POST",
        "/api/chouette",
        {"name": "Ann", "seat": 1, "seats": [{"bot": "greedy"}, {"bot": None}, {"bot": "greedy"}], "start": RACE},
    )
    page = open_page(browser, server, None)
    page.evaluate("d => localStorage.setItem('bg.chouette.' + d.id, d.token)", doc)
    page.goto(f"{server.url}/static/chouette.html?id={doc['id']}")
    page.wait_for_selector("button[data-action=pass]")
    status = page.inner_text("#ch-status")
    assert "The box doubles" in status and "Ann" in status
    roles = page.inner_text("#ch-players")
    assert "Computer 1" in roles and "box" in roles and "captain" in roles
    assert "took" in page.inner_text("#ch-players tr[data-name='Computer 2']")  # the other member took
    assert page.locator("button[data-action=take]").count() == 1
    commitment = page.inner_text("#ch-fair .fd-commitment")
    assert len(commitment) == 64
    page.screenshot(path=str(SHOTS / "chouette-box-double.png"))
    page.click("button[data-action=pass]")
    page.wait_for_selector("#ch-games li:has-text('Game 1')", timeout=20000)
    ann = page.locator("#ch-players tr[data-name=Ann] td.score")
    assert ann.inner_text() == "-1"
    assert page.inner_text("#ch-revealed .fd-commitment") == commitment  # game 1's seed is out
    assert "verify-dice" in page.inner_text("#ch-revealed .fd-command")
    games = page.inner_text("#ch-games")
    assert "box Computer 1" in games
    page.click("#ch-games li[data-game='1'] .ch-game-moves")  # a finished game's moves, fetched and shown
    page.wait_for_selector("#ch-games li[data-game='1'] .ch-past-log li")
    past = page.inner_text("#ch-games li[data-game='1'] .ch-past-log")
    assert "Computer 1 (box) doubles" in past and "Ann passes" in past, past
    assert page.get_attribute("#ch-games li[data-game='1'] .ch-game-moves", "aria-expanded") == "true"
    page.screenshot(path=str(SHOTS / "chouette-after-pass.png"))
    # Ann moves by clicking on the board: a play is chosen in the list once the clicks make its position
    for _ in range(400):  # game 2: whoever won its opening roll, on to Ann's first play with a choice
        mine = server.api("GET", f"/api/chouette/{doc['id']}", token=doc["token"])
        if "move" in mine["allowed"] and len(mine["plays"]) > 1:
            break
        if "roll" in mine["allowed"]:
            server.api("POST", f"/api/chouette/{doc['id']}/actions", {"action": "roll"}, token=doc["token"])
        elif "move" in mine["allowed"]:
            steps = mine["plays"][0]["steps"] if mine["plays"] else []
            server.api(
                "POST", f"/api/chouette/{doc['id']}/actions", {"action": "move", "steps": steps}, token=doc["token"]
            )
        else:
            time.sleep(0.05)  # the computers' turn
    else:
        raise AssertionError("Ann never had a play to choose")
    last = mine["plays"][-1]  # not the list's first choice
    page.wait_for_function(
        "([n, text]) => { const s = document.querySelector('#ch-move');"
        " return s && s.options.length === n && s.options[n - 1].textContent === text; }",
        arg=[len(mine["plays"]), last["play"]],
    )
    for step in last["steps"]:
        for p in step:
            click_point(page, p)
    chosen = page.eval_on_selector("#ch-move", "s => s.options[s.selectedIndex].textContent")
    assert chosen == last["play"], (chosen, last)
    page.click("#ch-clear")
    assert page.locator("#board .checker.movable").count() >= 1  # the move graph's sources are marked
    click_point(page, mine["move_graph"]["nodes"][0][0][0])  # a checker the roll can move
    assert page.locator("#board .checker.selected").count() == 1  # the picked checker is marked
    page.select_option("#ch-lang", "ja")
    page.wait_for_selector("#ch-players:has-text('ボックス')")
    assert "第1ゲーム" in page.inner_text("#ch-games")
    assert "Annがパス" in page.inner_text("#ch-games li[data-game='1'] .ch-past-log")  # still open, now in Japanese
    page.screenshot(path=str(SHOTS / "chouette-ja.png"))
    assert not page.errors


def click_point(page, p: int) -> None:
    """A click on point ``p`` of the board (the middle of its triangle, checkers on it or not; 0: the tray,
    25: the bar)."""
    where = {0: "#board .my-tray", 25: "#board .bar"}.get(p, f'#board polygon[data-point="{p}"]')
    box = page.locator(where).first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _play_out(server, tid, tokens, limit=3000):
    for _ in range(limit):
        st = server.api("GET", f"/api/tables/{tid}")
        turn = st["game"]["turn"]
        if st["match"]["over"] or turn is None:
            return st
        mine = server.api("GET", f"/api/tables/{tid}", token=tokens[turn])
        allowed = mine["allowed"]
        if "move" in allowed:
            doc = {"action": "move", "steps": moves_of(mine)[0] if moves_of(mine) else []}
        elif "roll" in allowed:
            doc = {"action": "roll"}
        elif "take" in allowed:
            doc = {"action": "take"}
        else:
            doc = {"action": allowed[0]}
        server.api("POST", f"/api/tables/{tid}/actions", doc, token=tokens[turn])
    raise AssertionError("the game did not end")


def test_fair_dice_revealed_and_dice_stats_pages(browser, server):
    from .test_browser import new_page, open_table

    white = server.api("POST", "/api/tables", {"mode": "human", "rules": {"match_length": 1}, "name": "Dora"})
    black = server.api("POST", f"/api/tables/{white['id']}/join", {"name": "Emil"})
    page = new_page(browser, server)
    open_table(page, server, white)
    page.wait_for_selector(".fd-commitment")
    commitment = page.inner_text(".fd-commitment")
    assert len(commitment) == 64 and page.locator(".fd-seed").count() == 0
    st = _play_out(server, white["id"], {"white": white["token"], "black": black["token"]})
    page.wait_for_selector(".fd-command", timeout=20000)
    command = page.inner_text(".fd-command")
    assert command.startswith("backgammon verify-dice --seed ") and commitment in command
    assert st["fair_dice"]["command"] == command.strip()
    page.locator("#fair-dice").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "fair-dice-revealed.png"), full_page=True)
    stats = open_page(browser, server, "/static/dicestats.html?name=Dora")
    stats.wait_for_selector("#ds-dist tr:nth-child(22)")
    summary = stats.inner_text("#ds-summary")
    assert summary.startswith("Dora: ") and summary.endswith(" rolls in 1 table.")  # the singular form
    assert stats.locator("#ds-tests tr[data-stat=doubles]").count() == 1
    stats.screenshot(path=str(SHOTS / "dice-stats.png"), full_page=True)
    stats.select_option("#ds-lang", "ja")
    stats.wait_for_selector("#ds-tests:has-text('ゾロ目')")
    assert "1卓で" in stats.inner_text("#ds-summary")
    stats.screenshot(path=str(SHOTS / "dice-stats-ja.png"), full_page=True)
    assert not page.errors and not stats.errors
