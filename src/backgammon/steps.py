"""Step sequences: the orders of steps that make the legal plays of a roll.

What a user interface and the notation parser need beyond the list of plays:
:func:`step_graph` (a :class:`StepGraph`, the legal step sequences of a roll
as a graph a browser follows one click at a time; :func:`backgammon.moves.find_play`
follows a clicked path through it), :func:`all_step_sequences` (every order
of steps, not deduplicated) and :func:`sequences_along` (the sequences that
move checkers along written paths, for move text). Everything here is also
importable from :mod:`backgammon.moves`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from backgammon.dice import check_dice
from backgammon.moves import BAR_POINT, OFF_POINT, LegalPlays, Play, Step, _to_step, legal_plays
from backgammon.playgen import _HIT, _MINE, _apply, _can_step, _key_of, _RawStep, _undo
from backgammon.position import BAR, Position


class _PairCache(dict[_RawStep, tuple[int, int]]):
    """A raw step as ``(from, to)`` point numbers, each built once and shared."""

    def __missing__(self, raw: _RawStep) -> tuple[int, int]:
        pair = self[raw] = (raw[0] + 1, raw[1] + 1 if raw[1] >= 0 else OFF_POINT)
        return pair


_to_pair = _PairCache().__getitem__


@dataclass(frozen=True, slots=True, eq=False)
class StepGraph:
    """The legal step sequences of a roll as a graph: what a user interface needs to offer the
    steps one click at a time, without listing every order of every play.

    ``nodes[0]`` is the start; each node is a tuple of edges ``(from, to, child)``: a step in the
    mover's point numbers (25 = bar, 0 = off) and the index of the node it leads to. Every path
    from the start has ``length`` steps and ends on a node without edges, a complete legal play
    (``ends[node]`` is its resulting position, seen from the opponent as ``Play.position``); each
    node's edges lead only to nodes from which a complete play can still be reached. Paths that
    reach the same intermediate board with the same dice left share their node, so a double's
    thousands of orders of the same steps are a few hundred nodes. The step sequences it holds are
    exactly those of :func:`all_step_sequences` as ``(from, to)`` pairs (each once).

    >>> from backgammon.position import Position
    >>> graph = step_graph(Position.initial(), 3, 1)
    >>> graph.length, len(graph.nodes[0]) > 0
    (2, True)
    >>> str(graph.follow([(8, 5), (6, 5)]).position_id())
    'sGfwATDgc/ABMA'
    """

    length: int
    nodes: tuple[tuple[tuple[int, int, int], ...], ...]
    results: dict[int, bytes]  # complete-play node -> its resulting position's 50-byte key

    @property
    def ends(self) -> dict[int, Position]:
        """Each complete play's node with its resulting position (seen from the opponent)."""
        return {node: self.end(node) for node in self.results}

    def end(self, node: int) -> Position:
        """The resulting position of a complete play's node (seen from the opponent)."""
        row = self.results[node]
        return Position._trusted(tuple(row[:25]), tuple(row[25:]))

    def follow(self, steps: Sequence[tuple[int, int]]) -> Position | None:
        """The position a complete step sequence gives, or None when it is not a legal play's."""
        if len(steps) != self.length:
            return None
        node = 0
        for step in steps:
            for src, dst, child in self.nodes[node]:
                if src == step[0] and dst == step[1]:
                    node = child
                    break
            else:
                return None
        return self.end(node) if node in self.results else None

    def sequences(self) -> Iterator[tuple[tuple[int, int], ...]]:
        """Every step sequence the graph holds (depth first, edges in order)."""

        def walk(node: int, prefix: tuple[tuple[int, int], ...]) -> Iterator[tuple[tuple[int, int], ...]]:
            edges = self.nodes[node]
            if not edges:
                yield prefix
            for src, dst, child in edges:
                yield from walk(child, (*prefix, (src, dst)))

        return walk(0, ())


