"""Every relative link in the project's Markdown documents resolves: the file it names exists
and, when it names a heading (``file.md#anchor`` or ``#anchor``), that heading is there, with the
anchor spelled as GitHub spells it (lower case, punctuation dropped, spaces as hyphens, a repeated
heading numbered ``-1``, ``-2``...)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The documents people read: the top-level guides, docs/, and the training folders' notes.
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CHANGELOG.md"]
    + list((ROOT / "docs").glob("*.md"))
    + list((ROOT / "training").glob("**/README.md"))
)

_FENCE = re.compile(r"^(```|~~~)")
# [text](target) or ![alt](target); the target ends at whitespace or the closing parenthesis.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_INLINE_CODE = re.compile(r"`[^`]*`")


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked out."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor GitHub gives the headings of ``path`` (explicit ``<a id>`` tags too)."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    text = path.read_text(encoding="utf-8")
    for line in _prose_lines(text):
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return found


def links(path: Path) -> list[str]:
    """The link targets of ``path``'s prose (code blocks and inline code left out)."""
    targets = []
    for line in _prose_lines(path.read_text(encoding="utf-8")):
        targets.extend(_LINK.findall(_INLINE_CODE.sub("", line)))
    return targets


def broken_links(path: Path) -> list[str]:
    """The relative links of ``path`` that name a missing file or heading, each with the reason."""
    broken = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:: not checked here
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        shown = dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest
        if not dest.exists():
            broken.append(f"{target}: no file {shown}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {shown}")
    return broken


def test_slug_follows_github() -> None:
    assert slug("Several processes, one site") == "several-processes-one-site"
    assert slug("Fitting to the 2-ply label shards (issue 17, step 5)") == (
        "fitting-to-the-2-ply-label-shards-issue-17-step-5"
    )
    assert slug("The `backgammon` command") == "the-backgammon-command"
    assert slug("Error rate (PR)") == "error-rate-pr"


def test_checker_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# Doc\n\n[ok](other.md#a-part) [self](#doc) [gone](missing.md) [bad](other.md#nope)\n"
        "`[code](missing-too.md)`\n\n```\n[fenced](missing-three.md)\n```\n",
        encoding="utf-8",
    )
    assert [b.split(":")[0] for b in broken_links(doc)] == ["missing.md", "other.md#nope"]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path) == []
