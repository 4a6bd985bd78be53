"""gnubg's external player interface: FIBS board strings read right, bad lines answered, and a real
match of the Debian ``gnubg`` against ``backgammon external``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backgammon.engine.cube import CubeOwner
from backgammon.errors import InvalidInputError
from backgammon.formats.mat import EntryKind, read_mat, replay
from backgammon.position import Position
from backgammon.protocols.external import (
    DOUBLE,
    FIBS,
    GNUBG,
    MOVE,
    TAKE,
    EnginePlayer,
    FibsBoard,
    answer_line,
    decision_of,
)

GNUBG_BIN = shutil.which("gnubg") or "/usr/games/gnubg"

# The example of FIBS's client protocol: "You" (colour 1, moving from 24 down to 1) to play 62.
FIBS_EXAMPLE = (
    "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)
# Written by gnubg 1.07 for its player 0 (the negative checkers) to play 56 after its opponent opened 24/15.
GNUBG_PLAYER0_MOVE = (
    "board:gnubg:root:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:1:0:-3:0:-5:0:0:0:0:1:0:"
    "-1:5:6:5:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
# gnubg's player 1 (positive) on the bar, asked whether to double (no dice yet).
GNUBG_PLAYER1_CUBE = (
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-3:5:0:0:0:-4:-1:-5:0:1:0:0:0:1:"
    "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# gnubg's player 0 (negative, on roll) has doubled; player 1 is asked to take (names swapped by gnubg).
GNUBG_TAKE = (
    "board:root:gnubg:3:0:0:0:-1:0:-1:0:0:5:0:3:0:1:1:-2:3:0:0:0:-3:-2:-4:-2:1:0:1:0:0:"
    "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# gnubg 1.07 in the Crawford game of a 3-point match: its player 0 (negative, on roll) leads 2-0.
GNUBG_CRAWFORD = (
    "board:gnubg:root:3:2:0:0:3:4:2:0:1:2:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-2:-3:0:"
    "-1:2:6:2:6:1:1:1:0:1:-1:0:25:3:10:0:0:0:0:0:0"
)


class _NoEngine:
    """Stands in for the evaluator where a test must not reach the engine."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError("the engine was asked")


def test_fibs_example_is_the_opening_position_for_you() -> None:
    board = FibsBoard.parse(FIBS_EXAMPLE)
    assert (board.you, board.opponent, board.match_length) == ("You", "someplayer", 3)
    decision = decision_of(board)
    assert decision.kind == MOVE
    assert decision.position == Position.initial()
    assert decision.dice == (6, 2)
    assert decision.cube.away == (3, 3) and decision.cube.owner is CubeOwner.CENTRED


def test_the_side_on_roll_comes_from_turn_not_from_colour() -> None:
    decision = decision_of(FibsBoard.parse(GNUBG_PLAYER0_MOVE), GNUBG)
    assert decision.kind == MOVE and decision.dice == (5, 6)
    # the negative checkers are the mover's: untouched opening position; the opponent has played 24/15
    assert decision.position.mine == Position.initial().mine
    assert decision.position.theirs[14] == 1 and decision.position.theirs[23] == 1
    assert decision.cube.away == (1, 1)


def test_cube_decision_without_dice_and_checker_on_the_bar() -> None:
    decision = decision_of(FibsBoard.parse(GNUBG_PLAYER1_CUBE), GNUBG)
    assert decision.kind == DOUBLE and decision.dice is None
    assert decision.position.mine[24] == 1  # the mover's checker on the bar (cell 25)
    assert decision.position.theirs[6] == 1  # the opponent's blot on cell 18 = its 7-point


def test_take_decision_is_seen_from_the_doubler() -> None:
    decision = decision_of(FibsBoard.parse(GNUBG_TAKE), GNUBG)
    assert decision.kind == TAKE
    assert sum(decision.position.mine) == 15 and decision.position.mine[23] == 1  # doubler: 1 on its 24-point
    assert decision.cube.value == 1


def test_gnubg_scores_follow_its_player_order() -> None:
    board = FibsBoard.parse(GNUBG_CRAWFORD)
    gnubg = decision_of(board, GNUBG)
    assert gnubg.cube.away == (1, 3) and gnubg.cube.crawford
    fibs = decision_of(board, FIBS)
    assert fibs.cube.away == (3, 1)


def test_mailing_list_example_answer_is_legal() -> None:
    # gnubg's documented answer to this board was "13/11 24/23"
    board = (
        "board:You:Other:1:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:1:2:1:0:0:1:1:1:0:1:-1:0:25"
        ":0:0:0:0:2:6:0:0"
    )
    decision = decision_of(FibsBoard.parse(board))
    texts = {" ".join(sorted(str(p).split())) for p in decision.position.legal_plays(2, 1)}
    assert "13/11 24/23" in texts


def _field(board: str, index: int, value: str) -> str:
    fields = board.split(":")
    fields[index] = value
    return ":".join(fields)


