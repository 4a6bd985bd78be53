"""gnubg's analysis in SGF: read from a real gnubg-analysed file, written by us and shown by gnubg.

The analysis written here is plain data made up by the test (known numbers), so that what gnubg shows
can be compared with what was written; the command-line test (test_cli_formats) writes the engine's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.formats.analysis import CubeAnalysis, DecisionAnalysis, Evaluation, PlayAnalysis, RankedPlay
from backgammon.formats.mat import load_mat
from backgammon.formats.mat_replay import play_from_mat
from backgammon.formats.sgf import load_sgf, read_sgf_analysis, write_sgf
from backgammon.game import Double, Move
from backgammon.match import Match

DATA = Path(__file__).parent.parent / "data"
GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if Path("/usr/games/gnubg").exists() else None)
ANALYSED = DATA / "xg" / "charlot_7pt_gnubg_analysed.sgf"


def test_real_gnubg_analysis_is_read() -> None:
    text = ANALYSED.read_text()
    record = load_sgf(text).record
    analysis = read_sgf_analysis(text)
    plays = [a for a in analysis if a.play is not None]
    cubes = [a for a in analysis if a.cube is not None]
    assert len(plays) > 150 and len(cubes) >= 20
    for item in plays:
        assert item.play is not None and item.play.played is not None and item.source == "GNU Backgammon"
        entry = record.games[item.game - 1].entries[item.entry]
        played = item.play.plays[item.play.played].move
        assert entry.dice == item.play.dice
        # the candidate gnubg marks as played is the move of the node (same steps, maybe in another order)
        assert sorted(played.split()) == sorted(entry.move.split())
        # gnubg ranks by its deepest evaluation: the first candidate is the best of those at its depth
        depth = item.play.plays[0].evaluation.depth
        equities = [p.evaluation.equity for p in item.play.plays if p.evaluation.depth == depth]
        assert equities[0] == max(equities)
    # a match: gnubg stores cube figures as match-winning chances
    for item in cubes:
        assert item.cube is not None and item.cube.mwc is not None and item.cube.no_double is None
        assert all(0.0 <= v <= 1.0 for v in item.cube.mwc)


def _made_up_analysis(match: Match, cube_every: int = 5) -> list[DecisionAnalysis]:
    """Known numbers for every move (its first legal plays, the played one among them) and some doubles."""
    games = list(match.games) + ([match.game] if not match.is_over and match.game.log else [])
    out = []
    for number, game in enumerate(games, start=1):
        for index, action in enumerate(game.log):
            if isinstance(action, Move) and action.play.steps:
                plays = list(action.play.origin.legal_plays(*action.play.dice))[:3]
                if action.play not in plays:
                    plays = [*plays[:2], action.play]
                ranked = tuple(
                    RankedPlay(
                        str(p),
                        Evaluation(round(0.4 - 0.125 * k, 3), (0.55 - 0.05 * k, 0.15, 0.01, 0.12, 0.005), "2-ply"),
                    )
                    for k, p in enumerate(plays)
                )
                cube = None
                if index % cube_every == 0:
                    cube = CubeAnalysis(
                        0.25, 0.1, 1.0, (0.6, 0.2, 0.01, 0.1, 0.004), "1-ply", mwc=(0.61, 0.575), cubeless=0.3
                    )
                item = DecisionAnalysis(number, -1, PlayAnalysis(action.play.dice, ranked, plays.index(action.play)))
                out.append(DecisionAnalysis(number, -1, item.play, cube, "backgammon", action=index))
            elif isinstance(action, Double):
                cube = CubeAnalysis(0.45, 0.62, 1.0, (0.7, 0.3, 0.02, 0.08, 0.003), "2-ply", mwc=(0.66, 0.69))
                out.append(DecisionAnalysis(number, -1, None, cube, "backgammon", action=index))
    return out


def _matches(count: int) -> list[tuple[str, Match]]:
    out = []
    for path in sorted((DATA / "real").glob("*.mat")) + sorted((DATA / "gnubg").glob("*.mat")):
        reading = load_mat(path.read_text())
        if reading.ok and reading.match is not None and reading.match.games:
            out.append((path.stem, reading.match))
        if len(out) == count:
            break
    return out


def test_written_analysis_reads_back() -> None:
    ((_name, match),) = _matches(1)
    analysis = _made_up_analysis(match)
    text = write_sgf(match, analysis)
    read = read_sgf_analysis(text)
    plays = [a for a in analysis if a.play]
    assert len([a for a in read if a.play]) == len(plays)
    record = load_sgf(text).record
    for mine, back in zip(plays, [a for a in read if a.play], strict=True):
        assert mine.play is not None and back.play is not None
        assert back.play.played == mine.play.played
        assert [p.evaluation.equity for p in back.play.plays] == [p.evaluation.equity for p in mine.play.plays]
        assert [p.evaluation.depth for p in back.play.plays] == ["2-ply"] * len(mine.play.plays)
        entry = record.games[back.game - 1].entries[back.entry]
        origin = match.games[0].log[mine.action or 0].play.origin if back.game == 1 else None  # type: ignore[union-attr]
        if origin is not None:  # every candidate is the same play as written
            for a, b in zip(mine.play.plays, back.play.plays, strict=True):
                assert play_from_mat(origin, entry.dice or (1, 1), a.move) == play_from_mat(
                    origin, entry.dice or (1, 1), b.move
                )
    cubes = [a for a in read if a.cube]
    assert cubes and all(c.cube is not None and c.cube.mwc in ((0.61, 0.575), (0.66, 0.69)) for c in cubes)


def test_money_cube_analysis_keeps_equities() -> None:
    reading = load_sgf((DATA / "sgf" / "money_jacoby_seed8.sgf").read_text())
    assert reading.match is not None and reading.match.is_money
    text = write_sgf(reading.match, _made_up_analysis(reading.match))
    cubes = [a.cube for a in read_sgf_analysis(text) if a.cube]
    assert cubes and all(c is not None and c.mwc is None for c in cubes)
    assert {(c.no_double, c.double_take) for c in cubes if c} <= {(0.25, 0.1), (0.45, 0.62)}


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_gnubg_shows_the_written_analysis_of_20_matches(tmp_path: Path) -> None:
    matches = _matches(20)
    assert len(matches) == 20
    commands = []
    expected: dict[str, list[DecisionAnalysis]] = {}
    for name, match in matches:
        analysis = _made_up_analysis(match)
        expected[name] = analysis
        (tmp_path / f"{name}.sgf").write_text(write_sgf(match, analysis))
        commands += [f"load match {tmp_path / name}.sgf", f"export match text {tmp_path / name}.txt"]
    run = subprocess.run(
        [str(GNUBG), "-t", "-q"], input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-2000:]
    cube_sections = 0
    for name, _match in matches:
        # gnubg writes game 1 to NAME.txt and game k to NAME_00k.txt
        shown = "".join(p.read_text() for p in sorted(tmp_path.glob(f"{name}*.txt")))
        plays = [a for a in expected[name] if a.play is not None]
        # gnubg lists each analysed roll with its candidates: "Rolled 51 (...):" then "1. Cubeful 2-ply ..."
        assert len(re.findall(r"^Rolled \d\d", shown, re.M)) >= len(plays), name
        assert len(re.findall(r"Cubeful 2-ply .* Eq\.: \+0\.400\s*$", shown, re.M)) == len(plays), name
        seconds = sum(1 for a in plays if a.play is not None and len(a.play.plays) > 1)
        assert len(re.findall(r"Cubeful 2-ply .* Eq\.: \+0\.275 \(-0\.125\)", shown, re.M)) == seconds, name
        doubles = [a for a in expected[name] if a.play is None]
        no_doubles = [a for a in expected[name] if a.play is not None and a.cube is not None]
        assert len(re.findall(r"^Cube analysis", shown, re.M)) >= len(doubles) + len(no_doubles), name
        cube_sections += len(re.findall(r"^Cube analysis", shown, re.M))
    assert cube_sections > 20


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_gnubg_shows_money_cube_figures_as_written(tmp_path: Path) -> None:
    reading = load_sgf((DATA / "sgf" / "money_jacoby_seed8.sgf").read_text())
    assert reading.match is not None
    analysis = _made_up_analysis(reading.match)
    (tmp_path / "money.sgf").write_text(write_sgf(reading.match, analysis))
    commands = f"load match {tmp_path / 'money.sgf'}\nexport match text {tmp_path / 'money.txt'}\n"
    subprocess.run([str(GNUBG), "-t", "-q"], input=commands, capture_output=True, text=True, timeout=300, check=True)
    shown = "".join(p.read_text() for p in sorted(tmp_path.glob("money*.txt")))
    no_doubles = [a for a in analysis if a.play is not None and a.cube is not None]
    assert no_doubles
    assert len(re.findall(r"No double\s+\+0\.250", shown)) >= len(no_doubles)
    assert len(re.findall(r"Double, take\s+\+0\.100", shown)) >= len(no_doubles)


def test_gnubgs_depth_token_says_whether_the_equity_is_cubeful() -> None:
    """The same real match analysed by gnubg 1.07 at 0-ply with chequer-play evaluation cubeless
    (tokens ``0``) and cubeful (``0C``): the same candidates, flagged accordingly, with other equities;
    our writer keeps the flag."""
    from backgammon.formats.sgf import _depth_token

    folder = DATA / "sgf_eval"
    readings = {
        kind: read_sgf_analysis((folder / f"galaxy_match3029786_0ply_{kind}.sgf").read_text())
        for kind in ("cubeless", "cubeful")
    }
    plays = {kind: [a.play for a in items if a.play is not None] for kind, items in readings.items()}
    assert len(plays["cubeless"]) == len(plays["cubeful"]) == 8  # the unforced plays of this one game
    differ = 0
    for less, ful in zip(plays["cubeless"], plays["cubeful"], strict=True):
        assert less is not None and ful is not None
        assert sorted(p.move for p in less.plays) == sorted(p.move for p in ful.plays)  # (ranked apart)
        assert all(p.evaluation.cubeful is False and p.evaluation.depth == "0-ply" for p in less.plays)
        assert all(p.evaluation.cubeful is True and p.evaluation.depth == "0-ply" for p in ful.plays)
        cubeful_equity = {p.move: p.evaluation.equity for p in ful.plays}
        differ += any(p.evaluation.equity != cubeful_equity[p.move] for p in less.plays)
    assert differ >= 4
    assert _depth_token("0-ply", False) == "0" and _depth_token("2-ply", True) == "2C"
    assert _depth_token("XG Roller", None) == "0C"  # an equity of unknown kind is written as cubeful
