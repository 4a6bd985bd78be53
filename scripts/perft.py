"""Perft for backgammon: distinct positions and play sequences after 1, 2 and 3 plies from the start.

    python scripts/perft.py [--plies 3] [--gnubg] [--write tests/data/perft.json] [--check tests/data/perft.json]

Definitions (also written into the reference file):

- A *ply* is one roll and its play by the side on roll. Every ply tries all
  21 distinct rolls once each (15 non-doubles and 6 doubles, each counted once,
  not weighted by probability; the first ply too, although a real game cannot
  open with a double) and, for each roll, every distinct legal play
  (``Position.legal_plays``: one play per resulting position; a roll that
  cannot be played gives the one empty play).
- ``distinct_positions[d]``: how many different positions (seen from the side
  then on roll) the game can be in after ``d`` plies: the set ``S(d)`` with
  ``S(0) = {start}`` and ``S(d)`` = every result of every roll from every
  position of ``S(d-1)``, deduplicated.
- ``play_sequences[d]``: how many sequences of (roll, distinct play) of length
  ``d`` there are, without deduplication (the chess perft count).

Plies 1 and 2 are counted with the public API; ply 3 with the engine's
compiled generator (``successors_ws``) and a compiled hash set of exact 80-bit
position codes (about 1 GB of memory, a minute or two). ``--check FILE``
compares the counts with a reference file (exit status 1 if they differ);
the slow test ``tests/rules/test_perft.py`` runs it. ``--gnubg`` recounts with GNU Backgammon's generator
(``gnubg_nn.moves``; a test/benchmark dependency only): distinct positions for
plies 1 and 2, play sequences for every ply.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7))
DEFINITION = (
    "A ply is one roll and its play by the side on roll. Every ply tries each of the 21 distinct rolls once "
    "(15 non-doubles and 6 doubles, unweighted; the first ply too) and every distinct legal play for it "
    "(one per resulting position; an unplayable roll gives the one empty play). distinct_positions[d] counts "
    "the different positions reachable after d plies from the starting position (deduplicated; seen from the "
    "side then on roll); play_sequences[d] counts the sequences of d (roll, play) pairs, without deduplication."
)


def levels_api(plies: int) -> list[Counter]:
    """``levels[d]``: each position after ``d`` plies with the number of play sequences that reach it."""
    from backgammon.position import Position

    levels = [Counter({Position.initial(): 1})]
    for _ in range(plies):
        nxt: Counter = Counter()
        for position, ways in levels[-1].items():
            for d1, d2 in ROLLS:
                for play in position.legal_plays(d1, d2):
                    nxt[play.position] += ways
        levels.append(nxt)
    return levels


def count_next_compiled(level: Counter, table_bits: int = 26) -> tuple[int, int]:
    """(distinct positions, play sequences) one ply after ``level``, with the engine's kernel."""
    from backgammon.engine.movegen import MAX_PLAYS, new_workspace, successors_ws  # noqa: I001  (sets numba's cache)
    import numpy as np
    from numba import njit

    @njit(cache=False)
    def count(boards: np.ndarray, ways: np.ndarray, rolls: np.ndarray, bits: int) -> tuple[int, int]:
        size = 1 << bits
        mask = size - 1
        lo_keys = np.zeros(size, dtype=np.uint64)
        hi_keys = np.zeros(size, dtype=np.uint64)
        used = np.zeros(size, dtype=np.bool_)
        out = np.empty((MAX_PLAYS, 2, 25), dtype=np.int8)
        work, table = new_workspace()
        distinct = 0
        sequences = 0
        for i in range(boards.shape[0]):
            for r in range(rolls.shape[0]):
                n = successors_ws(boards[i], rolls[r, 0], rolls[r, 1], out, work, table)
                sequences += ways[i] * n
                for k in range(n):
                    # the Position ID's code: per point, that many 1 bits then a 0 (at most 80 bits)
                    lo = np.uint64(0)
                    hi = np.uint64(0)
                    bit = 0
                    for side in range(2):
                        for j in range(25):
                            for _ in range(out[k, side, j]):
                                if bit < 64:
                                    lo |= np.uint64(1) << np.uint64(bit)
                                else:
                                    hi |= np.uint64(1) << np.uint64(bit - 64)
                                bit += 1
                            bit += 1
                    h = (lo ^ (hi * np.uint64(0x9E3779B97F4A7C15))) * np.uint64(0xBF58476D1CE4E5B9)
                    slot = np.int64(h >> np.uint64(64 - bits))
                    while used[slot] and not (lo_keys[slot] == lo and hi_keys[slot] == hi):
                        slot = (slot + 1) & mask
                    if not used[slot]:
                        used[slot] = True
                        lo_keys[slot] = lo
                        hi_keys[slot] = hi
                        distinct += 1
                        if distinct * 10 > size * 9:
                            return -1, -1
        return distinct, sequences

    boards = np.array([[p.mine, p.theirs] for p in level], dtype=np.int8)
    ways = np.array(list(level.values()), dtype=np.int64)
    rolls = np.array(ROLLS, dtype=np.int64)
    distinct, sequences = count(boards, ways, rolls, table_bits)
    if distinct < 0:
        raise RuntimeError("hash table too small: raise table_bits")
    return int(distinct), int(sequences)


