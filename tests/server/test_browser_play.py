"""Playing feel in a real browser (Playwright + Debian Chromium): keyboard play (roll, undo, confirm,
moves typed as text), keys left alone while typing, the dice roll-in animation and reduced motion,
the sound files and the mute setting, and the board themes (high contrast checked with axe-core).

Screenshots go to test_browser's temporary folder (``BACKGAMMON_SCREENSHOTS`` names another).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from ._wire import moves_of
from .test_browser import SHORT, SHOTS, browser, click_point, confirm_dialog, open_table, resign, server, wait_version
from .test_browser_ux import DESKTOP, PHONE, axe_js, axe_violations

pytestmark = pytest.mark.browser

SOUNDS = ("dice", "move", "end")


def short_table(server, length: int = 3) -> dict:
    """A table against the computer from a short race, white (the test) to roll."""
    body = {
        "mode": "ai",
        "level": "beginner",
        "seat": "white",
        "rules": {"match_length": length},
        "start": {"position_id": SHORT, "on_roll": "white"},
    }
    return server.api("POST", "/api/tables", body)


def page_with(browser, server, viewport=DESKTOP, reduced_motion="no-preference", bypass_csp=False, **settings):
    """A page with these settings saved (animation off unless given); bypass_csp lets axe-core be injected."""
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]},
        locale="en-US",
        reduced_motion=reduced_motion,
        bypass_csp=bypass_csp,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    base = {"animation": "off", "autoForced": False, "lang": "en", **settings}
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", base)
    return page


def state(server, table: dict) -> dict:
    return server.api("GET", f"/api/tables/{table['id']}", token=table["token"])


def play_text(steps) -> str:
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in steps)


def press_on_page(page, key: str) -> None:
    """Press a key with the focus on the page body (not in a text box)."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)


# ------------------------------------------------------------------ keyboard
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_keyboard_roll_undo_and_confirm(browser, server, viewport):
    page = page_with(browser, server, viewport)
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    v0 = state(server, table)["version"]
    press_on_page(page, "r")
    page.wait_for_selector("#act-confirm")
    st = wait_version(server, table["id"], v0 + 1)
    assert st["game"]["dice"]
    steps = moves_of(state(server, table))[0]
    a, b = steps[0]
    click_point(page, a)
    click_point(page, b)
    page.wait_for_selector("#act-undo:not([disabled])")
    press_on_page(page, "Backspace")
    page.wait_for_selector("#act-undo[disabled]")
    for a, b in steps:
        click_point(page, a)
        click_point(page, b)
    page.wait_for_selector("#act-undo:not([disabled])")
    press_on_page(page, "u")  # u undoes too
    page.wait_for_function("n => document.querySelectorAll('#board .checker.movable').length > 0", arg=0)
    a, b = steps[-1]
    click_point(page, a)
    click_point(page, b)
    page.wait_for_selector("#act-confirm:not([disabled])")
    version = state(server, table)["version"]
    press_on_page(page, "Enter")
    wait_version(server, table["id"], version + 1)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport[0]
    assert page.errors == []


def test_a_typed_move_is_played_and_a_wrong_one_refused_with_the_message(browser, server):
    page = page_with(browser, server)
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    assert page.locator("#move-form").is_hidden()  # nothing to type before the roll
    page.click("#act-roll")
    page.wait_for_selector("#act-confirm")
    st = state(server, table)
    # the server's own words for a wrong move, asked over the REST API (which changes nothing)
    bad = "24/18"
    with pytest.raises(urllib.error.HTTPError) as refused:
        server.api("POST", f"/api/tables/{table['id']}/actions", {"action": "move", "play": bad}, token=table["token"])
    body = json.loads(refused.value.read())
    assert body["error"] and body["code"] == "illegal_play_for_roll" and body["params"]["play"] == bad
    # the browser words it from the code: the play and the roll, never a Position ID
    message = f"{bad} is not possible with {body['params']['dice']}."
    press_on_page(page, "m")  # m puts the cursor in the move box
    assert page.evaluate("() => document.activeElement.id") == "move-text"
    page.keyboard.type(bad)
    page.keyboard.press("Enter")
    page.wait_for_function("m => document.querySelector('#flash').textContent.includes(m)", arg=message)
    assert st["game"]["position_id"] not in page.inner_text("#flash")
    assert state(server, table)["version"] == st["version"]
    # the right text is played
    page.fill("#move-text", play_text(moves_of(st)[0]))
    page.click("#move-form button")
    after = wait_version(server, table["id"], st["version"] + 1)
    assert after["game"]["board"] != st["game"]["board"]
    assert page.errors == []


