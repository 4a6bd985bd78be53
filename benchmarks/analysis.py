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
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from levels import GnubgEvaluator
from rich.console import Console
from rich.table import Table

from backgammon.engine.analysis import analyze_mat_file

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "gnubg"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    parser.add_argument("--evaluator", choices=("gnubg", "default"), default="default")
    parser.add_argument("--plies", type=int, default=0)
    args = parser.parse_args(argv)
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
