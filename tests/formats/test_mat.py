"""Jellyfish .mat files: gnubg's exports, the writer, XG's dialect, errors."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats.mat import EntryKind, MatchRecord, play_from_mat, read_mat, replay, rules_for, write_mat
from backgammon.formats.mat_replay import load_mat
from backgammon.game import (
    AcceptResignation,
    Beaver,
    Double,
    Ending,
    GamePhase,
    Move,
    OpeningRoll,
    Pass,
    Player,
    RejectResignation,
    Resign,
    ResultKind,
    Roll,
    Rules,
    Take,
)
from backgammon.match import Match
from backgammon.position import Position

DATA = Path(__file__).parent.parent / "data"
GNUBG_FILES = sorted((DATA / "gnubg").glob("*.mat"))


def _read(path: Path) -> MatchRecord:
    return read_mat(path.read_text())


# ------------------------------------------------------------------ gnubg files
def test_gnubg_files_exist() -> None:
    assert len(GNUBG_FILES) >= 7


@pytest.mark.parametrize("path", GNUBG_FILES, ids=lambda p: p.name)
def test_read_gnubg_file(path: Path) -> None:
    record = _read(path)
    assert record.all_errors == ()
    assert record.header("EventDate") is not None
    assert record.names == ("gnubg", "root")
    score = list(record.games[0].score)
    for k, game in enumerate(record.games):
        assert game.number == k + 1
        assert list(game.score) == score  # each header continues the last game's result
        assert game.result is not None and game.winner in (0, 1) and game.points
        score[game.winner] += game.points
        # entries alternate sides except around cube actions
        assert game.entries[0].kind is EntryKind.MOVE
    if record.match_length:
        assert max(score) >= record.match_length
        assert min(score) < record.match_length


@pytest.mark.parametrize("path", GNUBG_FILES, ids=lambda p: p.name)
def test_replay_gnubg_file(path: Path) -> None:
    record = _read(path)
    match = replay(record)
    last = record.games[-1]
    final = list(last.score)
    assert last.winner is not None and last.points is not None
    final[last.winner] += last.points
    assert match.score == (final[1], final[0])  # (white = right, black = left)
    assert len(match.games) == len(record.games)
    assert match.players == ("root", "gnubg")
    if record.match_length:
        assert match.is_over
        assert match.winner is (Player.WHITE if final[1] >= record.match_length else Player.BLACK)
    for game, mat_game in zip(match.games, record.games, strict=True):
        assert game.result is not None
        assert game.result.points == mat_game.points


def test_gnubg_files_cover_the_features() -> None:
    """The generated data has cube actions, resignations, a Crawford game, money play."""
    kinds = set()
    endings = set()
    crawford = 0
    for path in GNUBG_FILES:
        record = _read(path)
        kinds |= {e.kind for g in record.games for e in g.entries}
        match = replay(record)
        endings |= {g.result.ending for g in match.games if g.result}
        crawford += sum(1 for g in match.games if g.crawford_game)
    assert {EntryKind.MOVE, EntryKind.DOUBLE, EntryKind.TAKE, EntryKind.DROP, EntryKind.WIN} <= kinds
    assert {Ending.PLAYED, Ending.PASSED, Ending.RESIGNED} <= endings
    assert crawford >= 1


def _skeleton(line: str) -> list[tuple[int, str]]:
    """Each entry's start column and its head (dice or cube word): move texts may differ."""
    return [
        (m.start(), m.group(0)) for m in re.finditer(r"\d+\)|[1-6][1-6]:|Doubles => \d+|Takes|Drops|Wins \d+", line)
    ]


@pytest.mark.parametrize("path", GNUBG_FILES, ids=lambda p: p.name)
def test_write_matches_gnubg_layout(path: Path) -> None:
    """Written back, a gnubg file keeps every line and column; only the order of steps
    within a move (and the path of a checker) may differ, as long as the position is the same."""
    original = path.read_text()
    record = read_mat(original)
    written = write_mat(replay(record), headers=record.headers)
    a, b = original.splitlines(), written.splitlines()
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        if re.search(r"[1-6][1-6]:", x):
            assert _skeleton(x) == _skeleton(y), (x, y)
        else:
            assert x == y
    assert replay(read_mat(written)).log == replay(record).log