BAD_LINES: list[bytes | str | None] = [
    b"board:\xff\xfe:x",
    "hello",
    "board:a:b:3",
    FIBS_EXAMPLE + ":0",
    _field(FIBS_EXAMPLE, 7, "x"),
    _field(FIBS_EXAMPLE, 7, "9" * 5000),
    _field(FIBS_EXAMPLE, 33, "7"),
    _field(FIBS_EXAMPLE, 37, "3"),
    _field(FIBS_EXAMPLE, 32, "0"),
    _field(FIBS_EXAMPLE, 32, "2"),
    _field(FIBS_EXAMPLE, 12, "16"),
    _field(FIBS_EXAMPLE, 12, "9"),  # 19 checkers
    _field(FIBS_EXAMPLE, 6, "3"),  # your checkers on the opponent's bar cell
    _field(FIBS_EXAMPLE, 43, "25"),  # home does not fit the direction
    _field(FIBS_EXAMPLE, 41, "0"),
    _field(FIBS_EXAMPLE, 4, "3"),  # a finished match
    _field(FIBS_EXAMPLE, 3, "40"),  # beyond the match equity table
    _field(FIBS_EXAMPLE, 1, ""),
    _field(FIBS_EXAMPLE, 38, "2"),
    None,  # a line over the limit
]


@pytest.mark.parametrize("line", BAD_LINES, ids=range(len(BAD_LINES)))
def test_bad_lines_get_one_error_line(line: bytes | str | None) -> None:
    reply = answer_line(line, EnginePlayer(_NoEngine, "expert"))
    assert reply is not None and reply.startswith(("error: invalid board", "error: invalid position"))
    assert "\n" not in reply and len(reply) <= 200


def test_blank_lines_and_nul_bytes_are_not_answered() -> None:
    player = EnginePlayer(_NoEngine, "expert")
    assert answer_line(b"\x00\r\n", player) is None
    assert answer_line("   ", player) is None


def test_options_are_checked() -> None:
    with pytest.raises(InvalidInputError):
        EnginePlayer(_NoEngine, "grandmaster")
    with pytest.raises(InvalidInputError):
        EnginePlayer(_NoEngine, None, plies=5)
    with pytest.raises(InvalidInputError):
        decision_of(FibsBoard.parse(FIBS_EXAMPLE), "xg")


def test_engine_answers_moves_and_cube() -> None:
    from backgammon.engine.evaluator import NetEvaluator

    player = EnginePlayer(NetEvaluator.default, "expert")
    move = answer_line(FIBS_EXAMPLE, player)
    decision = decision_of(FibsBoard.parse(FIBS_EXAMPLE))
    legal = {" ".join(sorted(_steps(p))) for p in decision.position.legal_plays(6, 2)}
    assert move is not None and " ".join(sorted(move.split())) in legal
    assert answer_line(GNUBG_PLAYER1_CUBE, player) in ("double", "roll")
    assert answer_line(GNUBG_TAKE, player) in ("take", "drop")


def _steps(play: object) -> list[str]:
    from backgammon.protocols.external import play_text

    return play_text(play).split()  # type: ignore[arg-type]


# --------------------------------------------------------------- a real match against the Debian gnubg


def _start_server(tmp_path: Path) -> tuple[subprocess.Popen[str], int, Path]:
    log = tmp_path / "decisions.jsonl"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from backgammon.cli import main; main()", "external", "--port", "0",
         "--plies", "0", "--level", "expert", "--once", "--log", str(log)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    line = proc.stderr.readline()
    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    if not found:
        proc.kill()
        pytest.fail(f"the server did not start: {line!r}")
    return proc, int(found.group(1)), log


def _normalised(move: str) -> str:
    return " ".join(sorted(move.replace("*", "").replace("bar", "25").replace("off", "0").split()))


