"""Agreement of our match and money cube decisions with GNU Backgammon's.

    python benchmarks/cube_agreement.py [--positions N] [--seed S] [--money-positions M]

Positions: met every other ply in games where both sides play gnubg 0-ply's
best play (seeded dice). For each position and each match score in the table,
gnubg's 0-ply probabilities go into :func:`backgammon.engine.cube.cube_decision`
(Kazaross-XG2 MET, Janowski model) and the answer (double?, take?) is compared
with ``gnubg_nn.evaluate_cube_decision`` (gnubg's own MET and cube model).
gnubg_nn is a benchmark-only dependency; it has no money cube decisions.
A disagreement is "close" when gnubg's own no-double/double or take/pass
margin is under 0.02 in match-winning chance.

Money play (``--money-positions``): gnubg_nn has no money cube, so gnubg's
answers come from the ``gnubg`` program itself (``benchmarks/_gnubg_cli.py``,
its 0-ply ``hint`` with beavers off). Positions come from the same kind of
gnubg self-play, kept when gnubg's cubeless winning chance for the player on
roll is between ``--min-win`` and ``--max-win`` (where cube decisions are
interesting). Each position is asked in three cube states: centred without
and with the Jacoby rule, and a 2-cube owned by the player on roll. Ours is
:func:`cube_decision` on (a) gnubg's own 0-ply probabilities ("model": the
cube model alone) and (b) our net's 0-ply probabilities ("engine"). The
table counts agreement on the doubler's decision (no double / double / too
good), on the taker's (take / pass) and on both; "cost" is what our decisions
lose on average by gnubg's own equities (doubler: its best choice minus ours,
receiver: |take - pass| where we answer differently); "|dND|", "|dDT|" are the
mean absolute differences between our and gnubg's no-double and double/take
equities (per cube unit). Close: a disagreement where gnubg's own margin for
that decision is under 0.02.
"""

from __future__ import annotations

import argparse
import random
import sys

from backgammon.engine.cube import CubeAction, CubeInfo, CubeOwner, cube_decision, cube_efficiency
from backgammon.position import Position

SCORES = [(3, 3), (5, 5), (2, 4), (4, 2), (7, 3), (3, 7), (2, 1), (1, 2), (9, 9), (4, 4)]


def _board(g, position: Position):
    return g.board_from_position_id(position.position_id())


def _equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def sample_positions(g, count: int, seed: int, every: int = 2) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position, ply = Position.initial(), 0
        while not position.is_game_over() and len(found) < count:
            plays = position.legal_plays(rng.randint(1, 6), rng.randint(1, 6))
            position = min(plays, key=lambda p: _equity(g.probabilities(_board(g, p.position), 0))).position
            ply += 1
            if ply % every == 0 and not position.is_game_over():
                found.append(position)
    return found


def money_states():
    """The money cube states compared: (label, our CubeInfo, gnubg's MoneyCube)."""
    from _gnubg_cli import MoneyCube

    return [
        ("centred", CubeInfo.money(), MoneyCube()),
        ("centred, Jacoby", CubeInfo.money(jacoby=True), MoneyCube(jacoby=True)),
        ("owned 2-cube", CubeInfo.money(2, CubeOwner.ME), MoneyCube(2, owned=True)),
    ]


def our_doubler(action: CubeAction) -> str:
    """Our doubler decision in gnubg's three words."""
    if action in (CubeAction.TOO_GOOD_TAKE, CubeAction.TOO_GOOD_PASS):
        return "too good"
    if action in (CubeAction.DOUBLE_TAKE, CubeAction.DOUBLE_PASS):
        return "double"
    return "no double"


def compare_money(ours, theirs) -> dict:
    """One money decision, ours (a CubeDecision) against gnubg's (a GnubgCube)."""
    doubler, take = our_doubler(ours.action), ours.take
    nd, dt, dp = theirs.no_double, theirs.double_take, theirs.double_pass
    answer = min(dt, dp)
    their_value = {"no double": nd, "double": answer, "too good": nd}
    # by gnubg's equities: the doubler's best minus what our choice gets (too good = not doubling)
    doubler_cost = max(nd, answer) - their_value[doubler]
    take_cost = abs(dt - dp) if take != theirs.take else 0.0
    doubler_margin = abs(nd - answer) if {doubler, theirs.doubler} != {"double", "too good"} else abs(nd - dp)
    same_d, same_t = doubler == theirs.doubler, take == theirs.take
    return {
        "doubler": same_d,
        "take": same_t,
        "both": same_d and same_t,
        "close": (not same_d and doubler_margin < 0.02) or (not same_t and abs(dt - dp) < 0.02),
        "doubler_cost": doubler_cost,
        "take_cost": take_cost,
        "d_nd": abs(ours.no_double - nd),
        "d_dt": abs(ours.double_take - dt),
    }


def sample_money_positions(g, count: int, seed: int, lo: float, hi: float) -> list[Position]:
    """Positions from gnubg 0-ply self-play where gnubg gives the player on roll ``lo..hi`` to win."""
    found: list[Position] = []
    k = 0
    while len(found) < count:
        for position in sample_positions(g, 4 * count, seed + 1000 * k):
            if lo <= g.probabilities(_board(g, position), 0)[0] <= hi and not position.is_game_over():
                found.append(position)
                if len(found) == count:
                    break
        k += 1
    return found


