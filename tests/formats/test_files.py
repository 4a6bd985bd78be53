"""read_match_file: one entry for every match and position file format (the upload page calls it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats import read_match_file
from backgammon.formats.mat import load_mat
from backgammon.formats.sgf import load_sgf

DATA = Path(__file__).parent.parent / "data"


def test_mat_file_reads_as_load_mat() -> None:
    path = next(iter(sorted((DATA / "real").glob("galaxy_*.mat"))))
    reading = read_match_file(path.read_bytes(), path.name)
    expected = load_mat(path.read_text())
    assert reading.format == "mat" and reading.position is None
    assert reading.match is not None and expected.match is not None
    assert reading.match.score == expected.match.score
    assert reading.warnings == expected.all_warnings and reading.errors == expected.all_errors


def test_sgf_is_told_by_content_not_name() -> None:
    path = sorted((DATA / "sgf").glob("*.sgf"))[0]
    reading = read_match_file(path.read_bytes(), "upload.txt")
    assert reading.format == "sgf"
    expected = load_sgf(path.read_text())
    assert reading.match is not None and expected.match is not None
    assert reading.match.score == expected.match.score


def test_mat_with_utf8_bom_and_crlf() -> None:
    text = " 1 point match\r\n\r\n Game 1\r\n A : 0   B : 0\r\n  1) 31: 8/5 6/5\r\n      Wins 1 point\r\n"
    reading = read_match_file(b"\xef\xbb\xbf" + text.encode(), "x.mat")
    assert reading.ok and reading.match is not None and reading.match.score == (0, 1)


@pytest.mark.parametrize("data", [b"", b"hello world", bytes(range(256)) * 4])
def test_unknown_data_is_a_clear_error(data: bytes) -> None:
    with pytest.raises(InvalidInputError) as info:
        read_match_file(data, "notes.txt")
    assert info.value.code == "unknown_match_file" and info.value.params == {"name": "notes.txt"}


def test_too_large_is_refused_before_reading() -> None:
    from backgammon.formats.files import MAX_BYTES

    with pytest.raises(InvalidInputError) as info:
        read_match_file(b" " * (MAX_BYTES + 1), "big.mat")
    assert info.value.code == "match_file_too_large"


def test_not_bytes_is_refused() -> None:
    with pytest.raises(InvalidInputError):
        read_match_file("text", "x.mat")  # type: ignore[arg-type]
