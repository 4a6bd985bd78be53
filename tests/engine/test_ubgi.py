"""UBGI (Universal Backgammon Interface) 0.2, as the bgci match runner speaks it, with draft 0.01's
one-line positions kept: a `backgammon ubgi` subprocess answers the handshake, positions as XGID and
FIBS board strings, and bad lines, then quits; a session answers 0.2's position, dice, go, keys,
set and get, and refuses with its four error codes."""

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
    assert out[3:5] == ["proto 0.2", "ubgiok"]
    assert _is_legal(out[5], Position.initial(), (3, 1))  # draft 0.01's one-line positions
    assert out[6] in ("double", "roll")
    assert out[7] in ("take", "drop")
    assert _is_legal(out[8], Position.initial(), (6, 2))
    # 0.2's refusals: a position it does not take, bytes that are not text, a huge line
    assert [line.split()[:2] for line in out[9:]] == [["error", "bad_command"]] * 3
    assert all(len(line) < 220 for line in out)
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


# the side on roll on the bar against a closed board: no roll can be played
CLOSED_OUT = Position.from_points({"bar": 1, 6: 2}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}).position_id()


def _session(level: str = "expert") -> tuple[Session, io.StringIO]:
    from backgammon.engine.evaluator import NetEvaluator

    out = io.StringIO()
    return Session(lambda: EnginePlayer(NetEvaluator.default, level), out, io.StringIO()), out


def _answers(session: Session, out: io.StringIO, *lines: str) -> list[str]:
    start = len(out.getvalue().splitlines())
    for line in lines:
        session.handle(line)
    return out.getvalue().splitlines()[start:]


def test_a_bgci_duel_conversation() -> None:
    """What bgci sends for each checker play (ubgi, set, isready, newgame, position gnubgid, dice,
    go chequer) gets ubgiok, readyok and a legal bestmove, bar and off spelled out."""
    session, out = _session()
    hello = _answers(session, out, "ubgi")
    assert hello[0] == "id name backgammon" and hello[-2:] == ["proto 0.2", "ubgiok"]
    assert _answers(session, out, "set engine.ply 1", "isready", "newgame") == ["readyok"]
    start = Position.initial().position_id()
    (move,) = _answers(session, out, f"position gnubgid {start}", "dice 3 1", "go chequer")
    assert move.startswith("bestmove ") and _is_legal(move.removeprefix("bestmove "), Position.initial(), (3, 1))
    assert _answers(session, out, "go") == [move]  # go is go chequer
    (pass_,) = _answers(session, out, f"position gnubgid {CLOSED_OUT}", "dice 6 5", "go")
    assert pass_ == "bestmove pass"
    entering = Position.from_points({"bar": 1, 6: 2}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2}).position_id()
    (enter,) = _answers(session, out, f"position gnubgid {entering}", "dice 6 6", "go")
    assert enter.startswith("bestmove bar/19") and "25" not in enter
    (bearoff,) = _answers(
        session, out, "position gnubgid " + Position.from_points({1: 1}, {6: 5}).position_id(), "dice 2 1", "go"
    )
    assert bearoff == "bestmove 1/off"


def test_cube_and_turn_decisions_and_the_match_state() -> None:
    session, out = _session()
    underdog = "XGID=------B-----------------b-:0:0:1:00:0:0:0:0:10"  # 4 rolls in 36 win: no double
    assert _answers(session, out, f"position xgid {underdog}", "go cube") == ["bestcube nodouble"]
    (turn,) = _answers(session, out, "dice 6 6", "go turn")
    assert turn == "bestturn cube=nodouble move=6/off 6/off"
    # PositionID:MatchID: gnubg's opening, 3-point match at 2-4 in gnubg's example; its dice are read too
    (move,) = _answers(session, out, "position gnubgid 4HPwATDgc/ABMA:QYkqASAAIAAA", "go")
    assert move.startswith("bestmove ")
    # a double offered: 0.2 has no take answer
    assert _answers(session, out, f"position xgid {underdog.replace(':00:', ':D:')}", "go cube") == [
        "error unsupported take decisions (UBGI 0.2 has no answer for them)"
    ]


def test_keys_set_and_get() -> None:
    session, out = _session("expert")  # expert: 0-ply, UBGI's 1
    keys = _answers(session, out, "keys")
    assert keys[0].startswith("key engine.ply int 1..3 1 ")
    assert keys[1].startswith("key engine.level enum beginner|") and " expert " in keys[1]
    assert keys[2] == "key game.variant enum backgammon backgammon the game"
    assert _answers(session, out, "get engine.ply", "set engine.ply 2", "get engine.ply", "get engine.level") == [
        "value engine.ply 1",
        "value engine.ply 2",
        "value engine.level expert",
    ]
    assert _answers(session, out, "set engine.level world_class", "get engine.ply") == ["value engine.ply 3"]
    assert _answers(session, out, "set game.variant backgammon") == []


def test_every_refusal_is_one_of_the_four_codes_and_the_session_goes_on() -> None:
    session, out = _session()
    cases = {
        "frobnicate": "bad_command",
        "position": "bad_command",
        "position startpos": "bad_command",
        "position gnubgid nonsense": "bad_value",
        "position xgid XGID=nonsense": "bad_value",
        "dice 7 1": "bad_value",
        "dice 3": "bad_value",
        "go sideways": "bad_command",
        "set engine.ply 0": "bad_value",
        "set engine.ply 9": "bad_value",
        "set engine.level godlike": "bad_value",
        "set engine.hash 64": "unsupported",
        "set game.variant nackgammon": "unsupported",
        "get engine.hash": "unsupported",
        "set engine.ply": "bad_command",
    }
    for line, code in cases.items():
        (answer,) = _answers(session, out, line)
        assert answer.split()[:2] == ["error", code], (line, answer)
    assert _answers(session, out, "newgame", "go") == ["error bad_state missing position"]
    assert _answers(session, out, f"position gnubgid {Position.initial().position_id()}", "go") == [
        "error bad_state missing dice"
    ]
    assert _answers(session, out, "go turn") == ["error bad_state missing dice"]
    assert _answers(session, out, "isready") == ["readyok"]  # still answering