def gnubg_counts(plies: int) -> tuple[list[int | None], list[int]]:
    """GNU Backgammon's generator: distinct positions for plies <= 2, play sequences for every ply."""
    import gnubg_nn

    from backgammon.position import Position

    start = Position.initial()
    level: Counter = Counter({(start.theirs, start.mine): 1})  # gnubg's board: [not on roll, on roll]
    distinct: list[int | None] = []
    sequences: list[int] = []
    for ply in range(1, plies + 1):
        nxt: Counter = Counter()
        total = 0
        for (theirs, mine), ways in level.items():
            board = [list(theirs), list(mine)]
            for d1, d2 in ROLLS:
                keys = gnubg_nn.moves(board, d1, d2)
                if not keys:
                    total += ways
                    if ply <= 2:
                        nxt[(mine, theirs)] += ways  # no move: the turn passes, the board unchanged
                    continue
                total += ways * len(keys)
                if ply <= 2:
                    for key in keys:
                        opponent, mover = gnubg_nn.board_from_position_key(key)
                        # the next side on roll is the opponent: gnubg's board [mover, opponent]
                        nxt[(tuple(mover), tuple(opponent))] += ways
        sequences.append(total)
        distinct.append(len(nxt) if ply <= 2 else None)
        level = nxt
    return distinct, sequences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=3, choices=(1, 2, 3))
    parser.add_argument("--gnubg", action="store_true", help="recount with gnubg_nn.moves and compare")
    parser.add_argument("--write", type=Path, help="write the reference JSON file here")
    parser.add_argument("--check", type=Path, help="compare with this reference JSON file")
    args = parser.parse_args(argv)

    t0 = time.time()
    api_plies = min(args.plies, 2)
    levels = levels_api(api_plies)
    distinct = [len(level) for level in levels[1:]]
    sequences = [sum(level.values()) for level in levels[1:]]
    if args.plies == 3:
        d3, s3 = count_next_compiled(levels[2])
        distinct.append(d3)
        sequences.append(s3)
    print(f"ours ({time.time() - t0:.1f} s): distinct {distinct}, sequences {sequences}")
    checked = "not checked against gnubg"
    if args.gnubg:
        t0 = time.time()
        g_distinct, g_sequences = gnubg_counts(args.plies)
        print(f"gnubg ({time.time() - t0:.1f} s): distinct {g_distinct}, sequences {g_sequences}")
        for ply in range(args.plies):
            if g_sequences[ply] != sequences[ply] or g_distinct[ply] not in (None, distinct[ply]):
                print(f"MISMATCH at ply {ply + 1}", file=sys.stderr)
                return 1
        checked = (
            "equal to GNU Backgammon's generator (gnubg_nn.moves): distinct positions at plies 1-2, "
            f"play sequences at plies 1-{args.plies}"
        )
    if args.check:
        reference = json.loads(args.check.read_text())
        for name, counts in (("distinct_positions", distinct), ("play_sequences", sequences)):
            for d, n in enumerate(counts):
                expected = reference[name][str(d + 1)]
                if n != expected:
                    print(f"MISMATCH: {name} after {d + 1} plies: {n}, reference {expected}", file=sys.stderr)
                    return 1
        print(f"equal to {args.check}")
    if args.write:
        data = {
            "definition": DEFINITION,
            "start": "the standard starting position, Position ID 4HPwATDgc/ABMA",
            "generated_by": "python scripts/perft.py --gnubg --write tests/data/perft.json",
            "checked": checked,
            "distinct_positions": {str(d + 1): n for d, n in enumerate(distinct)},
            "play_sequences": {str(d + 1): n for d, n in enumerate(sequences)},
        }
        args.write.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
