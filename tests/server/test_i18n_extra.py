"""The chouette, verifiable-dice and dice-statistics pages: every text in English and Japanese."""

from __future__ import annotations

import re
from pathlib import Path

from ._i18n import singular_forms

STATIC = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"
MODULES = ("chouette.js", "fairdice.js", "dicestats.js")


def _dicts(name: str) -> tuple[dict[str, str], dict[str, str]]:
    text = (STATIC / name).read_text()
    en = text[text.index("Object.assign(MESSAGES.en, {") : text.index("Object.assign(MESSAGES.ja, {")]
    ja_start = text.index("Object.assign(MESSAGES.ja, {")
    ja = text[ja_start : text.index("});", ja_start)]
    pair = re.compile(r'(\w+): "([^"]*)"')
    return dict(pair.findall(en)), dict(pair.findall(ja))


def _core_keys() -> set[str]:
    text = (STATIC / "i18n.js").read_text()
    return set(re.findall(r"^    (\w+):", text[text.index("  en: {") : text.index("  ja: {")], re.MULTILINE))


def test_same_keys_and_japanese():
    for name in MODULES:
        en, ja = _dicts(name)
        assert en and set(en) - singular_forms(en) == set(ja), (name, set(en) ^ set(ja))
        for key in singular_forms(en):  # English's singular forms, which t() takes when n is 1
            assert "{n}" in en[key.removesuffix("_one")] and "{n}" not in en[key], (name, key)
        latin = [k for k, v in ja.items() if not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", v)]
        assert not latin, (name, latin)


def test_pages_use_known_keys():
    known = _core_keys()
    for name in MODULES:
        known |= set(_dicts(name)[0])
    for page in ("chouette.html", "dicestats.html", "chouette.js", "dicestats.js", "fairdice.js"):
        text = (STATIC / page).read_text()
        used = set(re.findall(r'data-i18n(?:-html|-placeholder)?="(\w+)"', text)) | set(
            re.findall(r'\bt\("(\w+)"\s*[,)]', text)
        )
        assert used <= known, (page, used - known)
