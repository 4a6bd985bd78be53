"""Our error rate (PR) against GNU Backgammon's own analysis of the same matches.

    python benchmarks/pr_vs_gnubg.py [--plies 0] [FILE.mat ...]

For each ``.mat`` file (default: the gnubg-played matches in
``tests/data/gnubg/``, then a random player's match, ``tests/data/mat/written_by_us.mat``,
where the PRs are far from 0) and each player:

* **ours**: :func:`backgammon.engine.analysis.analyze_mat_file` with gnubg's
  0-ply net as the evaluator (``gnubg_nn``, a benchmark/test-only
  dependency): PR = equity lost per counted decision x 500, counted =
  unforced plays + close or actual cube decisions (see the README, "Error
  rate (PR)");
* **gnubg**: Debian's ``gnubg -t -q``, under the rules our reader replays the
  file with (a .mat file does not record the Jacoby rule: both analyse without
  it), imports the file, ``analyse match`` at
  0-ply (checker play and cube) and ``show statistics match``; its figures are
  the normalised error totals in EMG and the counts of unforced moves and of
  "close or actual cube decisions". gnubg prints the error rate per decision
  in mEMG (x 1000); PR is the same quantity x 500, so PR = total EMG / counted
  decisions x 500 = mEMG / 2 (computed here from the totals, printed to 3
  decimals, for precision).

The table gives both PRs, their difference, checker and cube PR, and the
decision counts side by side. Only what gnubg prints is used.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GNUBG = "/usr/games/gnubg"
DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "gnubg"
RANDOM_MATCH = DATA.parent / "mat" / "written_by_us.mat"  # a random player's 7-point match: real errors


@dataclass(frozen=True, slots=True)
class Figures:
    """One player's error figures: counts, error totals (EMG, normalised) and PRs."""

    name: str
    unforced_plays: int
    cube_decisions: int
    checker_error: float
    cube_error: float

    @property
    def decisions(self) -> int:
        return self.unforced_plays + self.cube_decisions

    @property
    def pr(self) -> float:
        return 500 * (self.checker_error + self.cube_error) / self.decisions if self.decisions else 0.0

    @property
    def pr_checker(self) -> float:
        return 500 * self.checker_error / self.unforced_plays if self.unforced_plays else 0.0

    @property
    def pr_cube(self) -> float:
        return 500 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0


_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def _values(line: str, label: str) -> list[float]:
    rest = re.sub(r"\([^)]*\)", "", line[len(label) :])  # drop the unnormalised figures in parentheses
    return [float(x) for x in _NUMBER.findall(rest)]


