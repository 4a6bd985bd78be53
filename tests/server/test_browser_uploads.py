"""Analyse my matches in real Chromium (issue 43 item 5), at 1280x800 and 390x844: a real Galaxy
export is uploaded, its analysis's progress is watched, and its review opens with the players'
PR, the charts and the biggest mistakes; an oversize file and hostile ones get a message naming
them, in English and in Japanese. Screenshots go to test_browser's temporary folder."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")  # before importing test_browser, which needs it

from .test_browser import SHOTS, browser, server, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
_ = (browser, server)  # fixtures

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
GALAXY = REAL / "galaxy_match1032950.mat"  # one game of 118 actions: a few seconds of analysis
VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def upload_page(browser, server, viewport, lang="en"):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/upload")
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", {"lang": lang, "animation": "off"})
    page.reload()
    page.wait_for_selector("#up-form")
    return page


def wait_count(page, selector: str, n: int, timeout: float = 60.0) -> None:
    """Wait until ``n`` elements match (polled from here: the page's policy forbids evaluating strings)."""
    deadline = time.monotonic() + timeout
    while page.locator(selector).count() != n:
        assert time.monotonic() < deadline, (selector, page.locator(selector).count(), n)
        time.sleep(0.05)


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("size", VIEWPORTS)
def test_upload_a_real_galaxy_file_watch_the_progress_and_open_the_review(browser, server, size):
    page = upload_page(browser, server, VIEWPORTS[size])
    assert page.locator("nav.site-nav #nav-upload").get_attribute("aria-current") == "page"  # linked from the header
    assert "512 KB" in page.inner_text("#up-limit")
    page.set_input_files("#up-files", str(GALAXY))
    page.click("#up-send")
    item = page.locator(".up-item").first
    # the analysis moves: seen as a progress bar and a percentage that grow until the review's link
    # (each look reads the item at once: the page replaces it as the pushes come)
    look = """() => { const li = document.querySelector('.up-item'); if (!li) return null;
        const bar = li.querySelector('progress');
        const measured = bar && bar.hasAttribute('value');  // (sending, reading, waiting: no figure)
        return {done: !!li.querySelector('a.up-open'), value: measured ? bar.value : null, max: bar && bar.max}; }"""
    seen: list[tuple[float, float]] = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        now = page.evaluate(look)
        if now and now["done"]:
            break
        if now and now["value"] is not None:
            if not seen or seen[-1] != (now["value"], now["max"]):
                seen.append((now["value"], now["max"]))
            if now["value"] > 0 and f"upload-progress-{size}.png" not in _shots():
                shot(page, f"upload-progress-{size}.png")
        time.sleep(0.05)
    else:
        raise AssertionError("the analysis did not finish: " + item.inner_text())
    assert seen and any(0 < v < m for v, m in seen), seen  # a part done was shown
    assert [v for v, _m in seen] == sorted(v for v, _m in seen)
    assert {m for _v, m in seen} == {118}
    text = item.inner_text()
    assert "galaxy_match1032950.mat" in text and "meisampourtaghi – lasse" in text and "Analysed." in text
    no_sideways_scroll(page)
    shot(page, f"upload-done-{size}.png")

    item.locator("a.up-open").click()
    page.wait_for_url(re.compile(r"/study/review/up-[0-9a-f]{24}$"))
    page.wait_for_selector("#review:not([hidden]) #review-totals tr:nth-child(3)")
    totals = page.inner_text("#review-totals")
    assert "meisampourtaghi" in totals and "lasse" in totals
    assert "galaxy_match1032950.mat" in page.inner_text("#review-upload")
    assert page.locator("#review-charts figure").count() == 1  # the one game's chart
    assert page.locator("#review-mistakes .mistakes").count() == 2  # each player's biggest mistakes
    assert page.locator("#review-list li").count() > 20
    page.wait_for_selector("#review-board .checker, #review-board circle")
    no_sideways_scroll(page)
    shot(page, f"upload-review-{size}.png")
    assert not page.errors, page.errors  # type: ignore[attr-defined]


def _shots() -> list[str]:
    return [p.name for p in SHOTS.glob("*.png")] if SHOTS.exists() else []


EXPECTED = {
    "en": {
        "big.mat": "“big.mat” is too large: at most 512 KB a file.",
        "photo.png": "“photo.png” is not a match file",
        "nested.sgf": "“nested.sgf” could not be read as a match file",
        "match.xg": "“match.xg” could not be read as a match file",
    },
    "ja": {
        "big.mat": "「big.mat」は大きすぎます。1ファイル512KBまでです。",
        "photo.png": "「photo.png」は試合のファイルではありません",
        "nested.sgf": "「nested.sgf」を試合のファイル",
        "match.xg": "「match.xg」を試合のファイル",
    },
}


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("size", VIEWPORTS)
def test_oversize_and_hostile_files_get_a_message_in_the_players_language(browser, server, tmp_path, lang, size):
    files = {
        "big.mat": b" 5 point match\n" + b"x" * (600 * 1024),
        "photo.png": bytes(range(256)) * 8,
        "nested.sgf": b"(;GM[6]" + b"(" * 20000,
        "match.xg": b"RGMH" + bytes(500),
    }
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    page = upload_page(browser, server, VIEWPORTS[size], lang)
    page.set_input_files("#up-files", paths)
    page.click("#up-send")
    wait_count(page, ".up-item.refused", 4)
    for name, message in EXPECTED[lang].items():
        item = page.locator(".up-item.refused", has_text=name)
        assert message in item.inner_text(), item.inner_text()
        if lang == "ja":
            assert JAPANESE.search(item.locator(".up-state").inner_text())
    # where the reader says more, its own words are shown beside (in English)
    assert "is never closed" in page.locator(".up-item.refused", has_text="nested.sgf").inner_text()
    # a pasted text that is no match: the same
    page.click("#up-paste-box summary")  # the paste box opens
    page.fill("#up-paste", "this is not a match")
    page.click("#up-paste-send")
    wait_count(page, ".up-item.refused", 5)
    pasted = page.locator(".up-item.refused").first.inner_text()
    assert ("could not be read" if lang == "en" else "読めませんでした") in pasted
    no_sideways_scroll(page)
    shot(page, f"upload-refused-{lang}-{size}.png")
    assert not page.errors, page.errors  # type: ignore[attr-defined]


def test_a_logged_in_player_gets_puzzles_from_the_side_it_played(browser, server):
    page = upload_page(browser, server, VIEWPORTS["desktop"])
    status = page.evaluate(
        """async () => (await fetch("/api/register", {method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({username: "lasse", password: "a long passphrase"})})).status"""
    )
    assert status == 200
    page.reload()
    page.set_input_files("#up-files", str(GALAXY))
    page.click("#up-send")
    page.wait_for_selector(".up-item a.up-open", timeout=300_000)
    side = page.locator(".up-item select.up-side")
    assert side.input_value() == "Black"  # lasse's side, by the account's name
    assert side.locator("option").all_inner_texts() == ["neither", "meisampourtaghi", "lasse"]
    shot(page, "upload-side-desktop.png")
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-list li a.pz-open")
    first = page.locator("#pz-list li a.pz-open").first.get_attribute("href")
    assert re.match(r"^/puzzles/up-[0-9a-f]{24}\.1\.\d+$", first), first  # a puzzle of the uploaded match
    side.page.go_back()
    page.wait_for_selector(".up-item select.up-side")
    page.select_option(".up-item select.up-side", "")  # neither: no puzzles from it
    time.sleep(0.5)
    page.goto(server.url + "/puzzles")
    page.wait_for_selector("#pz-message:not(:empty)")
    assert page.locator("#pz-list li a.pz-open").count() == 0
    assert not page.errors, page.errors  # type: ignore[attr-defined]


def _first_game_of_real_xg() -> bytes:
    """The first game of a real .xg file (charlot_7pt.xg: 94 actions, XG's analysis of 46 decisions),
    its records unchanged, the archive rebuilt around them: a quicker analysis than the whole match."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))
    from xg_builder import XgBuilder

    from backgammon.formats.xg import xg_archive, xg_records

    content = xg_archive((Path(__file__).resolve().parents[1] / "data" / "xg" / "charlot_7pt.xg").read_bytes())
    records = []
    for record in xg_records(content["temp.xg"]):
        if record.kind == "game header" and records and any(r[8] == 1 for r in records):
            break
        records.append(record.data)
    builder = XgBuilder()
    builder.records = records
    return builder.build()


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "ja")])
def test_a_real_xg_files_own_analysis_is_shown_beside_ours(browser, server, size, lang, tmp_path):
    path = tmp_path / "charlot_game1.xg"
    path.write_bytes(_first_game_of_real_xg())
    page = upload_page(browser, server, VIEWPORTS[size], lang)
    page.set_input_files("#up-files", str(path))
    page.click("#up-send")
    page.wait_for_selector(".up-item a.up-open", timeout=300_000)
    page.locator(".up-item a.up-open").first.click()
    page.wait_for_url(re.compile(r"/study/review/up-[0-9a-f]{24}$"))
    page.wait_for_selector("#review:not([hidden]) #review-list li")
    page.locator("#review-list li").first.click()  # the opening play, which XG analysed
    page.wait_for_selector("#review-file:not([hidden])")
    note, caption = page.inner_text("#review-file"), page.inner_text("#review-caption")
    assert "eXtreme Gammon" in note and re.search(r"[+-]\d\.\d{3}", note), note
    if lang == "en":
        assert "(from the file; " in note and caption.startswith("This site's engine: "), (note, caption)
    else:
        assert "ファイルの解析" in note and caption.startswith("このサイトのエンジン"), (note, caption)
    page.wait_for_selector("#review-board .checker, #review-board circle")
    no_sideways_scroll(page)
    page.locator("#review-file").scroll_into_view_if_needed()
    shot(page, f"upload-xg-analysis-{size}-{lang}.png")
    assert not page.errors, page.errors  # type: ignore[attr-defined]
