"""Regenerate xgid_vectors.txt: random XGIDs read by gnubg's `set xgid`.

Each line is ``XGID PositionID:MatchID`` with the IDs gnubg 1.07 shows after
reading the XGID (both players human, so nothing moves). Needs /usr/games/gnubg;
run from the repository root with the project's venv. Test data only.
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

from backgammon.formats.match_id import parse_gnubg_id
from backgammon.formats.xgid import Xgid

HERE = Path(__file__).parent


def random_xgid(rng: random.Random, position_ids: list[str]) -> Xgid:
    position, _ = parse_gnubg_id(rng.choice(position_ids))
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 25])
    if length:
        score = (rng.randrange(length), rng.randrange(length))
        crawford = length - 1 in score and rng.random() < 0.5 and not (score[0] == score[1] == length - 1)
    else:
        score, crawford = (0, 0), False
    cube_exp = 0 if crawford else rng.choice([0, 0, 1, 2, 3])
    owner = 0 if cube_exp == 0 else rng.choice([-1, 1])
    dice = None if rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
    return Xgid(
        position=position,
        turn=rng.choice([1, -1]),
        cube_exponent=cube_exp,
        cube_owner=owner,
        dice=dice,
        score=score,
        crawford=crawford,
        jacoby=not length and rng.random() < 0.5,
        beaver=not length and rng.random() < 0.5,
        match_length=length,
    )


def main() -> None:
    ids = [line for line in (HERE / "ids.txt").read_text().splitlines() if line and not line.startswith("#")]
    rng = random.Random(2026)
    out = ["# XGID and the PositionID:MatchID gnubg 1.07 shows after `set xgid` (make_xgid_vectors.py)"]
    for _ in range(40):
        xgid = random_xgid(rng, ids)
        commands = f"set player 0 human\nset player 1 human\nset xgid {xgid}\nshow board\n"
        text = subprocess.run(
            ["/usr/games/gnubg", "-t", "-q"], input=commands, capture_output=True, text=True, timeout=60
        ).stdout
        pos = re.findall(r"Position ID: (\S+)", text)
        mid = re.findall(r"Match ID   : (\S+)", text)
        if pos and mid:
            out.append(f"{xgid} {pos[-1]}:{mid[-1]}")
    (HERE / "xgid_vectors.txt").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
