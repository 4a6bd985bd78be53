"""Puzzles from the player's own games: the biggest errors of their reviewed matches, to solve again.

A puzzle is one decision of a stored review (:func:`backgammon.server.study.review_table`, the
one review; or an uploaded match's, :mod:`backgammon.server.uploads`, where the account played
the side it chose or whose name is its own) that the logged-in player got wrong: a play, a cube
decision (double or not) or a take decision, graded worse than "good" and not forced. Its id is
``<table id or upload id>.<game number>.<action index>``. Guests have no history (tables are listed by
account), so puzzles are for accounts only: a guest is told to log in (401).

Listing the puzzles reviews the player's finished tables that have no review yet, a few per
request (:data:`NEW_REVIEWS_PER_REQUEST`, on worker threads), and says how many are left.

Answers are scored like lessons: right, or wrong with a second try (cube puzzles, with two
answers, get none), then the answer. A play is
judged by :func:`backgammon.server.study.tactical_check` (the move text read by
``backgammon.moves.find_play``, the plays ranked by the one ranking at the review's depth, with
its label, e.g. "0-ply cubeful money"); it is right when it is the engine's best play or ties it.
A cube or take decision has two answers: the one the review found better is right, the other
loses the review's equity. How each puzzle went is stored per account (``puzzle_attempts``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from backgammon.errors import IllegalActionError, InvalidInputError
from backgammon.server import protocol
from backgammon.server.protocol import shown

MAX_TABLES = 200  # the newest finished tables looked at for puzzles
NEW_REVIEWS_PER_REQUEST = 2  # reviews made by one listing request (the rest by the next ones)
TIE = 0.0005  # a play within this much of the best is as good as the best (rounding of equities)
ID_PATTERN = re.compile(r"^([A-Za-z0-9_-]{1,32})\.([0-9]{1,3})\.([0-9]{1,5})$")
ORDERS = ("newest", "biggest")
CHOICES = {"cube": ("double", "no double"), "take": ("take", "pass")}
LANGS = ("en", "ja")


def parse_puzzle_id(value: object) -> tuple[str, int, int]:
    """(table id, game number, action index) of a puzzle id.

    Raises:
        LookupError: for anything that is not a puzzle id (404: no such puzzle).
    """
    m = ID_PATTERN.match(value) if isinstance(value, str) else None
    if m is None:
        raise LookupError(f"no puzzle {shown(value)}")
    return m.group(1), int(m.group(2)), int(m.group(3))


def _seats(row: Any, user_id: int) -> set[str]:
    """The review's player names ("White", "Black") the user sat as at a table."""
    return {name for name, uid in (("White", row.white_user_id), ("Black", row.black_user_id)) if uid == user_id}


def is_puzzle(decision: dict[str, Any], seats: set[str]) -> bool:
    """Whether a review's decision is a puzzle for a player who sat in ``seats``: theirs,
    not forced, and worse than "good"."""
    return (
        decision.get("player") in seats
        and not decision.get("forced")
        and decision.get("kind") in ("play", "cube", "take")
        and decision.get("grade", "good") != "good"
    )


def _report(row: Any) -> dict[str, Any]:
    return json.loads(row.report) if isinstance(row.report, str) else row.report


def _summary(table_id: str, created: Any, d: dict[str, Any], attempt: Any) -> dict[str, Any]:
    return {
        "id": f"{table_id}.{d['game']}.{d['index']}",
        "table_id": table_id,
        "game": d["game"],
        "kind": d["kind"],
        "position_id": d["position_id"],
        "dice": d.get("dice"),
        "error": d["error"],
        "grade": d.get("grade"),
        "equity_label": d.get("equity_label"),
        "played": created.isoformat(),
        "status": attempt_status(attempt),
    }


def attempt_status(attempt: Any) -> str:
    """How a puzzle stands for the player: new, tried, first_try, solved or missed."""
    if attempt is None:
        return "new"
    if not attempt.done:
        return "tried"
    return ("first_try" if attempt.first_try else "solved") if attempt.solved else "missed"