@pytest.mark.skipif(not os.path.exists(GNUBG_BIN), reason="the Debian gnubg is not installed")
@pytest.mark.parametrize("seat", [0, 1])
def test_gnubg_plays_a_complete_match_against_the_engine(tmp_path: Path, seat: int) -> None:
    server, port, log = _start_server(tmp_path)
    other = 1 - seat
    mat = tmp_path / "match.mat"
    commands = "\n".join(
        [
            f"set player {seat} external localhost:{port}",
            f"set player {other} gnubg",
            f"set player {other} chequerplay evaluation plies 0",
            f"set player {other} cubedecision evaluation plies 0",
            f"set seed {(10, 9)[seat]}",  # seeds whose matches have scores, takes and a post-Crawford game
            "new match 5",
            f"export match mat {mat}",
            "",
        ]
    )
    try:
        game = subprocess.run(
            [GNUBG_BIN, "-t", "-q", "-r"],
            check=False,
            input=commands,
            capture_output=True,
            text=True,
            timeout=240,
            cwd=tmp_path,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    out = game.stdout + game.stderr
    assert "has won the match" in out, out[-2000:]
    assert "badly formed" not in out and "Warning" not in out, out[-2000:]
    decisions = [json.loads(line) for line in log.read_text().splitlines()]
    assert decisions and not any(d["answer"].startswith("error") for d in decisions)
    # gnubg ignores an illegal move without a word, so check its record of the match: every move
    # must be legal (replay raises otherwise) and our side's moves must be the ones we sent
    record = read_mat(mat.read_text())
    match = replay(record)
    assert match.is_over and match.winner is not None
    recorded = [
        _normalised(e.move)
        for g in record.games
        for e in g.entries
        if e.side == seat and e.kind is EntryKind.MOVE and e.move.strip()
    ]
    sent = [_normalised(d["answer"]) for d in decisions if d["kind"] == MOVE and d["answer"]]
    assert sent and sent == recorded
    for kind, answer in ((EntryKind.TAKE, "take"), (EntryKind.DROP, "drop"), (EntryKind.DOUBLE, "double")):
        count = sum(1 for g in record.games for e in g.entries if e.side == seat and e.kind is kind)
        assert count == sum(1 for d in decisions if d["answer"] == answer), kind
    # the score was read the right way round: every decision's away matches a game's score in the record
    expected = set()
    for g in record.games:
        ours, theirs = 5 - g.score[seat], 5 - g.score[1 - seat]
        expected |= {(MOVE, ours, theirs), (DOUBLE, ours, theirs), (TAKE, theirs, ours)}
    assert {(d["kind"], *d["cube"]["away"]) for d in decisions} <= expected


def test_fuzzed_boards_get_an_answer_or_an_error_never_a_crash() -> None:
    import random

    from backgammon.engine.evaluator import NetEvaluator

    player = EnginePlayer(NetEvaluator.default, "expert")
    rng = random.Random(16)
    bases = [FIBS_EXAMPLE, GNUBG_PLAYER0_MOVE, GNUBG_PLAYER1_CUBE, GNUBG_TAKE, GNUBG_CRAWFORD]
    move = re.compile(r"((bar|[0-9]{1,2})/(off|[0-9]{1,2})( |$)){1,4}")
    answered = errors = 0
    for _ in range(400):
        fields = rng.choice(bases).split(":")
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(fields))
            fields[i] = rng.choice(["0", "1", "-1", "2", "25", "-3", "15", "7", "", "x", "1e3", "-0", " 4"])
        if rng.random() < 0.1:
            del fields[rng.randrange(len(fields))]
        reply = answer_line(":".join(fields), player)
        assert reply is not None and "\n" not in reply and len(reply) <= 200
        assert "internal error" not in reply, ":".join(fields)
        if reply.startswith("error: "):
            errors += 1
        else:
            answered += 1
            assert reply in ("double", "roll", "take", "drop", "") or move.fullmatch(reply), reply
    assert answered > 50 and errors > 50


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no unix sockets")
def test_server_on_a_unix_socket_answers_and_survives_bad_bytes(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "bg.sock"
    server = subprocess.Popen(
        [sys.executable, "-c", "from backgammon.cli import main; main()", "external", "--socket", str(path),
         "--level", "expert", "--once"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        assert "listening on" in server.stderr.readline()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(path))
            with client.makefile("rb") as stream:  # (the socket really closes only once this does)
                for line in (
                    b"\xff\xfe\x00garbage\n",
                    b"board:" + b"1:" * 3000 + b"\n",
                    FIBS_EXAMPLE.encode() + b"\x00\n",
                ):
                    client.sendall(line)
                replies = [stream.readline().decode("ascii").rstrip("\n") for _ in range(3)]
        assert replies[0].startswith("error: ") and replies[1].startswith("error: ")
        decision = decision_of(FibsBoard.parse(FIBS_EXAMPLE))
        legal = {" ".join(sorted(_steps(p))) for p in decision.position.legal_plays(6, 2)}
        assert " ".join(sorted(replies[2].split())) in legal
        assert server.wait(timeout=60) == 0
        assert not path.exists()  # removed at exit
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["external", "--plies", "7"], "error: invalid plies 7"),
        (["external", "--level", "grandmaster"], "error: unknown level 'grandmaster'"),
        (["external", "--dialect", "xg"], "error: unknown dialect 'xg'"),
        (["external", "--port", "not-a-port"], "error: "),
        (["ubgi", "--plies", "-1"], "error: invalid plies -1"),
    ],
)
def test_command_line_errors_are_one_line(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_command_line_error_when_the_address_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.cli import main

    taken = tmp_path / "taken"
    taken.write_text("")
    with pytest.raises(SystemExit) as exit_info:
        main(["external", "--socket", str(taken), "--level", "expert"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("error: cannot listen at") and "the path exists" in err[-1]
    assert taken.exists()  # not ours: left alone
