"""Starting a table's match: :class:`backgammon.match.Match`, optionally from a given position.

A table's state is a :class:`~backgammon.match.Match` (immutable; ``apply`` returns the
next one). :func:`new_match` also lets the first game start from a given position
(``StartPosition``: the server's ``--test-hooks`` option, used by the end-to-end tests to
play a whole game quickly).
"""

from __future__ import annotations

from dataclasses import dataclass

from backgammon.game import Game, GameResult, Player, Rules
from backgammon.match import Match
from backgammon.position import Position


@dataclass(frozen=True, slots=True)
class StartPosition:
    """Where the first game starts instead of the opening position."""

    position: Position  # seen from ``on_roll``
    on_roll: Player = Player.WHITE


def new_match(rules: Rules, start: StartPosition | None = None, players: tuple[str, str] = ("White", "Black")) -> Match:
    """A fresh match (or money session) under ``rules``.

    Raises:
        InvalidInputError / InvalidPositionError: for bad rules, names or start position.
    """
    match = Match.new(rules, players=players)
    if start is None:
        return match
    game = Game.from_position(start.position, on_roll=start.on_roll, rules=rules)
    return Match(match.rules, match.players, match.score, match.games, game, match.crawford_done)


def last_result(match: Match) -> GameResult | None:
    """The result of the last finished game, or None."""
    return match.games[-1].result if match.games else None