def score_of(attempts: list[Any]) -> dict[str, int]:
    """Counts of the puzzles done, solved, solved at the first try, and points (2 for a first
    try, 1 for a second)."""
    done = [a for a in attempts if a.done]
    first = sum(1 for a in done if a.solved and a.first_try)
    solved = sum(1 for a in done if a.solved)
    return {"done": len(done), "solved": solved, "first_try": first, "points": 2 * first + (solved - first)}


# ------------------------------------------------------------------ storage (worker threads)
def unreviewed_tables(sessions: Any, user_id: int) -> list[str]:
    """The user's finished tables (newest first, at most :data:`MAX_TABLES`) with no review yet."""
    from sqlalchemy import or_, select

    from backgammon.server.db import Review, Table

    with sessions() as db:
        rows = db.execute(
            select(Table.id)
            .outerjoin(Review, Review.table_id == Table.id)
            .where(or_(Table.white_user_id == user_id, Table.black_user_id == user_id))
            .where(Table.status == "over", Review.table_id.is_(None))
            .order_by(Table.created_at.desc(), Table.id)
            .limit(MAX_TABLES)
        ).all()
    return [r[0] for r in rows]


def list_puzzles(sessions: Any, user_id: int, order: str, limit: int, offset: int) -> dict[str, Any]:
    """A page of the user's puzzles (newest tables first, or biggest errors first) and the score."""
    from sqlalchemy import or_, select

    from backgammon.server.db import PuzzleAttempt, Review, Table
    from backgammon.server.uploads import Upload

    with sessions() as db:
        rows = db.execute(
            select(Table, Review)
            .join(Review, Review.table_id == Table.id)
            .where(or_(Table.white_user_id == user_id, Table.black_user_id == user_id))
            .order_by(Table.created_at.desc(), Table.id)
            .limit(MAX_TABLES)
        ).all()
        # the account's uploaded matches whose side it played is known, once analysed
        uploaded = db.scalars(
            select(Upload)
            .where(Upload.user_id == user_id, Upload.side.is_not(None), Upload.status == "done")
            .order_by(Upload.created_at.desc(), Upload.id)
            .limit(MAX_TABLES)
        ).all()
        attempts = list(db.scalars(select(PuzzleAttempt).where(PuzzleAttempt.user_id == user_id)).all())
    by_id = {a.puzzle_id: a for a in attempts}
    matches = [(table.id, table.created_at, _seats(table, user_id), review) for table, review in rows]
    matches += [(up.id, up.created_at, {up.side}, up) for up in uploaded if up.report]
    matches.sort(key=lambda m: m[1], reverse=True)  # newest first (stable: ties as queried)
    items = []
    for table_id, created, seats, review in matches[:MAX_TABLES]:
        decisions = [d for d in _report(review).get("decisions", []) if is_puzzle(d, seats)]
        # within a table, the latest decision first (the newest order); biggest sorts them all below
        for d in sorted(decisions, key=lambda d: (d["game"], d["index"]), reverse=True):
            items.append(_summary(table_id, created, d, by_id.get(f"{table_id}.{d['game']}.{d['index']}")))
    if order == "biggest":
        items.sort(key=lambda p: -p["error"])  # stable: ties stay newest first
    return {
        "puzzles": items[offset : offset + limit],
        "total": len(items),
        "offset": offset,
        "limit": limit,
        "order": order,
        "score": score_of(attempts),
    }


