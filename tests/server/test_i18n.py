"""Every text of the UI exists in English and Japanese, once each, and the pages use only known keys."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"


def _blocks() -> dict[str, list[str]]:
    text = (STATIC / "i18n.js").read_text()
    en = text[text.index("  en: {") : text.index("  ja: {")]
    ja = text[text.index("  ja: {") : text.index("\n};")]
    key = re.compile(r"^    (\w+):", re.MULTILINE)
    return {"en": key.findall(en), "ja": key.findall(ja)}


def test_same_keys_no_duplicates():
    blocks = _blocks()
    for lang, keys in blocks.items():
        dupes = {k for k in keys if keys.count(k) > 1}
        assert not dupes, (lang, dupes)
    assert set(blocks["en"]) == set(blocks["ja"])
    assert len(blocks["en"]) > 100


def test_pages_use_known_keys():
    known = set(_blocks()["en"])
    html = (STATIC / "index.html").read_text()
    used = set(re.findall(r'data-i18n(?:-html|-rich|-placeholder)?="(\w+)"', html))
    js = (STATIC / "app.js").read_text()
    used |= set(re.findall(r'\bt\("(\w+)"', js))
    assert used and used <= known, used - known


def test_japanese_texts_are_japanese():
    text = (STATIC / "i18n.js").read_text()
    ja = text[text.index("  ja: {") :]
    values = re.findall(r'^    (\w+): "([^"]*)"', ja, re.MULTILINE)
    # everything but symbols, IDs and format names has Japanese characters
    latin_only = [k for k, v in values if not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", v)]
    assert set(latin_only) <= {"prev", "next", "xgid"}, latin_only