def test_keys_are_ignored_while_typing_in_the_chat_box(browser, server):
    made = server.api("POST", "/api/tables", {"mode": "human", "name": "Ann", "rules": {"match_length": 3}})
    joined = server.api("POST", f"/api/tables/{made['id']}/join", {"name": "Bob"})
    tokens = {"white": made, "black": joined}
    st = server.api("GET", f"/api/tables/{made['id']}")
    mover = tokens[st["game"]["turn"]]
    if "roll" in state(server, mover)["allowed"]:
        server.api("POST", f"/api/tables/{made['id']}/actions", {"action": "roll"}, token=mover["token"])
    page = page_with(browser, server)
    open_table(page, server, mover)
    page.wait_for_selector("#act-undo")
    steps = moves_of(state(server, mover))[0]
    click_point(page, steps[0][0])
    click_point(page, steps[0][1])
    page.wait_for_selector("#act-undo:not([disabled])")
    version = state(server, mover)["version"]
    page.click("#chat-text")
    page.keyboard.type("u r d ?")
    page.keyboard.press("Backspace")
    assert page.input_value("#chat-text") == "u r d "
    assert page.locator("#act-undo").is_enabled()  # neither u nor Backspace undid the step
    assert not page.evaluate("() => document.querySelector('#keys-help').open")
    assert state(server, mover)["version"] == version
    # the same keys on the page do act
    press_on_page(page, "?")
    assert page.evaluate("() => document.querySelector('#keys-help').open")
    assert "Backspace" in page.inner_text("#keys-help")
    press_on_page(page, "u")
    page.wait_for_selector("#act-undo[disabled]")
    assert page.errors == []


def test_keys_help_is_translated(browser, server):
    page = page_with(browser, server, lang="ja")
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    press_on_page(page, "?")
    text = page.inner_text("#keys-help")
    assert "キー操作" in text and "ダイスを振る" in text
    assert page.errors == []


# ------------------------------------------------------------------ motion
def test_dice_roll_in_unless_reduced_motion(browser, server):
    moving = page_with(browser, server, animation="normal")
    table = short_table(server)
    open_table(moving, server, table)
    moving.wait_for_selector("#act-roll")
    press_on_page(moving, "r")
    moving.wait_for_selector("#board .die.rolling", state="attached")
    transform = moving.evaluate("() => getComputedStyle(document.querySelector('#board .die.rolling')).animationName")
    assert transform == "die-roll"
    still = page_with(browser, server, reduced_motion="reduce", animation="normal")
    other = short_table(server)
    open_table(still, server, other)
    still.wait_for_selector("#act-roll")
    press_on_page(still, "r")
    still.wait_for_selector("#act-confirm")
    still.wait_for_selector("#board .die", state="attached")
    assert still.locator("#board .die.rolling").count() == 0
    assert still.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    assert moving.errors == [] and still.errors == []


# ------------------------------------------------------------------ sound
@pytest.mark.parametrize("name", SOUNDS)
def test_sound_files_are_served_and_decode(browser, server, name):
    with urllib.request.urlopen(f"{server.url}/static/sounds/{name}.wav", timeout=10) as res:
        assert res.status == 200
        assert res.headers["content-type"].startswith("audio/")
        body = res.read()
    assert len(body) > 1000 and body[:4] == b"RIFF" and body[8:12] == b"WAVE"
    page = page_with(browser, server)
    seconds = page.evaluate(
        """async (url) => {
            const bytes = await (await fetch(url)).arrayBuffer();
            const audio = await new OfflineAudioContext(1, 22050, 22050).decodeAudioData(bytes);
            return audio.duration;
        }""",
        f"/static/sounds/{name}.wav",
    )
    assert 0.05 < seconds < 2


def test_sound_plays_on_roll_and_mute_persists(browser, server):
    page = page_with(browser, server)  # sound is on by default
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    press_on_page(page, "r")
    page.wait_for_function("() => (document.body.dataset.sounds || '').endsWith('dice')")
    # mute in the settings dialog, reload: still muted, and a roll makes no sound
    page.click("#btn-settings")
    page.wait_for_selector("#dlg-settings[open]")
    assert page.is_checked("#form-settings [name=sound]")
    page.uncheck("#form-settings [name=sound]")
    page.click("#form-settings button.primary")
    page.reload()
    page.wait_for_selector("#board .checker")
    assert page.evaluate("() => JSON.parse(localStorage.getItem('bg.settings')).sound") is False
    page.click("#btn-settings")
    assert not page.is_checked("#form-settings [name=sound]")
    page.click("#form-settings button.primary")
    steps = moves_of(state(server, table))[0]
    for a, b in steps:
        click_point(page, a)
        click_point(page, b)
    page.wait_for_selector("#act-confirm:not([disabled])")
    assert page.evaluate("() => document.body.dataset.sounds === undefined")
    assert page.errors == []


