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

:func:`write_sgf` turns a :class:`~backgammon.match.Match` into SGF that
gnubg loads (``load match FILE.sgf``).

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
and a final roll without a move (``PL`` and ``DI``). Not read: analysis and
comments (``A``, ``DA``, ``C``, ...), clocks, and setup positions (``AE``,
``AW``, ``AB``, ``CV``, ``CP``: a game that starts from a set-up position is
an error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from backgammon.errors import InvalidInputError
from backgammon.formats.mat_replay import MatReading, load_mat
from backgammon.formats.mat_syntax import MAX_FILE_SIZE, EntryKind, MatchRecord, MatEntry, MatGame

if TYPE_CHECKING:
    from backgammon.game import Game
    from backgammon.match import Match

__all__ = ["load_sgf", "read_sgf", "write_sgf"]

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


def _entries(text: str, nodes: list[_Node], errors: list[str]) -> list[MatEntry]:
    entries: list[MatEntry] = []
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


# ====================================================================== writing
def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(match: Match) -> str:
    """The match as gnubg's SGF: one game tree per game (the game in progress included).

    BLACK (gnubg's player 0, a ``.mat`` file's left column) is SGF's White.
    Not written: analysis, and the roll of a player who resigned instead of
    moving.

    Raises:
        InvalidInputError: for a drawn game, which SGF's result cannot hold.
    """
    from backgammon.game import Player

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
        out.append(head + "".join(f"\n;{node}" for node in _game_nodes(game)) + ")")
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


def _game_nodes(game: Game) -> list[str]:
    from backgammon.game import Beaver, Double, Move, Pass, Player, Take

    nodes: list[str] = []
    for action in game.log:
        player = getattr(action, "player", None)
        colour = "B" if player is Player.WHITE else "W"
        if isinstance(action, Move):
            play = action.play
            high, low = max(play.dice), min(play.dice)
            letters = ""
            for step in play.steps:
                letters += _letter(step.source, colour) + _letter(step.destination, colour)
            nodes.append(f"{colour}[{high}{low}{letters}]")
        elif isinstance(action, (Double, Beaver)):
            nodes.append(f"{colour}[double]")
        elif isinstance(action, Take):
            nodes.append(f"{colour}[take]")
        elif isinstance(action, Pass):
            nodes.append(f"{colour}[drop]")
    return nodes


def _letter(point: int, colour: str) -> str:
    if point == 25:
        return _BAR
    if point == 0:
        return _OFF
    return _POINTS[point - 1] if colour == "W" else _POINTS[24 - point]
