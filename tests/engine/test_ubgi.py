"""UBGI (Universal Backgammon Interface, draft 0.01): a `backgammon ubgi` subprocess answers the
handshake, positions as XGID and FIBS board strings, and bad lines, then quits."""

from __future__ import annotations

import io
import subprocess
import sys

from backgammon.position import Position
from backgammon.protocols.external import EnginePlayer
from backgammon.protocols.ubgi import Session, parse_position

START = "-b----E-C---eE---c-e----B-"
FIBS_START_62 = (
    "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)
# bear-off races, money, X on roll: X bears off its last two checkers with every roll (O would win next)
XGID_X_CERTAIN = "XGID=-B----------------------b-:0:0:1:00:0:0:0:0:10"
# ... X has two checkers on its 6-point (only 33, 44, 55 and 66 finish), O again wins next
XGID_X_UNDERDOG = "XGID=------B-----------------b-:0:0:1:00:0:0:0:0:10"


def _is_legal(answer: str, position: Position, dice: tuple[int, int]) -> bool:
    steps = sorted(answer.split())
    for play in position.legal_plays(*dice):
        text = sorted(f"{s.source}/{s.destination}" for s in play.steps)
        if text == steps:
            return True
    return False


def test_ubgi_subprocess_session() -> None:
    lines = [
        b"ubgi",
        f"XGID={START}:0:0:1:31:0:0:0:0:10".encode(),
        f"XGID={START}:0:0:1:00:0:0:0:0:10".encode(),
        f"XGID={START}:1:0:1:D:0:0:0:0:10".encode(),
        FIBS_START_62.encode(),
        b"position startpos",
        b"\xff\xfe\x80 not text",
        b"XGID=" + b"9" * 10_000,
        b"stop",
        b"quit",
        b"ubgi",  # after quit: never read
    ]
    proc = subprocess.run(
        [sys.executable, "-c", "from backgammon.cli import main; main()", "ubgi", "--level", "expert"],
        check=False,
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=300,
        env=None,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    out = proc.stdout.decode("ascii").splitlines()
    assert out[0] == "id name backgammon"
    assert out[1].startswith("id author ") and out[2].startswith("id version ")
    assert out[3] == "readyok"
    assert _is_legal(out[4], Position.initial(), (3, 1))
    assert out[5] in ("double", "roll")
    assert out[6] in ("take", "drop")
    assert _is_legal(out[7], Position.initial(), (6, 2))
    assert out[8:] == ["sorry", "sorry", "sorry"]  # unknown command, bytes that are not text, a huge line
    errors = proc.stderr.decode("ascii").splitlines()
    assert len([e for e in errors if e.startswith("ubgi: ")]) == 3
    assert all(len(e) < 220 for e in errors)
    assert "Traceback" not in proc.stderr.decode("ascii")


def test_cube_answers_follow_the_engine() -> None:
    from backgammon.engine.evaluator import NetEvaluator

    out, err = io.StringIO(), io.StringIO()
    session = Session(lambda: EnginePlayer(NetEvaluator.default, "expert"), out, err)
    session.handle(XGID_X_UNDERDOG)  # X, a 4-in-36 underdog, does not double
    session.handle(XGID_X_UNDERDOG.replace(":00:", ":D:"))  # if it does, O takes
    session.handle(XGID_X_CERTAIN.replace(":00:", ":D:"))  # a certain loss: O passes
    assert out.getvalue().splitlines() == ["roll", "take", "drop"], err.getvalue()


def test_positions_parse_both_notations_to_the_same_decision() -> None:
    fibs = parse_position(FIBS_START_62)
    xgid = parse_position(f"XGID={START}:0:0:1:62:0:0:0:3:10")
    assert fibs.position == xgid.position == Position.initial()
    assert fibs.dice == xgid.dice == (6, 2)
    assert fibs.cube.away == xgid.cube.away == (3, 3)