def load_puzzle(sessions: Any, user_id: int, puzzle_id: str) -> tuple[dict[str, Any], Any]:
    """The review's decision a puzzle is made of, and the user's attempt at it (or None).

    Raises:
        LookupError: no such puzzle for this user (another user's, not an error, no review...).
    """
    from backgammon.server.db import PuzzleAttempt, Review, Table
    from backgammon.server.uploads import Upload, is_upload_id

    table_id, game, index = parse_puzzle_id(puzzle_id)
    with sessions() as db:
        if is_upload_id(table_id):  # an uploaded match: the account's own, its side known
            upload = db.get(Upload, table_id)
            mine = upload is not None and upload.user_id == user_id and upload.side and upload.report
            review, seats = (upload, {upload.side}) if mine else (None, set())
        else:
            table = db.get(Table, table_id)
            review = db.get(Review, table_id) if table is not None else None
            seats = _seats(table, user_id) if table is not None else set()
        attempt = db.get(PuzzleAttempt, (user_id, puzzle_id)) if review is not None else None
    if review is None:
        raise LookupError(f"no puzzle {shown(puzzle_id)}")
    for d in _report(review).get("decisions", []):
        if d.get("game") == game and d.get("index") == index and is_puzzle(d, seats):
            return d, attempt
    raise LookupError(f"no puzzle {shown(puzzle_id)}")


def tries_allowed(kind: str) -> int:
    """How many tries a puzzle gets: a play two (a wrong one, then a second try), a cube puzzle one
    (with only two answers, a second try would be a free answer)."""
    return 1 if len(CHOICES.get(kind, ())) == 2 else 2


def record_try(sessions: Any, user_id: int, puzzle_id: str, correct: bool, allowed: int = 2) -> Any:
    """Count one try at a puzzle (nothing changes once it is done; done when right or after
    ``allowed`` tries); the attempt after it."""
    from sqlalchemy.exc import IntegrityError

    from backgammon.server.db import PuzzleAttempt, utcnow

    for _ in range(2):  # a concurrent first try may insert the row first: then update it
        with sessions() as db:
            row = db.get(PuzzleAttempt, (user_id, puzzle_id))
            if row is None:
                row = PuzzleAttempt(
                    user_id=user_id,
                    puzzle_id=puzzle_id,
                    table_id=parse_puzzle_id(puzzle_id)[0],
                    tries=0,
                    done=False,
                    solved=False,
                    first_try=False,
                    created_at=utcnow(),
                )
                db.add(row)
            if not row.done:
                row.tries += 1
                row.done = correct or row.tries >= allowed
                row.solved = correct
                row.first_try = correct and row.tries == 1
                row.updated_at = utcnow()
            try:
                db.commit()
            except IntegrityError:
                db.rollback()
                continue
            return row
    raise IllegalActionError("this puzzle is being answered elsewhere: try again")


def user_score(sessions: Any, user_id: int) -> dict[str, int]:
    from sqlalchemy import select

    from backgammon.server.db import PuzzleAttempt

    with sessions() as db:
        return score_of(list(db.scalars(select(PuzzleAttempt).where(PuzzleAttempt.user_id == user_id)).all()))


# ------------------------------------------------------------------ positions (worker threads)
def game_before(table: Any, game_number: int, index: int) -> Any:
    """The game state of a table's match just before the action ``index`` of game ``game_number``
    (the analysis numbers games from 1 and actions by their place in the game's log).

    Raises:
        LookupError: when the match has no such game or action.
    """
    from backgammon.engine.analysis import match_games
    from backgammon.game import Game
    from backgammon.position import Position

    games = match_games(table.flow)
    if not 1 <= game_number <= len(games) or not 0 <= index < len(games[game_number - 1].log):
        raise LookupError(f"no decision {index} in game {game_number} of table {shown(table.id)}")
    game = games[game_number - 1]
    start_doc = table.config.get("start")
    if game_number == 1 and start_doc:  # the first game set up from a position starts there (as the review does)
        g = Game.from_position(
            Position.from_position_id(start_doc["position_id"]),
            on_roll=protocol.player_from_wire(start_doc.get("on_roll", "white")),
            rules=game.rules,
            score=game.score,
            crawford_game=game.crawford_game,
        )
    else:
        g = Game.new(game.rules, score=game.score, crawford_game=game.crawford_game)
    for action in game.log[:index]:
        g = g.apply(action)
    return g