# ------------------------------------------------------------- the writer
def _random_match(seed: int, rules: Rules, *, resign_rate: float = 0.01, max_games: int = 6) -> Match:
    rng = random.Random(seed)
    match = Match.new(rules, players=("Wendy White", "Bob Black"))
    steps = 0
    while not match.is_over and len(match.games) < max_games:
        steps += 1
        assert steps < 20000
        game = match.game
        if game.phase is GamePhase.OPENING:
            match = match.apply(OpeningRoll(rng.randint(1, 6), rng.randint(1, 6)))
            continue
        actions = game.legal_actions()
        player = game.turn
        assert player is not None
        if game.phase is GamePhase.ROLL:
            if rng.random() < resign_rate:
                match = match.apply(Resign(player, rng.choice(list(ResultKind))))
            elif any(isinstance(a, Double) for a in actions) and rng.random() < 0.08:
                match = match.apply(Double(player))
            else:
                match = match.apply(Roll(player, (rng.randint(1, 6), rng.randint(1, 6))))
        elif game.phase is GamePhase.MOVE:
            moves = [a for a in actions if isinstance(a, Move)]
            match = match.apply(rng.choice(moves))
        elif game.phase is GamePhase.DOUBLED:
            choice = rng.random()
            if any(isinstance(a, Beaver) for a in actions) and choice < 0.2:
                match = match.apply(Beaver(player))
            else:
                match = match.apply(Take(player) if choice < 0.7 else Pass(player))
        elif game.phase is GamePhase.RESIGNATION:
            match = match.apply(AcceptResignation(player))
        else:  # pragma: no cover
            raise AssertionError(game.phase)
    return match


def _writable_log(match: Match) -> list[object]:
    """The actions a .mat file holds: opening ties are not written, dice are written high first."""
    out: list[object] = []
    for a in match.log:
        if isinstance(a, OpeningRoll) and a.white_die == a.black_die:
            continue
        if isinstance(a, Roll) and a.dice is not None:
            a = Roll(a.player, (max(a.dice), min(a.dice)))
        out.append(a)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_write_read_round_trip_match(seed: int) -> None:
    match = _random_match(seed, Rules(match_length=5), resign_rate=0.02)
    assert match.is_over
    text = write_mat(match)
    back = replay(read_mat(text))
    assert _writable_log(back) == _writable_log(match)
    assert back.score == match.score and back.players == match.players
    assert write_mat(back) == text


def test_round_trip_has_cube_resignation_and_crawford() -> None:
    """Seeds chosen so that one match has every feature; checked, not assumed."""
    for seed in range(200):
        match = _random_match(seed, Rules(match_length=5), resign_rate=0.02)
        endings = {g.result.ending for g in match.games if g.result}
        has_take = any(isinstance(a, Take) for a in match.log)
        if {Ending.RESIGNED, Ending.PASSED} <= endings and has_take and any(g.crawford_game for g in match.games):
            break
    else:  # pragma: no cover
        pytest.fail("no random match with every feature")
    text = write_mat(match)
    assert "Doubles => " in text and "Takes" in text and "Drops" in text
    back = replay(read_mat(text))
    assert _writable_log(back) == _writable_log(match)
    assert [g.crawford_game for g in back.games] == [g.crawford_game for g in match.games]
    assert [g.result for g in back.games] == [g.result for g in match.games]


@pytest.mark.parametrize("seed", range(3))
def test_write_read_round_trip_money_with_beavers(seed: int) -> None:
    rules = Rules(match_length=0, beavers=True, jacoby=True)
    match = _random_match(100 + seed, rules, max_games=4)
    text = write_mat(match, headers=[("Jacoby", "On"), ("Beaver", "On")])
    assert text.splitlines()[3] == " 0 point match"
    record = read_mat(text)
    assert rules_for(record).jacoby and rules_for(record).beavers
    back = replay(record)
    assert _writable_log(back) == _writable_log(match)
    assert back.score == match.score


def test_money_beaver_is_written() -> None:
    for seed in range(100):
        match = _random_match(seed, Rules(beavers=True), max_games=3)
        if any(isinstance(a, Beaver) for a in match.log):
            break
    else:  # pragma: no cover
        pytest.fail("no random session with a beaver")
    text = write_mat(match)
    assert re.search(r" Beavers => \d+", text)
    assert _writable_log(replay(read_mat(text))) == _writable_log(match)


