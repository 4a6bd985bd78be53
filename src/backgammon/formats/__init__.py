"""Interchange formats: gnubg Match ID, XGID and Jellyfish ``.mat`` match files.

Stdlib only. :mod:`.match_id` and :mod:`.xgid` need only the rules core;
:mod:`.mat` replays match files through :mod:`backgammon.match`.
"""

from backgammon.formats.match_id import GameState, MatchState, format_gnubg_id, parse_gnubg_id

__all__ = ["GameState", "MatchState", "format_gnubg_id", "parse_gnubg_id"]
