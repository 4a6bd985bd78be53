"""eXtreme Gammon .xg / .xgp files: real XG files against XG's own text export and gnubg's SGF of the
same matches, real XG records against their hand-decoded content, and files built byte by byte from
the published format (tests/formats/xg_builder.py) from matches and positions whose content is known.
"""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

import pytest

from backgammon.errors import InvalidInputError
from backgammon.formats import read_match_file
from backgammon.formats.mat import load_mat
from backgammon.formats.xg import _MATCH_HEADER, LEVELS, XgRecord, xg_archive, xg_records
from backgammon.game import Player
from backgammon.match import Match
from backgammon.position import Position

sys.path.insert(0, str(Path(__file__).parent))
from xg_builder import Candidate, XgBuilder, engine_position, xg_from_match

DATA = Path(__file__).parent.parent / "data"
XG = DATA / "xg"
PAIRS = [
    ("hsbt_paris_2023_job_unger_7pt.xg", "hsbt_paris_2023_job_unger_7pt.txt"),
    ("charlot_7pt.xg", "charlot_7pt.mat"),
    ("charlot_7pt.xg", "charlot_7pt_gnubg_analysed.sgf"),
]


def _games(match: Match) -> list[tuple[list[str], str]]:
    games = list(match.games)
    if not match.is_over and match.game.log:
        games.append(match.game)
    return [([str(a) for a in g.log], str(g.result)) for g in games]


# ---------------------------------------------------------------- real XG files
@pytest.mark.parametrize(("xg", "other"), PAIRS, ids=[f"{a}-{b.rsplit('.', 1)[1]}" for a, b in PAIRS])
def test_real_xg_file_reads_like_the_other_programs_files(xg: str, other: str) -> None:
    ours = read_match_file((XG / xg).read_bytes(), xg)
    theirs = read_match_file((XG / other).read_bytes(), other)
    assert ours.format == "xg" and ours.ok, ours.errors
    assert theirs.ok, theirs.errors
    assert ours.match is not None and theirs.match is not None
    assert ours.match.rules.match_length == theirs.match.rules.match_length == 7
    assert _games(ours.match) == _games(theirs.match)
    assert ours.match.score == theirs.match.score and ours.match.is_over


def test_real_xg_file_header_and_analysis() -> None:
    reading = read_match_file((XG / "hsbt_paris_2023_job_unger_7pt.xg").read_bytes(), "m.xg")
    record = reading.reading.record if reading.reading else None
    assert record is not None
    assert record.names == ("Kévin Unger", "Maxence Job")
    assert record.header("Event") == "HSBT Paris 2023"
    assert reading.match is not None and reading.match.winner is Player.BLACK  # Kévin Unger, the left column
    assert reading.match.score == (4, 7)  # (white, black)
    # XG analysed every checker play (334 move records, less rolls without a move and dances) and cube decision
    plays = [a for a in reading.analysis if a.play is not None]
    cubes = [a for a in reading.analysis if a.cube is not None]
    assert len(plays) > 280 and len(cubes) > 150
    first = plays[0]
    entry = record.games[0].entries[first.entry]
    assert entry.text() == "51: 13/8 24/23" and first.game == 1
    assert first.play is not None and first.play.played == 0
    best = first.play.plays[0]
    assert best.move == "24/23 13/8" and best.evaluation.depth == "Opening Book V2"
    win, win_g, win_bg, lose_g, lose_bg = best.evaluation.probabilities or (0, 0, 0, 0, 0)
    assert 0.45 < win < 0.55 and win_bg <= win_g <= win and lose_bg <= lose_g <= 1 - win
    equities = [p.evaluation.equity for p in first.play.plays]
    assert equities == sorted(equities, reverse=True)
    for item in plays:  # the played move is among the candidates, and no candidate beats the best
        assert item.play is not None and item.play.plays
        error = item.play.error()
        assert error is None or error >= 0
    for item in cubes:
        assert item.cube is not None and item.cube.double_pass == pytest.approx(1.0)
        assert item.cube.depth in LEVELS.values()


def test_real_move_and_cube_records_decode() -> None:
    """Two real XG records, decoded by hand from their bytes (see tests/data/xg/README.md)."""
    move = XgRecord(1, "move", (XG / "real_move_record.bin").read_bytes())
    start = engine_position(Position.initial())
    assert bytes(struct.pack("<26b", *move.position("PositionI"))) == start
    assert move.integer("ActifP") == -1 and move.position("Dice") == (6, 3)
    assert move.position("Moves")[:4] == (23, 17, 12, 9)  # 24/18 13/10, 0-based
    assert move.integer("NMoveEval") == 10 and move.integer("AnalyzeM") == 3 and move.integer("CommentMove") == -1
    assert move.real("ErrLuck") == pytest.approx(0.006126, abs=1e-6)
    cube = XgRecord(1, "cube", (XG / "real_cube_record.bin").read_bytes())
    assert bytes(struct.pack("<26b", *cube.position("Position"))) == start
    assert cube.get("DiceRolled") == "63" and cube.integer("Actif") == -1
    assert cube.real("ErrCube") == -1000.0 and cube.real("ErrTake") == -1000.0  # not analysed


