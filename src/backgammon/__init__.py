"""backgammon: the rules of backgammon, its notations, an engine and a web platform.

The core (this package's top-level modules and :mod:`backgammon.formats`)
depends on the standard library only. The engine lives in
:mod:`backgammon.engine`, the apps in :mod:`backgammon.server` and
:mod:`backgammon.cli`; neither is imported here.
"""

from backgammon.errors import (
    AmbiguousPlayError,
    BackgammonError,
    EngineError,
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidInputError,
    InvalidPositionError,
    NotYourTurnError,
)
from backgammon.moves import Play, Step
from backgammon.notation import format_steps, parse_move_text, parse_play
from backgammon.position import Phase, Position

__version__ = "0.1.0"

__all__ = [
    "AmbiguousPlayError",
    "BackgammonError",
    "EngineError",
    "GameOverError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidInputError",
    "InvalidPositionError",
    "NotYourTurnError",
    "Phase",
    "Play",
    "Position",
    "Step",
    "format_steps",
    "parse_move_text",
    "parse_play",
]
