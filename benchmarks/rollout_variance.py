"""Standard error of plain and variance-reduced rollouts at equal trials, on 20 seeded positions.

    python benchmarks/rollout_variance.py [--trials N] [--seed S] [--workers K] [--positions P]

The positions come from seeded 0-ply self-play of the shipped network (half contact, a quarter
race, a quarter bear-off with both sides home, each undecided: 0-ply winning chances between 10%
and 90%). Each is rolled out cubeless and played out, 0-ply plays, with ``N`` trials and the
rollout's stratified first two rolls. A variance-reduced rollout plays the very same games as a
plain one (same dice, same plays) and also sums each roll's luck, so both estimates come from the
same trials: ``plain s.e.`` is the standard error a plain rollout reports (sample standard
deviation / sqrt(N)), ``strat.`` the plain rollout's standard error counted by first-roll stratum
(the plain rollout's first roll is stratified, so its plain s.e. overstates its real error a
little; the ratio against this one is the stricter comparison), ``VR s.e.`` the
variance-reduced one. ``ratio`` = VR s.e. / plain s.e. (the issue's aim: at most 0.5),
``strict`` = VR s.e. / strat. The time columns are seconds per trial of each kind of rollout
(the plain rollout is also run on its own, and its mean checked against the same trials), and
``gain`` the CPU time a plain rollout needs for the variance-reduced rollout's precision,
divided by the variance-reduced rollout's time (above 1: variance reduction is worth its cost).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from backgammon.engine.evaluator import NetEvaluator
from backgammon.engine.movegen import BEAROFF, CONTACT, RACE, phase
from backgammon.engine.rollout import (
    RolloutSettings,
    board_to_position,
    position_to_board,
    rollout_position,
    rollout_trials,
    successor_boards,
    terminal_outputs,
    trial_rolls,
)
from backgammon.position import Position

PHASE_NAMES = {CONTACT: "contact", RACE: "race", BEAROFF: "bear-off"}


def _equity(p: np.ndarray) -> np.ndarray:
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def sample_positions(evaluator: NetEvaluator, count: int, seed: int) -> list[tuple[Position, int]]:
    """``count`` undecided positions from seeded 0-ply self-play: half contact, a quarter each race and bear-off."""
    want = {CONTACT: count - 2 * (count // 4), RACE: count // 4, BEAROFF: count // 4}
    rng = np.random.default_rng([seed, 20261203])
    found: dict[int, list[np.ndarray]] = {k: [] for k in want}
    games = 0
    while any(len(found[k]) < 4 * want[k] for k in want) and games < 400:
        games += 1
        board = position_to_board(Position.initial())
        while terminal_outputs(board) is None:
            ph = phase(board)
            if ph in found:
                win = float(evaluator.evaluate_boards(board[None])[0, 0])
                if 0.1 <= win <= 0.9:
                    found[ph].append(board.copy())
            d1, d2 = (int(v) for v in rng.integers(1, 7, size=2))
            boards = successor_boards(board, d1, d2)
            board = boards[int(np.argmin(_equity(evaluator.evaluate_boards(boards))))]
    chosen: list[tuple[Position, int]] = []
    for ph, n in want.items():
        pool = found[ph]
        picks = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        chosen.extend((board_to_position(pool[i]), ph) for i in sorted(picks))
    return chosen


def _gain(gain: float) -> str:
    return f"{gain:.2f}" if gain < 100 else ">100"


def stratified_se(values: np.ndarray, seed: int) -> float:
    """Standard error of the mean of trials whose first roll is stratified, counted by first-roll stratum."""
    n = len(values)
    first = [trial_rolls(seed, t, 1)[0] for t in range(n)]
    strata = [values[[t for t in range(n) if first[t] == roll]] for roll in sorted(set(first))]
    if any(len(s) < 2 for s in strata):
        return math.nan
    return math.sqrt(sum((len(s) / n) ** 2 * s.var(ddof=1) / len(s) for s in strata))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=144, help="trials per position (default 144)")
    parser.add_argument("--seed", type=int, default=1, help="positions and dice (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--positions", type=int, default=20, help="number of positions (default 20)")
    args = parser.parse_args(argv)
    evaluator = NetEvaluator.default()
    start = time.perf_counter()
    positions = sample_positions(evaluator, args.positions, args.seed)
    warm = RolloutSettings(trials=2, truncate=2, workers=1)
    rollout_position(Position.initial(), evaluator, warm)  # compile both kernels before timing
    rollout_position(
        Position.initial(), evaluator, RolloutSettings(trials=2, truncate=2, workers=1, variance_reduction=False)
    )
    print(
        f"{len(positions)} positions, {args.trials} trials each, seed {args.seed}, {args.workers} workers, "
        "cubeless, played out, 0-ply plays, first two rolls stratified"
    )
    header = (
        f"{'#':>3} {'position':<16}{'phase':<9}{'plain eq':>9}{'plain s.e.':>11}{'strat.':>8}"
        f"{'VR eq':>8}{'VR s.e.':>9}{'ratio':>7}{'strict':>7}{'s/trial':>9}{'VR s/trial':>11}{'gain':>8}"
    )
    print(header)
    ratios, stricts, gains = [], [], []
    total_plain = total_vr = 0.0
    for k, (position, ph) in enumerate(positions, 1):
        settings = RolloutSettings(trials=args.trials, seed=args.seed, workers=args.workers)
        t0 = time.perf_counter()
        trials = rollout_trials(position, evaluator, settings)
        t_vr = (time.perf_counter() - t0) / args.trials
        t0 = time.perf_counter()
        plain_run = rollout_position(
            position,
            evaluator,
            RolloutSettings(trials=args.trials, seed=args.seed, workers=args.workers, variance_reduction=False),
        )
        t_plain = (time.perf_counter() - t0) / args.trials
        total_plain += t_plain * args.trials
        total_vr += t_vr * args.trials
        plain, reduced = trials.values(False)[:, 5], trials.values(True)[:, 5]
        if abs(plain_run.equity - plain.mean()) > 1e-9:
            raise SystemExit(f"position {k}: the plain rollout did not play the same games")
        n = len(plain)
        se_plain = plain.std(ddof=1) / math.sqrt(n)
        se_strat = stratified_se(plain, args.seed)
        se_vr = reduced.std(ddof=1) / math.sqrt(n)
        ratio = se_vr / se_plain
        strict = se_vr / se_strat if se_strat == se_strat and se_strat > 0 else math.nan
        gain = (se_plain**2 * t_plain) / (se_vr**2 * t_vr) if se_vr > 0 else math.inf
        ratios.append(ratio)
        stricts.append(strict)
        gains.append(gain)
        print(
            f"{k:>3} {position.position_id():<16}{PHASE_NAMES[ph]:<9}{plain.mean():>+9.3f}{se_plain:>11.4f}"
            f"{se_strat:>8.4f}{reduced.mean():>+8.3f}{se_vr:>9.4f}{ratio:>7.2f}{strict:>7.2f}"
            f"{t_plain:>9.4f}{t_vr:>11.4f}{_gain(gain):>8}"
        )
    r, s = np.array(ratios), np.array(stricts)
    phases = np.array([ph for _, ph in positions])
    by_phase = ", ".join(
        f"{PHASE_NAMES[ph]} {np.median(r[phases == ph]):.2f} (gain {np.median(np.array(gains)[phases == ph]):.1f})"
        for ph in (CONTACT, RACE, BEAROFF)
        if (phases == ph).any()
    )
    print(f"median ratio by phase: {by_phase}")
    print(
        f"ratio VR s.e. / plain s.e.: median {np.median(r):.2f}, mean {r.mean():.2f}, max {r.max():.2f}; "
        f"positions at most 0.5: {int((r <= 0.5).sum())} of {len(r)}"
    )
    print(
        f"strict ratio (against the stratified s.e.): median {np.nanmedian(s):.2f}, max {np.nanmax(s):.2f}; "
        f"at most 0.5: {int((s <= 0.5).sum())} of {len(s)}"
    )
    print(
        f"equal precision needs {1 / np.median(r) ** 2:.1f}x the trials without variance reduction (median); "
        f"time per trial: plain {total_plain / len(r) / args.trials:.4f} s, "
        f"VR {total_vr / len(r) / args.trials:.4f} s ({total_vr / total_plain:.1f}x); "
        f"median gain in CPU time for equal precision {np.median(gains):.2f}"
    )
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
