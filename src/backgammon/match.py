"""A match (or a money session): a series of games with a running score.

:class:`Match` is immutable, like :class:`~backgammon.game.Game`:
:meth:`Match.apply` routes an action to the current game and returns a new
match. When a game ends its points are added to the winner's score and,
unless the match is over, the next game starts at once (waiting for its
opening roll). Points are never cut down to what was needed: a gammon at
4-away on a 2-cube scores 4 and the score passes the match length.

Match play (``rules.match_length > 0``): the first side to reach the match
length wins. With ``rules.crawford`` (the default) the game right after a
side first reaches match length - 1 is the Crawford game, played without the
cube; the games after it are post-Crawford, with the cube back.

Money play (``match_length == 0``): a session that goes on until the
players stop; :attr:`Match.score` totals the points each side has won.

>>> from backgammon.game import Rules, Double, Pass, OpeningRoll, Player
>>> m = Match.new(Rules(match_length=3), players=("Alice", "Bob"))
>>> m = m.apply(OpeningRoll(3, 1))
>>> m = m.apply(m.game.move_from_text("8/5 6/5"))
>>> m = m.apply(Double(Player.BLACK)).apply(Pass(Player.WHITE))
>>> m.score, len(m.games), m.game.phase.name
((0, 1), 1, 'OPENING')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from backgammon.errors import GameOverError, InvalidInputError
from backgammon.game import Action, Game, Player, Rules, _check_rules, _check_score

__all__ = ["Match"]


@dataclass(frozen=True, slots=True)
class Match:
    """An immutable match or money session; :meth:`apply` returns the next state.

    ``score`` is ``(white, black)``; ``games`` holds the finished games;
    ``game`` is the game being played (once the match is over, the last
    game). ``crawford_done`` is True once the Crawford game has started.
    Build matches with :meth:`new`.
    """

    rules: Rules
    players: tuple[str, str]  # names of (white, black)
    score: tuple[int, int]
    games: tuple[Game, ...]
    game: Game
    crawford_done: bool

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        players: tuple[str, str] = ("White", "Black"),
        *,
        score: tuple[int, int] = (0, 0),
        crawford_game: bool = False,
    ) -> Match:
        """A match (or money session) whose first game waits for its opening roll.

        A match can be resumed at a ``score`` (white, black). If a side is
        at match length - 1 and the Crawford rule is on, ``crawford_game``
        says whether the first game is the Crawford game (True) or
        post-Crawford (False).

        Raises:
            InvalidInputError: for bad rules, names, score or Crawford flag.
        """
        rules = _check_rules(rules)
        if (
            not isinstance(players, (tuple, list))
            or len(players) != 2
            or not all(isinstance(name, str) and name.strip() for name in players)
        ):
            raise InvalidInputError(f"invalid players {players!r}: expected two non-empty names (white, black)")
        score = _check_score(rules, score)
        if not isinstance(crawford_game, bool):
            raise InvalidInputError(f"invalid crawford_game {crawford_game!r}: expected True or False")
        # a side has reached match length - 1 (at 0-0 of a 1-point match nobody has reached anything)
        at_crawford_score = rules.crawford_applies and any(0 < s == rules.match_length - 1 for s in score)
        if crawford_game and not at_crawford_score:
            raise InvalidInputError(
                f"invalid crawford_game True at score {score!r}: the crawford game needs the crawford rule, "
                f"a match and a side at {rules.match_length - 1}"
            )
        game = Game.new(rules, score=score, crawford_game=crawford_game)
        return cls(
            rules=rules,
            players=(players[0], players[1]),
            score=score,
            games=(),
            game=game,
            crawford_done=at_crawford_score,
        )

    # ----------------------------------------------------------------- queries
    @property
    def match_length(self) -> int:
        """Points needed to win; 0 for a money session."""
        return self.rules.match_length

    @property
    def is_money(self) -> bool:
        """True for a money session."""
        return self.rules.is_money

    @property
    def is_over(self) -> bool:
        """True once a side has reached the match length (never for money)."""
        return not self.is_money and max(self.score) >= self.match_length

    @property
    def winner(self) -> Player | None:
        """The side that won the match, or None."""
        if not self.is_over:
            return None
        return Player.WHITE if self.score[0] >= self.match_length else Player.BLACK

    @property
    def is_crawford_game(self) -> bool:
        """True while the current game is the Crawford game."""
        return self.game.crawford_game and not self.is_over

    @property
    def is_post_crawford(self) -> bool:
        """True in the games after the Crawford game."""
        return self.crawford_done and not self.game.crawford_game and not self.is_over

    def score_of(self, player: Player) -> int:
        """The points ``player`` has won."""
        return self.score[0] if player is Player.WHITE else self.score[1]

    def name_of(self, player: Player) -> str:
        """The name of ``player``."""
        return self.players[0] if player is Player.WHITE else self.players[1]

    def away(self, player: Player) -> int:
        """Points ``player`` still needs (match play), at least 0.

        Raises:
            InvalidInputError: in a money session.
        """
        if self.is_money:
            raise InvalidInputError("a money session has no 'away' score")
        return max(0, self.match_length - self.score_of(player))

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> Match:
        """The match after ``action`` (applied to the current game).

        Raises:
            GameOverError: if the match is over.
            the errors of :meth:`Game.apply`.
        """
        if self.is_over:
            raise GameOverError(f"the match is over: {self.name_of(self.winner)} won {self.score[0]}-{self.score[1]}")  # type: ignore[arg-type]
        game = self.game.apply(action)
        if not game.is_over:
            return Match(self.rules, self.players, self.score, self.games, game, self.crawford_done)
        result = game.result
        assert result is not None
        score = self.score
        if result.winner is Player.WHITE:
            score = (score[0] + result.points, score[1])
        elif result.winner is Player.BLACK:
            score = (score[0], score[1] + result.points)
        games = (*self.games, game)
        ended = Match(self.rules, self.players, score, games, game, self.crawford_done)
        if ended.is_over:
            return ended
        crawford_next = (
            self.rules.crawford_applies and not self.crawford_done and any(s == self.match_length - 1 for s in score)
        )
        next_game = Game.new(self.rules, score=score, crawford_game=crawford_next)
        return Match(self.rules, self.players, score, games, next_game, self.crawford_done or crawford_next)

    def replay(self, actions: Iterable[Action]) -> Match:
        """Apply ``actions`` in order.

        Raises:
            the errors of :meth:`apply`.
        """
        match = self
        for action in actions:
            match = match.apply(action)
        return match

    @property
    def log(self) -> tuple[Action, ...]:
        """Every action of the match so far, all games in order."""
        finished = [a for g in self.games for a in g.log]
        current = () if self.is_over else self.game.log
        return (*finished, *current)

    def __repr__(self) -> str:
        kind = "money session" if self.is_money else f"{self.match_length}-point match"
        return (
            f"<Match {kind} {self.players[0]} {self.score[0]} - {self.score[1]} {self.players[1]}, "
            f"game {len(self.games) + (0 if self.is_over else 1)}{', over' if self.is_over else ''}>"
        )
