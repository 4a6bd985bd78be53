"""How much the match analysis finds wrong in GNU Backgammon's own games.

    python benchmarks/analysis.py [--weights W.npz] [--evaluator default|gnubg] [--plies 0] [FILE.mat ...]

Every play and cube decision of both players in the given ``.mat`` files
(default: the gnubg-played matches in ``tests/data/gnubg/``) is judged by
:func:`backgammon.engine.analysis.analyze_mat_file`; the table gives per file
the counted decisions (unforced plays and close or actual cube decisions, as
gnubg counts them), the equity lost per counted decision and the PR (x 500),
and their totals. gnubg played those games at 0-ply, so judged
with gnubg's own 0-ply net (``--evaluator gnubg``, through gnubg_nn, a
benchmark-only dependency) the error is about zero; judged by our network, the
error measures how far our network's judgement is from gnubg's.

    python benchmarks/analysis.py --speed [--plies 0] [--rounds 3] [FILE.mat ...]

``--speed`` times the analysis beside gnubg's in the same run instead: for each
file (default: the 3- and 5-point matches in ``tests/data/real/`` and
``tests/data/gnubg/``), a fresh ``backgammon analyze FILE --plies N`` process
and a fresh ``gnubg -t -q`` process that imports the file and runs ``analyse
match`` at the same depth (chequer play and cube, luck off, one thread), start-up
included; then the batch: one ``backgammon analyze`` process for all the files
against one gnubg process importing and analysing them one after another. Each
round runs every measurement once, ours and gnubg's in turn; the table gives
the median CPU seconds (user + system of the child: the robust figure on a
shared machine) and wall seconds, and gnubg's time over ours (above 1: we are
faster) as the mean of the rounds' ratios +- its standard error.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from levels import GnubgEvaluator
from rich.console import Console
from rich.table import Table

from backgammon.engine.analysis import analyze_mat_file

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "gnubg"
GNUBG = "/usr/games/gnubg"


def short_matches() -> list[Path]:
    """The 3- and 5-point matches among the test data's real and gnubg-played files."""
    files = sorted((ROOT / "tests" / "data" / "real").glob("*.mat")) + sorted(DATA.glob("*.mat"))
    out = []
    for path in files:
        head = path.read_text(encoding="utf-8", errors="replace")[:400].lower()
        if re.search(r"(?<!\d)[35] point match", head):
            out.append(path)
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], stdin: str | None, env: dict[str, str]) -> tuple[float, float, str]:
    """CPU and wall seconds of one child process run to its end, and its output."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode:
        raise SystemExit(f"{' '.join(argv[:3])} ... failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return cpu, wall, done.stdout


def gnubg_script(files: list[Path], plies: int) -> str:
    """gnubg commands that analyse each file in turn at ``plies`` (chequer play and cube), one thread."""
    lines = [
        "set threads 1",
        "set confirm new off",
        f"set analysis chequerplay evaluation plies {plies}",
        f"set analysis cubedecision evaluation plies {plies}",
        "set analysis luck off",
    ]
    for path in files:
        lines += [f"import mat {path}", "analyse match", "show statistics match"]
    return "\n".join(lines) + "\n"


def speed(files: list[Path], plies: int, rounds: int, batch: bool = True) -> int:
    """Analysis time of ours and gnubg's, fresh processes, per file and in one batch (see the module's notes)."""
    if not Path(GNUBG).exists():
        print(f"{GNUBG} is not installed: no gnubg column", file=sys.stderr)
        return 1
    script = Path(sys.executable).parent / "backgammon"
    ours_cmd = [str(script)] if script.exists() else [sys.executable, "-c", "from backgammon.cli import main; main()"]
    env = dict(os.environ)
    env.pop("BACKGAMMON_EVALUATOR", None)
    with tempfile.TemporaryDirectory(prefix="bg-pycache-") as pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # the bytecode cache warm, as in an installed copy
        env["PYTHONPYCACHEPREFIX"] = pycache
        jobs: list[tuple[str, list[str], list[Path]]] = [
            (path.name, [*ours_cmd, "analyze", str(path), "--plies", str(plies)], [path]) for path in files
        ]
        jobs += [
            (
                f"batch of {len(files)} (one process)",
                [*ours_cmd, "analyze", *map(str, files), "--plies", str(plies)],
                files,
            )
        ][:batch]
        _timed(jobs[0][1], None, env)  # the bytecode and numba caches warm before timing
        results: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name, _, _ in jobs}
        for _ in range(rounds):
            for name, argv, paths in jobs:
                ours_cpu, ours_wall, _ = _timed(argv, None, env)
                g_cpu, g_wall, out = _timed([GNUBG, "-t", "-q"], gnubg_script(paths, plies), env)
                if out.count("Snowie error rate") != len(paths):
                    raise SystemExit(f"gnubg did not analyse {name}: {out[-400:]!r}")
                results[name].append((ours_cpu, ours_wall, g_cpu, g_wall))
    load = os.getloadavg()[0]
    print(
        f"match analysis at {plies}-ply, fresh processes (start-up included), {rounds} round(s), "
        f"load average {load:.1f} at the end"
    )
    head = (
        f"| {'file':<34} | {'ours CPU s':>10} | {'gnubg CPU s':>11} | {'ours wall s':>11} | {'gnubg wall s':>12} "
        f"| {'gnubg/ours (CPU)':>18} |"
    )
    print(head)
    print("|" + "|".join("-" * len(c) for c in head.split("|")[1:-1]) + "|")
    for name, runs in results.items():
        ratios = [g / o for o, _, g, _ in runs]
        se = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else float("nan")
        med = [statistics.median(r[i] for r in runs) for i in range(4)]
        print(
            f"| {name:<34} | {med[0]:>10.2f} | {med[2]:>11.2f} | {med[1]:>11.2f} | {med[3]:>12.2f} | "
            f"{statistics.fmean(ratios):>9.2f} ± {se:<6.2f} |"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    parser.add_argument("--evaluator", choices=("gnubg", "default"), default="default")
    parser.add_argument("--plies", type=int, default=0)
    parser.add_argument("--speed", action="store_true", help="time the analysis beside gnubg's (fresh processes)")
    parser.add_argument("--rounds", type=int, default=3, help="with --speed: rounds (default 3)")
    parser.add_argument("--no-batch", action="store_true", help="with --speed: the single files only")
    args = parser.parse_args(argv)
    if args.speed:
        return speed(args.files or short_matches(), args.plies, args.rounds, not args.no_batch)
    files = args.files or sorted(DATA.glob("*.mat"))
    if args.evaluator == "gnubg":
        evaluator = GnubgEvaluator()
        label = "gnubg_nn 0-ply"
    else:
        from _players import load_evaluator

        evaluator = load_evaluator(args.weights)
        label = f"our network ({args.weights or 'shipped weights'})"
    table = Table(title=f"gnubg's decisions judged by {label}, {args.plies}-ply")
    for col in ("file", "counted decisions", "error/decision", "PR", "seconds"):
        table.add_column(col, justify="right")
    all_unforced, all_error = 0, 0.0
    for path in files:
        t = time.perf_counter()
        report = analyze_mat_file(path, evaluator, args.plies)
        unforced = sum(p.unforced for p in report.totals.values())
        error = sum(p.total_error for p in report.totals.values())
        all_unforced += unforced
        all_error += error
        per = error / unforced if unforced else 0.0
        table.add_row(path.name, str(unforced), f"{per:.4f}", f"{500 * per:.1f}", f"{time.perf_counter() - t:.1f}")
    per = all_error / all_unforced if all_unforced else 0.0
    table.add_row("all", str(all_unforced), f"{per:.4f}", f"{500 * per:.1f}", "")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
