"""The engine's line protocol: one JSON request per line in, one JSON answer per line out.

See ``docs/engine-protocol.md``. :func:`answer` turns one request line into
one answer object and never raises for bad input: errors become
``{"error": "..."}``. :func:`serve` loops over a text stream.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from backgammon.dice import check_roll
from backgammon.engine.cube import CubeInfo, CubeOwner
from backgammon.engine.levels import STRONGEST, get_level, pick
from backgammon.engine.search import EvalContext, RankedPlay, decide_cube, rank_plays
from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.formats.match_id import MatchState
from backgammon.formats.xgid import Xgid
from backgammon.game import cube_owner_seen_by
from backgammon.position import Position
from backgammon.safejson import loads, shorten

log = logging.getLogger("backgammon.protocols.jsonlines")
MAX_LINE = 16_384  # bytes in one request line
MAX_ERROR = 200  # characters of an error message
MAX_PLIES = 2


def cube_info_from_match_state(state: Any, on_roll: int, jacoby: bool = False) -> CubeInfo:
    """The cube and score for player ``on_roll`` (gnubg's 0/1) from a Match ID's ``MatchState``.

    After the Crawford game (a side 1-away and the Crawford flag clear) the
    game is taken to be post-Crawford.

    Raises:
        InvalidInputError: if the score is beyond the match equity table.
    """
    other = 1 - on_roll
    owner = CubeOwner(cube_owner_seen_by(state.cube_owner, on_roll))
    if not state.match_length:
        return CubeInfo.money(value=state.cube_value, owner=owner, jacoby=jacoby)
    away_me = state.match_length - state.score[on_roll]
    away_opp = state.match_length - state.score[other]
    if away_me <= 0 or away_opp <= 0:
        raise InvalidInputError(f"invalid score {state.score!r}: the {state.match_length}-point match is over")
    crawford = bool(state.crawford) and 1 in (away_me, away_opp)
    post = not crawford and 1 in (away_me, away_opp)
    return CubeInfo.match(away_me, away_opp, value=state.cube_value, owner=owner, crawford=crawford, post_crawford=post)


def parse_match_id(match_id: str) -> MatchState:
    """A Match ID's ``MatchState``.

    Raises:
        InvalidInputError: on a bad Match ID.
    """
    return MatchState.from_match_id(match_id)


def parse_xgid(text: str) -> tuple[Position, MatchState]:
    """An XGID's position (player on roll first) and ``MatchState``.

    Raises:
        InvalidInputError: on a bad XGID.
    """
    return Xgid.parse(text).to_gnubg()


def _dice(value: Any) -> tuple[int, int]:
    return check_roll(value)


KNOWN_FIELDS = frozenset(
    {"position_id", "dice", "level", "plies", "match_id", "xgid", "seed", "jacoby", "cubeless", "candidates"}
)
DEFAULT_CANDIDATES = 10  # candidates listed in a play answer unless the request says


def error_answer(message: str) -> dict[str, Any]:
    """``{"error": message}`` on one line, cut to :data:`MAX_ERROR` characters."""
    message = " ".join(message.split())
    if len(message) > MAX_ERROR:
        message = message[: MAX_ERROR - 1] + "…"
    return {"error": message}


def answer(line: str | bytes, evaluator: Any, rng: random.Random | None = None) -> dict[str, Any]:
    """The answer to one request line (a dict ready for ``json.dumps``); errors as ``{"error": ...}``.

    An error names what is wrong without echoing a large input; an unexpected failure (a bug)
    is logged and answered ``{"error": "internal error"}`` without the exception's text.
    """
    try:
        request = loads(line, max_length=MAX_LINE)
        if not isinstance(request, dict):
            raise InvalidInputError(f"invalid request {shorten(request)}: expected a json object")
        unknown = sorted(set(request) - KNOWN_FIELDS)
        if unknown:
            raise InvalidInputError(f"unknown field {shorten(unknown[0])}: expected {', '.join(sorted(KNOWN_FIELDS))}")
        return _answer(request, evaluator, rng)
    except BackgammonError as exc:
        return error_answer(str(exc))
    except Exception:
        log.exception("engine request failed")
        return {"error": "internal error (the engine logged it; the request was not answered)"}


def _level_for(request: dict[str, Any]) -> Any:
    """The request's level, with its depth replaced by ``plies`` when given."""
    level = get_level(request.get("level", STRONGEST)) if isinstance(request.get("level", STRONGEST), str) else None
    if level is None:
        raise InvalidInputError(f"invalid level {shorten(request['level'])}: expected a level name")
    if "plies" in request:
        plies = request["plies"]
        if not isinstance(plies, int) or isinstance(plies, bool) or not 0 <= plies <= MAX_PLIES:
            raise InvalidInputError(f"invalid plies {shorten(plies)}: expected an integer from 0 to {MAX_PLIES}")
        level = dataclasses.replace(level, plies=plies)
    return level


def _answer(request: dict[str, Any], evaluator: Any, rng: random.Random | None) -> dict[str, Any]:
    state = None
    if "xgid" in request:
        if "position_id" in request or "match_id" in request:
            raise InvalidInputError("give either 'xgid' or 'position_id' (with an optional 'match_id'), not both")
        if not isinstance(request["xgid"], str):
            raise InvalidInputError(f"invalid xgid {shorten(request['xgid'])}: expected a string")
        position, state = parse_xgid(request["xgid"])
    else:
        pid = request.get("position_id")
        if not isinstance(pid, str):
            raise InvalidInputError(f"invalid position_id {shorten(pid)}: expected a gnubg position id string")
        position = Position.from_position_id(pid)
        if "match_id" in request:
            if not isinstance(request["match_id"], str):
                raise InvalidInputError(f"invalid match_id {shorten(request['match_id'])}: expected a string")
            state = parse_match_id(request["match_id"])
    if position.is_game_over():
        raise InvalidInputError(f"the game is over in position {position.position_id()!r}")
    level = _level_for(request)
    if "seed" in request:
        seed = request["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise InvalidInputError(f"invalid seed {shorten(seed)}: expected an integer")
        rng = random.Random(seed)
    dice_value = request.get("dice")
    if dice_value is None and state is not None and state.dice is not None:
        dice_value = list(state.dice)
    jacoby = request.get("jacoby", False)
    if not isinstance(jacoby, bool):
        raise InvalidInputError(f"invalid jacoby flag {shorten(jacoby)}: expected true or false")
    cubeless = request.get("cubeless", False)
    if not isinstance(cubeless, bool):
        raise InvalidInputError(f"invalid cubeless flag {shorten(cubeless)}: expected true or false")
    count = request.get("candidates", DEFAULT_CANDIDATES)
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 1000:
        raise InvalidInputError(f"invalid candidates {shorten(count)}: expected an integer from 0 to 1000")
    info = (
        CubeInfo.money(jacoby=jacoby) if state is None else cube_info_from_match_state(state, state.dice_owner, jacoby)
    )
    if dice_value is not None:
        dice = _dice(dice_value)
        # cubeful (money per cube, or EMG at the match score) unless asked for cubeless equities
        ranked = rank_plays(position, dice, EvalContext(evaluator, level.plies, None if cubeless else info))
        chosen = pick(ranked, level, rng)
        return {
            "play": str(chosen.play),
            "position_id": chosen.play.position.position_id(),
            "plies": chosen.plies,
            "kind": chosen.kind,
            "candidates": [candidate_json(r) for r in ranked[:count]],
        }
    analysed = decide_cube(position, EvalContext(evaluator, level.plies, info))
    return {**decision_json(analysed.decision), "plies": analysed.plies, "kind": analysed.kind}


def candidate_json(r: RankedPlay) -> dict[str, Any]:
    """A ranked play as JSON (the numbers unrounded, so that every front end shows the same)."""
    out: dict[str, Any] = {
        "play": str(r.play),
        "position_id": r.play.position.position_id(),
        "equity": r.equity,
        "plies": r.plies,
        "kind": r.kind,
        "cubeless": r.cubeless,
        "probabilities": [
            r.probabilities.win,
            r.probabilities.win_gammon,
            r.probabilities.win_backgammon,
            r.probabilities.lose_gammon,
            r.probabilities.lose_backgammon,
        ],
    }
    if r.mwc is not None:
        out["mwc"] = r.mwc
    return out


def decision_json(decision: Any) -> dict[str, Any]:
    """A :class:`CubeDecision` as a JSON-ready dict."""
    out: dict[str, Any] = {
        "action": decision.action.value,
        "double": decision.should_double,
        "take": decision.take,
        "may_double": decision.may_double,
        "equities": {
            "no_double": round(decision.no_double, 5),
            "double_take": round(decision.double_take, 5),
            "double_pass": round(decision.double_pass, 5),
            "cubeless": round(decision.cubeless_equity, 5),
        },
    }
    if decision.no_double_mwc is not None:
        out["mwc"] = {
            "no_double": round(decision.no_double_mwc, 5),
            "double_take": round(decision.double_take_mwc, 5),
            "double_pass": round(decision.double_pass_mwc, 5),
        }
    return out


def request_lines(stream: IO[bytes], limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of a binary stream, each at most ``limit`` bytes; ``None`` for a longer line
    (read past and dropped without being held in memory)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:  # skip the rest of the long line
                rest = stream.readline(65_536)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def serve(
    lines: Iterable[str | bytes | None],
    output: IO[str],
    evaluator_factory: Callable[[], Any],
    rng: random.Random | None = None,
) -> int:
    """Answer every non-blank line; returns the number of requests answered.

    ``lines`` may be text or bytes (bytes that are not UTF-8 get an error answer; ``None``
    stands for a line over :data:`MAX_LINE` bytes, see :func:`request_lines`). The evaluator
    is created on the first request (so a broken engine shows up as an error answer, and the
    loop keeps going).
    """
    evaluator: Any = None
    count = 0

    def reply(doc: dict[str, Any]) -> None:
        output.write(json.dumps(doc, ensure_ascii=True) + "\n")
        output.flush()

    for line in lines:
        if line is None:
            reply(error_answer(f"invalid request: a line longer than {MAX_LINE} bytes"))
            count += 1
            continue
        if not line.strip():
            continue
        if evaluator is None:
            try:
                evaluator = evaluator_factory()
            except BackgammonError as exc:
                reply(error_answer(str(exc)))
                count += 1
                continue
        reply(answer(line, evaluator, rng))
        count += 1
    return count


__all__ = [
    "answer",
    "candidate_json",
    "cube_info_from_match_state",
    "decision_json",
    "parse_match_id",
    "parse_xgid",
    "request_lines",
    "serve",
]
