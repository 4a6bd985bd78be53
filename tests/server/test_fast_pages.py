"""Fast pages: gzip, content-hashed static URLs cached for a year, and a finished match's JSON size."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from backgammon.server.assets import IMMUTABLE, STATIC_DIR, StaticAssets, build

PAGES = ["/", "/t/abc", "/study", "/study/lessons", "/puzzles", "/static/chouette.html", "/static/dicestats.html"]
REFERENCE = re.compile(r"""\b(?:src|href)="(/static/[^"]+)\"""")
IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)"(\./[^"]+)\"""")


def versioned_refs(html: str) -> list[str]:
    return [u for u in REFERENCE.findall(html) if not u.split("?")[0].endswith(".html")]


def test_app_js_is_sent_gzipped(client):
    raw = (STATIC_DIR / "app.js").read_bytes()
    res = client.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert res.status_code == 200
    assert res.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in res.headers["vary"].lower()
    sent = int(res.headers["content-length"])
    assert sent < len(raw) * 0.45, (sent, len(raw))  # app.js: 56 kB raw, about 18 kB gzipped
    assert res.text.startswith(raw.decode()[:60])  # the client decoded it: the same file
    plain = client.get("/static/app.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert int(plain.headers["content-length"]) >= len(raw)  # plus the versions in its imports


def test_json_answers_are_gzipped_above_a_size(client):
    made = client.post("/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": 3}})
    big = client.get(f"/api/tables/{made.json()['id']}", headers={"Accept-Encoding": "gzip"})
    assert big.status_code == 200 and big.headers["content-encoding"] == "gzip"
    assert int(big.headers["content-length"]) < len(big.content) / 2 and big.json()["table"]["mode"] == "human"
    small = client.get("/api/health", headers={"Accept-Encoding": "gzip"})
    assert small.status_code == 200 and "content-encoding" not in small.headers
    with client.websocket_connect(f"/ws/tables/{made.json()['id']}") as ws:  # sockets pass through
        ws.send_json({"type": "hello", "token": made.json()["token"]})
        assert ws.receive_json()["type"] in ("state", "presence")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_refers_to_hashed_urls_that_resolve(client, page):
    res = client.get(page)
    assert res.status_code == 200
    assert res.headers["cache-control"] == "no-cache"  # the page itself is always checked again
    refs = versioned_refs(res.text)
    assert refs and all("?v=" in u for u in refs), refs
    for url in refs:
        got = client.get(url)
        assert got.status_code == 200, url
        assert got.headers["cache-control"] == IMMUTABLE, url
        name = url.split("?")[0].removeprefix("/static/")
        if name.endswith(".js"):  # its module imports are versioned too, and resolve the same way
            imports = IMPORT.findall(got.text)
            assert all("?v=" in spec for spec in imports), (name, imports)
            for spec in imports:
                child = client.get("/static/" + spec.removeprefix("./"))
                assert child.status_code == 200 and child.headers["cache-control"] == IMMUTABLE, spec


def test_hashed_url_gets_the_current_content_and_a_year_of_cache(client):
    page = client.get("/").text
    url = next(u for u in versioned_refs(page) if u.startswith("/static/style.css?v="))
    res = client.get(url)
    assert res.status_code == 200
    assert res.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert res.content == (STATIC_DIR / "style.css").read_bytes()
    assert res.headers["content-type"].startswith("text/css")


def test_unhashed_or_stale_hash_is_never_kept(client):
    for url in ("/static/style.css", "/static/style.css?v=000000000000", "/static/sounds/move.wav"):
        res = client.get(url)
        assert res.status_code == 200, url
        assert res.headers["cache-control"] == "no-cache", url
        etag = res.headers["etag"]
        again = client.get(url, headers={"If-None-Match": etag})
        assert again.status_code == 304 and not again.content, url  # revalidation costs no body
    assert client.get("/static/missing.js").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_sounds_are_served_unchanged(client):
    res = client.get("/static/sounds/move.wav", headers={"Accept-Encoding": "gzip"})
    assert res.status_code == 200 and "content-encoding" not in res.headers
    assert res.content == (STATIC_DIR / "sounds" / "move.wav").read_bytes()
    assert res.headers["content-type"].startswith("audio/")


def test_a_version_covers_the_modules_it_imports():
    files = {
        "index.html": b'<script type="module" src="/static/a.js"></script><a href="/static/b.html">b</a>',
        "a.js": b'import { x } from "./b.js";\nconst m = import("./c.js");\n',
        "b.js": b"export const x = 1;\n",
        "c.js": b"export const y = 2;\n",
        "b.html": b"<p>another page</p>",
    }
    first = build(files)
    assert first["a.js"].body.decode().count("?v=") == 2
    assert f'/static/a.js?v={first["a.js"].version}"' in first["index.html"].body.decode()
    assert 'href="/static/b.html"' in first["index.html"].body.decode()  # links to pages stay as they are
    second = build({**files, "b.js": b"export const x = 2;\n"})
    assert second["b.js"].version != first["b.js"].version
    assert second["a.js"].version != first["a.js"].version  # a.js's text did not change, its import did
    assert second["c.js"].version == first["c.js"].version


