"""One entry for every match or position file a player may bring: :func:`read_match_file`.

The format is told from the content first (eXtreme Gammon's binary header,
SGF's ``(;``, a ``.mat`` file's ``N point match`` line, ...) and from the
file name's extension where the content leaves a doubt. Every reader is
tolerant in the same way as :func:`backgammon.formats.mat.load_mat`: a match
is replayed through the rules up to its first error, and the warnings and
errors name the game and line (or record) at fault. A file that is not one
of the formats at all raises :class:`~backgammon.errors.InvalidInputError`
with a ``code`` and ``params`` (for the web site's messages).

>>> text = b" 1 point match\\n\\n Game 1\\n A : 0   B : 0\\n  1) 31: 8/5 6/5\\n      Wins 1 point\\n"
>>> reading = read_match_file(text, "game.mat")
>>> reading.format, reading.ok, reading.match.score, reading.warnings
('mat', True, (0, 1), ())
>>> read_match_file(b"hello", "notes.txt")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
backgammon.errors.InvalidInputError: 'notes.txt' is not a match or position file this program reads (.mat, ...)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from backgammon.errors import InvalidInputError
from backgammon.formats.analysis import DecisionAnalysis
from backgammon.formats.mat_replay import MatReading, load_mat
from backgammon.formats.mat_syntax import MAX_FILE_SIZE
from backgammon.formats.match_id import MatchState
from backgammon.position import Position

if TYPE_CHECKING:
    from backgammon.match import Match

__all__ = ["FORMATS", "MatchFile", "PositionFile", "read_match_file"]

FORMATS = {
    "mat": "Jellyfish .mat match file",
    "sgf": "GNU Backgammon SGF",
    "xg": "eXtreme Gammon match (.xg)",
    "xgp": "eXtreme Gammon position (.xgp)",
    "pos": "Jellyfish position (.pos)",
}
"""The formats :func:`read_match_file` reads, by the name it reports in :attr:`MatchFile.format`."""

MAX_BYTES = MAX_FILE_SIZE
"""The largest file read, in bytes (a compressed ``.xg`` file is also limited once unpacked)."""


@dataclass(frozen=True, slots=True)
class PositionFile:
    """A position read from a position file (``.xgp``, ``.pos``, or an ``.xg`` game that starts from one).

    ``position`` is seen from the player on roll, ``state.dice_owner``, as in
    gnubg's Position ID; ``state`` holds gnubg's match state (players 0 and
    1, score, cube, dice). ``names`` are (player 0, player 1).
    """

    position: Position
    state: MatchState
    names: tuple[str, str] = ("", "")


@dataclass(frozen=True, slots=True)
class MatchFile:
    """A file read by :func:`read_match_file`.

    ``format`` is one of :data:`FORMATS`' keys. A match file has ``reading``
    (the record and the match replayed as far as the rules allow, as
    :func:`~backgammon.formats.mat.load_mat` gives it) and ``position`` None;
    a position file has ``position`` and ``reading`` None. ``analysis`` is
    the analysis the file carries (XG's, gnubg's), one item per judged
    decision, in playing order. ``file_warnings`` / ``file_errors`` are
    problems of the file outside the replay (an unknown record, a damaged
    analysis block).
    """

    name: str
    format: str
    reading: MatReading | None = None
    position: PositionFile | None = None
    analysis: tuple[DecisionAnalysis, ...] = ()
    file_warnings: tuple[str, ...] = ()
    file_errors: tuple[str, ...] = ()

    @property
    def match(self) -> Match | None:
        """The match replayed up to its first error (None for a position file, or when no game could start)."""
        return None if self.reading is None else self.reading.match

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every warning: the file's, then each game's."""
        return (*self.file_warnings, *(() if self.reading is None else self.reading.all_warnings))

    @property
    def errors(self) -> tuple[str, ...]:
        """Every error: the file's, then each game's (the match holds the games before the first)."""
        return (*self.file_errors, *(() if self.reading is None else self.reading.all_errors))

    @property
    def ok(self) -> bool:
        """True when nothing is an error (warnings allowed)."""
        return not self.errors


def _not_read(name: str) -> InvalidInputError:
    return InvalidInputError(
        f"{name!r} is not a match or position file this program reads (.mat, .sgf, .xg, .xgp, .pos)",
        code="unknown_match_file",
        params={"name": name},
    )


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace")


def detect_format(data: bytes, name: str) -> str | None:
    """The format of a file (a key of :data:`FORMATS`), or None: the content decides, the extension breaks ties."""
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if data[:4] == b"RGMH":
        return "xgp" if ext == "xgp" else "xg"  # read_xg_file tells a position file by its content too
    from backgammon.formats.jfpos import is_jf_position

    if is_jf_position(data):
        return "pos"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"("):
        return "sgf"
    text = _text(data[:65536])
    if ext == "mat" or "point match" in text.lower():
        return "mat"
    if ext == "sgf":
        return "sgf"
    return None


def read_match_file(data: bytes, name: str) -> MatchFile:
    """Read a match or position file of any format this package knows (see :data:`FORMATS`).

    ``name`` is the file's name (its extension helps tell the format; it is
    also quoted in messages). Nothing is written anywhere; the reading is pure
    and safe on hostile input: sizes are limited (:data:`MAX_BYTES`, and the
    unpacked size of an ``.xg`` file), recursion is never driven by the data.

    Raises:
        InvalidInputError: for data that is none of the formats, too large,
            or so damaged that nothing can be read (``code`` and ``params``
            name the problem: ``unknown_match_file``, ``match_file_too_large``,
            or the format reader's own).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"a match file must be bytes, not {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise InvalidInputError(
            f"{name!r} is too large: {len(data)} bytes (at most {MAX_BYTES})",
            code="match_file_too_large",
            params={"name": name, "size": len(data), "limit": MAX_BYTES},
        )
    kind = detect_format(data, name)
    if kind is None:
        raise _not_read(name)
    if kind == "mat":
        return MatchFile(name, kind, reading=load_mat(_text(data)))
    if kind == "sgf":
        from backgammon.formats.sgf import load_sgf_analysed

        reading, analysis = load_sgf_analysed(_text(data))
        return MatchFile(name, kind, reading=reading, analysis=analysis)
    if kind in ("xg", "xgp"):
        from backgammon.formats.xg import read_xg_file

        return read_xg_file(data, name)
    from backgammon.formats.jfpos import read_jf_position

    return MatchFile(name, kind, position=read_jf_position(data))
