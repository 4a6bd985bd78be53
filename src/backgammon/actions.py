"""What the players do and how a game ends: the actions :meth:`backgammon.game.Game.apply` takes
(small frozen dataclasses naming the player who acts, the dice and the play they carry) and the
values of a game's end (:class:`GameResult`: winner, points, :class:`ResultKind`, :class:`Ending`).

Everything here is also importable from :mod:`backgammon.game`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from backgammon.moves import Play
from backgammon.rules import Player


# --------------------------------------------------------------------- results
class ResultKind(Enum):
    """How big a win is: single game, gammon or backgammon (also a resignation level)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


ResignLevel = ResultKind
"""A resignation is offered at a :class:`ResultKind` level (an alias)."""


class Ending(Enum):
    """How a game ended."""

    PLAYED = "played"  # a side bore off all its checkers
    RESIGNED = "resigned"  # a resignation was accepted
    PASSED = "passed"  # a double was passed (dropped)
    DRAW = "draw"  # casual games: a draw was agreed


@dataclass(frozen=True, slots=True)
class GameResult:
    """The end of a game.

    ``points`` is what the winner scores: the cube value times 1, 2 or the
    backgammon value, or 0 for a draw (``winner`` and ``kind`` are then None).
    ``cube_value`` is the cube when the game ended (before the refused double
    for a pass).
    """

    winner: Player | None
    points: int
    kind: ResultKind | None
    ending: Ending
    cube_value: int = 1

    def points_for(self, player: Player) -> int:
        """The points from ``player``'s side: positive for the winner, negative for the loser."""
        if self.winner is None:
            return 0
        return self.points if player is self.winner else -self.points

    def __str__(self) -> str:
        if self.winner is None:
            return "draw"
        kind = self.kind.name.lower() if self.kind else "single"
        how = {Ending.PLAYED: "", Ending.RESIGNED: " by resignation", Ending.PASSED: " (double passed)"}
        return f"{self.winner} wins a {kind} for {self.points} point{'s' if self.points != 1 else ''}" + how.get(
            self.ending, ""
        )


# --------------------------------------------------------------------- actions
@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """The opening roll: each side rolls one die.

    Both sides roll at once, so ``player`` is not checked (it defaults to
    WHITE). In :meth:`Game.legal_actions` the dice are None: supply them.
    """

    white_die: int | None = None
    black_die: int | None = None
    player: Player = Player.WHITE

    def __str__(self) -> str:
        return f"opening roll: White {self.white_die}, Black {self.black_die}"


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll the dice (the caller supplies them). In legal_actions the dice are None."""

    player: Player
    dice: tuple[int, int] | None = None

    def __str__(self) -> str:
        dice = f"{self.dice[0]}{self.dice[1]}" if self.dice else "?"
        return f"{self.player} rolls {dice}"


@dataclass(frozen=True, slots=True)
class Double:
    """Offer a double (only before rolling)."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} doubles"


@dataclass(frozen=True, slots=True)
class Take:
    """Accept the double offered."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} takes"


@dataclass(frozen=True, slots=True)
class Pass:
    """Refuse the double offered, losing the current cube value."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} passes"


@dataclass(frozen=True, slots=True)
class Beaver:
    """Take the double and redouble at once, keeping the cube (money play, when allowed)."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} beavers"


@dataclass(frozen=True, slots=True)
class Move:
    """Play the rolled dice: ``play`` is one of the legal plays of the current position and dice."""

    player: Player
    play: Play

    def __str__(self) -> str:
        return f"{self.player} plays {str(self.play) or '(no move)'}"


@dataclass(frozen=True, slots=True)
class Resign:
    """Offer to resign, conceding ``level`` (times the cube)."""

    player: Player
    level: ResultKind = ResultKind.SINGLE

    def __str__(self) -> str:
        return f"{self.player} resigns a {self.level.name.lower()}"


@dataclass(frozen=True, slots=True)
class AcceptResignation:
    """Accept the resignation offered: the game ends."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} accepts the resignation"


@dataclass(frozen=True, slots=True)
class RejectResignation:
    """Reject the resignation offered: play goes on."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} rejects the resignation"


@dataclass(frozen=True, slots=True)
class OfferDraw:
    """Casual games: offer a draw."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} offers a draw"


@dataclass(frozen=True, slots=True)
class AcceptDraw:
    """Casual games: accept the draw offered; the game ends with 0 points."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} accepts the draw"


@dataclass(frozen=True, slots=True)
class RejectDraw:
    """Casual games: reject the draw offered."""

    player: Player

    def __str__(self) -> str:
        return f"{self.player} rejects the draw"


Action = (
    OpeningRoll
    | Roll
    | Double
    | Take
    | Pass
    | Beaver
    | Move
    | Resign
    | AcceptResignation
    | RejectResignation
    | OfferDraw
    | AcceptDraw
    | RejectDraw
)
ACTION_TYPES: tuple[type, ...] = Action.__args__
"""Every action class (for isinstance checks)."""