def step_graph(position: Position, die1: int, die2: int, plays: Sequence[Play] | None = None) -> StepGraph:
    """The legal step sequences of a roll as a :class:`StepGraph`.

    Edges are in the order of the dice as rolled, then of the sources from the back (the bar
    first); a step that two dice make alike (bearing off the same checker with either die) is one
    edge, to a node that joins both continuations. ``plays`` may pass in ``legal_plays(...)``: the
    resulting positions are read from it (the higher-die rule), no :class:`Play` is built.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    if isinstance(plays, LegalPlays):
        rows = plays._source.keys()
    else:
        rows = [p._key() for p in plays]
    ends = {int.from_bytes(row, "little"): row for row in rows}  # the legal results, as board keys
    mine = list(position.mine)
    theirs = list(position.theirs)
    memo: dict[tuple[int, tuple[int, ...]], tuple[int, int]] = {}  # (board key, dice left) -> (node, reach)
    joined: dict[tuple[int, ...], int] = {}
    edges_of: list[tuple[tuple[int, int, int], ...]] = []
    end_of: dict[int, bytes] = {}

    def node(key: int, left: tuple[int, ...]) -> tuple[int, int]:
        """This board's node (-1 when no legal play ends through it) and how many more steps it can
        make (its reach: the rules demand as many dice as can be played, so only the children that
        reach furthest count)."""
        known = memo.get((key, left))
        if known is not None:
            return known
        edges: list[tuple[int, int, int]] = []
        reach = 0
        sources = (BAR,) if mine[BAR] else [src for src in range(23, -1, -1) if mine[src]]
        for i, die in enumerate(left):
            if die in left[:i]:
                continue
            rest = left[:i] + left[i + 1 :]
            for src in sources:
                if not mine[src]:
                    continue
                dst = _can_step(mine, theirs, src, die)
                if dst == -2:
                    continue
                hit = _apply(mine, theirs, src, dst)
                key2 = key - _MINE[src] + (_MINE[dst] + (_HIT[dst] if hit else 0) if dst >= 0 else 0)
                child, further = node(key2, rest) if rest else _leaf(key2)  # noqa: F821 (deleted after the search, see below)  # noqa: F821 (deleted after the search, see below)
                _undo(mine, theirs, src, dst, hit)
                if further + 1 > reach:  # a longer way: the shorter ones found so far are not legal
                    reach, edges = further + 1, []
                if further + 1 == reach and child >= 0:
                    edges.append((*_to_pair((src, dst, hit)), child))
        if reach == 0:
            found = _leaf(key)  # noqa: F821 (deleted after the search, see below)
        elif edges:
            if len({(src, dst) for src, dst, _child in edges}) < len(edges):  # the same step by either die
                edges = _joined_edges(edges, join)  # noqa: F821 (deleted after the search, see below)
            edges_of.append(tuple(edges))
            found = (len(edges_of) - 1, reach)
        else:
            found = (-1, reach)
        memo[(key, left)] = found
        return found

    def _leaf(key: int) -> tuple[int, int]:
        """No step left: a complete play if its result is legal (the higher-die rule), else dead."""
        row = ends.get(key)
        if row is None:
            return -1, 0
        index = memo.get((key, ()), (None, 0))[0]
        if index is None:
            index = len(edges_of)
            edges_of.append(())
            end_of[index] = row
            memo[(key, ())] = (index, 0)
        return index, 0

    def join(children: list[int]) -> int:
        ids = tuple(sorted(set(children)))
        if len(ids) == 1:
            return ids[0]
        index = joined.get(ids)
        if index is None:
            index = joined[ids] = len(edges_of)
            edges_of.append(())
            edges_of[index] = tuple(_joined_edges([e for i in ids for e in edges_of[i]], join))  # noqa: F821 (deleted after the search, see below)
        return index

    root = _key_of(mine, theirs)
    start, length = node(root, (die1,) * 4 if die1 == die2 else (die1, die2))
    del node, _leaf, join  # (break the closures' reference cycles: see playgen._doubles)
    if start < 0:  # no step leads to a legal play (the game is over): the empty play
        row = ends.get(root)
        return StepGraph(0, ((),), {0: row} if row else {})
    # number the nodes depth first from the start (index 0), edges in order
    number: dict[int, int] = {}
    stack = [start]
    while stack:
        at = stack.pop()
        if at in number:
            continue
        number[at] = len(number)
        stack.extend(child for _src, _dst, child in reversed(edges_of[at]))
    nodes: list[tuple[tuple[int, int, int], ...]] = [()] * len(number)
    for old, new in number.items():
        nodes[new] = tuple((src, dst, number[child]) for src, dst, child in edges_of[old])
    return StepGraph(length, tuple(nodes), {number[old]: row for old, row in end_of.items() if old in number})


def _joined_edges(edges: list[tuple[int, int, int]], join: Callable[[list[int]], int]) -> list[tuple[int, int, int]]:
    """Edges with each step once, in first-seen order; a step's several children joined by ``join``."""
    children: dict[tuple[int, int], list[int]] = {}
    for src, dst, child in edges:
        children.setdefault((src, dst), []).append(child)
    return [(src, dst, join(kids)) for (src, dst), kids in children.items()]


