"""Study tools of the web app: analysis board, tactical check, lessons and coached review.

Its routes, under ``/api/study``, are :mod:`backgammon.server.api.study`. A board
set up for analysis travels as a *setup* (see :func:`parse_setup`): the checkers of the
side on roll (``mine``) and of the opponent (``theirs``) in :class:`~backgammon.Position`
layout, the dice, the cube and the score. Engine work runs in worker threads; rollouts run
as background jobs streamed to the page (:mod:`backgammon.server.rollouts`), so the server stays responsive.
All errors go through the app's exception handlers (bad input 400, illegal play 422, ...).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from backgammon.dice import check_roll
from backgammon.errors import EngineError, IllegalActionError, InvalidInputError
from backgammon.formats.match_id import MatchState, format_gnubg_id, parse_gnubg_id
from backgammon.formats.xgid import Xgid
from backgammon.game import check_match_length, cube_owner_seen_by
from backgammon.grading import grade
from backgammon.moves import find_play
from backgammon.position import Position
from backgammon.server import protocol
from backgammon.server.protocol import shown

MAX_CANDIDATES = 5
LANGS = ("en", "ja")


# ------------------------------------------------------------------ setups
# The setup's words for the cube owner (its wire format) by backgammon.game.cube_owner_seen_by's answer, which is
# also the engine's CubeOwner value.
SETUP_OWNER = {"centred": "centre", "me": "me", "opponent": "them"}


@dataclass(frozen=True, slots=True)
class Setup:
    """A position to study, seen from the side on roll, with dice, cube and score.

    ``owner``: ``"centre"``, ``"me"`` (the side on roll) or ``"them"``.
    ``score``: (side on roll, opponent); ``match_length`` 0 is money play.
    """

    position: Position
    dice: tuple[int, int] | None = None
    cube: int = 1
    owner: str = "centre"
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False

    def state(self) -> MatchState:
        """The gnubg Match ID state (the side on roll is gnubg's player 1)."""
        return MatchState(
            cube_value=self.cube,
            cube_owner=None if self.owner == "centre" else (1 if self.owner == "me" else 0),
            dice_owner=1,
            turn=1,
            crawford=self.crawford,
            dice=self.dice,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
        )

    def cube_info(self) -> Any:
        """The engine's :class:`~backgammon.engine.cube.CubeInfo` for the side on roll."""
        from backgammon.engine.cube import CubeInfo, CubeOwner

        owner = next(CubeOwner(seen) for seen, word in SETUP_OWNER.items() if word == self.owner)
        if self.match_length == 0:
            return CubeInfo.money(value=self.cube, owner=owner, jacoby=self.jacoby)
        away = (self.match_length - self.score[0], self.match_length - self.score[1])
        post = not self.crawford and 1 in away
        return CubeInfo.match(
            away[0], away[1], value=self.cube, owner=owner, crawford=self.crawford, post_crawford=post
        )


def _int(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"invalid {name} {shown(value)}: expected a whole number from {low} to {high}")
    return value


def _plays(value: object) -> list[str] | None:
    """The move texts a rollout request names (``plays``), or None to roll out the best."""
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_CANDIDATES
        or not all(isinstance(v, str) for v in value)
    ):
        raise InvalidInputError(f"invalid plays {shown(value)}: expected a list of 1 to {MAX_CANDIDATES} move texts")
    if any(len(v) > 80 for v in value):
        raise InvalidInputError("invalid plays: a move text is at most 80 characters")
    return list(value)


