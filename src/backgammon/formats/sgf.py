"""GNU Backgammon's SGF match files (Smart Game Format, ``GM[6]``).

Two layers, like :mod:`backgammon.formats.mat`:

- **Syntax** (:func:`read_sgf`): text → :class:`~backgammon.formats.mat.MatchRecord`,
  the same record a ``.mat`` file gives (one :class:`~backgammon.formats.mat.MatGame`
  per game tree, its moves as ``.mat`` entries), so that both formats replay
  the same way. Text that is not SGF at all (unbalanced brackets, a property
  outside a node, ...) raises :class:`~backgammon.errors.InvalidInputError`
  naming the line and column; a game that is SGF but not a backgammon
  record it can read gets its problems in :attr:`MatGame.errors`.
- **Replay** (:func:`load_sgf`): the record replayed through the rules by
  :func:`backgammon.formats.mat.load_mat`, warnings and errors per game.

:func:`write_sgf` turns a :class:`~backgammon.match.Match` (and, when given,
its analysis) into SGF that gnubg loads (``load match FILE.sgf``) and whose
analysis gnubg shows.

The format (https://red-bean.com/sgf/backgammon.html and gnubg's manual)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]
    PW[Alice]PB[Bob]RU[Crawford]RE[W+2]
    ;W[31hefe]          White rolls 31 and plays 8/5 6/5
    ;B[double];W[take]  cube actions (a double after a double is a beaver)
    ;B[64]              no move
    ;PL[W]DI[61])       rolled, then resigned instead of moving
    (;FF[4]GM[6]...MI[length:3][game:1][ws:2][bs:0]...)   one game tree per game

Points are letters: ``a`` is White's 1 point (Black's 24) through ``x``,
White's 24 point; ``y`` is the bar and ``z`` off. White is gnubg's player 0:
the left column of a ``.mat`` file, :attr:`~backgammon.game.Player.BLACK`
in :mod:`backgammon.game`; SGF's Black is the right column,
:attr:`~backgammon.game.Player.WHITE`.

Read: players (``PW``/``PB``), match length, scores and game numbers
(``MI``), rules (``RU``: Crawford, Jacoby, beavers; other variants are
refused), results (``RE``, ``R`` for a resignation), moves and cube actions,
and a final roll without a move (``PL`` and ``DI``); gnubg's analysis
(``A`` ranked plays, ``DA`` cube decisions) by :func:`read_sgf_analysis`,
and written by :func:`write_sgf` from plain data
(:mod:`backgammon.formats.analysis`). Not read: comments and statistics
(``C``, ``GS``, ``LU``, ...), clocks, and setup positions (``AE``, ``AW``,
``AB``, ``CV``, ``CP``: a game that starts from a set-up position is an
error).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from backgammon.errors import BackgammonError, InvalidInputError
from backgammon.formats.analysis import CubeAnalysis, DecisionAnalysis, Evaluation, PlayAnalysis, RankedPlay
from backgammon.formats.mat_replay import MatReading, load_mat
from backgammon.formats.mat_syntax import MAX_FILE_SIZE, EntryKind, MatchRecord, MatEntry, MatGame

if TYPE_CHECKING:
    from backgammon.game import Game
    from backgammon.match import Match
    from backgammon.moves import Play

__all__ = ["load_sgf", "load_sgf_analysed", "read_sgf", "read_sgf_analysis", "write_sgf"]

_POINTS = "abcdefghijklmnopqrstuvwx"
_BAR, _OFF = "y", "z"
_SETUP = ("AE", "AW", "AB", "CV", "CP")
_MOVE = re.compile(r"([1-6])([1-6])([a-z]*)")


# ====================================================================== SGF syntax
@dataclass(slots=True)
class _Node:
    offset: int
    props: dict[str, list[str]] = field(default_factory=dict)


@dataclass(slots=True)
class _Tree:
    offset: int
    nodes: list[_Node] = field(default_factory=list)
    children: list[_Tree] = field(default_factory=list)


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


def _parse(text: str) -> list[_Tree]:
    """The collection's game trees (SGF's grammar; no recursion, so deep nesting is safe)."""
    roots: list[_Tree] = []
    stack: list[_Tree] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "(":
            tree = _Tree(i)
            (stack[-1].children if stack else roots).append(tree)
            stack.append(tree)
            i += 1
        elif c == ")":
            if not stack:
                raise InvalidInputError(f"invalid SGF: unmatched ')' at {_where(text, i)}")
            if not stack[-1].nodes:
                raise InvalidInputError(f"invalid SGF: game tree without a node at {_where(text, stack[-1].offset)}")
            stack.pop()
            i += 1
        elif c == ";":
            if not stack:
                raise InvalidInputError(f"invalid SGF: node outside a game tree at {_where(text, i)}")
            if stack[-1].children:
                raise InvalidInputError(f"invalid SGF: node after a variation at {_where(text, i)}")
            stack[-1].nodes.append(_Node(i))
            i += 1
        elif "A" <= c <= "Z":
            if not stack or not stack[-1].nodes or stack[-1].children:
                raise InvalidInputError(f"invalid SGF: property outside a node at {_where(text, i)}")
            start = i
            while i < n and "A" <= text[i] <= "Z":
                i += 1
            ident = text[start:i]
            values: list[str] = []
            while True:
                while i < n and text[i].isspace():
                    i += 1
                if i >= n or text[i] != "[":
                    break
                i, value = _value(text, i)
                values.append(value)
            if not values:
                raise InvalidInputError(f"invalid SGF: property {ident} without a value at {_where(text, start)}")
            stack[-1].nodes[-1].props.setdefault(ident, []).extend(values)
        else:
            raise InvalidInputError(f"invalid SGF: unexpected {c!r} at {_where(text, i)}")
    if stack:
        raise InvalidInputError(f"invalid SGF: '(' at {_where(text, stack[-1].offset)} is never closed")
    if not roots:
        raise InvalidInputError("invalid SGF: no game tree '(;...)'")
    return roots


def _value(text: str, start: int) -> tuple[int, str]:
    """Read ``[...]`` at ``start``: (the index after it, the value unescaped)."""
    out: list[str] = []
    i, n = start + 1, len(text)
    while i < n:
        c = text[i]
        if c == "]":
            return i + 1, "".join(out)
        if c == "\\":
            i += 1
            if i < n and text[i] == "\n":  # a soft line break
                i += 1
                continue
            if i < n and text[i] == "\r":
                i += 2 if text[i : i + 2] == "\r\n" else 1
                continue
            if i < n:
                out.append(text[i])
            i += 1
            continue
        out.append(c)
        i += 1
    raise InvalidInputError(f"invalid SGF: value '[' at {_where(text, start)} is never closed")


def _main_line(tree: _Tree) -> list[_Node]:
    """The nodes of a tree's main line (its first variation at each branch)."""
    nodes = list(tree.nodes)
    while tree.children:
        tree = tree.children[0]
        nodes.extend(tree.nodes)
    return nodes


