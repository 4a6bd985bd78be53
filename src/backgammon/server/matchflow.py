"""A table's sequence of games: the match (or money session) being played.

:class:`MatchFlow` is immutable: :meth:`apply` returns a new flow. It routes each
action to the current :class:`backgammon.game.Game`; when a game ends it adds the
points, decides whether the next game is the Crawford game, and starts it (unless the
match is over). A flow may start from a given position (``start``: the test hook and
the analysis board use it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from backgammon.errors import GameOverError
from backgammon.game import Game, Player, Rules
from backgammon.position import Position


@dataclass(frozen=True, slots=True)
class StartPosition:
    """Where the first game starts instead of the opening position."""

    position: Position  # seen from ``on_roll``
    on_roll: Player = Player.WHITE


@dataclass(frozen=True, slots=True)
class MatchFlow:
    """The games of a table, finished ones and the current one."""

    rules: Rules
    game: Game
    games: tuple[Game, ...] = ()
    score: tuple[int, int] = (0, 0)  # (white, black), finished games only
    crawford_done: bool = False
    winner: Player | None = None
    version: int = field(default=0, compare=False)

    @classmethod
    def new(cls, rules: Rules, start: StartPosition | None = None) -> MatchFlow:
        """A fresh match (or money session) under ``rules``.

        Raises:
            InvalidInputError / InvalidPositionError: for bad rules or start position.
        """
        if start is not None:
            game = Game.from_position(start.position, on_roll=start.on_roll, rules=rules)
        else:
            game = Game.new(rules)
        return cls(rules=rules, game=game)

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def is_crawford_game(self) -> bool:
        return self.game.crawford_game

    @property
    def is_post_crawford(self) -> bool:
        return self.crawford_done and not self.game.crawford_game and self.rules.match_length > 0

    @property
    def game_number(self) -> int:
        return len(self.games) + (0 if self.is_over else 1)

    def apply(self, action: object) -> MatchFlow:
        """The flow after ``action``.

        Raises:
            GameOverError: if the match is over.
            the errors of :meth:`backgammon.game.Game.apply`.
        """
        if self.is_over:
            raise GameOverError(f"cannot apply {str(action).lower()!r}: the match is over")
        game = self.game.apply(action)  # type: ignore[arg-type]
        if not game.is_over:
            return replace(self, game=game, version=self.version + 1)
        result = game.result
        white, black = self.score
        if result is not None and result.winner is Player.WHITE:
            white += result.points
        elif result is not None and result.winner is Player.BLACK:
            black += result.points
        games = (*self.games, game)
        n = self.rules.match_length
        if n and (white >= n or black >= n):
            return replace(
                self, game=game, games=games, score=(white, black), winner=Player.WHITE if white >= n else Player.BLACK,
                version=self.version + 1,
            )
        crawford_done = self.crawford_done or game.crawford_game
        crawford = bool(n and self.rules.crawford and not crawford_done and (white == n - 1 or black == n - 1))
        next_game = Game.new(self.rules, score=(white, black), crawford_game=crawford)
        return replace(
            self, game=next_game, games=games, score=(white, black), crawford_done=crawford_done or crawford,
            version=self.version + 1,
        )

    @property
    def last_result(self):
        """The result of the last finished game, or None."""
        return self.games[-1].result if self.games else None