def setup_for(g: Any, player_name: str) -> Any:
    """The study setup of a game state seen by the review's player ("White" or "Black")."""
    from backgammon.game import Player, cube_owner_seen_by
    from backgammon.server.study import SETUP_OWNER, Setup

    player = Player.WHITE if player_name == "White" else Player.BLACK
    owner = SETUP_OWNER[cube_owner_seen_by(g.cube_owner, player)]
    length = g.rules.match_length
    white, black = g.score
    score = ((white, black) if player is Player.WHITE else (black, white)) if length else (0, 0)
    dice = g.dice if g.turn is player and g.dice is not None else None
    return Setup(
        g.board_for(player),
        dice,
        g.cube_value,
        owner,
        length,
        score,
        bool(g.crawford_game),
        bool(getattr(g.rules, "jacoby", False)),
    )


def puzzle_to_wire(puzzle_id: str, d: dict[str, Any], setup: Any, attempt: Any) -> dict[str, Any]:
    """A puzzle for the browser: the position seen by the player, the dice or the cube question;
    the answer only once the puzzle is done."""
    from backgammon.server.study import setup_to_wire

    out: dict[str, Any] = {
        "id": puzzle_id,
        "table_id": parse_puzzle_id(puzzle_id)[0],
        "game": d["game"],
        "kind": d["kind"],
        "player": d["player"],
        "setup": setup_to_wire(setup),
        "dice": d.get("dice"),
        "choices": list(CHOICES.get(d["kind"], ())),
        "offered": 2 * setup.cube if d["kind"] == "take" else None,
        "equity_label": d.get("equity_label"),
        "depth": d.get("plies", 0),
        "tries": attempt.tries if attempt is not None else 0,
        "status": attempt_status(attempt),
        "answer": None,
    }
    if attempt is not None and attempt.done:
        out["answer"] = {"best": d["best"], "original": d["chosen"], "original_loss": d["error"]}
    return out


def judge(d: dict[str, Any], setup: Any, doc: dict[str, Any]) -> dict[str, Any]:
    """Judge an answer: ``{"play": move text}`` for a play, ``{"choice": ...}`` for a cube or take
    decision. The losses of the answer and of the player's original choice, at the review's depth.

    Raises:
        InvalidInputError / IllegalPlayError / AmbiguousPlayError: for an answer that cannot be read
            (not counted as a try).
    """
    from backgammon.server.study import tactical_check

    if d["kind"] == "play":
        play = doc.get("play")
        if not isinstance(play, str) or not play.strip() or len(play) > 80:
            raise InvalidInputError(f"invalid play {shown(play)}: expected move notation such as '24/18 13/11'")
        plies = int(d.get("plies", 0))
        mine = tactical_check(setup, play, plies)
        original = tactical_check(setup, d["chosen"], plies)
        return {
            "correct": mine["rank"] == 1 or mine["loss"] < TIE,
            "answer": mine["play"],
            "loss": mine["loss"],
            "best": mine["best"],
            "original": original["play"],
            "original_loss": original["loss"],
            "equity_label": mine["equity_label"],
            "grade": mine["grade"],
            "label": mine["label"],
        }
    from backgammon.grading import grade

    choice = doc.get("choice")
    options = CHOICES[d["kind"]]
    if choice not in options:
        raise InvalidInputError(f"invalid choice {shown(choice)}: expected {' or '.join(repr(o) for o in options)}")
    # the review found the player's choice worse by d["error"]: the other answer is the better one
    correct = choice != d["chosen"]
    loss = 0.0 if correct else float(d["error"])
    g = grade(loss)
    return {
        "correct": correct,
        "answer": choice,
        "loss": round(loss, 4),
        "best": d["best"],
        "original": d["chosen"],
        "original_loss": d["error"],
        "equity_label": d.get("equity_label"),
        "grade": g.value,
        "label": {lang: g.label(lang) for lang in LANGS},
    }
