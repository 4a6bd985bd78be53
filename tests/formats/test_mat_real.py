"""Real .mat files from Backgammon Galaxy and Backgammon Studio Heroes (tests/data/real/, see its README).

Each dialect quirk is tested on the lines a real file writes, and every sample file is replayed
with the per-game results that GNU Backgammon 1.07 gives for it (recorded with gnubg's
``import mat`` then ``export match mat``; gnubg is not needed to run these tests).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats.mat import EntryKind, MatEntry, check, load_mat, read_mat, replay
from backgammon.game import Ending, GamePhase, Player, ResultKind

REAL = Path(__file__).parent.parent / "data" / "real"

# gnubg's results (winner: 0 = left, 1 = right; points), game by game
GNUBG_RESULTS: dict[str, list[tuple[int, int]]] = {
    "galaxy_match10013413.mat": [(0, 1), (0, 2), (1, 1), (1, 1), (0, 2)],
    "galaxy_match926877.mat": [(0, 3)],
    "galaxy_match1574521.mat": [(1, 1)],
    "galaxy_match1100068.mat": [(0, 2), (0, 1)],
    "galaxy_match3029786.mat": [(0, 6)],
    "galaxy_match2900236.mat": [(1, 1)],
    "galaxy_match3755271.mat": [(1, 4)],
    "galaxy_match1032950.mat": [(0, 4)],
    "galaxy_match8239468.mat": [(1, 2)],
    "galaxy_match7986278.mat": [(0, 48)],
    "galaxy_match7236505.mat": [(0, 3)],
    "galaxy_match3831101.mat": [],
    "heroes_mrpurple_lasse_3pt.mat": [(1, 1), (1, 12)],
    "heroes_solnze_lasse_3pt.mat": [(0, 2), (0, 1)],
    "heroes_moderntavla31_llabba_9pt.mat": [(1, 2), (0, 2), (0, 1), (1, 2), (1, 2), (1, 1), (1, 6)],
    "heroes_minchy_llabba_13pt.mat": [
        (1, 1),
        (1, 1),
        (1, 4),
        (1, 1),
        (1, 2),
        (0, 1),
        (1, 1),
        (0, 2),
        (1, 1),
        (1, 12),
    ],
}

# the files whose last game the rules cannot end (a forfeit out of turn, a forfeit of the match,
# a corrupt result): each has one warning, and the replayed games are a prefix of gnubg's
UNFINISHED = {
    "galaxy_match1100068.mat": "white is not the side to act (black to roll)",
    "galaxy_match2900236.mat": "black is not the side to act (white to roll or double)",
    "galaxy_match7236505.mat": "a forfeit of the match",
    "galaxy_match3831101.mat": "not the side to act (waiting for the opening roll)",
    "heroes_mrpurple_lasse_3pt.mat": "'Wins 4016' is more than the match length (3)",
    "heroes_minchy_llabba_13pt.mat": "'Wins 4016' is more than the match length (13)",
}


def _text(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8-sig")


def test_sample_is_documented() -> None:
    files = sorted(p.name for p in REAL.glob("*.mat"))
    readme = (REAL / "README.md").read_text()
    assert files == sorted(GNUBG_RESULTS)
    assert all(f"`{name}`" in readme for name in files)
    assert sum(p.stat().st_size for p in REAL.iterdir()) < 200_000


@pytest.mark.parametrize("name", sorted(GNUBG_RESULTS))
def test_real_file_replays_like_gnubg(name: str) -> None:
    reading = load_mat(_text(name))
    assert reading.ok and reading.match is not None, reading.all_errors
    ours = [(0 if g.result.winner is Player.BLACK else 1, g.result.points) for g in reading.match.games if g.result]
    theirs = GNUBG_RESULTS[name]
    if name in UNFINISHED:
        assert len(reading.all_warnings) == 1 and UNFINISHED[name] in reading.all_warnings[0]
        assert reading.all_warnings[0].endswith("the game is left unfinished")
        assert ours == theirs[: len(ours)] and not reading.match.is_over
    else:
        assert ours == theirs
    assert check(reading.record) == ()
    assert replay(reading.record).score == reading.match.score


# ------------------------------------------------------------------ Galaxy
def _game(lines: str, length: int = 5, names: str = " lasse : 0                       karis : 0") -> str:
    return f" {length} point match\n\n Game 1\n{names}\n{lines}"


def test_galaxy_losses_after_the_last_move() -> None:
    """match926877: the loser's note on the mover's line, the winner's line below."""
    text = _game("  1) 42: 8/4 6/4                  Losses 3 point\n\n      Wins 3 point and the match\n", 3)
    record = read_mat(text)
    kinds = [(e.kind, e.side) for e in record.games[0].entries]
    assert kinds == [(EntryKind.MOVE, 0), (EntryKind.LOSS, 1), (EntryKind.WIN, 0)]
    reading = load_mat(record)
    assert reading.ok and reading.all_warnings == ()
    result = reading.match.games[0].result
    assert result is not None and result.ending is Ending.RESIGNED and result.kind is ResultKind.BACKGAMMON
    assert reading.match.is_over and reading.match.winner is Player.BLACK


