"""End-to-end tests in a real browser (Playwright for Python driving Debian's Chromium).

The server runs as a subprocess on a free port with a temporary data folder, with
``--test-hooks`` (tables may start from a given position, so a whole game is short) and
``--dice-seed``. Screenshots land in a temporary folder (``BACKGAMMON_SCREENSHOTS`` names another).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from backgammon.position import Position

from ._wire import moves_of

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Screenshots go to a temporary folder, never to the tracked docs/screenshots/ (tests write no tracked
# file); BACKGAMMON_SCREENSHOTS names another folder, e.g. docs/screenshots to refresh the README's.
SHOTS = Path(os.environ.get("BACKGAMMON_SCREENSHOTS") or tempfile.mkdtemp(prefix="bg-screenshots-"))
# white to roll: three checkers on each of points 1 and 2 (several turns to bear off);
# black has borne off five
SHORT = Position.from_points({1: 3, 2: 3}, {6: 5, 5: 5}).position_id()
LATE = Position.from_points({1: 2}, {6: 10}).position_id()

playwright_api = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):  # pragma: no cover
    pytest.skip("chromium is not installed", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, data_dir: Path, engine: bool = True) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.engine = engine  # start() waits for the engine's warm-up too (not for tests without the computer)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-c",
            "from backgammon.cli import main; main()",
            "serve",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--dice-seed",
            "11",
            "--test-hooks",
            "--bot-delay",
            "0.05",
        ]
        # one module's server serves every test of the module from one address: the per-address
        # budgets (tables an hour, tables against the computer at once, ...) are lifted here
        # (they have their own tests, tests/server/test_quotas.py)
        for kind in ("tables", "listed_tables", "ai_tables", "hints", "analysis", "reviews", "rollouts", "dice_stats"):
            cmd += ["--budget", f"{kind}=100000/100"]
        with open(self.data_dir / "server.log", "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.time() + 300  # a cold start compiles the engine's kernels (numba caches them on disk)
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as res:
                    if not self.engine or json.loads(res.read())["engine"] != "warming":
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError("server did not start: " + (self.data_dir / "server.log").read_text())

    def kill(self) -> None:
        if self.proc:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def api(self, method: str, path: str, body=None, token: str | None = None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"content-type": "application/json"}
        )
        if token:
            req.add_header("x-seat-token", token)
        with urllib.request.urlopen(req, timeout=10) as res:
            return json.loads(res.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("bgdata"))
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def wait_for_either(p1, p2, selector: str, timeout: float = 30.0):
    """The first of two pages to show ``selector`` (polled, so neither page's wait blocks the other's)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in (p1, p2):
            if p.locator(selector).count():
                return p
        p1.wait_for_timeout(100)
    raise AssertionError(f"neither page showed {selector} within {timeout} s")


def new_page(browser, server, settings=None, viewport=(1280, 900), locale="en-US"):
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    base = {"animation": "off", "autoForced": False, "lang": "en"}
    base.update(settings or {})
    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", base)
    return page


def confirm_dialog(page, ok: bool = True) -> None:
    """Answer the confirmation dialog that an irreversible action opens (resign, double, pass, end a session)."""
    page.wait_for_selector("#dlg-confirm[open]")
    page.click("#confirm-ok" if ok else "#confirm-cancel")
    page.wait_for_selector("#dlg-confirm:not([open])", state="attached")


def resign(page, level: str = "single") -> None:
    """Resign through the dialog: choose how much, then confirm."""
    page.click("#act-resign")
    page.wait_for_selector("#dlg-confirm[open]")
    page.check(f"#confirm-choice input[value={level}]")
    confirm_dialog(page)


def open_table(page, server, table: dict) -> None:
    page.evaluate("d => localStorage.setItem('bg.seat.' + d.id, JSON.stringify({token: d.token, seat: d.seat}))", table)
    page.goto(f"{server.url}/t/{table['id']}")
    page.wait_for_selector("#board .checker")


def center(page, selector: str):
    for _ in range(50):  # the board is redrawn on every state: retry if the element was just replaced
        box = page.locator(selector).first.bounding_box()
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        time.sleep(0.05)
    raise AssertionError(f"{selector} is not on the page")


def point_selector(p: int) -> str:
    if p == 0:
        return "#board .my-tray"
    if p == 25:
        return "#board .bar"
    return f'#board polygon[data-point="{p}"]'


def click_point(page, p: int) -> None:
    x, y = center(page, point_selector(p))
    page.mouse.click(x, y)