# ====================================================================== record
def read_sgf(text: str) -> MatchRecord:
    """Read a gnubg SGF file into a match record (nothing checked against the rules).

    Each game tree is one game; only its main line is read. Problems of a
    game (a move gnubg would not write, a setup node, another game type) are
    collected in its :attr:`MatGame.errors` and the reader goes on.

    >>> record = read_sgf("(;GM[6]MI[length:1][game:0][ws:0][bs:0]PW[Al]PB[Bo]RE[W+1R];W[31hefe])")
    >>> record.match_length, record.names, record.games[0].entries[0].text(), record.games[0].winner
    (1, ('Al', 'Bo'), '31: 8/5 6/5', 0)

    Raises:
        InvalidInputError: for text that is not SGF (the message names the
            line and column), or too large.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"an SGF file must be text, not {type(text).__name__}")
    if len(text) > MAX_FILE_SIZE:
        raise InvalidInputError(f"SGF file too large: {len(text)} characters (at most {MAX_FILE_SIZE})")
    trees = _parse(text)
    games: list[MatGame] = []
    file_errors: list[str] = []
    headers: list[tuple[str, str]] = []
    match_length: int | None = None
    for number, tree in enumerate(trees, start=1):
        nodes = _main_line(tree)
        root = nodes[0]
        errors: list[str] = []
        warnings: list[str] = []
        info = _match_info(root.props.get("MI", []))
        length = _int(info.get("length"), -1)
        if length < 0:
            errors.append(f"{_where(text, root.offset)}: no match length MI[length:N]")
            length = 0 if match_length is None else match_length
        if match_length is None:
            match_length = length
            headers = _headers(root.props, length)
        elif length != match_length:
            errors.append(f"{_where(text, root.offset)}: match length {length}, but {match_length} in game 1")
        gm = _one(root.props, "GM")
        if gm is not None and gm.strip() != "6":
            errors.append(f"{_where(text, root.offset)}: GM[{gm}] is not backgammon (GM[6])")
        game_no = _int(info.get("game"), number - 1) + 1
        if game_no != number:
            warnings.append(f"{_where(text, root.offset)}: MI[game:{game_no - 1}] in game tree {number}")
        score = (_int(info.get("ws"), 0), _int(info.get("bs"), 0))
        names = (_one(root.props, "PW") or "", _one(root.props, "PB") or "")
        entries = _entries(text, nodes, errors)
        result = _result(text, root, errors)
        if result is not None:
            entries.append(result)
        games.append(
            MatGame(
                number=number,
                names=names,
                score=score,
                entries=tuple(entries),
                errors=tuple(errors),
                line=text.count("\n", 0, root.offset) + 1,
                warnings=tuple(warnings),
            )
        )
    return MatchRecord(
        match_length=match_length or 0, games=tuple(games), headers=tuple(headers), errors=tuple(file_errors)
    )


def _one(props: dict[str, list[str]], key: str) -> str | None:
    values = props.get(key)
    return values[0] if values else None


def _int(text: str | None, default: int) -> int:
    if text is None or not text.strip().isdigit() or len(text.strip()) > 6:
        return default
    return int(text.strip())


def _match_info(values: list[str]) -> dict[str, str]:
    info: dict[str, str] = {}
    for value in values:
        key, _, rest = value.partition(":")
        info[key.strip().lower()] = rest
    return info


def _headers(props: dict[str, list[str]], length: int) -> list[tuple[str, str]]:
    """The match's settings and facts as the ``.mat`` headers :func:`rules_for` reads."""
    headers: list[tuple[str, str]] = []
    for key, name in (("PW", "Player 1"), ("PB", "Player 2"), ("EV", "Event"), ("PC", "Site"), ("DT", "EventDate")):
        value = _one(props, key)
        if value:
            headers.append((name, value))
    rules = {part.strip().lower() for value in props.get("RU", []) for part in value.split(":")}
    rules.discard("")
    if length:
        headers.append(("Crawford", "On" if "crawford" in rules else "Off"))
    if "jacoby" in rules:
        headers.append(("Jacoby", "On"))
    if rules & {"beaver", "beavers"}:
        headers.append(("Beaver", "On"))
    others = rules - {"crawford", "crawfordgame", "jacoby", "beaver", "beavers"}
    if others:
        headers.append(("Variation", ":".join(sorted(others))))
    return headers


