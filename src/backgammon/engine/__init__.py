"""The engine's runtime: evaluators, bear-off database, search, cube, rollouts, analysis and levels.

Imports the core (``backgammon.position`` ...) and the formats, never the protocols, the
apps or training (:mod:`backgammon.training` sits above it; the layer contracts in
``pyproject.toml`` check this).

>>> from backgammon import Position
>>> from backgammon.engine import NetEvaluator, best_play
>>> str(best_play(Position.initial(), 3, 1, NetEvaluator.default()))
'8/5 6/5'

Every module that imports numba lives in this package or in :mod:`backgammon.training`
(which imports this package first), so configuring numba's kernel cache here
(:mod:`backgammon.engine._numba_cache`) runs before numba loads.
The names exported here load their modules on first use.
"""

import importlib
from typing import TYPE_CHECKING, Any

from backgammon.engine import _numba_cache

_numba_cache.configure()  # before anything imports numba

if TYPE_CHECKING:
    from backgammon.engine.evaluator import Evaluator, NetEvaluator, Probabilities, PubEval, RandomEvaluator
    from backgammon.engine.search import (
        DEFAULT_FILTERS,
        MoveFilter,
        RankedPlay,
        best_play,
        evaluate_ply,
        rank_plays,
    )

# The names below load their modules on first use, so that importing one
# submodule (the core's accelerator imports ``backgammon.engine.movegen``)
# does not load the whole engine.
_HOMES = {
    "Evaluator": "evaluator",
    "NetEvaluator": "evaluator",
    "Probabilities": "evaluator",
    "PubEval": "evaluator",
    "RandomEvaluator": "evaluator",
    "DEFAULT_FILTERS": "search",
    "MoveFilter": "search",
    "RankedPlay": "search",
    "best_play": "search",
    "evaluate_ply": "search",
    "rank_plays": "search",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'backgammon.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"backgammon.engine.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_FILTERS",
    "Evaluator",
    "MoveFilter",
    "NetEvaluator",
    "Probabilities",
    "PubEval",
    "RandomEvaluator",
    "RankedPlay",
    "best_play",
    "evaluate_ply",
    "rank_plays",
]