def test_modules_that_import_each_other_share_one_version():
    files = {"a.js": b'import "./b.js";\n', "b.js": b'import "./a.js";\n', "c.css": b"p {}\n"}
    assets = build(files)
    assert len({a.version for a in assets.values()}) == 1
    assert f'"./b.js?v={assets["b.js"].version}"' in assets["a.js"].body.decode()


def test_an_edited_file_is_served_at_once_under_a_new_version(tmp_path: Path):
    (tmp_path / "x.js").write_text("export const a = 1;\n")
    (tmp_path / "p.html").write_text('<script src="/static/x.js"></script>')
    assets = StaticAssets(tmp_path, recheck=0.0)
    before = assets.version("x.js")
    (tmp_path / "x.js").write_text("export const a = 22;\n")  # another size: seen whatever the clock
    assert assets.version("x.js") != before
    assert assets.url("x.js") in assets.assets()["p.html"].body.decode()
    packed = assets.assets()["x.js"].gzipped
    assert packed is None or gzip.decompress(packed) == b"export const a = 22;\n"


# ------------------------------------------------------------- a finished match's JSON
def play_match_to_the_end(client, length: int = 3) -> tuple[str, str]:
    """A whole match between two people through the REST API, each playing the quick player's
    choice (:func:`backgammon.engine.players.heuristic`) without the cube: the table and white's token."""
    from backgammon.engine.players import heuristic
    from backgammon.position import Position

    made = client.post("/api/tables", json={"mode": "human", "name": "Ann", "rules": {"match_length": length}})
    tid = made.json()["id"]
    tokens = {"white": made.json()["token"]}
    tokens["black"] = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()["token"]
    st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tokens["white"]}).json()
    for _ in range(3000):
        if st["match"]["over"]:
            return tid, tokens["white"]
        side = st["game"]["turn"] or "white"
        st = client.get(f"/api/tables/{tid}", headers={"x-seat-token": tokens[side]}).json()
        doc: dict = {"action": "roll"}
        if "move" in st["allowed"]:
            position = Position.from_position_id(st["game"]["position_id"])
            plays = list(position.legal_plays(*st["game"]["dice"]))
            steps = []
            if plays:
                best = max(plays, key=lambda p: heuristic(p.position))
                steps = [[s.source, s.destination] for s in best.steps]
            doc = {"action": "move", "steps": steps, "version": st["version"]}
        elif "roll" not in st["allowed"]:
            raise AssertionError(f"nothing to do for {side}: {st['allowed']}")
        res = client.post(f"/api/tables/{tid}/actions", json=doc, headers={"x-seat-token": tokens[side]})
        assert res.status_code == 200, res.text
        st = res.json()
    raise AssertionError("the match did not end")


def test_a_finished_match_page_loads_under_60_kB_of_json(client):
    """What the page of a finished 3-point match fetches: its state, the move list and the
    review's summary (shown with the result), under 60 kB of JSON before gzip; one replayed
    position comes on its own, and the whole history with positions is still there."""
    tid, token = play_match_to_the_end(client)
    state = client.get(f"/api/tables/{tid}", headers={"x-seat-token": token})
    moves = client.get(f"/api/tables/{tid}/history?positions=false")
    review = client.post(f"/api/study/reviews/{tid}?decisions=false")
    full = client.get(f"/api/tables/{tid}/history")
    assert {r.status_code for r in (state, moves, review, full)} == {200}
    entries, full_entries = moves.json()["entries"], full.json()["entries"]
    assert len(entries) == len(full_entries) > 100  # a real match: the size is not from a short one
    total = len(state.content) + len(moves.content) + len(review.content)
    assert total < 60_000, (len(state.content), len(moves.content), len(review.content))
    assert len(moves.content) < len(full.content) / 4
    assert "decisions" not in review.json() and review.json()["players"] and review.json()["games"]
    # the move list keeps everything app.js's move list reads (eventText, renderMoveList)
    for brief, whole in zip(entries, full_entries, strict=True):
        assert brief["kind"] == whole["kind"] and brief["game"] == whole["game"]
        assert brief.get("player") == whole["player"]
        if whole["kind"] == "roll":
            assert brief["dice"] == whole["dice"]
        wanted = {"opening_roll": "dice", "move": "play", "resign": "level"}.get(whole["kind"])
        if wanted:
            assert brief["raw"][wanted] == whole["raw"][wanted]
        assert "board" not in brief and "xgid" not in brief
    # a replayed position: the same entry as in the whole history
    for seq in (0, 57, len(full_entries) - 1):
        one = client.get(f"/api/tables/{tid}/history/{seq}")
        assert one.status_code == 200 and one.json() == full_entries[seq]
    assert client.get(f"/api/tables/{tid}/history/{len(full_entries)}").status_code == 404
    assert client.get(f"/api/tables/{tid}/history/-1").status_code == 404
    # and the full review is still there for the study page
    assert "decisions" in client.get(f"/api/study/reviews/{tid}").json()
