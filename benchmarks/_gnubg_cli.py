"""Money cube decisions from the GNU Backgammon command line (benchmarks and tests only).

``gnubg_nn`` (the Python binding) has no money cube decisions, so this drives
Debian's ``gnubg`` binary (``/usr/games/gnubg -t -q``) with a script on stdin:
both players human, beavers off, cube decisions at 0-ply (or ``plies``), then for each
request ``set gnubgid <Position ID>:<Match ID>`` (money play, the cube, the
player on roll to decide, dice not rolled) and ``hint``, which prints gnubg's
0-ply cubeless equity, the three cubeful equities (no double, double/take,
double/pass, normalised to the current cube) and its proper cube action.

The Jacoby rule travels in the Match ID: Debian's gnubg 1.07 reads bit 66 as
"no Jacoby" (see :mod:`backgammon.formats.match_id`), and a ``set gnubgid``
switches the session's rule accordingly, so each request carries its own.
Only what gnubg prints is used; nothing of gnubg's code is.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from backgammon.formats.match_id import MatchState
from backgammon.position import Position

GNUBG = "/usr/games/gnubg"

_SETUP = [
    "set player 0 human",
    "set player 1 human",
    "set beavers 0",
    "set evaluation cubedecision eval plies 0",
    "set evaluation chequerplay eval plies 0",
    "new game",
]
_EQUITY = re.compile(r"^\s*\d\.\s+(.+?)\s{2,}([+-]?\d+\.\d+)", re.MULTILINE)
_CUBELESS = re.compile(r"\d-ply cubeless equity\s+([+-]?\d+\.\d+)")
_PROPER = re.compile(r"Proper cube action:\s*(.+?)\s*(?:\(|$)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class MoneyCube:
    """A money cube state seen from the player on roll: cube value, who owns it, Jacoby."""

    value: int = 1
    owned: bool = False  # False: centred (value 1); True: the player on roll owns it
    jacoby: bool = False

    def gnubg_id(self, position: Position) -> str:
        """The ``PositionID:MatchID`` that sets this position and cube in gnubg (player 1 on roll)."""
        state = MatchState(
            cube_value=self.value,
            cube_owner=1 if self.owned else None,
            dice_owner=1,
            turn=1,
            match_length=0,
            extra_bits=0 if self.jacoby else 1,
        )
        return f"{position.position_id()}:{state.match_id()}"


@dataclass(frozen=True, slots=True)
class GnubgCube:
    """gnubg's 0-ply money cube analysis of one position (equities per cube unit, player on roll)."""

    cubeless: float
    no_double: float
    double_take: float
    double_pass: float
    proper: str  # gnubg's own words, e.g. "No double, take", "Too good to redouble, pass"

    @property
    def doubler(self) -> str:
        """gnubg's doubler decision: "no double", "double" or "too good"."""
        text = self.proper.lower()
        if text.startswith("too good"):
            return "too good"
        if text.startswith(("no double", "no redouble")):
            return "no double"
        if text.startswith(("double", "redouble")):
            return "double"
        raise RuntimeError(f"unexpected gnubg cube action {self.proper!r}")

    @property
    def take(self) -> bool:
        """gnubg's answer to a double: take (True) or pass."""
        text = self.proper.lower()
        if text.endswith("take"):
            return True
        if text.endswith("pass"):
            return False
        raise RuntimeError(f"unexpected gnubg cube action {self.proper!r}")


def available(path: str = GNUBG) -> bool:
    """Whether the gnubg binary is there to run."""
    return shutil.which(path) is not None


def money_cube_hints(
    requests: Sequence[tuple[Position, MoneyCube]], path: str = GNUBG, timeout: float = 600.0, plies: int = 0
) -> list[GnubgCube]:
    """gnubg's money cube decision for each (position, cube) pair at ``plies`` (0 unless told), in one gnubg run.

    Raises:
        RuntimeError: if gnubg fails or prints something this parser does not
            understand for a request (the message quotes it).
    """
    ids = [cube.gnubg_id(position) for position, cube in requests]
    setup = [line.replace("eval plies 0", f"eval plies {plies}") for line in _SETUP]
    script = "\n".join([*setup, *(f"set gnubgid {i}\nhint" for i in ids), "quit", "y", ""])
    run = subprocess.run([path, "-t", "-q"], input=script, capture_output=True, text=True, timeout=timeout, check=False)
    chunks = run.stdout.split("Setting GNUbg ID ")[1:]
    if len(chunks) != len(ids):
        raise RuntimeError(
            f"gnubg answered {len(chunks)} of {len(ids)} requests (exit {run.returncode}): {run.stderr[-300:]!r}"
        )
    out = []
    for gid, chunk in zip(ids, chunks):
        head = chunk.split("\n", 1)[0].strip()
        if head != gid:
            raise RuntimeError(f"gnubg set {head!r} where {gid!r} was asked")
        cubeless = _CUBELESS.search(chunk)
        proper = _PROPER.search(chunk)
        equities: dict[str, float] = {}
        for label, value in _EQUITY.findall(chunk):
            low = label.lower()
            if low.startswith("no "):
                key = "nd"
            else:
                key = "dt" if low.endswith("take") else "dp" if low.endswith("pass") else ""
            equities[key] = float(value)
        if not cubeless or not proper or not {"nd", "dt", "dp"} <= equities.keys():
            raise RuntimeError(f"no cube analysis from gnubg for {gid!r}: {chunk[:400]!r}")
        out.append(GnubgCube(float(cubeless.group(1)), equities["nd"], equities["dt"], equities["dp"], proper.group(1)))
    return out


def rollout_seconds(
    position: Position,
    trials: int,
    variance_reduction: bool = False,
    path: str = GNUBG,
    threads: int = 1,
    cpu: bool = False,
) -> float:
    """Seconds gnubg takes to roll out ``position`` (cubeless money, 0-ply plays, full games, ``threads`` threads).

    Timed as one gnubg run with the rollout minus one without it (start-up): wall-clock seconds, or with
    ``cpu`` the CPU seconds gnubg used (all its threads; less disturbed by other work on a busy machine).

    Raises:
        RuntimeError: if gnubg does not report the rollout done.
    """
    import resource
    import time

    def clock() -> float:
        if cpu:
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            return usage.ru_utime + usage.ru_stime
        return time.perf_counter()

    base = [
        "set player 0 human",
        "set player 1 human",
        f"set threads {threads}",
        f"set rollout trials {trials}",
        f"set rollout varredn {'on' if variance_reduction else 'off'}",
        "set rollout chequerplay plies 0",
        "set rollout cubeful off",
        "set rollout truncation enable off",
        "new game",
        f"set gnubgid {MoneyCube().gnubg_id(position)}",
    ]
    times = []
    for commands in (base, [*base, "rollout"]):
        t = clock()
        run = subprocess.run(
            [path, "-t", "-q"],
            input="\n".join([*commands, "quit", "y", ""]),
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
        times.append(clock() - t)
    if "Rollout done" not in run.stdout:
        raise RuntimeError(f"gnubg did not finish the rollout: {run.stdout[-300:]!r} {run.stderr[-300:]!r}")
    return times[1] - times[0]