def _point(letter: str, side: int) -> int:
    """A letter as a point of the mover (25 the bar, 0 off); side 0 is SGF's White."""
    if letter == _BAR:
        return 25
    if letter == _OFF:
        return 0
    index = _POINTS.index(letter)
    return index + 1 if side == 0 else 24 - index


def _entries(
    text: str, nodes: list[_Node], errors: list[str], anchors: list[tuple[int, _Node]] | None = None
) -> list[MatEntry]:
    """The game's entries; ``anchors`` (when given) gets (entry index, node) for each move and cube action."""
    entries: list[MatEntry] = []
    if anchors is None:
        anchors = []
    pending_roll: MatEntry | None = None
    cube = 1
    offered: int | None = None  # the cube value proposed by a double not yet answered
    for index, node in enumerate(nodes):
        where = _where(text, node.offset)
        line = text.count("\n", 0, node.offset) + 1
        if index and any(key in node.props for key in _SETUP):
            errors.append(f"{where}: a set-up position ({', '.join(k for k in _SETUP if k in node.props)}) is not read")
            break
        moves = [(0, v) for v in node.props.get("W", [])] + [(1, v) for v in node.props.get("B", [])]
        if not moves:
            rolled = _one(node.props, "DI")
            player = _one(node.props, "PL")
            if rolled is not None and player in ("W", "B") and re.fullmatch(r"[1-6][1-6]", rolled.strip()):
                d = rolled.strip()
                pending_roll = MatEntry(0 if player == "W" else 1, EntryKind.ROLL, (int(d[0]), int(d[1])), line=line)
            continue
        if len(moves) > 1:
            errors.append(f"{where}: more than one move in a node")
            break
        side, value = moves[0]
        pending_roll = None
        anchors.append((len(entries), node))
        word = value.strip().lower()
        if word == "double":
            if offered is not None:  # a double answering a double is a beaver
                entries.append(MatEntry(side, EntryKind.BEAVER, value=offered * 2, line=line))
                offered *= 2
            else:
                offered = cube * 2
                entries.append(MatEntry(side, EntryKind.DOUBLE, value=offered, line=line))
            continue
        if word in ("take", "drop"):
            if word == "take" and offered is not None:
                cube = offered
            offered = None
            entries.append(MatEntry(side, EntryKind.TAKE if word == "take" else EntryKind.DROP, line=line))
            continue
        found = _MOVE.fullmatch(value.strip())
        if found is None or len(found.group(3)) % 2 or len(found.group(3)) > 8:
            errors.append(f"{where}: cannot read the move {value[:40]!r}")
            break
        letters = found.group(3)
        if any(ch not in _POINTS + _BAR + _OFF for ch in letters):
            errors.append(f"{where}: a point letter outside a-z in {value[:40]!r}")
            break
        steps = [f"{_point(letters[k], side)}/{_point(letters[k + 1], side)}" for k in range(0, len(letters), 2)]
        dice = (int(found.group(1)), int(found.group(2)))
        entries.append(MatEntry(side, EntryKind.MOVE, dice, " ".join(steps), line=line))
    if pending_roll is not None:
        entries.append(pending_roll)
    return entries