def money_agreement(positions: list[Position], sources: dict) -> tuple[list, list]:
    """Rows per (source, cube state) and each decision's details, for ``sources`` = {name: probs(position)}."""
    from _gnubg_cli import money_cube_hints

    states = money_states()
    requests = [(p, gcube) for _, _, gcube in states for p in positions]
    answers = money_cube_hints(requests)
    details = []
    for i, (label, info, _) in enumerate(states):
        for j, position in enumerate(positions):
            theirs = answers[i * len(positions) + j]
            x = cube_efficiency(position)
            for source, probs in sources.items():
                ours = cube_decision(probs(position), info, x)
                details.append((source, label, position, ours, theirs, compare_money(ours, theirs)))
    rows = []
    for source in sources:
        for label in [s[0] for s in states] + ["all"]:
            picked = [d[5] for d in details if d[0] == source and (label == "all" or d[1] == label)]
            n = len(picked)
            rows.append(
                (
                    source,
                    label,
                    n,
                    *(sum(r[k] for r in picked) for k in ("doubler", "take", "both", "close")),
                    *(sum(r[k] for r in picked) / n for k in ("doubler_cost", "take_cost", "d_nd", "d_dt")),
                )
            )
    return rows, details


def main_money(args) -> None:
    import gnubg_nn as g

    from backgammon.engine.evaluator import NetEvaluator

    positions = sample_money_positions(g, args.money_positions, args.seed, args.min_win, args.max_win)
    ev = NetEvaluator.default()
    sources = {
        "model": lambda p: tuple(g.probabilities(_board(g, p), 0)),
        "engine": lambda p: ev.evaluate(p),
    }
    rows, details = money_agreement(positions, sources)
    cubeless_gap = max(abs(_equity(g.probabilities(_board(g, d[2]), 0)) - d[4].cubeless) for d in details)
    kinds: dict[str, int] = {}
    for d in details:
        if d[0] == "model":
            kind = f"{d[4].doubler}/{'take' if d[4].take else 'pass'}"
            kinds[kind] = kinds.get(kind, 0) + 1
    print()
    print(
        f"money: {len(positions)} positions (seed {args.seed}, "
        f"gnubg cubeless win {args.min_win:.0%}-{args.max_win:.0%}); ours vs gnubg program 0-ply hint (beavers off)"
    )
    print(f"largest |gnubg_nn cubeless equity - gnubg program's|: {cubeless_gap:.4f} (the program prints 3 decimals)")
    print("gnubg's answers (all cube states): " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(
        f"{'probs':<8}{'cube':<17}{'N':>5}{'doubler':>9}{'take':>7}{'both':>7}{'%both':>7}{'close':>7}"
        f"{'cost D':>8}{'cost T':>8}{'|dND|':>8}{'|dDT|':>8}"
    )
    for source, label, n, d, t, b, c, dc, tc, dnd, ddt in rows:
        print(
            f"{source:<8}{label:<17}{n:>5}{d:>9}{t:>7}{b:>7}{b / n:>7.1%}{c:>7}"
            f"{dc:>8.4f}{tc:>8.4f}{dnd:>8.3f}{ddt:>8.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100, help="positions for match play (0: skip)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--money-positions", type=int, default=0, help="positions for money play (0: skip)")
    parser.add_argument("--min-win", type=float, default=0.55)
    parser.add_argument("--max-win", type=float, default=0.90)
    args = parser.parse_args(argv)
    if args.positions:
        main_match(args)
    if args.money_positions:
        main_money(args)
    return 0


def main_match(args) -> None:
    import gnubg_nn as g

    positions = sample_positions(g, args.positions, args.seed)
    rows = []
    total = agree = close = 0
    for a, b in SCORES:
        n = ok = near = 0
        for position in positions:
            probs = tuple(g.probabilities(_board(g, position), 0))
            g.set.score(a, b, 0)
            theirs = g.evaluate_cube_decision(g.key_of_board(_board(g, position)), 0, i=1)
            ours = cube_decision(probs, CubeInfo.match(a, b, post_crawford=1 in (a, b)), cube_efficiency(position))
            same = (ours.should_double, ours.take) == (bool(theirs[0]), bool(theirs[1]))
            n += 1
            ok += same
            nd, dt, dp = theirs[3], theirs[4], theirs[5]
            near += (not same) and min(abs(nd - min(dt, dp)), abs(dt - dp)) < 0.02
        rows.append((a, b, n, ok, near))
        total, agree, close = total + n, agree + ok, close + near
    print(f"{len(positions)} positions (seed {args.seed}); our answer vs gnubg_nn.evaluate_cube_decision")
    print(f"{'score (away)':<14}{'N':>5}{'agree':>7}{'%':>7}{'close':>7}")
    for a, b, n, ok, near in rows:
        label = f"{a}/{b}" + (" post-Cr." if 1 in (a, b) else "")
        print(f"{label:<14}{n:>5}{ok:>7}{ok / n:>7.1%}{near:>7}")
    print(f"{'all':<14}{total:>5}{agree:>7}{agree / total:>7.1%}{close:>7}  (disagreements: {total - agree})")


if __name__ == "__main__":
    sys.exit(main())
