"""The match equity table: Kazaross-XG2, 25 points, pre- and post-Crawford.

The table ships as package data (``engine/data/Kazaross-XG2.xml``, the file
distributed with GNU Backgammon's data, notice kept inside it and in
``engine/data/MET-README.md``): copyright (C) 2011 Neil Kazaross, rolled out to
9 points by eXtreme Gammon, to 15 points by GNUbg, extrapolated to 25 points;
transcribed by Michael Petch.

All lookups are the chance, from 0 to 1, that the player needing ``away_me``
points wins the match against an opponent needing ``away_opp`` points, at the
start of a game with the cube centred. A side needing 0 points or fewer has
won: equities are then exactly 1 or 0.

>>> match_equity(1, 1)
0.5
>>> round(match_equity(1, 2), 5)   # the leader in the Crawford game, 1-away/2-away
0.67736
>>> round(match_equity(2, 1, post_crawford=True), 5)   # the trailer after it
0.48803
"""

from __future__ import annotations

import functools
import importlib.resources
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from backgammon.errors import EngineError, InvalidInputError

MET_FILE = "Kazaross-XG2.xml"
MAX_AWAY = 25


@dataclass(frozen=True, slots=True)
class MatchEquityTable:
    """A match equity table read from gnubg's XML format.

    ``pre_crawford[i][j]``: the chance that the player needing ``i + 1`` wins
    against one needing ``j + 1`` (cube centred, Crawford rule in force: a
    1-away row is the Crawford game). ``post_crawford[j]``: the trailer needing
    ``j + 1`` against a leader needing 1, after the Crawford game.
    """

    name: str
    pre_crawford: tuple[tuple[float, ...], ...]
    post_crawford: tuple[float, ...]

    @property
    def length(self) -> int:
        """The longest match the table covers (25 for Kazaross-XG2)."""
        return len(self.pre_crawford)

    def equity(self, away_me: int, away_opp: int, post_crawford: bool = False) -> float:
        """The player's match-winning chance at this score.

        ``post_crawford`` matters only when one side needs exactly 1 point:
        False means this game is the Crawford game (no doubling in it), True
        that the Crawford game has been played.

        Raises:
            InvalidInputError: if a side needs more points than the table covers.
        """
        if away_me <= 0:
            return 1.0
        if away_opp <= 0:
            return 0.0
        for away in (away_me, away_opp):
            if away > self.length:
                raise InvalidInputError(
                    f"invalid score {away!r}-away: expected at most {self.length} points to go for this table"
                )
        if post_crawford and (away_me == 1 or away_opp == 1):
            if away_me == 1 and away_opp == 1:
                return 0.5
            if away_me == 1:
                return 1.0 - self.post_crawford[away_opp - 1]
            return self.post_crawford[away_me - 1]
        return self.pre_crawford[away_me - 1][away_opp - 1]


def parse_met(xml_text: str) -> MatchEquityTable:
    """Read a match equity table in gnubg's XML format (explicit tables only).

    Raises:
        EngineError: if the file is not a square explicit table with a post-Crawford row.
    """
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise EngineError(f"cannot read the match equity table: {exc}") from None
    name = (root.findtext("info/name") or "").strip()
    pre = root.find("pre-crawford-table")
    post = root.find("post-crawford-table")
    if pre is None or post is None or pre.get("type") != "explicit" or post.get("type") != "explicit":
        raise EngineError("expected explicit pre- and post-crawford tables in the match equity table")
    rows = tuple(tuple(float(me.text or "") for me in row.findall("me")) for row in pre.findall("row"))
    post_rows = post.findall("row")
    if not rows or any(len(r) != len(rows) for r in rows) or len(post_rows) < 1:
        raise EngineError(f"expected a square pre-crawford table, got {len(rows)} rows")
    post_row = tuple(float(me.text or "") for me in post_rows[0].findall("me"))
    if len(post_row) != len(rows):
        raise EngineError(f"expected {len(rows)} post-crawford values, got {len(post_row)}")
    return MatchEquityTable(name=name, pre_crawford=rows, post_crawford=post_row)


@functools.cache
def default_table() -> MatchEquityTable:
    """The Kazaross-XG2 table from package data, read once.

    Raises:
        EngineError: if the package data is missing or broken.
    """
    try:
        text = importlib.resources.files("backgammon.engine").joinpath("data", MET_FILE).read_text("utf-8")
    except OSError as exc:
        raise EngineError(f"cannot load the match equity table {MET_FILE!r}: {exc}") from None
    return parse_met(text)


def match_equity(away_me: int, away_opp: int, post_crawford: bool = False) -> float:
    """Kazaross-XG2 match-winning chance of the player needing ``away_me`` points.

    ``post_crawford``: when one side needs 1 point, whether the Crawford game
    is over (True) or this is the Crawford game (False).

    Raises:
        InvalidInputError: if a side needs more than 25 points.
    """
    return default_table().equity(away_me, away_opp, post_crawford)


__all__ = ["MAX_AWAY", "MatchEquityTable", "default_table", "match_equity", "parse_met"]