def _sequences(
    position: Position, die1: int, die2: int, plays: Sequence[Play] | None
) -> list[tuple[tuple[Step, ...], Position]]:
    """The search behind :func:`all_step_sequences`: every order of steps using as many dice as
    the roll allows that ends on a legal play's position (that play's own :class:`Position`
    object).

    Depth first, sources from the back, in the order of the dice (both orders for a
    non-double); the sequences that continue from an intermediate board are found once per
    distinct board and depth and shared by every path that reaches it (a double's orders of
    the same steps meet on the same boards), so the work grows with the distinct boards, not
    with the number of sequences."""
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = plays[0].dice_used if plays else 0  # (every legal play uses as many dice: the rules' maximum)
    allowed = {(p.position.mine, p.position.theirs): p.position for p in plays}  # (tuples hash fast)
    mine = list(position.mine)
    theirs = list(position.theirs)
    out: list[tuple[tuple[Step, ...], Position]] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    for dice in orders:
        memo: dict[tuple[tuple[int, ...], tuple[int, ...], int], list[tuple[tuple[Step, ...], Position]]] = {}

        def suffixes(depth: int) -> list[tuple[tuple[Step, ...], Position]]:
            if depth == best_len:
                after = allowed.get((tuple(theirs), tuple(mine)))  # the side to move changes
                return [((), after)] if after is not None else []
            key = (tuple(mine), tuple(theirs), depth)
            known = memo.get(key)
            if known is not None:
                return known
            found: list[tuple[tuple[Step, ...], Position]] = []
            die = dice[depth]
            sources = (BAR,) if mine[BAR] else [src for src in range(23, -1, -1) if mine[src]]
            for src in sources:  # (each child restores the board, so the occupied points stay the same)
                dst = _can_step(mine, theirs, src, die)
                if dst == -2:
                    continue
                hit = _apply(mine, theirs, src, dst)
                later = suffixes(depth + 1)  # noqa: F821 (deleted after the search, see below)
                if later:
                    first = (_to_step((src, dst, hit)),)
                    found.extend([(first + rest, after) for rest, after in later])
                _undo(mine, theirs, src, dst, hit)
            memo[key] = found
            return found

        out.extend(suffixes(0))
        del suffixes  # (break the closure's reference cycle: see playgen._doubles)
    return out


def sequences_along(
    position: Position,
    die1: int,
    die2: int,
    paths: tuple[tuple[tuple[int, ...], tuple[bool, ...]], ...],
    plays: Sequence[Play] | None = None,
) -> list[tuple[tuple[Step, ...], Position, int]]:
    """The legal step sequences that move checkers along written paths.

    Each path is ``(points, hits)``: the points one checker visits in order
    (25 = bar, 0 = off; the first is where it starts, the last where it ends,
    the others must be passed or touched on the way) and, per point, whether a
    hit is marked there (a marked point must be reached by a hitting step).
    Every path must be completed, the sequence must use as many dice as the
    roll allows and produce one of the legal plays. Only steps along the
    paths are tried, so this is fast even for doubles.

    Returns ``(steps, position after, unmarked hits)`` triples, where the last
    counts hits on points that the hitting checker's path does not mark.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    check_dice(die1, die2)
    if plays is None:
        plays = legal_plays(position, die1, die2)
    best_len = max((p.dice_used for p in plays), default=0)
    allowed = {p.position for p in plays}
    mine = list(position.mine)
    theirs = list(position.theirs)
    at = [points[0] for points, _ in paths]
    nxt = [1] * len(paths)
    marked = [{point for point, hit in zip(points, hits, strict=True) if hit} for points, hits in paths]
    out: list[tuple[tuple[Step, ...], Position, int]] = []
    steps: list[_RawStep] = []
    orders = [(die1,) * 4] if die1 == die2 else [(die1, die2), (die2, die1)]

    def rec(dice: tuple[int, ...], depth: int, unmarked: int) -> None:
        if depth == best_len:
            if all(n == len(points) for n, (points, _) in zip(nxt, paths, strict=True)):
                after = Position._trusted(tuple(theirs), tuple(mine))
                if after in allowed:
                    out.append((tuple(_to_step(s) for s in steps), after, unmarked))
            return
        die = dice[depth]
        for i, (points, hits) in enumerate(paths):
            if nxt[i] >= len(points):
                continue
            here = at[i]
            if mine[BAR] and here != BAR_POINT:
                continue
            src = BAR if here == BAR_POINT else here - 1
            if not 0 <= src <= BAR or not mine[src]:
                continue
            dst = _can_step(mine, theirs, src, die)
            if dst == -2:
                continue
            dst_point = dst + 1 if dst >= 0 else OFF_POINT
            target = points[nxt[i]]
            if dst_point < target:  # overshoots the next written point
                continue
            hit = _apply(mine, theirs, src, dst)
            if dst_point == target and hits[nxt[i]] and not hit:
                _undo(mine, theirs, src, dst, hit)
                continue
            steps.append((src, dst, hit))
            at[i] = dst_point
            nxt[i] += dst_point == target
            rec(dice, depth + 1, unmarked + (hit and dst_point not in marked[i]))  # noqa: F821 (deleted after the search, see below)
            nxt[i] -= dst_point == target
            at[i] = here
            steps.pop()
            _undo(mine, theirs, src, dst, hit)

    for order in orders:
        rec(order, 0, 0)
    del rec  # (break the closure's reference cycle: see playgen._doubles)
    return out


def all_step_sequences(
    position: Position, die1: int, die2: int, plays: Sequence[Play] | None = None
) -> list[tuple[tuple[Step, ...], Position]]:
    """Every legal step sequence (not deduplicated), with the position it produces.

    Used to match hand-written move text against the legal plays.
    ``plays`` may pass in ``legal_plays(position, die1, die2)`` if already known.

    Raises:
        InvalidInputError: if a die is not an integer 1..6.
    """
    return _sequences(position, die1, die2, plays)