def parse_statistics(text: str) -> list[Figures]:
    """The two players' figures from gnubg's ``show statistics match`` output (player 0 first)."""
    names: list[str] = []
    section = ""
    found: dict[tuple[str, str], list[float]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Player ") and not names:
            names = re.split(r"\s{2,}", stripped)[1:3]  # names may hold single spaces
        elif stripped in ("Chequerplay statistics", "Cube statistics", "Overall statistics", "Luck statistics"):
            section = stripped.split()[0]
        elif stripped.startswith("Unforced moves"):
            found[(section, "unforced")] = _values(stripped, "Unforced moves")
        elif stripped.startswith("Close or actual cube decisions"):
            found[(section, "close")] = _values(stripped, "Close or actual cube decisions")
        elif stripped.startswith("Error total EMG"):
            label = stripped.split(")")[0] + ")"
            found[(section, "error")] = _values(stripped, label)
    need = [("Chequerplay", "unforced"), ("Chequerplay", "error"), ("Cube", "close"), ("Cube", "error")]
    if len(names) != 2 or any(len(found.get(k, ())) != 2 for k in need):
        raise ValueError(f"gnubg's statistics not understood:\n{text[-2000:]}")
    return [
        Figures(
            names[i],
            int(found[("Chequerplay", "unforced")][i]),
            int(found[("Cube", "close")][i]),
            abs(found[("Chequerplay", "error")][i]),
            abs(found[("Cube", "error")][i]),
        )
        for i in range(2)
    ]


def gnubg_figures(path: Path, plies: int = 0, jacoby: bool = False, timeout: float = 600) -> list[Figures]:
    """gnubg's own analysis of a .mat file at ``plies`` (checker play and cube), per player.

    ``jacoby``: the money rule to analyse under (a .mat file does not say; gnubg's
    default is on, ours off, so it is set explicitly, as our reader replays the file).
    """
    script = "\n".join(
        [
            f"set jacoby {'on' if jacoby else 'off'}",
            f"set analysis chequerplay evaluation plies {plies}",
            f"set analysis cubedecision evaluation plies {plies}",
            f"import mat {Path(path).resolve()}",
            "analyse match",
            "show statistics match",
            "",
        ]
    )
    with tempfile.TemporaryDirectory() as home:  # keep gnubg's settings files out of the user's home
        out = subprocess.run(
            [GNUBG, "-t", "-q"],
            input=script,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={"HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C"},
            check=False,
        ).stdout
    return parse_statistics(out)


def our_figures(path: Path, evaluator: Any, plies: int = 0) -> list[Figures]:
    """Our analysis of a .mat file, per player (white = the .mat's first player)."""
    from backgammon.engine.analysis import analyze_mat_file

    report = analyze_mat_file(path, evaluator, plies)
    return [
        Figures(t.name, t.unforced_plays, t.cube_decisions, t.play_error, t.cube_error) for t in report.totals.values()
    ]


def compare(path: Path, evaluator: Any, plies: int = 0) -> list[tuple[Figures, Figures]]:
    """(ours, gnubg's) per player, matched by name; where the names are the same, by column
    (gnubg's player 0 is the .mat file's left column, our white its right one)."""
    from backgammon.formats import mat

    rules = mat.replay(mat.read_mat(Path(path).read_text(encoding="utf-8"))).rules
    ours, theirs = our_figures(path, evaluator, plies), gnubg_figures(path, plies, bool(rules.jacoby))
    by_name = {f.name: f for f in theirs}
    if len(by_name) == 2 and all(o.name in by_name for o in ours):
        return [(o, by_name[o.name]) for o in ours]
    return list(zip(ours, reversed(theirs), strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--plies", type=int, default=0)
    args = parser.parse_args(argv)
    from levels import GnubgEvaluator
    from rich.console import Console
    from rich.table import Table

    files = args.files or [*sorted(DATA.glob("*.mat")), RANDOM_MATCH]
    evaluator = GnubgEvaluator()
    table = Table(title=f"PR per player, ours against gnubg's own analysis (both gnubg's net, {args.plies}-ply)")
    for col in (
        "file",
        "player",
        "PR ours",
        "PR gnubg",
        "diff",
        "checker ours/gnubg",
        "cube ours/gnubg",
        "unforced plays ours/gnubg",
        "cube decisions ours/gnubg",
    ):
        table.add_column(col, justify="right")
    worst = 0.0
    for path in files:
        for ours, theirs in compare(path, evaluator, args.plies):
            diff = ours.pr - theirs.pr
            if path.parent == DATA:
                worst = max(worst, abs(diff))
            table.add_row(
                path.name,
                ours.name,
                f"{ours.pr:.2f}",
                f"{theirs.pr:.2f}",
                f"{diff:+.2f}",
                f"{ours.pr_checker:.2f} / {theirs.pr_checker:.2f}",
                f"{ours.pr_cube:.2f} / {theirs.pr_cube:.2f}",
                f"{ours.unforced_plays} / {theirs.unforced_plays}",
                f"{ours.cube_decisions} / {theirs.cube_decisions}",
            )
    Console(width=200).print(table)
    print(f"largest |PR difference| on gnubg-played matches: {worst:.2f} (acceptance: < 0.5 per player)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
