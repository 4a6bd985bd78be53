"""Verifiable dice for the web platform's tables (see ``docs/fair-dice.md``).

Every table draws its dice from a :class:`~backgammon.fairdice.CommittedDice` whose
game id is the table id. The seed is kept in the table's stored config (never sent
while the table is being played); its commitment ``sha256(seed)`` is shown from the
start; the seed is revealed when the table is over, with the exact
``backgammon verify-dice`` command that recomputes every roll. Each stored
``opening_roll`` or ``roll`` action is one draw, so after a restart the dice resume
at the draw after the last stored one.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any

from backgammon.fairdice import SEED_BYTES, CommittedDice, commitment_of, format_rolls

__all__ = [
    "DRAW_KINDS",
    "DrawCount",
    "dice_doc",
    "draws_of",
    "game_dice_config",
    "game_seed",
    "new_dice_config",
    "resume_dice",
    "verify_command",
]

DRAW_KINDS = ("opening_roll", "roll")
"""Stored action kinds that each use one draw of the table's dice."""


def new_dice_config(table_id: str, test_seed: int | None = None) -> dict[str, str]:
    """A fresh ``{"seed": hex, "commitment": hex}`` for a new table.

    ``test_seed`` (the server's ``dice_seed`` test option) makes the seed a function
    of it and the table id; otherwise the seed comes from :mod:`secrets`.
    """
    if test_seed is None:
        seed = secrets.token_bytes(SEED_BYTES)
    else:
        seed = hashlib.sha256(f"{test_seed}:{table_id}".encode()).digest()
    return {"seed": seed.hex(), "commitment": commitment_of(seed)}


def game_seed(master_hex: str, n: int) -> str:
    """The seed of game ``n`` of a chouette table, from the table's secret seed (hex).

    ``sha256(master || n)``: revealing one game's seed reveals nothing of the others.
    """
    return hashlib.sha256(bytes.fromhex(master_hex) + n.to_bytes(4, "big")).hexdigest()


def game_dice_config(seed_hex: str) -> dict[str, str]:
    """``{"seed", "commitment"}`` for a seed given in hex."""
    return {"seed": seed_hex, "commitment": commitment_of(bytes.fromhex(seed_hex))}


def draws_of(payloads: Iterable[dict[str, Any]]) -> list[tuple[int, int]]:
    """The draws recorded in stored actions, in order (opening rolls as (white, black))."""
    out = []
    for p in payloads:
        if p.get("kind") in DRAW_KINDS and p.get("dice"):
            a, b = p["dice"]
            out.append((int(a), int(b)))
    return out


class DrawCount:
    """The number of draws in a growing list of stored actions, reading each action once.

    A table's state shows its draw count after every action; counting the whole list each
    time made a long money session's every action slower than the last."""

    __slots__ = ("_draws", "_list", "_seen")

    def __init__(self) -> None:
        self._list: list[dict[str, Any]] | None = None
        self._seen = 0
        self._draws = 0

    def __call__(self, payloads: list[dict[str, Any]]) -> int:
        if payloads is not self._list or len(payloads) < self._seen:  # another list: count afresh
            self._list, self._seen, self._draws = payloads, 0, 0
        self._draws += len(draws_of(payloads[self._seen :]))
        self._seen = len(payloads)
        return self._draws


def resume_dice(table_id: str, dice_config: dict[str, str], draws: int) -> CommittedDice:
    """The table's dice after ``draws`` draws (0 for a new table).

    Raises:
        InvalidInputError: for a bad stored seed.
    """
    return CommittedDice.resume(table_id, dice_config["seed"], draws)


def verify_command(table_id: str, seed: str, commitment: str, rolls: list[tuple[int, int]]) -> str:
    """The ``backgammon verify-dice`` command line that checks a finished table's rolls."""
    return (
        f"backgammon verify-dice --seed {seed} --commitment {commitment} "
        f"--game-id '{table_id}' --rolls '{format_rolls(rolls)}'"
    )


def dice_doc(
    table_id: str,
    dice_config: dict[str, str] | None,
    payloads: list[dict[str, Any]],
    over: bool,
    count: DrawCount | None = None,
) -> dict[str, Any] | None:
    """What a client sees of a table's dice: the commitment, and after the end the seed and the check.

    ``count``, a table's own :class:`DrawCount`, counts the draws without reading every action again."""
    if not dice_config:
        return None
    doc: dict[str, Any] = {
        "game_id": table_id,
        "commitment": dice_config["commitment"],
        "draws": count(payloads) if count is not None else len(draws_of(payloads)),
        "revealed": over,
        "seed": None,
        "command": None,
    }
    if over:
        rolls = draws_of(payloads)
        doc["seed"] = dice_config["seed"]
        doc["rolls"] = format_rolls(rolls)
        doc["command"] = verify_command(table_id, dice_config["seed"], dice_config["commitment"], rolls)
    return doc
