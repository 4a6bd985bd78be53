"""Regenerate the web UI's screenshots of the lobby and a table, at 1280x800 and 390x844.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Starts ``backgammon serve`` on a free port with a temporary data folder and fixed dice, lists two
tables in the lobby, opens a table against the computer, and drives Debian's Chromium with
Playwright. Writes lobby-desktop.png, table-desktop.png, lobby-phone.png, table-phone.png and
phone-en.png (the README's phone picture) into ``--out``. The browser tests never write there.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(url: str, method: str, path: str, body: object = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def start_server(data: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-c", "from backgammon.cli import main; main()", "serve", "--port", str(port)]
    cmd += ["--data-dir", str(data), "--dice-seed", "11", "--bot-delay", "0.05"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300  # a cold start compiles the engine's kernels
    while time.time() < deadline:
        try:
            if api(url, "GET", "/api/health")["engine"] != "warming":
                return proc, url
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("error: the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots", help="folder for the PNG files")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("error: playwright is not installed (pip install playwright)") from None
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"error: {CHROMIUM} is missing (apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp))
        try:
            human = {"mode": "human", "seat": "white", "listed": True}
            api(url, "POST", "/api/tables", {**human, "name": "Hana", "rules": {"match_length": 7}})
            money = {"match_length": 0, "jacoby": True, "automatic_doubles": 1}
            api(url, "POST", "/api/tables", {**human, "name": "Ken", "rules": money})
            table = api(url, "POST", "/api/tables", {"mode": "ai", "seat": "white", "level": "expert"})
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for kind, (w, h) in {"desktop": (1280, 800), "phone": (390, 844)}.items():
                    page = browser.new_context(viewport={"width": w, "height": h}).new_page()
                    page.goto(url + "/")
                    settings = {"lang": "en", "animation": "off", "autoForced": False}
                    page.evaluate("s => localStorage.setItem('bg.settings', JSON.stringify(s))", settings)
                    page.reload()
                    page.wait_for_selector("#lobby li.lobby-entry")
                    page.screenshot(path=str(args.out / f"lobby-{kind}.png"), full_page=kind == "phone")
                    seat = {"token": table["token"], "seat": table["seat"]}
                    page.evaluate(
                        "([k, v]) => localStorage.setItem(k, JSON.stringify(v))", [f"bg.seat.{table['id']}", seat]
                    )
                    page.goto(f"{url}/t/{table['id']}")
                    page.wait_for_selector("#controls button")
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(args.out / f"table-{kind}.png"))
                    if kind == "phone":
                        page.screenshot(path=str(args.out / "phone-en.png"))
                browser.close()
        finally:
            proc.kill()
            proc.wait()
    for name in ("lobby-desktop", "table-desktop", "lobby-phone", "table-phone", "phone-en"):
        print(args.out / f"{name}.png")


if __name__ == "__main__":
    main()
