"""The web UI's fit and finish in a real browser (Playwright + Debian Chromium): every page fits a
390 px phone, the rules of a table are on show, controls that do not apply are hidden, small
broken flows stay fixed, and axe-core finds no serious or critical accessibility violation.

Screenshots go to ``tmp_path`` only (``scripts/screenshots.py`` regenerates ``docs/screenshots/``).
axe-core comes from the npm registry into a temporary folder, once per session.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.lessons import get_lesson

from .test_browser import ARGS, CHROMIUM, browser, new_page, open_table, server  # noqa: F401 - fixtures

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
    elif name == "chouette":
        page.goto(server.url + "/static/chouette.html")
        page.wait_for_load_state("networkidle")
    elif name == "dicestats":
        page.goto(server.url + "/static/dicestats.html")
        page.wait_for_load_state("networkidle")
    else:  # pragma: no cover
        raise AssertionError(name)


PAGES = ["lobby", "table", "settings", "study", "lessons", "lesson", "review", "chouette", "dicestats"]


@pytest.fixture(scope="module")
def tables(server):
    return {"ai": table(server), "listed": human_table(server, crawford=True, jacoby=False)}


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


def test_phone_board_scales_and_controls_are_big_enough(browser, server, tables, tmp_path):
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
    page.screenshot(path=str(tmp_path / "table-phone.png"), full_page=True)
    page = page_at(browser, server, PHONE)
    open_page(page, server, "lobby", tables)
    page.screenshot(path=str(tmp_path / "lobby-phone.png"), full_page=True)


def test_desktop_screenshots(browser, server, tables, tmp_path):
    page = page_at(browser, server, DESKTOP)
    open_page(page, server, "lobby", tables)
    page.screenshot(path=str(tmp_path / "lobby-desktop.png"))
    open_page(page, server, "table", tables)
    page.screenshot(path=str(tmp_path / "table-desktop.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP[0]
    assert (tmp_path / "table-desktop.png").stat().st_size > 10_000
