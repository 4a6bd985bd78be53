"""Property tests (hypothesis) for legal-play generation, Position ID and notation.

Positions come from three strategies: random self-play from the start (so they
are reachable), random bear-off positions and random positions with checkers
on the bar. A naive reference generator, written independently here (all
orders of the dice, every checker, maximal usage, higher die), is the oracle
for the set of resulting positions.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import Position
from backgammon.notation import parse_play
from backgammon.position import BAR

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
dice_st = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def reachable_positions(draw: st.DrawFn) -> Position:
    """Self-play from the start: a seeded random walk of up to 120 half-moves."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    position = Position.initial()
    for _ in range(draw(st.integers(0, 120))):
        if position.is_game_over():
            break
        position = rng.choice(position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))).position
    return position


@st.composite
def bearoff_positions(draw: st.DrawFn) -> Position:
    def side(min_total: int) -> tuple[int, ...]:
        counts = draw(st.lists(st.integers(0, 15), min_size=6, max_size=6).filter(lambda c: min_total <= sum(c) <= 15))
        return tuple(counts) + (0,) * 19

    return Position(side(1), side(1))


@st.composite
def bar_positions(draw: st.DrawFn) -> Position:
    mine = [0] * 25
    theirs = [0] * 25
    mine[BAR] = draw(st.integers(1, 4))
    theirs[BAR] = draw(st.integers(0, 2))
    for i in draw(st.lists(st.integers(0, 23), max_size=13 - theirs[BAR])):  # opponent, often at home
        theirs[i % 6 if i < 16 else i] += 1
    for i in draw(st.lists(st.integers(0, 23), max_size=15 - mine[BAR])):
        if theirs[23 - i] == 0:
            mine[i] += 1
    return Position(tuple(mine), tuple(theirs))


@st.composite
def blocked_positions(draw: st.DrawFn) -> Position:
    """A few checkers against several made points: rolls that play one die, or none, are common."""
    theirs = [0] * 25
    for i in draw(st.lists(st.integers(0, 23), min_size=1, max_size=7, unique=True)):
        theirs[i] = 2
    mine = [0] * 25
    for i in draw(st.lists(st.integers(0, 24), min_size=1, max_size=3)):
        if i == BAR or theirs[23 - i] == 0:
            mine[i] += 1
    return Position(tuple(mine), tuple(theirs))


any_position = st.one_of(
    reachable_positions(), reachable_positions(), bearoff_positions(), bar_positions(), blocked_positions()
)


# ------------------------------------------------------- a naive reference
def _step(mine: list[int], theirs: list[int], src: int, die: int) -> list[int] | None:
    """Naive single step on copies: the new (mine + theirs) lists, or None if illegal."""
    if not mine[src] or (mine[BAR] and src != BAR):
        return None
    dst = src - die
    if dst < 0:
        if any(mine[i] for i in range(6, 25)):
            return None
        if dst < -1 and any(mine[i] for i in range(src + 1, 6)):
            return None
    elif theirs[23 - dst] >= 2:
        return None
    m, t = mine[:], theirs[:]
    m[src] -= 1
    if dst >= 0:
        m[dst] += 1
        if t[23 - dst] == 1:
            t[23 - dst] = 0
            t[BAR] += 1
    return m + t


def reference_results(p: Position, d1: int, d2: int) -> set[Position]:
    """All resulting positions (seen by the opponent) under the rules, by brute force."""
    if not sum(p.mine) or not sum(p.theirs):  # game over: nothing to play
        return {p.flip()}
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    finals: dict[int, set[tuple[tuple[int, ...], tuple[int, ...], int]]] = {}

    def walk(mine: list[int], theirs: list[int], dice: tuple[int, ...], used: int, first: int) -> None:
        moved = False
        if used < len(dice):
            for src in range(25):
                nxt = _step(mine, theirs, src, dice[used])
                if nxt is not None:
                    moved = True
                    walk(nxt[:25], nxt[25:], dice, used + 1, dice[0] if used == 0 else first)
        if not moved:
            finals.setdefault(used, set()).add((tuple(mine), tuple(theirs), first))

    for order in orders:
        walk(list(p.mine), list(p.theirs), order, 0, 0)
    best = max(finals)
    results = finals[best]
    if best == 1 and d1 != d2:
        high = max(d1, d2)
        if any(first == high for *_, first in results):
            results = {r for r in results if r[2] == high}
    return {Position(t, m) for m, t, _ in results}


# -------------------------------------------------------------- properties
@SETTINGS
@given(any_position, dice_st)
def test_matches_naive_reference(p: Position, dice: tuple[int, int]) -> None:
    assert {pl.position for pl in p.legal_plays(*dice)} == reference_results(p, *dice)


