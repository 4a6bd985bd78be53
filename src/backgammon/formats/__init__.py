"""Interchange formats: gnubg Match ID, XGID, ``.mat``, gnubg SGF, eXtreme Gammon ``.xg``/``.xgp``, ``.pos``.

:func:`read_match_file` reads any match or position file (bytes and a name).

Stdlib only. :mod:`.match_id` and :mod:`.xgid` need only the rules core;
:mod:`.mat` and :mod:`.sgf` replay match files through :mod:`backgammon.match`
(imported when a record is replayed or written).
"""

from backgammon.formats.files import MatchFile, PositionFile, read_match_file
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
from backgammon.formats.sgf import load_sgf, read_sgf, write_sgf
from backgammon.formats.xgid import Xgid

__all__ = [
    "EntryKind",
    "GameReport",
    "GameState",
    "MatEntry",
    "MatGame",
    "MatReading",
    "MatchFile",
    "MatchRecord",
    "MatchState",
    "PositionFile",
    "Xgid",
    "check",
    "format_gnubg_id",
    "gnubg_id_of_game",
    "load_mat",
    "load_sgf",
    "parse_gnubg_id",
    "play_from_mat",
    "read_mat",
    "read_match_file",
    "read_sgf",
    "replay",
    "rules_for",
    "write_mat",
    "write_sgf",
]
