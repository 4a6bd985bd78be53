"""backgammon: the rules of backgammon, its notations, an engine and a web platform.

The core (this package's top-level modules and :mod:`backgammon.formats`)
depends on the standard library only. The engine lives in
:mod:`backgammon.engine`, the apps in :mod:`backgammon.server` and
:mod:`backgammon.cli`; neither is imported here, and importing this package
has no side effects (it loads no numpy or numba).
"""

from backgammon.chouette import Chouette, ChouetteGame, ChouetteStage, Consent, Refuse
from backgammon.dice import ALL_ROLLS, DiceSource, RandomDice, ScriptedDice
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
from backgammon.game import (
    AcceptDraw,
    AcceptResignation,
    Action,
    Beaver,
    Double,
    Ending,
    Game,
    GamePhase,
    GameResult,
    Move,
    OfferDraw,
    OpeningRoll,
    Pass,
    Player,
    RejectDraw,
    RejectResignation,
    Resign,
    ResignLevel,
    ResultKind,
    Roll,
    Rules,
    Take,
)
from backgammon.match import Match
from backgammon.moves import Play, Step
from backgammon.notation import format_steps, parse_move_text, parse_play
from backgammon.position import Phase, Position

__version__ = "0.1.0"

__all__ = [
    "ALL_ROLLS",
    "AcceptDraw",
    "AcceptResignation",
    "Action",
    "AmbiguousPlayError",
    "BackgammonError",
    "Beaver",
    "Chouette",
    "ChouetteGame",
    "ChouetteStage",
    "Consent",
    "DiceSource",
    "Double",
    "Ending",
    "EngineError",
    "Game",
    "GameOverError",
    "GamePhase",
    "GameResult",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidInputError",
    "InvalidPositionError",
    "Match",
    "Move",
    "NotYourTurnError",
    "OfferDraw",
    "OpeningRoll",
    "Pass",
    "Phase",
    "Play",
    "Player",
    "Position",
    "RandomDice",
    "Refuse",
    "RejectDraw",
    "RejectResignation",
    "Resign",
    "ResignLevel",
    "ResultKind",
    "Roll",
    "Rules",
    "ScriptedDice",
    "Step",
    "Take",
    "format_steps",
    "parse_move_text",
    "parse_play",
]