@SETTINGS
@given(any_position, dice_st)
def test_play_invariants(p: Position, dice: tuple[int, int]) -> None:
    d1, d2 = dice
    plays = p.legal_plays(d1, d2)
    assert plays, "there is always at least the empty play"
    assert len({pl.position for pl in plays}) == len(plays)  # distinct by result
    used = {pl.dice_used for pl in plays}
    assert len(used) == 1  # every play uses the same (maximal) number of dice
    for pl in plays:
        after = Position(pl.position.mine, pl.position.theirs)  # revalidate: a real position
        assert after == pl.position and pl.origin == p and pl.dice == dice
        # conservation: the mover loses only borne-off checkers, the opponent keeps all 15
        borne = sum(1 for s in pl.steps if s.destination == 0)
        assert sum(after.theirs) == sum(p.mine) - borne
        assert sum(after.mine) == sum(p.theirs)
        assert after.mine[BAR] == p.theirs[BAR] + pl.hits
        # bar first
        for k, step in enumerate(pl.steps):
            assert (step.source == 25) == (k < p.mine[BAR]), str(pl)
        # never onto a blocked point (opponent checkers do not move during a play)
        for step in pl.steps:
            if step.destination:
                assert p.theirs[24 - step.destination] < 2, str(pl)
    if not plays[0].steps:
        assert len(plays) == 1 and plays[0].position == p.flip()


def _could_be_die(p: Position, step_source: int, step_dest: int, die: int) -> bool:
    if step_dest:
        return step_source - step_dest == die
    return step_source == die or (step_source < die and not any(p.mine[i] for i in range(step_source, 6)))


@SETTINGS
@given(any_position, dice_st.filter(lambda d: d[0] != d[1]))
def test_higher_die_rule(p: Position, dice: tuple[int, int]) -> None:
    plays = p.legal_plays(*dice)
    if plays[0].dice_used != 1:
        return
    high = max(dice)
    high_playable = any(_step(list(p.mine), list(p.theirs), src, high) for src in range(25))
    for pl in plays:
        (step,) = pl.steps
        if high_playable:
            assert _could_be_die(p, step.source, step.destination, high), str(pl)


@SETTINGS
@given(any_position)
def test_flip_and_id_round_trip(p: Position) -> None:
    assert p.flip().flip() == p
    assert Position.from_position_id(p.position_id()) == p
    assert Position.from_position_id(p.flip().position_id()) == p.flip()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_position, dice_st)
def test_notation_round_trip(p: Position, dice: tuple[int, int]) -> None:
    for pl in p.legal_plays(*dice):
        assert parse_play(p, *dice, str(pl)) == pl, str(pl)
        assert parse_play(p, *reversed(dice), str(pl)) == pl, str(pl)


def test_reference_agrees_on_opening_rolls() -> None:
    """The oracle itself is checked against known counts (opening 31: 16 plays)."""
    counts = {d: len(reference_results(Position.initial(), *d)) for d in itertools.product(range(1, 7), repeat=2)}
    assert counts[(3, 1)] == 16 and counts[(1, 3)] == 16
    assert all(counts[d] == len(Position.initial().legal_plays(*d)) for d in counts)


@SETTINGS
@given(any_position, dice_st)
def test_step_graph_holds_every_step_sequence_once(position: Position, dice) -> None:
    """The web's move graph (``moves.step_graph``) against every step sequence of the separate search."""
    from backgammon.moves import all_step_sequences, step_graph

    graph = step_graph(position, *dice)
    pairs: dict = {}
    for steps, after in all_step_sequences(position, *dice):
        pairs.setdefault(tuple((s.source, s.destination) for s in steps), after)
    sequences = list(graph.sequences())
    assert len(sequences) == len(set(sequences)) and set(sequences) == set(pairs)
    assert all(graph.follow(seq) == pairs[seq] for seq in sequences)
    assert all(len({(a, b) for a, b, _ in edges}) == len(edges) for edges in graph.nodes)


@pytest.mark.slow  # ~1.5 s per example (find_play by text regenerates the plays): not in the fast tier
@SETTINGS
@given(any_position, dice_st)
def test_find_play_finds_every_legal_play_by_text_position_and_path(position: Position, dice) -> None:
    from backgammon.moves import all_step_sequences, find_play

    plays = position.legal_plays(*dice)
    for play in plays:
        assert find_play(position, *dice, str(play)) == play
        assert find_play(position, *dice, play.position, plays) == play
        assert find_play(position, *dice, [(s.source, s.destination) for s in play.steps]) == play
    for seq, after in all_step_sequences(position, *dice, plays):  # every order of every play
        assert find_play(position, *dice, [(s.source, s.destination) for s in seq]).position == after