def test_write_layout_small_match() -> None:
    m = Match.new(Rules(match_length=5), players=("Alice", "Bob"))
    m = m.apply(OpeningRoll(3, 1))  # white (right column) opens
    m = m.apply(m.game.move_from_text("8/5 6/5"))
    m = m.apply(Double(Player.BLACK)).apply(Take(Player.WHITE))
    m = m.apply(Roll(Player.BLACK, (5, 2)))
    m = m.apply(m.game.move_from_text("13/8 13/11"))
    m = m.apply(Resign(Player.WHITE, ResultKind.SINGLE)).apply(AcceptResignation(Player.BLACK))
    m = m.apply(OpeningRoll(2, 6))  # black opens game 2
    m = m.apply(m.game.move_from_text("24/18 13/11"))
    m = m.apply(Double(Player.WHITE)).apply(Pass(Player.BLACK))
    text = write_mat(m, headers=[("Site", "Example club")])
    assert text == (
        '; [Site "Example club"]\n'
        "\n"
        " 5 point match\n"
        "\n"
        " Game 1\n"
        " Bob : 0                        Alice : 0\n"
        "  1)                             31: 8/5 6/5 \n"
        "  2)  Doubles => 2                Takes\n"
        "  3) 52: 13/8 13/11              \n"
        "      Wins 2 points\n"
        "\n"
        " Game 2\n"
        " Bob : 2                        Alice : 0\n"
        "  1) 62: 24/18 13/11              Doubles => 2\n"
        "  2)  Drops                       Wins 1 point \n"
        "\n"
    )
    back = replay(read_mat(text))
    assert back.log == m.log
    assert back.score == (1, 2) and not back.is_over


def test_rejected_resignation_is_not_written() -> None:
    m = Match.new(Rules(match_length=3))
    m = m.apply(OpeningRoll(3, 1))
    m = m.apply(m.game.move_from_text("8/5 6/5"))
    m = m.apply(Resign(Player.BLACK, ResultKind.GAMMON)).apply(RejectResignation(Player.WHITE))
    m = m.apply(Roll(Player.BLACK, (6, 6)))
    m = m.apply(m.game.move_from_text("24/18(2) 13/7(2)"))
    text = write_mat(m)
    assert "Wins" not in text and "66: 24/18 24/18 13/7 13/7" in text
    back = replay(read_mat(text))
    assert [a for a in m.log if not isinstance(a, (Resign, RejectResignation))] == list(back.log)


# ------------------------------------------------------------- XG's dialect
XG_FILE = """\
; [Site "eXtremeGammon"]
; [Match ID "123456789"]
; [Player 1 "Alice"]
; [Player 2 "Bob"]
; [Player 1 Elo "1500.00/0"]
; [Player 2 Elo "1500.00/0"]
; [EventDate "2024.05.01"]
; [EventTime "20.15"]
; [Variation "Backgammon"]
; [Unrated "Off"]
; [Crawford "On"]
; [CubeLimit "1024"]

3 point match

 Game 1
 Alice : 0                           Bob : 0
  1) 31: 8/5 6/5                     42: 8/4 6/4
  2) 64: 24/18 13/9                  66: 13/7* 13/7 24/18(2)
  3)  Doubles => 2                   Takes
  4) 53: bar/22 13/8                  Doubles => 4
  5)  Drops                           Wins 2 points

 Game 2
 Alice : 0                           Bob : 2
  1)                                 52: 13/8 13/11
  2) 41: 24/23 13/9
      Wins 1 point

 Game 3
 Alice : 1                           Bob : 2
  1) 62: 24/18 13/11                  Doubles => 2
  2)  Drops                           Wins 1 point and the match
"""


def test_xg_dialect() -> None:
    record = read_mat(XG_FILE)
    assert record.all_errors == ()
    assert record.header("Player 2") == "Bob" and record.header("cubelimit") == "1024"
    assert record.match_length == 3 and record.names == ("Alice", "Bob")
    rules = rules_for(record)
    assert rules.crawford and rules.cube_limit == 1024 and rules.match_length == 3
    match = replay(record)
    assert match.players == ("Bob", "Alice")
    assert match.score == (3, 1) and match.is_over and match.winner is Player.WHITE
    assert [g.crawford_game for g in match.games] == [False, True, False]
    assert [g.result.ending for g in match.games if g.result] == [Ending.PASSED, Ending.RESIGNED, Ending.PASSED]
    assert match.games[0].result is not None and match.games[0].result.cube_value == 2
    # the hit of 13/7*, 24/18(2) and bar/22 are understood
    moves = [a for a in match.games[0].log if isinstance(a, Move)]
    assert moves[3].play.hits == 1 and moves[4].play.steps[0].source == 25