def test_galaxy_losses_left_and_wins_far_right() -> None:
    """match1574521: both notes on one numbered line, the winner's far to the right."""
    line = "  2)  Losses 1 point" + " " * 47 + "Wins 1 point and the match\n"
    text = _game("  1)                             21: 13/11 24/23\n" + line, 1)
    entries = read_mat(text).games[0].entries
    assert [(e.kind, e.side) for e in entries][1:] == [(EntryKind.LOSS, 0), (EntryKind.WIN, 1)]
    match = replay(read_mat(text))
    assert match.winner is Player.WHITE and match.score == (1, 0)


def test_galaxy_losses_on_its_own_line_forfeit_out_of_turn() -> None:
    """match1100068: 'Losses' alone in the left column, the loser not on roll: a warning, not an error."""
    text = _text("galaxy_match1100068.mat")
    assert "\n Losses 1 point\n\n      Wins 1 point and the match" in text
    reading = load_mat(text)
    assert reading.ok and len(reading.match.games) == 1
    (warning,) = reading.all_warnings
    assert warning.startswith("game 2 line 75: black wins 1 point(s) while white is not the side to act")
    assert reading.match.game.phase is GamePhase.ROLL  # game 2 is kept up to the forfeit


def test_galaxy_losses_after_takes() -> None:
    """match3029786: the doubler's 'Losses' after the take; 'Wins 5' = what black needed."""
    text = _text("galaxy_match3029786.mat")
    assert "  6)  Takes                       Losses 5 point\n\n      Wins 5 point and the match" in text
    reading = load_mat(text)
    assert reading.ok and reading.all_warnings == ()
    result = reading.match.games[0].result
    assert result is not None and result.cube_value == 2 and result.ending is Ending.RESIGNED
    assert result.points == 6 and reading.record.games[0].points == 5  # capped at the points needed


def test_galaxy_repeated_move_number() -> None:
    """match2900236 line 59: the move number written again before 'Losses', three notes on a line."""
    line = " 24) 43: 21/18 18/14              24)  Losses 2 point" + " " * 47 + "Wins 2 point and the match"
    assert line in _text("galaxy_match2900236.mat")
    record = read_mat(_text("galaxy_match2900236.mat"))
    entries = [e for e in record.games[1].entries if e.line == 59]
    assert [(e.kind, e.side) for e in entries] == [(EntryKind.MOVE, 0), (EntryKind.LOSS, 1), (EntryKind.WIN, 1)]
    assert entries[0].move == "21/18 18/14"
    assert record.all_errors == ()


def test_galaxy_empty_name() -> None:
    """match3755271: the right player has no name, in the players' line and in the headers."""
    text = _text("galaxy_match3755271.mat")
    assert " lasse : 0                        : 0\n" in text
    record = read_mat(text)
    assert record.names == ("lasse", "") and record.games[0].score == (0, 0)
    assert replay(record).players == ("Player 1", "lasse")


def test_galaxy_capped_final_result() -> None:
    """match1032950: a gammon worth 4 written 'Wins 3' in a 3-point match: accepted silently."""
    reading = load_mat(_text("galaxy_match1032950.mat"))
    assert reading.ok and reading.all_warnings == ()
    assert reading.record.games[0].points == 3 and reading.match.score == (0, 4)
    result = reading.match.games[0].result
    assert result is not None and result.kind is ResultKind.GAMMON and result.ending is Ending.PLAYED


def test_galaxy_sixteen_point_single_game_jacoby() -> None:
    """match8239468: a single-game '16 point match' scoring a centred-cube gammon as 1."""
    reading = load_mat(_text("galaxy_match8239468.mat"))
    assert reading.ok
    (warning,) = reading.all_warnings
    assert warning.startswith("game 1 line 45: says white wins 1 but the game gives white 2")
    assert "Jacoby" in warning
    assert reading.match.score == (2, 0)  # the rules' result is kept


def test_galaxy_sixteen_point_capped() -> None:
    """match7986278: a backgammon with the cube at 16 (48 points) written 'Wins 16'."""
    reading = load_mat(_text("galaxy_match7986278.mat"))
    assert reading.ok and reading.all_warnings == () and reading.match.score == (0, 48)