def _side(value: object, name: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != 25:
        raise InvalidInputError(f"invalid {name} {shown(value)}: expected a list of 25 checker counts")
    return tuple(_int(v, f"{name} count", 0, 15) for v in value)


def parse_setup(doc: object) -> Setup:
    """Read a setup from JSON data.

    ``{"mine": [25 counts], "theirs": [25 counts], "dice": [d1, d2] | null, "cube": 1,
    "owner": "centre"|"me"|"them", "match_length": 0, "score": [me, them], "crawford":
    false, "jacoby": false}``.

    Raises:
        InvalidInputError: for a missing or bad field (the message names it).
        InvalidPositionError: for an impossible position.
    """
    if not isinstance(doc, dict):
        raise InvalidInputError(f"invalid setup {shown(doc)}: expected a JSON object")
    position = Position(_side(doc.get("mine"), "mine"), _side(doc.get("theirs"), "theirs"))
    dice = doc.get("dice")
    if dice is not None:
        dice = check_roll(dice)
    cube = _int(doc.get("cube", 1), "cube value", 1, 4096)
    if cube & (cube - 1):
        raise InvalidInputError(f"invalid cube value {shown(cube)}: expected a power of two")
    owner = doc.get("owner", "centre")
    if owner not in SETUP_OWNER.values():
        raise InvalidInputError(f"invalid cube owner {shown(owner)}: expected 'centre', 'me' or 'them'")
    length = check_match_length(doc.get("match_length", 0))
    score = doc.get("score", [0, 0])
    if not isinstance(score, list) or len(score) != 2:
        raise InvalidInputError(f"invalid score {shown(score)}: expected [side on roll, opponent]")
    score_t = (_int(score[0], "score", 0, 64), _int(score[1], "score", 0, 64))
    if length and max(score_t) >= length:
        raise InvalidInputError(f"invalid score {list(score_t)!r}: both must be below the match length {length}")
    if not length and score_t != (0, 0):
        raise InvalidInputError(f"invalid score {list(score_t)!r}: a money game has no score")
    crawford, jacoby = doc.get("crawford", False), doc.get("jacoby", False)
    if not isinstance(crawford, bool) or not isinstance(jacoby, bool):
        raise InvalidInputError(
            f"invalid flags crawford={shown(crawford)} jacoby={shown(jacoby)}: expected true or false"
        )
    if crawford and (not length or length - 1 not in score_t):
        raise InvalidInputError("invalid crawford flag: only when one side is 1-away in a match")
    if position.is_game_over():
        raise InvalidInputError(f"invalid position {position.position_id()!r}: the game is over")
    return Setup(position, dice, cube, owner, length, score_t, crawford, jacoby)


def setup_from_text(text: object) -> Setup:
    """A setup from a Position ID, ``PositionID:MatchID`` or an XGID.

    Raises:
        InvalidInputError: if the text is none of these (the message quotes it).
    """
    if not isinstance(text, str) or not text.strip() or len(text) > 200:
        raise InvalidInputError(f"invalid id {shown(text)}: expected a Position ID, PositionID:MatchID or an XGID")
    text = text.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 5:
        xgid = Xgid.parse(text)
        position, state = xgid.to_gnubg()
        return _from_state(position, state, xgid.jacoby)
    if ":" in text:
        position, state = parse_gnubg_id(text)
        return _from_state(position, state, False)
    return Setup(Position.from_position_id(text))


def _from_state(position: Position, state: MatchState, jacoby: bool) -> Setup:
    mover = state.dice_owner
    owner = SETUP_OWNER[cube_owner_seen_by(state.cube_owner, mover)]
    score = (state.score[mover], state.score[1 - mover])
    if position.is_game_over():
        raise InvalidInputError(f"invalid position {position.position_id()!r}: the game is over")
    return Setup(position, state.dice, state.cube_value, owner, state.match_length, score, state.crawford, jacoby)


def setup_to_wire(setup: Setup, moves: bool = True) -> dict[str, Any]:
    """A setup as JSON, with its Position ID, gnubg ID and XGID; with ``moves``, also what the page
    needs to move checkers by clicking (:func:`backgammon.server.protocol.roll_moves`: ``move_graph``
    and ``plays``; null and ``[]`` without dice)."""
    state = setup.state()
    try:
        xgid = Xgid.from_gnubg(setup.position, state, jacoby=setup.jacoby).text()
    except InvalidInputError:
        xgid = None
    out: dict[str, Any] = {
        "mine": list(setup.position.mine),
        "theirs": list(setup.position.theirs),
        "dice": list(setup.dice) if setup.dice else None,
        "cube": setup.cube,
        "owner": setup.owner,
        "match_length": setup.match_length,
        "score": list(setup.score),
        "crawford": setup.crawford,
        "jacoby": setup.jacoby,
        "pips": list(setup.position.pip_counts()),
        "position_id": setup.position.position_id(),
        "gnubg_id": format_gnubg_id(setup.position, state),
        "xgid": xgid,
    }
    if moves:
        out.update(
            protocol.roll_moves(setup.position, *setup.dice) if setup.dice else {"move_graph": None, "plays": []}
        )
    return out


# ------------------------------------------------------------------ engine
_EVALUATOR: list[Any] = []
_EVAL_LOCK = threading.Lock()


def evaluator() -> Any:
    """The engine's evaluator (loaded once).

    Raises:
        EngineError: when the engine cannot be loaded.
    """
    with _EVAL_LOCK:
        if not _EVALUATOR:
            try:
                from backgammon.engine import NetEvaluator

                _EVALUATOR.append(NetEvaluator.default())
            except Exception as exc:  # noqa: BLE001 - any failure to load means no engine
                raise EngineError(f"the engine is not available: {exc}") from None
        return _EVALUATOR[0]


def depth_of(value: object) -> int:
    """An analysis depth asked for: 0, 1 or 2 plies (0 when not said)."""
    return _int(0 if value is None else value, "depth", 0, 2)


def chances(p: Any) -> dict[str, float]:
    """Win, gammon and backgammon chances on the wire (rounded to 4 places)."""
    if hasattr(p, "win_gammon"):  # the engine's Probabilities
        p = (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)
    win, wg, wbg, lg, lbg = (float(x) for x in p)
    return {
        "win": round(win, 4),
        "win_gammon": round(wg, 4),
        "win_bg": round(wbg, 4),
        "lose_gammon": round(lg, 4),
        "lose_bg": round(lbg, 4),
    }


def context(setup: Setup, plies: int) -> Any:
    """The engine's evaluation context for a setup: its cube and score, at ``plies``."""
    from backgammon.engine.search import EvalContext

    return EvalContext(evaluator(), plies, setup.cube_info())


def ranked_plays(setup: Setup, plies: int) -> list[Any]:
    """The engine's plays for the setup's roll, best first, cubeful at the setup's cube and score
    (:func:`backgammon.engine.search.rank_plays`, the ranking every front end uses).

    Raises:
        InvalidInputError: when the setup has no dice.
    """
    from backgammon.engine.search import rank_plays

    if setup.dice is None:
        raise InvalidInputError("no dice: set the dice to rank the plays")
    return rank_plays(setup.position, setup.dice, context(setup, plies))


def analyze(setup: Setup, plies: int, limit: int = 20) -> dict[str, Any]:
    """Ranked plays (if dice are set) and the cube decision for a setup, each number with the
    depth (``plies``) and kind of equity it is (``label``, e.g. "1-ply cubeful match, EMG")."""
    from backgammon.engine.search import decide_cube

    out: dict[str, Any] = {"depth": plies, "setup": setup_to_wire(setup, moves=False), "plays": None, "cube": None}
    if setup.dice is not None:
        ranked = ranked_plays(setup, plies)
        best = ranked[0].equity
        out["plays"] = [
            {
                "rank": i + 1,
                "play": str(r.play),
                "equity": round(r.equity, 4),
                "cubeless": round(r.cubeless, 4),
                # a loss only against plays of the same depth (the deepest ones are first)
                "loss": round(best - r.equity, 4) if r.plies == ranked[0].plies else None,
                "plies": r.plies,
                "kind": r.kind,
                "label": r.label,
                **({"mwc": round(r.mwc, 4)} if r.mwc is not None else {}),
                **chances(r.probabilities),
            }
            for i, r in enumerate(ranked[:limit])
        ]
        out["count"] = len(ranked)
        out["kind"] = ranked[0].kind
        out["label"] = ranked[0].label
    analysed = decide_cube(setup.position, context(setup, plies))
    decision = analysed.decision
    out["cube"] = {
        "action": decision.action.value,
        "may_double": decision.may_double,
        "take": decision.take,
        "no_double": round(decision.no_double, 4),
        "double_take": round(decision.double_take, 4),
        "double_pass": round(decision.double_pass, 4),
        "cubeless": round(decision.cubeless_equity, 4),
        "plies": analysed.plies,
        "kind": analysed.kind,
        "label": analysed.label,
        **chances(analysed.probabilities),
    }
    return out


def clicked_play(setup: Setup, steps: object) -> Any:
    """The legal play a clicked path makes: the complete list of ``[from, to]`` die steps (the
    mover's numbering, 25 = bar, 0 = off) that the page built by following the setup's move graph
    (:func:`backgammon.server.protocol.roll_moves`), read by :func:`backgammon.moves.find_play`.

    Raises:
        InvalidInputError: without dice, or for malformed steps.
        IllegalPlayError: when the steps are not a whole legal play.
    """
    if setup.dice is None:
        raise InvalidInputError("no dice: set the dice before moving checkers")
    if not isinstance(steps, list | tuple):
        raise InvalidInputError(f"invalid steps {shown(steps)}: expected a list of up to 4 [from, to] pairs")
    path: list[Any] = list(steps)  # find_play checks each step
    return find_play(setup.position, *setup.dice, path)


def clicked_move(setup: Setup, steps: object) -> dict[str, Any]:
    """The play a clicked path on the analysis board makes (:func:`clicked_play`):
    ``{"play": its text}``.

    Raises:
        InvalidInputError: without dice, or for malformed steps.
        IllegalPlayError: when the steps are not a whole legal play.
    """
    play = clicked_play(setup, steps)
    return {"play": str(play)}


def tactical_check(setup: Setup, text: object, plies: int, steps: object = None) -> dict[str, Any]:
    """Grade the user's chosen play (move text, or a clicked path of ``[from, to]`` steps) against
    the engine's best, both at the full depth.

    Raises:
        InvalidInputError / IllegalPlayError / AmbiguousPlayError: for a play that cannot be read.
    """
    from backgammon.engine.search import evaluate_play

    if steps is None and (not isinstance(text, str) or len(text) > 80):
        raise InvalidInputError(f"invalid play {shown(text)}: expected move notation such as '24/18 13/11'")
    if setup.dice is None:
        raise InvalidInputError("no dice: set the dice before choosing a play")
    if steps is not None:
        play = clicked_play(setup, steps)
    else:
        assert isinstance(text, str)  # checked above
        play = find_play(setup.position, *setup.dice, text)
    ranked = ranked_plays(setup, plies)
    index = next(i for i, r in enumerate(ranked) if r.play == play)
    mine = ranked[index]
    if mine.plies != ranked[0].plies:  # dropped by the filters: evaluate it at the full depth to compare
        mine = evaluate_play(play, context(setup, plies))
    loss = max(0.0, ranked[0].equity - mine.equity)
    g = grade(loss)
    return {
        "play": str(play),
        "best": str(ranked[0].play),
        "rank": index + 1,
        "count": len(ranked),
        "equity": round(mine.equity, 4),
        "best_equity": round(ranked[0].equity, 4),
        "loss": round(loss, 4),
        "plies": ranked[0].plies,
        "kind": ranked[0].kind,
        "label": {lang: g.label(lang) for lang in LANGS},
        "equity_label": ranked[0].label,
        "grade": g.value,
        "mark": g.mark,
    }


# ----------------------------------------------------------------- lessons
def lang_of(value: object) -> str:
    """A language asked for: ``en`` (when not said) or ``ja``."""
    if value is None:
        return "en"
    if value not in LANGS:
        raise InvalidInputError(f"invalid language {shown(value)}: expected 'en' or 'ja'")
    return str(value)


def lesson_list(lang: str) -> list[dict[str, Any]]:
    from backgammon.lessons import load_lessons

    return [
        {"id": ls.id, "order": ls.order, "title": ls.title.get(lang), "exercises": len(ls.exercises)}
        for ls in sorted(load_lessons(), key=lambda x: x.order)
    ]


def _get_lesson(lesson_id: str) -> Any:
    from backgammon.lessons import get_lesson

    try:
        return get_lesson(lesson_id)
    except Exception:  # noqa: BLE001 - any failure to find it is "no such lesson"
        raise LookupError(f"no lesson {shown(lesson_id)}") from None


def lesson_to_wire(lesson_id: str, lang: str) -> dict[str, Any]:
    """A lesson for the browser: texts in ``lang``; exercises without their answers."""
    from backgammon.lessons import PlayExercise

    lesson = _get_lesson(lesson_id)
    exercises = []
    for ex in lesson.exercises:
        item: dict[str, Any] = {
            "task": ex.task.value,
            "prompt": ex.prompt.get(lang),
            "hints": [h.get(lang) for h in ex.hints],
        }
        position = ex.position
        if position is not None:
            item.update(mine=list(position.mine), theirs=list(position.theirs), position_id=position.position_id())
        if isinstance(ex, PlayExercise):
            item["dice"] = list(ex.dice)
            if position is not None:  # played by clicking: the roll's move graph and plays
                item.update(protocol.roll_moves(position, *ex.dice))
        else:
            item["choices"] = [c.get(lang) for c in ex.choices]
        exercises.append(item)
    return {"id": lesson.id, "title": lesson.title.get(lang), "intro": lesson.intro.get(lang), "exercises": exercises}


def lesson_answer(lesson_id: str, number: int, answer: object, lang: str) -> dict[str, Any]:
    """Judge an answer (rules by ``check_answer``; for a legal play also the engine's grade).

    Raises:
        LookupError: no such lesson or exercise.
        InvalidInputError: an answer of the wrong type.
    """
    from backgammon.lessons import PlayExercise, check_answer

    lesson = _get_lesson(lesson_id)
    if not 0 <= number < len(lesson.exercises):
        raise LookupError(f"no exercise {shown(number)} in lesson {shown(lesson_id)}")
    ex = lesson.exercises[number]
    if isinstance(ex, PlayExercise):
        if not isinstance(answer, str) or len(answer) > 80:
            raise InvalidInputError(f"invalid answer {shown(answer)}: expected a play in move notation")
    elif isinstance(answer, bool) or not isinstance(answer, int):
        raise InvalidInputError(f"invalid answer {shown(answer)}: expected the number of a choice")
    feedback = check_answer(ex, answer)
    out: dict[str, Any] = {
        "verdict": feedback.verdict.value,
        "correct": feedback.correct,
        "text": feedback.text(lang),
        "diagnosis": feedback.diagnosis.message.get(lang) if feedback.diagnosis is not None else None,
        "play": str(feedback.play) if feedback.play is not None else None,
        "summary": feedback.summary.get(lang) if feedback.summary is not None else None,
        "engine": None,
    }
    if isinstance(ex, PlayExercise) and feedback.play is not None:
        try:
            check = tactical_check(Setup(ex.position, ex.dice), str(feedback.play), 0)
            out["engine"] = {
                "best": check["best"],
                "loss": check["loss"],
                "grade": check["grade"],
                "label": check["label"][lang],
            }
        except EngineError:
            pass
    return out


# ------------------------------------------------------------------ review
def review_table(table: Any, plies: int = 0) -> dict[str, Any]:
    """Every decision of a finished table's match graded by the engine, errors per player, luck.

    Raises:
        IllegalActionError: when the table's match is not over.
    """
    from backgammon.game import Player

    if not table.is_over:
        raise IllegalActionError("no review yet: the game is not finished")
    names = {
        str(Player.WHITE): table.names.get(Player.WHITE, "White"),
        str(Player.BLACK): table.names.get(Player.BLACK, "Black"),
    }
    return review_of_report(_analyze_table(table, plies), table.id, plies, names)


def review_of_report(report: Any, review_id: str, plies: int, names: dict[str, str] | None = None) -> dict[str, Any]:
    """An analysed match as a review (a table's, or an uploaded match's): each decision graded and
    labelled, each player's name (``names`` by side, else the report's, else the side) and error
    share, the charts' series per game, the review's id and depth."""
    from backgammon.engine.analysis import report_json

    data = report_json(report)
    for d in data["decisions"]:
        g = grade(d["error"])
        d["grade"] = g.value
        d["label"] = {lang: g.label(lang) for lang in LANGS}
    for key, totals in data["players"].items():
        totals["name"] = (names or {}).get(key) or totals["name"] or key  # a file may leave a name empty
        # the share of counted decisions with an error (not PR, which weighs the errors by size)
        totals["error_share"] = round(totals["errors"] / totals["unforced"], 4) if totals["unforced"] else 0.0
    data["games"] = review_games(data["decisions"])
    data["table_id"] = review_id
    data["depth"] = plies
    return data


def store_review(sessions: Any, table_id: str, data: dict[str, Any]) -> None:
    """Keep a table's review (one made meanwhile by another request is replaced); the one
    writer of reviews, for this page and for the puzzles."""
    from backgammon.server.db import Review

    with sessions() as db:
        row = db.get(Review, table_id)
        if row is None:
            db.add(Review(table_id=table_id, report=data))
        else:
            row.report = data
        db.commit()


def review_games(decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game, the series a chart draws: after each decision, White's winning chance and the
    mover's luck turned to White's side (positive: good for White; null for a cube decision).

    ``decision`` is the index into the review's decision list, to show that position.
    """
    games: dict[int, list[dict[str, Any]]] = {}
    for i, d in enumerate(decisions):
        if d.get("win") is None:
            continue
        white = d["player"] == "White"
        luck = d.get("luck")
        games.setdefault(d["game"], []).append(
            {
                "decision": i,
                "win": round(d["win"] if white else 1.0 - d["win"], 4),
                "luck": None if luck is None else round(luck if white else -luck, 4),
            }
        )
    return [{"game": number, "points": points} for number, points in sorted(games.items())]


def _analyze_table(table: Any, plies: int) -> Any:
    """The engine's report on a table's match; a first game set up from a position starts there."""
    from backgammon.engine.analysis import analyze_game, match_games, match_report
    from backgammon.game import Game
    from backgammon.server import protocol

    match = table.flow
    games = match_games(match)
    start_doc = table.config.get("start")
    decisions: list[Any] = []
    ev = evaluator()
    for number, game in enumerate(games, 1):
        start = None
        if number == 1 and start_doc:
            start = Game.from_position(
                Position.from_position_id(start_doc["position_id"]),
                on_roll=protocol.player_from_wire(start_doc.get("on_roll", "white")),
                rules=game.rules,
                score=game.score,
                crawford_game=game.crawford_game,
            )
        decisions.extend(analyze_game(game, ev, number, plies, luck=True, start=start))
    return match_report(match, decisions)