def test_unsupported_variation() -> None:
    text = XG_FILE.replace('"Backgammon"', '"Nackgammon"')
    with pytest.raises(InvalidInputError, match="variation"):
        replay(read_mat(text))


def test_cubeless_and_crawford_off_headers() -> None:
    text = '; [CubeLimit "1"]\n; [Crawford "Off"]\n\n 5 point match\n'
    rules = rules_for(read_mat(text))
    assert not rules.cube and not rules.crawford
    with pytest.raises(InvalidInputError, match="Jacoby"):
        rules_for(read_mat('; [Jacoby "maybe"]\n\n 0 point match\n'))


# ------------------------------------------------------------- errors
GOOD = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 52: 13/8 13/11
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 Alice : 1                      Bob : 0
  1)                             64: 24/18 13/9
"""


def test_good_sample() -> None:
    match = replay(read_mat(GOOD))
    assert match.score == (0, 1) and match.game.phase is GamePhase.ROLL


def test_syntax_errors_are_collected_per_game() -> None:
    text = GOOD.replace("52: 13/8 13/11", "52: 13/8 13/xx").replace("64: 24/18 13/9", "64: 24/18 13/9  Fumbles")
    record = read_mat(text)
    assert len(record.games) == 2
    assert len(record.games[0].errors) == 1 and "line 5" in record.games[0].errors[0]
    assert record.games[1].errors
    assert record.all_errors[0].startswith("game 1: line 5")
    with pytest.raises(InvalidInputError, match="game 1: line 5"):
        replay(record)


def test_file_level_errors() -> None:
    record = read_mat("hello\n 3 point match\n junk before the first game\n")
    assert len(record.errors) == 2 and record.games == ()
    assert replay(read_mat(" 3 point match\n")).score == (0, 0)  # no game yet: a match at its start
    assert load_mat(record).all_errors == record.errors and load_mat(record).match is not None
    with pytest.raises(InvalidInputError, match="point match"):
        read_mat("no match line here\n")
    with pytest.raises(InvalidInputError):
        read_mat(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("52: 13/8 13/11", "52: 13/8 13/10", "game 1 line 5: illegal play"),
        ("52: 13/8 13/11", "52: 24/18 13/11", "game 1 line 5: illegal play"),
        ("Doubles => 2", "Doubles => 4", "cube at 1"),
        ("Alice : 1", "Alice : 2", "game 2 starts at 2-0"),
        ("31: 8/5 6/5", "33: 8/5 6/5 8/5 6/5", "opening roll cannot be a double"),
        ("      Wins 1 point\n", "", "game 1 has no 'Wins' line"),
        ("Drops\n      Wins 1 point", "Takes", "game 1 has no result"),
        ("Drops\n", "Drops   Takes\n", "more than two entries"),
        (
            "  2)  Doubles => 2                Drops\n",
            "  2)  Doubles => 2                Drops\n  3) 11: 6/5\n",
            "after the end",
        ),
    ],
)
def test_replay_errors(old: str, new: str, message: str) -> None:
    assert old in GOOD
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        replay(read_mat(GOOD.replace(old, new)))


def test_result_the_rules_do_not_give_is_a_warning() -> None:
    """A 'Wins' that disagrees with a finished game: the match keeps the rules' result, with a warning."""
    text = GOOD.replace("Wins 1 point", "Wins 2 points")
    reading = load_mat(text)
    assert reading.all_warnings == ("game 1 line 7: says black wins 2 but the game gives black 1",)
    assert reading.ok and replay(read_mat(text)).score == (0, 1)


def test_resignation_level_from_points() -> None:
    text = GOOD.replace(
        "  2)  Doubles => 2                Drops\n      Wins 1 point", "                                 Wins 2 points"
    )
    text = text.replace("Alice : 1                      Bob : 0", "Alice : 0                      Bob : 2")
    match = replay(read_mat(text))
    result = match.games[0].result
    assert result is not None and result.ending is Ending.RESIGNED and result.kind is ResultKind.GAMMON
    assert result.winner is Player.WHITE
    bad = GOOD.replace(
        "  2)  Doubles => 2                Drops\n      Wins 1 point", "                                 Wins 5 points"
    )
    with pytest.raises(InvalidInputError, match="game 1 line 6: 'Wins 5' is more than the match length"):
        replay(read_mat(bad))
    money = bad.replace(" 3 point match", " 0 point match")
    with pytest.raises(InvalidInputError, match="no resignation by black gives that"):
        replay(read_mat(money))
    last = money[: money.index(" Game 2")]  # in the last game it is a warning: the game stays unfinished
    assert load_mat(last).all_warnings[0].endswith("no resignation by black gives that; the game is left unfinished")