# ---------------------------------------------------------------- files built from known matches
REAL_MATS = sorted((DATA / "real").glob("*.mat"))[:12]


@pytest.mark.parametrize("path", REAL_MATS, ids=[p.stem for p in REAL_MATS])
def test_built_xg_file_holds_the_match_it_was_built_from(path: Path) -> None:
    known = load_mat(path.read_text())
    assert known.match is not None
    reading = read_match_file(xg_from_match(known.match), path.stem + ".xg")
    assert reading.ok, reading.errors
    assert reading.match is not None
    expected = _games(known.match)
    got = _games(reading.match)
    assert len(got) == len(expected)
    for (mine, mine_result), (theirs, theirs_result) in zip(got, expected, strict=True):
        # the format holds no roll after which a player resigned (a .mat file's '????'), so the rolls
        # are left out of the comparison; the plays, cube actions and results must be the same
        assert [a for a in mine if " rolls " not in a] == [a for a in theirs if " rolls " not in a]
        assert mine_result == theirs_result
    assert reading.match.score == known.match.score


@pytest.mark.parametrize("name", ["money_jacoby_seed8", "money_seed7"])
def test_built_xg_money_session(name: str) -> None:
    """A money session (XG's match length 99999) with or without the Jacoby rule, from gnubg's SGF of it."""
    from backgammon.formats.sgf import load_sgf

    known = load_sgf((DATA / "sgf" / f"{name}.sgf").read_text())
    assert known.ok and known.match is not None and known.match.is_money
    reading = read_match_file(xg_from_match(known.match), f"{name}.xg")
    assert reading.ok, reading.errors
    assert reading.match is not None and reading.match.is_money
    assert reading.match.rules.jacoby == known.match.rules.jacoby
    assert [[a for a in g if " rolls " not in a] for g, _ in _games(reading.match)] == [
        [a for a in g if " rolls " not in a] for g, _ in _games(known.match)
    ]
    assert reading.match.score == known.match.score


def _opening_match() -> Match:
    from backgammon.game import OpeningRoll, Rules

    m = Match.new(Rules(match_length=5), players=("Bob", "Alice"))
    m = m.apply(OpeningRoll(3, 1))
    return m.apply(m.game.move_from_text("8/5 6/5"))


def test_built_analysis_comes_back_ranked_with_gnubg_probabilities() -> None:
    match = _opening_match()
    candidates = [  # XG order is not assumed: the worse play first
        Candidate((12, 9, 12, 11), (0.01, 0.12, 0.52, 0.48, 0.11, 0.005, -0.05), level=1001),
        Candidate((7, 4, 5, 4), (0.008, 0.1, 0.45, 0.55, 0.15, 0.006, 0.15), level=2),
    ]
    candidates[1].position_after = engine_position(match.game.log[-1].play.position.flip())  # type: ignore[union-attr]
    reading = read_match_file(xg_from_match(match, analyse_first_move=candidates), "built.xg")
    assert reading.ok and reading.match is not None
    (item,) = reading.analysis
    assert item.play is not None and item.cube is None and item.source == "eXtreme Gammon"
    assert [p.move for p in item.play.plays] == ["8/5 6/5", "13/10 13/12"]
    assert item.play.played == 0 and item.play.error() == 0
    best = item.play.plays[0].evaluation
    assert best.equity == pytest.approx(0.15) and best.depth == "3-ply"
    assert best.probabilities == pytest.approx((0.55, 0.15, 0.006, 0.1, 0.008))
    assert item.play.plays[1].evaluation.depth == "XG Roller+"


def test_built_cube_analysis_is_read() -> None:
    b = XgBuilder()
    b.match_header("A", "B", 5)
    b.game_header(0, 0, 1)
    b.move(1, Position.initial(), engine_position(Position.initial()), (7, 4, 5, 4), (3, 1))
    after = Position.initial().legal_plays(3, 1)  # any position will do for the record
    board = next(iter(after)).position
    b.cube(-1, board, double=1, take=0, cube_log=0, analysis=(0.4, 1.2, 1.0))
    b.game_footer(-1, 1, 0)
    reading = read_match_file(b.build(), "cube.xg")
    assert reading.ok, reading.errors
    assert reading.match is not None and reading.match.score == (1, 0)  # B (right, WHITE) won on the drop
    (cube,) = [a for a in reading.analysis if a.cube]
    assert cube.cube is not None
    assert (cube.cube.no_double, cube.cube.double_take, cube.cube.double_pass) == pytest.approx((0.4, 1.2, 1.0))
    assert cube.cube.best == "double, pass" and cube.cube.depth == "3-ply"
    record = reading.reading.record if reading.reading else None
    assert record is not None and record.games[0].entries[cube.entry].text() == " Doubles => 2"