def drag(page, a: int, b: int) -> None:
    x0, y0 = center(page, point_selector(a))
    x1, y1 = center(page, point_selector(b))
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=4)
    page.mouse.up()


def play_turn_in_ui(page, server, table_id: str, token: str, use_drag: bool = False) -> None:
    """Play the first legal sequence the server offers by clicking (or dragging) checkers, then confirm."""
    st = server.api("GET", f"/api/tables/{table_id}", token=token)
    steps = moves_of(st)[0]
    for a, b in steps:
        if use_drag:
            drag(page, a, b)
        else:
            click_point(page, a)
            click_point(page, b)
    page.wait_for_selector("#act-confirm:not([disabled])")
    page.click("#act-confirm")
    page.wait_for_function("v => !document.querySelector('#act-confirm') || true", arg=st["version"])
    wait_version(server, table_id, st["version"] + 1)


def wait_version(server, table_id: str, version: int, timeout: float = 10.0) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        st = server.api("GET", f"/api/tables/{table_id}")
        if st["version"] >= version:
            return st
        time.sleep(0.05)
    raise AssertionError(f"table {table_id} did not reach version {version}")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name))


# --------------------------------------------------------------------------- tests
def test_full_game_against_the_ai(browser, server):
    assert server.api("GET", "/api/health")["engine"] == "ready"  # the computer plays with the engine
    page = new_page(browser, server)
    table = server.api(
        "POST",
        "/api/tables",
        {
            "mode": "ai",
            "level": "beginner",
            "rules": {"match_length": 1},
            "start": {"position_id": SHORT, "on_roll": "white"},
        },
    )
    open_table(page, server, table)
    tid, tok = table["id"], table["token"]
    for turn in range(30):
        page.wait_for_selector("#act-roll, #act-confirm, #act-take, #result:not([hidden])", timeout=10_000)
        st = server.api("GET", f"/api/tables/{tid}", token=tok)
        if st["match"]["over"]:
            break
        if "take" in st["allowed"]:
            page.click("#act-take")
            wait_version(server, tid, st["version"] + 1)
            continue
        if "roll" in st["allowed"]:
            page.click("#act-roll")
            wait_version(server, tid, st["version"] + 1)
            page.wait_for_selector("#act-confirm")
            # bearing off by dragging to the tray
            play_turn_in_ui(page, server, tid, tok, use_drag=(turn % 2 == 0))
        else:
            time.sleep(0.1)
    else:
        raise AssertionError("the game did not end")
    page.wait_for_selector("#result:not([hidden])")
    assert "wins" in page.inner_text("#result")
    assert "Match over" in page.inner_text("#status")
    final = server.api("GET", f"/api/tables/{tid}")
    assert final["match"]["over"] and final["match"]["winner"] in ("white", "black")
    moves = page.locator("#movelist li").all_inner_texts()
    assert any("off" in m for m in moves)
    assert page.errors == []


