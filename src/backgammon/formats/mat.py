"""Jellyfish ``.mat`` match files, as GNU Backgammon and eXtreme Gammon write them.

Two layers, like python-chess's PGN support:

- **Syntax** (:func:`read_mat`, in :mod:`.mat_syntax`): text →
  :class:`MatchRecord` (headers, match length, :class:`MatGame` objects with
  their :class:`MatEntry` list in playing order). Nothing is checked against
  the rules; problems are collected in :attr:`MatGame.errors` /
  :attr:`MatchRecord.errors` and the reader goes on, so that one bad line
  does not lose the rest of the file.
- **Replay** (:func:`load_mat`, :func:`replay`, :func:`check`, in
  :mod:`.mat_replay`): a record → a :class:`backgammon.match.Match`, every
  move checked by the rules (a move is accepted when it produces the same
  position as a legal play). :func:`load_mat` collects warnings and errors
  per game and keeps the match up to the first error; :func:`replay` is
  its strict form. :func:`write_mat` turns a match back into text.

Dialects read besides gnubg's: eXtreme Gammon's and Jellyfish's layouts
(and any other with gnubg's entries in other column widths), Backgammon
Galaxy's (``Losses N points`` notes, capped final results, forfeits) and
Backgammon Studio Heroes' (``bar/off`` notation, ``63: Cannot Move``,
``63: ????``). ``docs/formats.md`` lists what each dialect writes and what
is tolerated.

The file, as gnubg exports it::

    ; [EventDate "2026.11.29"]          optional "; [Key "value"]" headers

     5 point match                      0 for a money session

     Game 1
     Alice : 0                      Bob : 0
      1) 31: 8/5 6/5                 52: 13/8 13/11
      2)  Doubles => 2                Takes
      3) 64: 24/18 13/9              66: 24/18 24/18 13/7 13/7
     ...
          Wins 1 point

Each numbered line holds one entry of the left player (gnubg's player 0)
and one of the right player (player 1). Points are numbered from the
mover's side, the bar is 25 and off is 0, ``*`` marks a hit. Columns are
split by the entries' syntax, not by width, so XG's and Jellyfish's
layouts read as well as gnubg's.

Players: the left column is gnubg's player 0, which is
:attr:`~backgammon.game.Player.BLACK` in :mod:`backgammon.game`; the right
column is player 1, :attr:`~backgammon.game.Player.WHITE`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from backgammon.errors import InvalidInputError
from backgammon.formats.mat_replay import GameReport, MatReading, check, load_mat, play_from_mat, replay, rules_for
from backgammon.formats.mat_syntax import MAX_FILE_SIZE, EntryKind, MatchRecord, MatEntry, MatGame, read_mat
from backgammon.moves import Play, legal_plays

if TYPE_CHECKING:
    from backgammon.game import Game
    from backgammon.match import Match

__all__ = [
    "MAX_FILE_SIZE",
    "EntryKind",
    "GameReport",
    "MatEntry",
    "MatGame",
    "MatReading",
    "MatchRecord",
    "check",
    "game_cube_after",
    "load_mat",
    "play_from_mat",
    "read_mat",
    "replay",
    "rules_for",
    "write_mat",
]


# ====================================================================== writing
def write_mat(
    match: Match,
    *,
    headers: Iterable[tuple[str, str]] = (),
    comments: Iterable[str] = (),
) -> str:
    """The match as a ``.mat`` file in gnubg's layout.

    The left column is BLACK (gnubg's player 0), the right WHITE. Games
    still in progress are written without a result. Each move is written
    step by step, bar as 25 and off as 0.

    Not written, because the format has no place for them: opening-roll
    ties, resignations that were rejected, and a roll after which the player
    resigned instead of moving.

    Raises:
        InvalidInputError: if a game cannot be written: a draw or automatic
            doubles, which the format cannot hold.
    """
    from backgammon.game import Player

    out: list[str] = []
    for key, value in headers:
        out.append(f'; [{key} "{value}"]')
    for comment in comments:
        out.append(f"; {comment}")
    if out:
        out.append("")
    out.append(f" {match.match_length} point match")
    out.append("")
    games = list(match.games)
    if not match.is_over and match.game.log:
        games.append(match.game)
    black, white = match.name_of(Player.BLACK), match.name_of(Player.WHITE)
    for number, game in enumerate(games, start=1):
        if game.auto_doubles:
            raise InvalidInputError(f"game {number} has automatic doubles, which a .mat file cannot hold")
        out.append(f" Game {number}")
        left = f"{black} : {game.score[1]}"
        # the right column starts at 32, or 3 blanks after a long left name (gnubg needs the gap)
        out.append(f" {left.ljust(max(31, len(left) + 3))}{white} : {game.score[0]}")
        out.extend(_game_lines(game))
        out.append("")
    return "\n".join(out) + "\n"


def _game_lines(game: Game) -> list[str]:
    from backgammon.game import (
        Beaver,
        Double,
        Ending,
        Move,
        Pass,
        Player,
        Take,
    )

    entries: list[tuple[int, str]] = []
    for action in game.log:
        side = 1 if getattr(action, "player", None) is Player.WHITE else 0
        if isinstance(action, Move):
            play = action.play
            steps = _step_texts(play)
            text = "".join(step + (" " if k < 3 else "") for k, step in enumerate(steps))
            entries.append((side, f"{max(play.dice)}{min(play.dice)}: {text}"))
        elif isinstance(action, Double):
            entries.append((side, f" Doubles => {game_cube_after(game, action)}"))
        elif isinstance(action, Take):
            entries.append((side, " Takes"))
        elif isinstance(action, Pass):
            entries.append((side, " Drops"))
        elif isinstance(action, Beaver):
            entries.append((side, f" Beavers => {game_cube_after(game, action)}"))
    lines: list[str] = []
    slots: list[str | None] = [None, None]
    number = 0

    def flush() -> None:
        nonlocal number, slots
        if slots[0] is None and slots[1] is None:
            return
        number += 1
        left = slots[0] or ""
        right = slots[1] or ""
        lines.append(f"{number:3d}) {left:<27} {right}")
        slots = [None, None]

    for side, text in entries:
        if side == 0:
            flush()
            slots[0] = text
        else:
            if slots[1] is not None:
                flush()
            slots[1] = text
    result = game.result
    if result is not None:
        if result.winner is None or result.ending is Ending.DRAW:
            raise InvalidInputError("a drawn game cannot be written to a .mat file")
        wins = f" Wins {result.points} point{'s' if result.points != 1 else ''}"
        side = 1 if result.winner is Player.WHITE else 0
        if side == 1 and slots[0] is not None and slots[1] is None:
            slots[1] = wins + " "
            flush()
        else:
            flush()
            lines.append(("     " + wins) if side == 0 else (" " * 33 + wins))
    else:
        flush()
    return lines


def _step_texts(play: Play) -> list[str]:
    """The steps of a play, highest source first (a checker's steps stay in order), hits marked.

    The steps are those of the generator's play for the higher die first, so
    that one position is always written the same way.
    """
    high, low = max(play.dice), min(play.dice)
    canonical = play  # a Game's plays come from the generator for the dice as rolled
    if play.dice != (high, low):
        canonical = legal_plays(play.origin, high, low).get(play.position) or play
    theirs = list(play.origin.theirs)
    out = []
    for step in sorted(canonical.steps, key=lambda st: (-st.source, st.destination)):
        hit = False
        if step.destination and theirs[24 - step.destination] == 1:
            theirs[24 - step.destination] = 0
            theirs[24] += 1
            hit = True
        out.append(f"{step.source}/{step.destination}{'*' if hit else ''}")
    return out


def game_cube_after(game: Game, action: object) -> int:
    """The cube value that a Double or Beaver in ``game``'s log proposes.

    Raises:
        InvalidInputError: if the action is not in the log.
    """
    from backgammon.game import Beaver, Double, Take

    cube = 1
    for a in game.log:
        if a is action:
            return cube * 2 if isinstance(a, Double) else cube * 4
        if isinstance(a, Take):
            cube *= 2
        elif isinstance(a, Beaver):
            cube *= 4
    raise InvalidInputError("the action is not in the game's log")