# ------------------------------------------------------------------ themes
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_high_contrast_theme_persists_and_passes_axe(browser, server, axe_js, viewport):
    page = page_with(browser, server, viewport, bypass_csp=True)
    table = short_table(server)
    open_table(page, server, table)
    assert page.evaluate("() => document.body.classList.contains('theme-classic')")
    classic_field = page.evaluate("() => getComputedStyle(document.querySelector('#board .field')).fill")
    page.click("#btn-settings")
    page.select_option("#form-settings [name=theme]", "high-contrast")
    page.click("#form-settings button.primary")
    page.reload()
    page.wait_for_selector("#board .checker")
    assert page.evaluate("() => document.body.classList.contains('theme-high-contrast')")
    assert not page.evaluate("() => document.body.classList.contains('theme-classic')")
    fills = page.evaluate(
        """() => ({
            field: getComputedStyle(document.querySelector('#board .field')).fill,
            odd: getComputedStyle(document.querySelector('#board .point.odd')).fill,
            even: getComputedStyle(document.querySelector('#board .point.even')).fill,
            checkers: [...new Set([...document.querySelectorAll('#board circle.checker')]
                .map(c => c.getAttribute('fill')))].sort(),
        })"""
    )
    assert fills["field"] == "rgb(255, 255, 255)" != classic_field
    assert fills["odd"] != fills["even"]
    assert fills["checkers"] == ["#000000", "#ffffff"]
    page.click("#act-roll")
    page.wait_for_selector("#act-confirm")
    page.screenshot(path=str(SHOTS / f"theme-high-contrast-{viewport[0]}.png"))
    assert axe_violations(page, axe_js) == []
    assert page.errors == []


def test_dark_theme_applies(browser, server, axe_js):
    page = page_with(browser, server, bypass_csp=True, theme="dark")
    table = short_table(server)
    open_table(page, server, table)
    assert page.evaluate("() => document.body.classList.contains('theme-dark')")
    field = page.evaluate("() => getComputedStyle(document.querySelector('#board .field')).fill")
    assert field == "rgb(58, 64, 72)"
    page.screenshot(path=str(SHOTS / "theme-dark-1280.png"))
    assert axe_violations(page, axe_js) == []
    assert page.errors == []


def test_d_doubles_and_the_end_of_a_game_sounds(browser, server):
    page = page_with(browser, server)
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-double")
    version = state(server, table)["version"]
    press_on_page(page, "d")
    confirm_dialog(page)  # doubling asks first (the "confirmActions" setting, on by default)
    wait_version(server, table["id"], version + 1)
    kinds = [e["kind"] for e in server.api("GET", f"/api/tables/{table['id']}/history")["entries"]]
    assert "double" in kinds
    # the computer takes or passes; play on to the end of a game by resigning it (the computer accepts)
    page.wait_for_selector("#act-resign, #result:not([hidden])")
    if page.locator("#result:not([hidden])").count() == 0:
        resign(page)
    page.wait_for_function("() => (document.body.dataset.sounds || '').split(' ').includes('end')")
    assert page.errors == []


def test_the_computers_move_animates_step_by_step_with_a_click_each(browser, server):
    page = page_with(browser, server, animation="fast")
    table = short_table(server)
    open_table(page, server, table)
    page.wait_for_selector("#act-roll")
    press_on_page(page, "r")
    page.wait_for_selector("#act-confirm")
    st = state(server, table)
    ours = moves_of(st)[0]
    page.fill("#move-text", play_text(ours))
    page.press("#move-text", "Enter")
    page.wait_for_selector("#act-roll, #result:not([hidden])", timeout=20_000)
    sounds = page.evaluate("() => document.body.dataset.sounds").split(" ")
    # ours: the dice, then a move typed as text slides step by step, a click each; the computer's:
    # the dice, then one click per step (two or more)
    n = len(ours)
    assert sounds[: 1 + n] == ["dice"] + ["move"] * n, sounds
    assert sounds[1 + n] == "dice" and sounds[2 + n :].count("move") >= 2, sounds
    assert page.errors == []


# ------------------------------------------------------------------ auto-roll and auto-confirm
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_auto_roll_and_auto_confirm(browser, server, viewport):
    # a 1-point match: no cube decision, so the roll plays itself; the complete move confirms itself
    page = page_with(browser, server, viewport, autoRoll=True, autoConfirm=True)
    table = short_table(server, length=1)
    v0 = state(server, table)["version"]
    open_table(page, server, table)
    st = wait_version(server, table["id"], v0 + 1)  # rolled with no click
    assert st["game"]["dice"] and st["game"]["turn"] == "white"
    steps = moves_of(state(server, table))[0]
    page.wait_for_selector("#act-confirm")
    for a, b in steps:
        click_point(page, a)
        click_point(page, b)
    st = wait_version(server, table["id"], v0 + 2)  # the move went in with no Confirm
    assert st["game"]["turn"] == "black" or st["match"]["over"]
    assert page.errors == []


def test_auto_roll_waits_when_the_player_may_double(browser, server):
    page = page_with(browser, server, autoRoll=True, autoConfirm=True)
    table = short_table(server, length=3)  # 0-0 in a 3-point match: the cube may be turned
    v0 = state(server, table)["version"]
    open_table(page, server, table)
    page.wait_for_selector("#act-double")
    page.wait_for_timeout(1500)
    assert state(server, table)["version"] == v0  # no roll: doubling is the player's decision
    page.click("#act-roll")
    wait_version(server, table["id"], v0 + 1)
    page.wait_for_selector("#act-confirm")
    steps = moves_of(state(server, table))[0]
    for a, b in steps:
        click_point(page, a)
        click_point(page, b)
    wait_version(server, table["id"], v0 + 2)  # confirmed by itself
    assert page.errors == []