def test_illegal_drop_is_refused(browser, server):
    page = new_page(browser, server)
    table = server.api("POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 3}})
    open_table(page, server, table)
    tid, tok = table["id"], table["token"]
    page.wait_for_selector("#act-roll, #act-confirm", timeout=10_000)
    if page.locator("#act-roll").count():
        page.click("#act-roll")
    page.wait_for_selector("#act-confirm")
    st = server.api("GET", f"/api/tables/{tid}", token=tok)
    source = moves_of(st)[0][0][0]
    reachable = {seq[0][1] for seq in moves_of(st) if seq[0][0] == source}
    # a point behind the checker (moving backwards), or any point it cannot reach
    candidates = [p for p in range(1, 25) if p not in reachable and p != source]
    bad = next((p for p in candidates if p > source), candidates[0])
    assert bad not in reachable
    before = page.locator("#board circle.checker").count()
    drag(page, source, bad)
    page.wait_for_selector("#flash:has-text('not legal')")
    assert page.locator("#act-undo").is_disabled()
    assert page.locator("#act-confirm").is_disabled()
    assert page.locator("#board circle.checker").count() == before
    # the server state did not change either
    assert server.api("GET", f"/api/tables/{tid}")["version"] == st["version"]
    # a legal click-move then undo restores the board
    a, b = moves_of(st)[0][0]
    click_point(page, a)
    assert page.locator("#board .target").count() >= 1
    click_point(page, b)
    assert page.locator("#act-undo").is_enabled()
    page.click("#act-undo")
    assert page.locator("#act-undo").is_disabled()


def test_human_match_double_take_crawford(browser, server):
    p1 = new_page(browser, server)
    p2 = new_page(browser, server)
    table = server.api(
        "POST",
        "/api/tables",
        {
            "mode": "human",
            "name": "Ann",
            "rules": {"match_length": 3},
            "start": {"position_id": LATE, "on_roll": "white"},
        },
    )
    tid = table["id"]
    open_table(p1, server, table)
    assert not p1.locator("#share").is_hidden()
    assert f"/t/{tid}" in p1.input_value("#share-link")
    # the second player follows the link and joins
    p2.goto(f"{server.url}/t/{tid}")
    p2.wait_for_selector("#btn-join")
    p2.fill("#join-name", "Bob")
    p2.click("#btn-join")
    p2.wait_for_selector("text=Bob (Black) — you")
    p1.wait_for_selector("#act-double")
    # a spectator in a third context sees the table too
    p3 = new_page(browser, server)
    p3.goto(f"{server.url}/t/{tid}")
    p3.wait_for_selector("#board .checker")
    assert "watching" in p3.inner_text("#status")
    p1.click("#act-double")
    confirm_dialog(p1)
    p2.wait_for_selector("#act-take")
    shot(p2, "double-offered-en.png")
    p2.click("#act-take")
    p1.wait_for_selector("#act-roll")
    assert p1.locator("#act-double").count() == 0  # black owns the cube now
    assert p1.text_content("#board .cubeval") == "2"
    p1.click("#act-roll")
    p1.wait_for_selector("#act-confirm")
    white_token = table["token"]
    play_turn_in_ui(p1, server, tid, white_token, use_drag=True)
    for p in (p1, p2):
        p.wait_for_selector("#result:not([hidden])")
        assert "2 point" in p.inner_text("#result")
        p.click("#btn-result-ok")
    # the Crawford game: marked, and nobody may double
    for p in (p1, p2, p3):
        p.wait_for_function("() => document.querySelector('#matchinfo').textContent.includes('Crawford game')")
    assert p1.locator("#act-double").count() == 0 and p2.locator("#act-double").count() == 0
    st = server.api("GET", f"/api/tables/{tid}")
    assert st["match"]["crawford"] and st["match"]["score"] == {"white": 2, "black": 0}
    shot(p1, "crawford-game-en.png")
    # whoever is to act resigns a single game, the other accepts (found by the button itself: the state read
    # above may predate the Crawford game's opening roll, which decides who acts first)
    mover = wait_for_either(p1, p2, "#act-resign")
    other = p2 if mover is p1 else p1
    st = server.api("GET", f"/api/tables/{tid}")
    resign(mover, "single")
    other.wait_for_selector("#act-accept-resignation")
    other.click("#act-accept-resignation")
    st = wait_version(server, tid, st["version"] + 2)
    if st["game"]["turn"] == "white" and not st["match"]["over"]:
        assert st["match"]["post_crawford"]
        p1.wait_for_selector("#btn-result-ok")  # the Crawford game's end stays on the board until "Next game"
        p1.click("#btn-result-ok")
        p1.wait_for_function("() => document.querySelector('#matchinfo').textContent.includes('Post-Crawford')")
    assert p1.errors == [] and p2.errors == []


def test_settings_orientation_and_language_survive_reload(browser, server):
    page = new_page(browser, server)
    table = server.api("POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 5}})
    open_table(page, server, table)
    page.wait_for_selector("#act-roll, #act-confirm")
    board_box = page.locator("#board").bounding_box()
    cx, cy = board_box["x"] + board_box["width"] / 2, board_box["y"] + board_box["height"] / 2
    orientations = {"bottom-right": (1, 1), "bottom-left": (-1, 1), "top-right": (1, -1), "top-left": (-1, -1)}
    for lang in ("en", "ja"):
        for name, (sx, sy) in orientations.items():
            page.click("#btn-settings")
            page.select_option("#form-settings [name=orientation]", name)
            page.select_option("#form-settings [name=lang]", lang)
            page.click("#form-settings button.primary")
            x, y = center(page, point_selector(1))
            assert (x - cx) * sx > 0 and (y - cy) * sy > 0, (name, x, y)
            shot(page, f"board-{name}-{lang}.png")
    # last choice: top-left, Japanese; keep pips hidden too
    page.click("#btn-settings")
    page.uncheck("#form-settings [name=showPips]")
    page.click("#form-settings button.primary")
    page.reload()
    page.wait_for_selector("#board .checker")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert page.inner_text("#btn-settings") == "設定"
    x, y = center(page, point_selector(1))
    assert x < cx and y < cy
    assert page.locator("#board .pips").count() == 0
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    assert "コンピューターと対戦" in page.inner_text("#form-ai h2")
    shot(page, "home-ja.png")
    page.click("#btn-rules")
    assert "ベアオフ" in page.inner_text("#dlg-rules")
    shot(page, "rules-ja.png")


def test_phone_layout(browser, server):
    page = new_page(browser, server, viewport=(390, 844))
    table = server.api("POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 3}})
    open_table(page, server, table)
    page.wait_for_selector("#act-roll, #act-confirm")
    box = page.locator("#board").bounding_box()
    assert box["width"] <= 390
    shot(page, "phone-en.png")


def test_account_settings_follow_the_user(browser, server):
    page = new_page(browser, server)
    page.reload()
    page.fill("#form-login [name=username]", "carol")
    page.fill("#form-login [name=password]", "pw-123456")
    page.click("#btn-register")
    page.wait_for_selector("#account-info:not([hidden])")
    page.click("#btn-settings")
    page.select_option("#form-settings [name=orientation]", "bottom-left")
    page.click("#form-settings button.primary")
    # a fresh browser logs in and gets the account's settings
    other = new_page(browser, server)
    other.reload()
    other.fill("#form-login [name=username]", "carol")
    other.fill("#form-login [name=password]", "pw-123456")
    other.click("#form-login button[type=submit]")
    other.wait_for_selector("#account-info:not([hidden])")
    assert json.loads(other.evaluate("localStorage.getItem('bg.settings')"))["orientation"] == "bottom-left"


def test_server_killed_mid_game_loses_nothing(browser, tmp_path):
    srv = Server(tmp_path)
    srv.start()
    try:
        page = new_page(browser, srv)
        table = srv.api("POST", "/api/tables", {"mode": "human", "name": "Ann", "rules": {"match_length": 5}})
        tid = table["id"]
        bob = srv.api("POST", f"/api/tables/{tid}/join", {"name": "Bob"})
        tokens = {"white": table["token"], "black": bob["token"]}
        st = srv.api("GET", f"/api/tables/{tid}")
        mover = st["game"]["turn"]
        seat = {"id": tid, "token": tokens[mover], "seat": mover}
        open_table(page, srv, seat)
        page.wait_for_selector("#act-confirm")
        play_turn_in_ui(page, srv, tid, tokens[mover])
        before = srv.api("GET", f"/api/tables/{tid}", token=tokens[mover])
        srv.kill()  # kill -9 in the middle of the game
        page.wait_for_selector("#status:has-text('reconnecting')")
        srv.start()
        # the page reconnects by itself to the same seat
        page.wait_for_function(
            "pid => document.querySelector('#pos-id').textContent === pid"
            " && !document.querySelector('#status').textContent.includes('reconnecting')",
            arg=before["game"]["position_id"],
        )
        after = srv.api("GET", f"/api/tables/{tid}", token=tokens[mover])
        assert after["version"] == before["version"] and after["game"]["board"] == before["game"]["board"]
        assert after["you"] == mover
        # and play goes on: the other side rolls
        other = "black" if mover == "white" else "white"
        srv.api("POST", f"/api/tables/{tid}/actions", {"action": "roll"}, token=tokens[other])
        page.wait_for_function("v => document.querySelectorAll('#movelist li').length > 0", arg=0)
        assert srv.api("GET", f"/api/tables/{tid}")["version"] == before["version"] + 1
    finally:
        srv.kill()


def test_forced_move_hint_and_replay(browser, server):
    page = new_page(browser, server, settings={"autoForced": True})
    # first a normal position: the hint lists the engine's plays, replay walks the move list
    table = server.api("POST", "/api/tables", {"mode": "ai", "level": "expert", "rules": {"match_length": 3}})
    open_table(page, server, table)
    page.wait_for_selector("#act-roll, #act-confirm", timeout=15_000)
    if page.locator("#act-roll").count():
        page.click("#act-roll")
    page.wait_for_selector("#act-hint")
    page.click("#act-hint")
    page.wait_for_selector("#hints:not([hidden]) tr.hint-row")
    first = page.locator("#hints tr.hint-row").first
    assert "/" in first.inner_text() and "%" in first.inner_text()  # the play, its equity and chances
    assert "ply" in page.inner_text("#hints .hint-depth")  # the depth it was judged at
    first.hover()  # pointed at: the play shows on the board, nothing is chosen yet
    page.wait_for_selector('#board [data-last-move="to"]')
    assert page.locator("#act-confirm[disabled]").count() == 1
    first.click()  # chosen: it is the move on the board, to confirm or undo
    page.wait_for_selector("#act-confirm:not([disabled])")
    page.click("#act-undo")
    page.mouse.move(0, 0)
    live_id = page.inner_text("#pos-id")
    assert page.inner_text("#xgid").startswith("XGID=")
    page.wait_for_selector("#movelist li[data-index]")
    page.locator("#movelist li[data-index]").first.click()
    page.wait_for_selector("#movelist li.current")
    # the replay is drawn once the table's history has loaded (a request of its own)
    page.wait_for_function("document.querySelector('#status').textContent.includes('Replay')", timeout=15_000)
    assert "Replay" in page.inner_text("#status")
    assert page.locator("#controls button").count() == 0  # no actions while replaying
    page.click("#btn-prev")
    page.click("#btn-live")
    page.wait_for_function("pid => document.querySelector('#pos-id').textContent === pid", arg=live_id)
    assert page.locator("#act-confirm").count() == 1
    # a forced move is played by itself: two checkers on the ace point bear off with any roll
    forced = server.api(
        "POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 1}, "start": {"position_id": LATE}}
    )
    open_table(page, server, forced)
    page.click("#act-roll")
    page.wait_for_selector("#result:not([hidden])", timeout=10_000)
    final = server.api("GET", f"/api/tables/{forced['id']}")
    assert final["match"]["over"] and final["match"]["winner"] == "white"


def test_lobby_join_and_side_switch(browser, server):
    host = new_page(browser, server, settings={"autoSwitch": True})
    host.reload()
    lengths = host.locator("#form-human [name=match_length] option")
    assert [lengths.nth(i).inner_text() for i in (1, 3)] == ["1 point", "3 points"]  # t()'s singular form
    host.fill("#form-human [name=name]", "Hana")
    host.select_option("#form-human [name=match_length]", "3")
    host.click("#form-human button[type=submit]")
    host.wait_for_selector("#share:not([hidden])")
    tid = host.url.rsplit("/", 1)[1]
    guest = new_page(browser, server)
    guest.reload()
    guest.wait_for_selector(".lobby-join")
    assert "Hana" in guest.inner_text("#lobby")
    guest.locator("#lobby li", has_text="Hana").locator(".lobby-join").click()
    guest.wait_for_selector("#btn-join")
    guest.click("#btn-join")
    guest.wait_for_selector("text=— you")
    host.wait_for_function("() => document.querySelector('#share').hidden")
    board = host.locator("#board").bounding_box()
    cx = board["x"] + board["width"] / 2
    x1, _ = center(host, point_selector(1))
    assert x1 > cx  # game 1: home board on the right
    # end game 1 quickly: the side to act resigns, the other accepts
    st = server.api("GET", f"/api/tables/{tid}")
    mover, other = (host, guest) if st["game"]["turn"] == "white" else (guest, host)
    mover.wait_for_selector("#act-resign")
    resign(mover)
    other.wait_for_selector("#act-accept-resignation")
    other.click("#act-accept-resignation")
    host.wait_for_selector("#btn-result-ok")  # game 1's end stays on the board until "Next game"
    assert "Game 1" in host.inner_text("#matchinfo")
    host.click("#btn-result-ok")
    host.wait_for_function("() => document.querySelector('#matchinfo').textContent.includes('Game 2')")
    x1, _ = center(host, point_selector(1))
    assert x1 < cx  # game 2: sides switched, home board on the left


def test_browser_language_and_checker_colours(browser, server):
    # no saved settings: a Japanese browser gets the Japanese UI
    context = browser.new_context(locale="ja-JP")
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#form-ai")
    assert page.evaluate("document.documentElement.lang") == "ja"
    assert page.inner_text("#form-ai h2") == "コンピューターと対戦"
    context.close()
    # checker colours follow the setting
    page = new_page(browser, server, settings={"whiteColor": "#ff0000"})
    table = server.api("POST", "/api/tables", {"mode": "ai", "rules": {"match_length": 3}})
    open_table(page, server, table)
    fills = page.eval_on_selector_all("#board circle.checker", "els => els.map(e => e.getAttribute('fill'))")
    # a point with more than five checkers draws five and a count, so the number of
    # circles depends on the (random) opening: check the colours, not the total
    assert set(fills) == {"#ff0000", "#2b2b2b"}
    assert fills.count("#ff0000") >= 10 and fills.count("#2b2b2b") >= 10
