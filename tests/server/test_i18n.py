"""Every text of the UI exists in English and Japanese, once each, and the pages use only known keys."""

from __future__ import annotations

import re
from pathlib import Path

from ._i18n import singular_forms

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
    assert set(blocks["en"]) - singular_forms(blocks["en"]) == set(blocks["ja"])
    assert not singular_forms(blocks["ja"])
    assert len(blocks["en"]) > 100


def test_singular_forms_pair_a_count():
    """Each singular form stands beside a text that counts {n}, and the UI picks it through t(), not by hand."""
    text = (STATIC / "i18n.js").read_text()
    en = dict(re.findall(r'^    (\w+): "([^"]*)"', text[text.index("  en: {") : text.index("  ja: {")], re.MULTILINE))
    forms = singular_forms(en)
    assert {"points_one", "wins_points_one", "pz_unreviewed_one"} <= forms
    for key in forms:
        assert "{n}" in en[key.removesuffix("_one")] and "{n}" not in en[key], key
    assert "_one`]" in text  # t() looks the singular form up
    for name in ("app.js", "puzzles.js", "chouette.js", "fairdice.js"):
        assert '=== 1 ? "' not in (STATIC / name).read_text(), name  # no singular chosen by hand


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