def test_play_from_mat() -> None:
    start = Position.initial()
    assert str(play_from_mat(start, (3, 1), "8/5 6/5")) == "8/5 6/5"
    assert str(play_from_mat(start, (6, 4), "24/14")) == "24/14"  # one checker, implicit step
    assert play_from_mat(start, (6, 6), "24/18 24/18 13/7 13/7") == play_from_mat(start, (6, 6), "24/18(2) 13/7(2)")
    bar = Position.from_points({"bar": 1, 6: 5, 8: 3, 13: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert play_from_mat(bar, (3, 1), "25/22 24/23") == play_from_mat(bar, (3, 1), "bar/22 24/23")


def test_gnubg_reads_what_we_write() -> None:
    """gnubg imported a file written by write_mat and exported it again: same match."""
    ours = read_mat((DATA / "mat" / "written_by_us.mat").read_text())
    theirs = read_mat((DATA / "mat" / "written_by_us_gnubg_reexport.mat").read_text())
    assert theirs.header("EventDate") is not None and ours.headers == ()
    a, b = replay(ours), replay(theirs)
    assert a.log == b.log and a.score == b.score == (5, 7) and a.is_over
    endings = {g.result.ending for g in a.games if g.result}
    assert {Ending.PLAYED, Ending.PASSED, Ending.RESIGNED} <= endings
    assert any(g.crawford_game for g in a.games)


def test_money_jacoby_detected_without_header() -> None:
    """gnubg writes no Jacoby header: a centred-cube gammon worth 1 point means the Jacoby rule."""
    for seed in range(60, 300):  # seed 60 is the first with such a game (the loop checks it)
        match = _random_match(seed, Rules(jacoby=True), max_games=4, resign_rate=0.0)
        if any(
            g.result and g.result.kind is ResultKind.GAMMON and g.cube_owner is None and g.result.points == 1
            for g in match.games
        ):
            break
    else:  # pragma: no cover
        pytest.fail("no random session with a Jacoby gammon")
    record = read_mat(write_mat(match))
    assert record.header("Jacoby") is None and not rules_for(record).jacoby
    back = replay(record)
    assert back.rules.jacoby and back.score == match.score
    assert any("says" in w for w in load_mat(record, Rules(jacoby=False)).all_warnings)


def test_check_reports_every_bad_game() -> None:
    from backgammon.formats.mat import check

    text = (DATA / "gnubg" / "match11_seed5.mat").read_text()
    assert check(read_mat(text)) == ()
    lines = text.splitlines()
    games = [i for i, line in enumerate(lines) if line.startswith(" Game ")]
    # break a move in game 2 and in game 5; game 5 is later in the file, so edit it first
    for game_index in (4, 1):
        i = games[game_index] + 3  # the third move line of that game
        lines[i] = re.sub(r"([1-6][1-6]): (\d+)/", r"\1: 24/", lines[i], count=1)
    errors = check(read_mat("\n".join(lines) + "\n"))
    assert [e.split(" line ")[0] for e in errors] == ["invalid .mat: game 2", "invalid .mat: game 5"]
    with pytest.raises(InvalidInputError, match="game 2"):
        replay(read_mat("\n".join(lines) + "\n"))


def test_check_score_headers_and_crawford() -> None:
    from backgammon.formats.mat import check

    assert check(read_mat(XG_FILE)) == ()  # game 2 is replayed alone as the Crawford game
    bad = XG_FILE.replace(
        " Alice : 1                           Bob : 2", " Alice : 0                           Bob : 2"
    )
    assert any("game 3 starts at 0-2 but the games before give 1-2" in e for e in check(read_mat(bad)))
    assert check(read_mat(XG_FILE.replace('"Backgammon"', '"Nackgammon"')))[0].startswith("unsupported variation")


def test_bom_and_windows_line_ends() -> None:
    text = "\ufeff" + GOOD.replace("\n", "\r\n")
    record = read_mat(text)
    assert record.all_errors == () and record.match_length == 3
    assert replay(record).score == (0, 1)
