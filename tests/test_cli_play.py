"""``backgammon play``: a game against the computer in the terminal, driven by scripted stdin."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from backgammon.cli import main
from backgammon.cli.play_cmd import Session, _ask
from backgammon.dice import ScriptedDice
from backgammon.game import Player, Rules
from backgammon.match import Match

# With seed 1 the opening roll is white 2, black 5: the computer (black) plays first, so the
# person's first prompt is the roll prompt.
SEED = "1"


def play(monkeypatch, capsys, script: str, *options: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    try:
        main(["play", *options])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_board_is_drawn_with_names_score_cube_and_a_prompt(monkeypatch, capsys) -> None:
    code, out, err = play(monkeypatch, capsys, "quit\n", "--seed", SEED, "--length", "3")
    assert code == 0, err
    assert "Opening roll: you 2, computer 5: the computer plays 5-2." in out
    assert "You (X, white): pips" in out and "Computer (O): pips" in out
    assert "Score: you 0, computer 0 (3-point match).  Cube: 1, centred." in out
    assert "Your turn: roll (Enter), double, resign, board, help or quit? " in out
    assert out.rstrip().endswith("Game abandoned.")
    for raw in ("Player.", "ResultKind", "GamePhase", "Roll(", "Move(", "Take(", "<"):
        assert raw not in out, raw


def test_an_unknown_word_is_answered_with_help_not_a_roll(monkeypatch, capsys) -> None:
    code, out, _ = play(monkeypatch, capsys, "xyzzy\nquit\n", "--seed", SEED)
    assert code == 0
    assert "unknown answer 'xyzzy'. Enter or 'roll' rolls the dice" in out
    assert out.count("Your turn: roll (Enter)") == 2  # asked again
    assert "You have" not in out  # nothing was rolled


def test_help_and_a_bad_move_keep_the_same_roll(monkeypatch, capsys) -> None:
    code, out, _ = play(monkeypatch, capsys, "roll\n24/1\nhelp\n\nquit\n", "--seed", SEED)
    assert code == 0
    assert "error: illegal play '24/1'" in out and "Type 'help' for help." in out
    assert "Type your move in the usual notation" in out
    assert "error: no move given." in out  # an empty line is not a move
    assert out.count("You have ") == 4  # asked four times ...
    assert len({chunk[:3] for chunk in out.split("You have ")[1:]}) == 1  # ... for the same roll


def test_a_one_point_match_offers_no_double(monkeypatch, capsys) -> None:
    code, out, _ = play(monkeypatch, capsys, "double\nquit\n", "--seed", SEED, "--length", "1")
    assert code == 0
    assert "Your turn: roll (Enter), resign, board, help or quit? " in out
    assert "error: doubling gains you nothing: you need 1 point(s) to win the match and the cube is at 1" in out


@pytest.mark.parametrize(
    ("answer", "kind", "points"), [("1", "a single game", 1), ("gammon", "a gammon", 2), ("bg", "a backgammon", 3)]
)
def test_resign_asks_which_level(monkeypatch, capsys, answer: str, kind: str, points: int) -> None:
    code, out, _ = play(monkeypatch, capsys, f"resign\nmaybe\n{answer}\n", "--seed", SEED, "--length", "0")
    assert code == 0
    assert "Resign which: single (1 point), gammon (2 points), backgammon (3 points), or cancel? " in out
    assert "unknown answer 'maybe'. 'single' (1), 'gammon' (2) or 'backgammon' (3)" in out
    s = "s" if points != 1 else ""
    assert f"You offer to resign {kind} ({points} point{s})." in out
    assert "The computer accepts your resignation." in out  # at the start a resignation is worth taking
    assert f"The computer wins {kind} by resignation: {points} point{s}. Final score: you 0, computer {points}" in out


def test_resign_can_be_cancelled_and_a_match_ends_with_its_winner(monkeypatch, capsys) -> None:
    code, out, _ = play(monkeypatch, capsys, "resign\n\nresign\nsingle\n", "--seed", SEED, "--length", "1")
    assert code == 0
    assert "Resignation cancelled." in out
    assert out.rstrip().endswith("The computer wins the match.")


@pytest.mark.parametrize("script", ["", "resign\n", "resign\nquit\n", "roll\nq\n"])
def test_end_of_input_or_quit_ends_the_game_at_any_prompt(monkeypatch, capsys, script: str) -> None:
    code, out, _ = play(monkeypatch, capsys, script, "--seed", SEED)
    assert code == 0 and out.rstrip().endswith("Game abandoned.")
    assert "Resignation cancelled." not in out and "You offer" not in out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--level", "grandmaster"], "error: unknown level 'grandmaster': expected one of beginner, casual,"),
        (["--length", "26"], "error: invalid match length 26: expected an integer from 0 (money) to 25"),
        (["--length", "-1"], "error: invalid match length -1"),
        (["--color", "green"], "error: invalid colour 'green': expected white or black"),
        (["--seed", "-3"], "error: invalid seed -3: expected 0 or more"),
        (["--length", "x"], "error: invalid value for '--length'"),
    ],
)
def test_bad_options(monkeypatch, capsys, options: list[str], message: str) -> None:
    code, out, err = play(monkeypatch, capsys, "quit\n", *options)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


class Doubler:
    """A computer (an :class:`~backgammon.engine.players.Agent`) that doubles whenever it may, takes every
    double and rejects every resignation."""

    name = "doubler"

    def choose_play(self, position, dice, cube=None):
        return position.legal_plays(*dice)[0]

    def wants_to_double(self, position, cube) -> bool:
        return True

    def takes(self, doubler_position, cube) -> bool:
        return True

    def accepts_resignation(self, resigner_position, points_per_cube) -> bool:
        return False

    def accepts_draw(self, position) -> bool:
        return False


def session(monkeypatch, script: str, rolls, length: int = 0) -> tuple[Session, list[str]]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    lines: list[str] = []
    match = Match.new(Rules(match_length=length), players=("You", "Computer"))
    return Session(match, Player.WHITE, Doubler(), ScriptedDice(rolls), _ask, lines.append), lines


def test_take_or_pass_accepts_only_take_or_pass(monkeypatch, capsys) -> None:
    # opening 1-2: the computer (black) plays first; the person rolls 3-1 and plays it; the computer doubles
    s, lines = session(monkeypatch, "roll\n8/5 6/5\nyes\nno\npass\n", [(1, 2), (3, 1)])
    s.run()
    out = "\n".join(lines) + capsys.readouterr().out  # the prompts go to stdout
    assert "The computer doubles to 2: take or pass? " in out
    assert "unknown answer 'yes'. 'take' accepts the double" in out
    assert "unknown answer 'no'." in out
    assert "You pass." in out
    assert "The computer wins 1 point: the double was passed." in out
    assert s.match.games[0].result.winner is Player.BLACK


def test_take_goes_on_at_twice_the_stake(monkeypatch, capsys) -> None:
    s, lines = session(monkeypatch, "roll\n8/5 6/5\nt\nquit\n", [(1, 2), (3, 1), (6, 5)])
    s.run()
    out = "\n".join(lines)
    assert "You take." in out and s.match.game.cube_value == 2 and s.match.game.cube_owner is Player.WHITE
    assert "Cube: 2, yours." in out


def test_the_persons_double_and_a_rejected_resignation(monkeypatch, capsys) -> None:
    s, lines = session(monkeypatch, "double\nresign\nsingle\nquit\n", [(1, 2)], length=5)
    s.run()
    out = "\n".join(lines)
    assert "You double to 2." in out
    assert "The computer takes: the cube is at 2, the computer's to turn." in out
    assert "You offer to resign a single game (2 points)." in out
    assert "The computer rejects your resignation: play on." in out


def test_play_needs_no_server_modules() -> None:
    """The command runs with the web server's packages made unimportable."""
    code = (
        "import sys\n"
        "for name in ('backgammon.server', 'fastapi', 'sqlalchemy', 'uvicorn', 'alembic', 'starlette'):\n"
        "    sys.modules[name] = None\n"
        "from backgammon.cli import main\n"
        "try:\n"
        "    main(['play', '--seed', '1', '--length', '0'])\n"
        "finally:\n"
        "    loaded = [m for m in sys.modules if sys.modules[m] is not None\n"
        "              and m.split('.')[0] in ('fastapi', 'sqlalchemy', 'uvicorn')\n"
        "              or m.startswith('backgammon.server')]\n"
        "    print('LOADED', [m for m in loaded if sys.modules[m] is not None])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], input="resign\ngammon\n", capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "The computer wins a gammon by resignation: 2 points." in proc.stdout
    assert "LOADED []" in proc.stdout


def test_a_whole_match_against_the_engine_runs_to_its_end() -> None:
    """A 3-point match with the real engine; the person's answers: roll, the first legal play, take."""
    from backgammon.cli.engine_cmds import load_evaluator
    from backgammon.cli.play_cmd import make_computer
    from backgammon.dice import RandomDice

    lines: list[str] = []
    holder: dict[str, Session] = {}

    def ask(prompt: str) -> str:
        lines.append(prompt)
        game = holder["s"].match.game
        if prompt.startswith("Your turn"):
            return "roll"
        if prompt.startswith("You have"):
            return str(game.legal_plays[-1])  # the last legal play, written out as move text
        assert "take or pass" in prompt, prompt
        return "take"

    match = Match.new(Rules(match_length=3), players=("You", "Computer"))
    s = Session(match, Player.BLACK, make_computer("expert", 7, load_evaluator), RandomDice(7), ask, lines.append)
    holder["s"] = s
    s.run()
    out = "\n".join(lines)
    assert s.match.is_over and max(s.match.score) >= 3
    assert not [line for line in lines if line.startswith("error:")], out
    assert out.rstrip().endswith(("You win the match!", "The computer wins the match."))
    assert "Final score: you " in out
    assert out.count("Opening roll:") >= len(s.match.games)
