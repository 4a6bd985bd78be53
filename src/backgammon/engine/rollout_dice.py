"""The dice of every rollout trial: seeded per trial, the first two rolls stratified.

Every trial ``i`` of a rollout with seed ``s`` draws its dice from its own generator seeded with
``(s, i)``, so a trial's games do not depend on how trials are spread over threads, processes or
chunks; with stratification the first two rolls come from a seeded random Latin square
(:func:`stratified_rolls`) instead. :mod:`backgammon.engine.rollout` documents the rollouts that
use them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from backgammon.dice import ALL_36

ORDERED_ROLLS = ALL_36  # the 36 ordered rolls, in the order the stratified first rolls index


def trial_dice(seed: int, trial: int, stratify: bool = True) -> Callable[[int], tuple[int, int]]:
    """The roll of each ply of trial ``trial`` (the rolls :func:`dice_of_trial` lists, drawn as needed)."""
    dice, rng = dice_of_trial(seed, trial, stratify, 64)

    def roll(ply: int) -> tuple[int, int]:
        nonlocal dice
        while ply >= len(dice):
            dice = more_dice(dice, rng)
        return int(dice[ply, 0]), int(dice[ply, 1])

    return roll


@functools.lru_cache(maxsize=64)
def _design(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The seed's two permutations of the 36 ordered rolls for the second roll (see :func:`stratified_rolls`)."""
    rng = np.random.default_rng([seed, 1 << 40])
    return rng.permutation(36), rng.permutation(36)


@functools.lru_cache(maxsize=256)
def _block_order(seed: int, block: int) -> np.ndarray:
    """The order of the 36 first rolls in block ``block`` (trials ``36 * block`` to ``36 * block + 35``)."""
    return np.random.default_rng([seed, 1 << 40, block]).permutation(36)


def stratified_rolls(seed: int, trial: int) -> tuple[int, int]:
    """The indices in :data:`ORDERED_ROLLS` of the stratified first and second rolls of a trial.

    Trials come in blocks of 36: in each block every ordered first roll comes once, in a seeded random
    order (so a part of a block is a random sample, not the first rolls in table order). The second
    roll is a seeded random Latin square over (first roll, block): ``P[(f + Q[block mod 36]) mod 36]``
    with ``P``, ``Q`` seeded permutations, so in each block every second roll comes once too, and 1,296
    trials play every pair of first two rolls once. Each trial's rolls are uniformly distributed over
    the seeds, so a rollout of any number of trials is unbiased.
    """
    block, r = divmod(trial, 36)
    f = int(_block_order(seed, block)[r])
    p, q = _design(seed)
    return f, int(p[(f + q[block % 36]) % 36])


def dice_of_trial(seed: int, trial: int, stratify: bool, plies: int) -> tuple[np.ndarray, np.random.Generator]:
    """The first ``plies`` rolls of trial ``trial`` as an array ``(plies, 2)``, and its generator, to draw more.

    Each trial has its own generator, seeded with ``(seed, trial)``; with ``stratify`` the first two
    rolls are stratified (:func:`stratified_rolls`) instead of drawn.
    """
    rng = np.random.default_rng([seed, trial])
    dice = np.empty((plies, 2), dtype=np.int64)
    first = 0
    if stratify:
        f, g = stratified_rolls(seed, trial)
        dice[0] = ORDERED_ROLLS[f]
        dice[1] = ORDERED_ROLLS[g]
        first = 2
    dice[first:] = rng.integers(1, 7, size=(plies - first, 2))
    return dice, rng


def trial_rolls(seed: int, trial: int, count: int = 2, stratify: bool = True) -> list[tuple[int, int]]:
    """The first ``count`` rolls of trial ``trial`` of a rollout with this seed (the same for every candidate)."""
    dice, _ = dice_of_trial(seed, trial, stratify, max(count, 2))
    return [(int(a), int(b)) for a, b in dice[:count]]


def more_dice(dice: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``dice`` and the generator's next rolls (its stream is the same drawn in bulk or one roll at a time)."""
    return np.concatenate([dice, rng.integers(1, 7, size=(len(dice), 2))])


__all__ = ["ORDERED_ROLLS", "dice_of_trial", "more_dice", "stratified_rolls", "trial_dice", "trial_rolls"]
