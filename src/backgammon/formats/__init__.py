"""Interchange formats: gnubg Match ID, XGID and Jellyfish ``.mat`` match files.

Stdlib only. :mod:`.match_id` and :mod:`.xgid` need only the rules core;
:mod:`.mat` replays match files through :mod:`backgammon.match` (imported
when a record is replayed or written).
"""

from backgammon.formats.mat import (
    EntryKind,
    GameReport,
    MatchRecord,
    MatEntry,
    MatGame,
    MatReading,
    check,
    load_mat,
    play_from_mat,
    read_mat,
    replay,
    rules_for,
    write_mat,
)
from backgammon.formats.match_id import GameState, MatchState, format_gnubg_id, gnubg_id_of_game, parse_gnubg_id
from backgammon.formats.xgid import Xgid

__all__ = [
    "EntryKind",
    "GameReport",
    "GameState",
    "MatEntry",
    "MatGame",
    "MatReading",
    "MatchRecord",
    "MatchState",
    "Xgid",
    "check",
    "format_gnubg_id",
    "gnubg_id_of_game",
    "load_mat",
    "parse_gnubg_id",
    "play_from_mat",
    "read_mat",
    "replay",
    "rules_for",
    "write_mat",
]
