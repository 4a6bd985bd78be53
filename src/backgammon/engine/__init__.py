"""The engine: evaluators, bear-off database, search and self-play training.

Imports the core (``backgammon.position`` ...), never the apps.

>>> from backgammon import Position
>>> from backgammon.engine import NetEvaluator, best_play
>>> str(best_play(Position.initial(), 3, 1, NetEvaluator.default()))
'8/5 6/5'

Every module that imports numba lives in this package, so configuring numba's
kernel cache here (:mod:`backgammon.engine._numba_cache`) runs before numba loads.
"""

from backgammon.engine import _numba_cache

_numba_cache.configure()  # before anything imports numba

from backgammon.engine.evaluator import Evaluator, NetEvaluator, Probabilities, PubEval, RandomEvaluator  # noqa: E402
from backgammon.engine.search import (  # noqa: E402
    DEFAULT_FILTERS,
    MoveFilter,
    RankedPlay,
    best_play,
    evaluate_ply,
    rank_plays,
)

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