def test_built_position_file_gives_the_position() -> None:
    """An .xgp built from the spec: one game header and one move record, from a known position."""
    position = Position.from_points({6: 5, 8: 3, 13: 4, 24: 2, 3: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    b = XgBuilder()
    b.match_header("Top", "Bottom", 7)
    b.game_header(2, 4, 3)
    b.move(-1, position, engine_position(position), (12, 8, 12, 10), (4, 2))
    reading = read_match_file(b.build(), "problem.xgp")
    assert reading.format == "xgp" and reading.reading is None and reading.match is None
    assert reading.position is not None
    assert reading.position.position == position
    state = reading.position.state
    assert state.dice == (4, 2) and state.dice_owner == 1 and state.score == (2, 4) and state.match_length == 7
    assert reading.position.names == ("Top", "Bottom")


# ---------------------------------------------------------------- damaged and hostile files
def _minimal() -> bytes:
    return xg_from_match(_opening_match())


def test_checksum_mismatch_is_a_clear_error() -> None:
    data = XgBuilder()
    data.match_header("A", "B", 1)
    with pytest.raises(InvalidInputError) as info:
        read_match_file(data.build(corrupt_crc=True), "bad.xg")
    assert info.value.code == "bad_xg_file" and "checksum" in str(info.value)


@pytest.mark.parametrize("cut", [4, 100, 8232, 8300])
def test_truncated_file_is_a_clear_error(cut: int) -> None:
    with pytest.raises(InvalidInputError) as info:
        read_match_file(_minimal()[:cut], "cut.xg")
    assert info.value.code == "bad_xg_file"


def test_flipped_byte_is_a_clear_error_or_a_reading() -> None:
    data = bytearray(_minimal())
    for at in range(8232, len(data), 7):
        data[at] ^= 0x5A
        try:
            read_match_file(bytes(data), "flip.xg")
        except InvalidInputError as exc:
            assert exc.code == "bad_xg_file"
        data[at] ^= 0x5A


def test_unpacking_is_bounded() -> None:
    """A registry entry that claims more than the limit is refused before anything is unpacked."""
    bomb = zlib.compress(bytes(100_000_000))
    body = bytearray(bomb)
    entry = bytearray(532)
    entry[0] = 7
    entry[1:8] = b"temp.xg"
    struct.pack_into("<iiii", entry, 512, 100_000_000, len(bomb), 0, 0)
    registry_at = len(body)
    body += entry
    tail = bytearray(36)
    struct.pack_into("<IiiiI", tail, 0, zlib.crc32(bytes(body)), 1, 1, 532, registry_at)
    header = bytearray(8232)
    header[0:4] = b"RGMH"
    with pytest.raises(InvalidInputError) as info:
        xg_archive(bytes(header) + bytes(body) + bytes(tail))
    assert "out of range" in str(info.value)


def test_mutated_records_of_a_real_file_never_crash() -> None:
    """Random bytes changed inside the records (the archive rebuilt around them, so the checksum holds):
    the reader gives a reading or a clear error, never another exception."""
    import random

    content = xg_archive((XG / "charlot_7pt.xg").read_bytes())["temp.xg"]
    records = [content[k : k + 2560] for k in range(0, len(content), 2560)]
    rng = random.Random(43)
    readings = 0
    for _ in range(6):
        mutated = [bytearray(r) for r in records]
        for _ in range(rng.randint(1, 30)):
            rng.choice(mutated)[rng.randrange(8, 2560)] = rng.randrange(256)
        builder = XgBuilder()
        builder.records = [bytes(r) for r in mutated]
        try:
            reading = read_match_file(builder.build(), "mutated.xg")
        except InvalidInputError as exc:
            assert exc.code == "bad_xg_file"
        else:
            readings += 1
            assert reading.format == "xg" and (reading.match is not None or reading.errors)
    assert readings  # most mutations still read (with errors where the moves no longer replay)


@pytest.mark.parametrize("invert", [0, -1, 2])
def test_invert_flag_changes_nothing_read(invert: int) -> None:
    """The match header's ``Invert`` is the board's orientation on XG's screen (every real file here
    has 1, charlot's also a negative GameId: its players swapped); the records are written from the
    side to act (ActifP 1 or -1), so the same match, names and analysis come back whatever it holds."""
    content = xg_archive((XG / "charlot_7pt.xg").read_bytes())["temp.xg"]
    records = [bytearray(content[k : k + 2560]) for k in range(0, len(content), 2560)]
    header = next(r for r in xg_records(content) if r.kind == "match header")
    assert header.get("Invert") == 1 and header.integer("GameId") < 0
    at = records.index(bytearray(header.data))
    offset = _MATCH_HEADER.offsets["Invert"][0]
    struct.pack_into("<i", records[at], offset, invert)
    builder = XgBuilder()
    builder.records = [bytes(r) for r in records]
    changed = read_match_file(builder.build(), "inverted.xg")
    original = read_match_file((XG / "charlot_7pt.xg").read_bytes(), "charlot.xg")
    assert changed.match is not None and original.match is not None and changed.ok
    assert _games(changed.match) == _games(original.match)
    assert changed.reading is not None and original.reading is not None
    assert changed.reading.record.names == original.reading.record.names == ("charlot1", "charlot2")
    assert changed.analysis == original.analysis