def test_galaxy_forfeit_before_the_opening_roll() -> None:
    text = _text("galaxy_match3831101.mat")
    assert "  1)                              Losses 3 point" in text
    reading = load_mat(text)
    assert reading.ok and reading.match.games == () and reading.match.game.phase is GamePhase.OPENING


# ------------------------------------------------------------------ Heroes
def test_heroes_cannot_move() -> None:
    """solnze: 'NN: Cannot Move' is a roll with no legal play."""
    text = _text("heroes_solnze_lasse_3pt.mat")
    assert "Cannot Move" in text
    record = read_mat(text)
    no_play = [e for g in record.games for e in g.entries if e.kind is EntryKind.MOVE and e.move == ""]
    assert no_play and record.all_errors == ()
    assert MatEntry(0, EntryKind.MOVE, dice=(6, 3), move="").text() == "63: "
    match = replay(record)
    assert match.is_over and match.winner is Player.BLACK


def test_heroes_roll_then_resignation() -> None:
    """Moderntavla31: '63: ????' then the opponent's 'Wins': the roll, then a resignation."""
    text = _text("heroes_moderntavla31_llabba_9pt.mat")
    record = read_mat(text)
    rolls = [(g.number, e) for g in record.games for e in g.entries if e.kind is EntryKind.ROLL]
    assert rolls and all(e.text().endswith(": ????") for _, e in rolls)
    reading = load_mat(record)
    assert reading.ok and reading.all_warnings == ()
    number, roll = rolls[0]
    game = reading.match.games[number - 1]
    assert game.result is not None and game.result.ending is Ending.RESIGNED
    assert game.result.winner is (Player.BLACK if roll.side == 1 else Player.WHITE)


@pytest.mark.parametrize(
    ("name", "line", "kept"), [("heroes_mrpurple_lasse_3pt.mat", 58, 1), ("heroes_minchy_llabba_13pt.mat", 220, 9)]
)
def test_heroes_corrupt_result_keeps_the_match(name: str, line: int, kept: int) -> None:
    """'Wins 4016 point': reported as corrupt, naming the line; the games before are kept."""
    text = _text(name)
    assert "Wins 4016 point" in text.splitlines()[line - 1]
    reading = load_mat(text)
    assert reading.ok and len(reading.match.games) == kept
    (warning,) = reading.all_warnings
    assert re.match(rf"game \d+ line {line}: 'Wins 4016' is more than the match length", warning)
    assert "corrupt" in warning


# ------------------------------------------------------------------ read up to the error
GAME_2 = """
 Game 2
 lasse : 1                       karis : 0
  1) 42: 8/4 6/4                 31: 8/5 6/5
"""


def test_inconsistent_wins_is_a_warning_then_a_bad_header_an_error() -> None:
    first = _game("  1) 42: 8/4 6/4                  Doubles => 2\n  2)  Drops                       Wins 2 point\n")
    reading = load_mat(first + GAME_2.replace("lasse : 1", "lasse : 0").replace("karis : 0", "karis : 2"))
    (warning,) = reading.all_warnings
    assert warning == "game 1 line 6: says white wins 2 but the game gives white 1"
    assert reading.all_errors == ("invalid .mat: game 2 starts at 0-2 but the games before give 0-1",)
    assert len(reading.match.games) == 1  # read up to the error
    assert [g.replayed for g in reading.games] == [True, True]  # game 2 was met in sequence
    with pytest.raises(InvalidInputError, match="game 2 starts at 0-2"):
        replay(reading.record)


def test_games_after_an_error_are_still_checked() -> None:
    """A forfeit the rules cannot end in a game that is not the last is an error; later games are
    replayed alone from their headers and report their own problems."""
    first = _game("  1) 42: 8/4 6/4\n Losses 1 point\n                                  Wins 1 point\n")
    second = GAME_2.replace("31: 8/5 6/5", "31: 8/5 6/3")
    reading = load_mat(first + second)
    assert len(reading.all_errors) == 2
    assert reading.all_errors[0].startswith("invalid .mat: game 1 line 7: white wins 1 point(s) while black")
    assert reading.all_errors[1].startswith("invalid .mat: game 2 line 11: illegal play '8/5 6/3'")
    assert reading.match is not None and reading.match.games == ()
    assert [g.replayed for g in reading.games] == [True, False]  # game 2 replayed alone


def test_losses_that_disagree_with_wins_is_a_warning() -> None:
    text = _game("  1) 42: 8/4 6/4                  Losses 2 point\n\n      Wins 3 point and the match\n", 3)
    record = read_mat(text)
    assert record.all_warnings == ("game 1: line 5: 'Losses 2' but line 7 says 'Wins 3'",)
    assert load_mat(record).all_warnings == record.all_warnings