def _result(text: str, root: _Node, errors: list[str]) -> MatEntry | None:
    value = _one(root.props, "RE")
    if value is None or not value.strip() or value.strip() in ("?", "0", "Void"):
        return None
    found = re.fullmatch(r"([WB])\+(\d{1,9})(R?)", value.strip())
    if found is None:
        errors.append(f"{_where(text, root.offset)}: cannot read the result RE[{value[:40]}]")
        return None
    side = 0 if found.group(1) == "W" else 1
    return MatEntry(side, EntryKind.WIN, value=int(found.group(2)), line=text.count("\n", 0, root.offset) + 1)


# ====================================================================== replay
def load_sgf(source: str | MatchRecord) -> MatReading:
    """Read and replay an SGF file, collecting every warning and error per game (as :func:`load_mat`).

    >>> reading = load_sgf("(;GM[6]MI[length:1][game:0][ws:0][bs:0]PW[Al]PB[Bo]RE[W+1R];W[31hefe])")
    >>> reading.ok, reading.match.score, reading.match.is_over
    (True, (0, 1), True)

    Raises:
        InvalidInputError: only for text that :func:`read_sgf` refuses.
    """
    record = read_sgf(source) if isinstance(source, str) else source
    return load_mat(record)


# ====================================================================== gnubg's analysis
# A[i][move E ver 3 w wg wbg lg lbg equity NC ...]...: the ranked plays of a move node, i the played one;
# DA[E ver 3 NC ... then 7 outputs after no double and 7 after double/take]: the cube decision of the
# side whose node it is (on a move node: the no double before the roll; on double/take/drop nodes: the
# double). An output is the 5 chances, the cubeless equity, and the cubeful equity (money) or
# match-winning chance (match). Read and written as GNU Backgammon 1.07 and 1.08 write them.
_EVAL_HEAD = "E ver 3"
_SOURCE = "GNU Backgammon"


