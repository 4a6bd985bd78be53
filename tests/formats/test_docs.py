"""The examples of docs/formats.md run as doctests."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).parent.parent.parent / "docs" / "formats.md"


def test_formats_doc_examples() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15
    assert result.failed == 0