def read_sgf_analysis(text: str) -> tuple[DecisionAnalysis, ...]:
    """gnubg's analysis in an SGF file: one item per analysed move or cube decision, in playing order.

    Each item names its game (1-based) and the index of its entry in the
    game of :func:`read_sgf`'s record (see :mod:`backgammon.formats.analysis`).
    Evaluations gnubg wrote in a form not read here (rollouts) are left out.

    >>> sgf = ("(;GM[6]MI[length:0][game:0][ws:0][bs:0]RE[W+1];W[31hefe]A[0][hefe E ver 3 0.55 0.16 0.01 "
    ...        "0.12 0.005 0.16 1C 0 1 0.000000 1][mhfe E ver 3 0.5 0.14 0.01 0.13 0.005 0.01 1C 0 1 0.000000 1])")
    >>> (item,) = read_sgf_analysis(sgf)
    >>> [(p.move, p.evaluation.equity, p.evaluation.depth) for p in item.play.plays], item.play.played
    ([('8/5 6/5', 0.16, '1-ply'), ('13/8 6/5', 0.01, '1-ply')], 0)

    Raises:
        InvalidInputError: for text that is not SGF.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"an SGF file must be text, not {type(text).__name__}")
    if len(text) > MAX_FILE_SIZE:
        raise InvalidInputError(f"SGF file too large: {len(text)} characters (at most {MAX_FILE_SIZE})")
    out: list[DecisionAnalysis] = []
    for number, tree in enumerate(_parse(text), start=1):
        nodes = _main_line(tree)
        info = _match_info(nodes[0].props.get("MI", []))
        is_match = _int(info.get("length"), 0) > 0
        anchors: list[tuple[int, _Node]] = []
        entries = _entries(text, nodes, [], anchors)
        for index, node in anchors:
            if index >= len(entries):
                break
            entry = entries[index]
            play = None
            if entry.kind is EntryKind.MOVE and "A" in node.props and entry.dice is not None:
                play = _read_plays(node.props["A"], entry.side, entry.dice)
            cube = _read_cube(_one(node.props, "DA"), is_match) if "DA" in node.props else None
            if entry.kind in (EntryKind.TAKE, EntryKind.DROP, EntryKind.BEAVER):
                cube = None  # gnubg repeats the double's analysis on the answer
            if play is not None or cube is not None:
                out.append(DecisionAnalysis(number, index, play=play, cube=cube, source=_SOURCE))
    return tuple(out)


def _floats(tokens: list[str]) -> list[float] | None:
    try:
        return [float(t) for t in tokens]
    except ValueError:
        return None


def _plies(token: str) -> str:
    digits = token.rstrip("Cc")
    return f"{digits}-ply" if digits.isdigit() else token


def _read_plays(values: list[str], side: int, dice: tuple[int, int]) -> PlayAnalysis | None:
    if not values or not values[0].strip().isdigit():
        return None
    played_at = int(values[0].strip())
    plays: list[RankedPlay] = []
    played: int | None = None
    for k, value in enumerate(values[1:]):
        tokens = value.split()
        if len(tokens) < 11 or " ".join(tokens[1:4]) != _EVAL_HEAD:
            continue  # a rollout or a form not read: left out
        numbers = _floats(tokens[4:10])
        letters = tokens[0]
        if numbers is None or len(letters) % 2 or any(ch not in _POINTS + _BAR + _OFF for ch in letters):
            continue
        steps = [f"{_point(letters[i], side)}/{_point(letters[i + 1], side)}" for i in range(0, len(letters), 2)]
        probabilities = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
        if k == played_at:
            played = len(plays)
        cubeful = tokens[10][-1:] in ("C", "c")  # gnubg writes 0C for a cubeful evaluation, 0 for cubeless
        plays.append(RankedPlay(" ".join(steps), Evaluation(numbers[5], probabilities, _plies(tokens[10]), cubeful)))
    if not plays:
        return None
    return PlayAnalysis(dice, tuple(plays), played)


def _read_cube(value: str | None, is_match: bool) -> CubeAnalysis | None:
    if value is None:
        return None
    tokens = value.split()
    if len(tokens) < 21 or " ".join(tokens[0:3]) != _EVAL_HEAD:
        return None
    numbers = _floats(tokens[-14:])
    if numbers is None:
        return None
    no_double, double_take = numbers[6], numbers[13]
    probabilities = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
    depth = _plies(tokens[3])
    if is_match:
        return CubeAnalysis(None, None, None, probabilities, depth, mwc=(no_double, double_take), cubeless=numbers[5])
    return CubeAnalysis(no_double, double_take, 1.0, probabilities, depth, cubeless=numbers[5])


def load_sgf_analysed(text: str) -> tuple[MatReading, tuple[DecisionAnalysis, ...]]:
    """:func:`load_sgf` and :func:`read_sgf_analysis` of the same text."""
    return load_sgf(text), read_sgf_analysis(text)


# ====================================================================== writing
def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(match: Match, analysis: Iterable[DecisionAnalysis] = ()) -> str:
    """The match as gnubg's SGF: one game tree per game (the game in progress included).

    BLACK (gnubg's player 0, a ``.mat`` file's left column) is SGF's White.
    ``analysis`` (plain data, e.g. the engine's, see
    :mod:`backgammon.formats.analysis`) is written in gnubg's properties, so
    that gnubg shows it: each item names its game (1-based) and, in
    ``action``, the index in that game's log of the ``Move`` it judges (its
    ranked plays, and the no-double cube decision before the roll) or of the
    ``Double`` (the cube decision, repeated on the answer as gnubg does).
    gnubg stores a match's cubeful cube figures as match-winning chances, so
    a match's cube decision is written only when it carries ``mwc``. A play
    analysis whose played move is not among its candidates is not written.
    Not written: the roll of a player who resigned instead of moving.

    Raises:
        InvalidInputError: for a drawn game, which SGF's result cannot hold,
            or a candidate move that is not a legal play of its position.
    """
    from backgammon.game import Player

    by_action: dict[tuple[int, int], DecisionAnalysis] = {}
    for item in analysis:
        if item.action is not None:
            by_action[(item.game, item.action)] = item

    games = list(match.games)
    if not match.is_over and match.game.log:
        games.append(match.game)
    rules = match.rules
    out: list[str] = []
    for number, game in enumerate(games):
        ru: list[str] = []
        if rules.match_length and rules.crawford:
            ru.append("Crawford")
            if game.crawford_game:
                ru.append("CrawfordGame")
        if rules.jacoby:
            ru.append("Jacoby")
        head = (
            f"(;FF[4]GM[6]CA[UTF-8]AP[backgammon]MI[length:{rules.match_length}][game:{number}]"
            f"[ws:{game.score[1]}][bs:{game.score[0]}]"
            f"PW[{_escape(match.name_of(Player.BLACK))}]PB[{_escape(match.name_of(Player.WHITE))}]"
        )
        if ru:
            head += f"RU[{':'.join(ru)}]"
        head += _result_text(game)
        judged = {index: item for (g, index), item in by_action.items() if g == number + 1}
        nodes = _game_nodes(game, judged, is_match=bool(rules.match_length))
        out.append(head + "".join(f"\n;{node}" for node in nodes) + ")")
    return "\n".join(out) + "\n"


def _result_text(game: Game) -> str:
    from backgammon.game import Ending, Player

    result = game.result
    if result is None:
        return ""
    if result.winner is None or result.ending is Ending.DRAW:
        raise InvalidInputError("a drawn game cannot be written to SGF")
    colour = "B" if result.winner is Player.WHITE else "W"
    resigned = "R" if result.ending is Ending.RESIGNED else ""
    return f"RE[{colour}+{result.points}{resigned}]"


def _game_nodes(game: Game, judged: dict[int, DecisionAnalysis] | None = None, *, is_match: bool = False) -> list[str]:
    from backgammon.game import Beaver, Double, Move, Pass, Player, Take

    judged = judged or {}
    nodes: list[str] = []
    double_analysis = ""  # the last double's DA, repeated on its answer
    for index, action in enumerate(game.log):
        player = getattr(action, "player", None)
        colour = "B" if player is Player.WHITE else "W"
        item = judged.get(index)
        if isinstance(action, Move):
            play = action.play
            high, low = max(play.dice), min(play.dice)
            letters = _letters(play, colour)
            node = f"{colour}[{high}{low}{letters}]"
            if item is not None and item.cube is not None:
                node += _cube_property(item.cube, is_match)
            if item is not None and item.play is not None:
                node += _plays_property(item.play, play, colour)
            nodes.append(node)
        elif isinstance(action, (Double, Beaver)):
            double_analysis = _cube_property(item.cube, is_match) if item is not None and item.cube else ""
            nodes.append(f"{colour}[double]{double_analysis}")
        elif isinstance(action, Take):
            nodes.append(f"{colour}[take]{double_analysis}")
        elif isinstance(action, Pass):
            nodes.append(f"{colour}[drop]{double_analysis}")
    return nodes


def _letters(play: Play, colour: str) -> str:
    return "".join(_letter(step.source, colour) + _letter(step.destination, colour) for step in play.steps)


def _number(value: float) -> str:
    return f"{value:.6f}"


def _depth_token(depth: str, cubeful: bool | None = True) -> str:
    """gnubg's depth token: "2C" for a 2-ply cubeful evaluation, "2" for a cubeless one (any depth
    not "N-ply" is written as 0; an equity of unknown kind as cubeful)."""
    head = depth.split("-", 1)[0].strip()
    return f"{head if head.isdigit() else 0}{'' if cubeful is False else 'C'}"


def _plays_property(analysis: PlayAnalysis, played: Play, colour: str) -> str:
    """gnubg's ``A`` property: the played move's index, then each candidate with its evaluation."""
    from backgammon.formats.mat_replay import play_from_mat

    if analysis.played is None or not analysis.plays:
        return ""
    origin, dice = played.origin, played.dice
    values = [str(analysis.played)]
    for candidate in analysis.plays:
        try:
            play = play_from_mat(origin, dice, candidate.move)
        except BackgammonError as exc:
            raise InvalidInputError(f"candidate {candidate.move!r} for {dice[0]}{dice[1]}: {exc}") from None
        chances = candidate.evaluation.probabilities or (0.0, 0.0, 0.0, 0.0, 0.0)
        numbers = " ".join(_number(v) for v in (*chances, candidate.evaluation.equity))
        depth = _depth_token(candidate.evaluation.depth, candidate.evaluation.cubeful)
        values.append(f"{_letters(play, colour)} {_EVAL_HEAD} {numbers} {depth} 0 1 0.000000 1")
    return "A" + "".join(f"[{_escape(v)}]" for v in values)


def _cube_property(cube: CubeAnalysis, is_match: bool) -> str:
    """gnubg's ``DA`` property (empty when the figures gnubg needs are missing)."""
    if is_match:
        if cube.mwc is None:
            return ""
        no_double, double_take = cube.mwc
    else:
        if cube.no_double is None or cube.double_take is None:
            return ""
        no_double, double_take = cube.no_double, cube.double_take
    chances = cube.probabilities or (0.0, 0.0, 0.0, 0.0, 0.0)
    cubeless = cube.cubeless if cube.cubeless is not None else _cubeless(chances)
    head = " ".join(_number(v) for v in (*chances, cubeless))
    return (
        f"DA[{_EVAL_HEAD} {_depth_token(cube.depth)} 1 0.000000 1 "
        f"{head} {_number(no_double)} {head} {_number(double_take)}]"
    )


def _cubeless(chances: tuple[float, float, float, float, float]) -> float:
    """Cubeless money equity from gnubg's five chances."""
    win, win_g, win_bg, lose_g, lose_bg = chances
    return 2 * win - 1 + win_g - lose_g + win_bg - lose_bg


def _letter(point: int, colour: str) -> str:
    if point == 25:
        return _BAR
    if point == 0:
        return _OFF
    return _POINTS[point - 1] if colour == "W" else _POINTS[24 - point]
