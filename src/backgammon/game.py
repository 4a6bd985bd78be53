"""One game of backgammon as an immutable state machine.

A :class:`Game` holds everything about one game: the board, whose turn it
is, the dice, the cube, the log of actions and, once it has ended, the
:class:`GameResult`. :meth:`Game.apply` takes an action (a small frozen
dataclass naming the player who acts) and returns a *new* game, or raises
and leaves the old one untouched. :meth:`Game.legal_actions` lists what may
be done now. Dice are never rolled here: the caller rolls them (for instance
with a :class:`backgammon.dice.DiceSource`) and passes them in the action.

Sides are :class:`Player` values, ``WHITE`` and ``BLACK``. Mapping to other
programs: WHITE is gnubg's player 1 (the bottom player, XGID's X, the
``S1`` score) and BLACK is gnubg's player 0 (XGID's O). See
:attr:`Player.gnubg_index`.

Modules: this one holds the state machine (:class:`Game`, :class:`GamePhase`); the
sides and rules (:class:`Player`, :class:`Rules`) are :mod:`backgammon.rules`, the
actions and the values of a game's end (:class:`GameResult`, :class:`ResultKind`,
:class:`Ending`) :mod:`backgammon.actions`. Everything is importable from here.

>>> from backgammon.game import Game, OpeningRoll, Move, Player
>>> g = Game.new()
>>> g = g.apply(OpeningRoll(3, 1))          # white 3, black 1: white plays 31
>>> g.turn, g.dice
(<Player.WHITE: 'white'>, (3, 1))
>>> g = g.apply(Move(Player.WHITE, g.play_from_text("8/5 6/5")))
>>> g.phase, g.turn
(<GamePhase.ROLL: 'roll'>, <Player.BLACK: 'black'>)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from backgammon.actions import ACTION_TYPES as ACTION_TYPES
from backgammon.actions import (
    AcceptDraw,
    AcceptResignation,
    Action,
    Beaver,
    Double,
    Ending,
    GameResult,
    Move,
    OfferDraw,
    OpeningRoll,
    Pass,
    RejectDraw,
    RejectResignation,
    Resign,
    ResignLevel,
    ResultKind,
    Roll,
    Take,
)
from backgammon.dice import DiceSource, check_die, check_roll
from backgammon.errors import (
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidInputError,
    InvalidPositionError,
    NotYourTurnError,
)
from backgammon.moves import LegalPlays, Play, find_play
from backgammon.position import BAR, CHECKERS, Position
from backgammon.rules import MAX_CUBE as MAX_CUBE
from backgammon.rules import (
    MAX_MATCH_LENGTH,
    Player,
    Rules,
    _is_int,
    _is_power_of_two,
    check_match_length,
    cube_owner_seen_by,
)
from backgammon.rules import crawford_problem as crawford_problem
from backgammon.safejson import shorten

__all__ = [
    "MAX_MATCH_LENGTH",
    "AcceptDraw",
    "AcceptResignation",
    "Action",
    "Beaver",
    "Double",
    "Ending",
    "Game",
    "GamePhase",
    "GameResult",
    "Move",
    "OfferDraw",
    "OpeningRoll",
    "Pass",
    "Player",
    "RejectDraw",
    "RejectResignation",
    "Resign",
    "ResignLevel",
    "ResultKind",
    "Roll",
    "Rules",
    "Take",
    "check_match_length",
    "cube_owner_seen_by",
]


# ---------------------------------------------------------------------- phases
class GamePhase(Enum):
    """What the game is waiting for."""

    OPENING = "opening"  # the opening roll (one die each)
    ROLL = "roll"  # the side on roll may double, roll or resign
    DOUBLED = "doubled"  # a double is offered: the other side takes, passes or beavers
    MOVE = "move"  # the dice are rolled: the side on roll plays them
    RESIGNATION = "resignation"  # a resignation is offered: the other side accepts or rejects
    DRAW_OFFERED = "draw_offered"  # casual games: a draw is offered
    OVER = "over"


# ------------------------------------------------------------------------ game
@dataclass(frozen=True, slots=True)
class Game:
    """An immutable game of backgammon; :meth:`apply` returns the next state.

    Build one with :meth:`new` (from the opening) or :meth:`from_position`
    (any position and cube state). The fields are the state; build games only
    through those constructors.

    Perspective: :attr:`position` is seen from the side on roll
    (:attr:`on_roll`, or WHITE before the opening roll); :meth:`board_for`
    gives the board seen by either side. When a game ends by a play,
    :attr:`on_roll` stays the side that bore off its last checker.

    While a double is offered (phase DOUBLED) :attr:`cube_value` is still the
    value before the double.
    """

    rules: Rules
    score: tuple[int, int]  # (white, black) match score before this game
    crawford_game: bool
    phase: GamePhase
    on_roll: Player | None
    turn: Player | None
    white_board: Position  # the board seen from WHITE (``mine`` = white's checkers)
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: Player | None
    auto_doubles: int
    log: tuple[Action, ...]
    result: GameResult | None
    resignation: ResultKind | None  # the level offered while phase is RESIGNATION
    resume_phase: GamePhase | None  # where play goes on after a rejected resignation or draw
    legal_plays: tuple[Play, ...] = field(default=(), compare=False)  # the legal plays in MOVE

    # ------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        score: tuple[int, int] = (0, 0),
        crawford_game: bool = False,
    ) -> Game:
        """A new game waiting for the opening roll (casual games: white to roll).

        ``score`` is the match score (white, black) before this game.

        Raises:
            InvalidInputError: for bad rules, score or Crawford flag.
        """
        rules = _check_rules(rules)
        score = _check_score(rules, score)
        crawford_game = _check_crawford(rules, crawford_game, score)
        if rules.casual:
            phase, on_roll = GamePhase.ROLL, Player.WHITE
        else:
            phase, on_roll = GamePhase.OPENING, None
        return cls(
            rules=rules,
            score=score,
            crawford_game=crawford_game,
            phase=phase,
            on_roll=on_roll,
            turn=on_roll,
            white_board=Position.initial(),
            dice=None,
            cube_value=1,
            cube_owner=None,
            auto_doubles=0,
            log=(),
            result=None,
            resignation=None,
            resume_phase=None,
        )

    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        on_roll: Player = Player.WHITE,
        dice: tuple[int, int] | None = None,
        cube_value: int = 1,
        cube_owner: Player | None = None,
        rules: Rules | None = None,
        score: tuple[int, int] = (0, 0),
        crawford_game: bool = False,
    ) -> Game:
        """A game set up in any position (for tests and the analysis board).

        ``position`` is seen from ``on_roll``. Without ``dice`` the game waits
        for ``on_roll`` to double or roll; with ``dice`` it waits for the play.

        >>> p = Position.from_points({1: 1}, {1: 15})
        >>> g = Game.from_position(p, dice=(2, 1), cube_value=2, cube_owner=Player.BLACK)
        >>> g.phase, len(g.legal_plays)
        (<GamePhase.MOVE: 'move'>, 1)

        Raises:
            InvalidInputError: for bad rules, score, dice or cube state.
            InvalidPositionError: for a position where the game is already over.
        """
        rules = _check_rules(rules)
        score = _check_score(rules, score)
        crawford_game = _check_crawford(rules, crawford_game, score)
        if not isinstance(position, Position):
            raise InvalidInputError(f"invalid position {position!r}: expected a Position")
        if position.is_game_over():
            raise InvalidPositionError(
                f"invalid position {position.position_id()}: a side has borne off all its checkers"
            )
        if not isinstance(on_roll, Player):
            raise InvalidInputError(f"invalid player {on_roll!r}: expected Player.WHITE or Player.BLACK")
        if not _is_power_of_two(cube_value) or cube_value > rules.cube_limit:
            raise InvalidInputError(
                f"invalid cube value {cube_value!r}: expected a power of two up to {rules.cube_limit}"
            )
        if cube_owner is not None and not isinstance(cube_owner, Player):
            raise InvalidInputError(f"invalid cube owner {cube_owner!r}: expected a Player or None")
        if (not rules.uses_cube or crawford_game) and (cube_value != 1 or cube_owner is not None):
            raise InvalidInputError(
                f"invalid cube {cube_value!r} owned by {cube_owner}: the cube is not in use in this game"
            )
        if cube_owner is not None and cube_value == 1:
            raise InvalidInputError("invalid cube: an owned cube is at least 2")
        white_board = position if on_roll is Player.WHITE else position.flip()
        game = cls(
            rules=rules,
            score=score,
            crawford_game=crawford_game,
            phase=GamePhase.ROLL,
            on_roll=on_roll,
            turn=on_roll,
            white_board=white_board,
            dice=None,
            cube_value=cube_value,
            cube_owner=cube_owner,
            auto_doubles=0,
            log=(),
            result=None,
            resignation=None,
            resume_phase=None,
        )
        if dice is not None:
            dice = check_roll(dice)
            game = game._replace(phase=GamePhase.MOVE, dice=dice, legal_plays=position.legal_plays(*dice))
        return game

    # ----------------------------------------------------------------- queries
    @property
    def rolled_dice(self) -> tuple[int, int] | None:
        """The dice rolled and not yet played: in the move, and while a resignation or draw
        offered after rolling waits for its answer (Match ID and XGID keep them then)."""
        if self.phase is GamePhase.MOVE:
            return self.dice
        if self.phase in (GamePhase.RESIGNATION, GamePhase.DRAW_OFFERED) and self.resume_phase is GamePhase.MOVE:
            return self.dice
        return None

    @property
    def position(self) -> Position:
        """The board seen from the side on roll (WHITE before the opening roll)."""
        return self.board_for(self.on_roll or Player.WHITE)

    def board_for(self, player: Player) -> Position:
        """The board seen by ``player`` (``mine`` = that player's checkers).

        Raises:
            InvalidInputError: if ``player`` is not a Player.
        """
        if player is Player.WHITE:
            return self.white_board
        if player is Player.BLACK:
            return self.white_board.flip()
        raise InvalidInputError(f"invalid player {player!r}: expected Player.WHITE or Player.BLACK")

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.phase is GamePhase.OVER

    @property
    def match_length(self) -> int:
        """The match length of the rules (0 = money)."""
        return self.rules.match_length

    @property
    def doubled_by(self) -> Player | None:
        """The side offering a double (phase DOUBLED), else None."""
        return self.on_roll if self.phase is GamePhase.DOUBLED else None

    def may_double(self, player: Player) -> bool:
        """True if ``player`` may double now."""
        return self._cube_refusal(player) is None

    def action_types(self) -> tuple[type[Action], ...]:
        """The kinds of :meth:`legal_actions`, each once, in their order: what a user interface
        offers. Cheaper while moving: no :class:`Move` is built for each legal play (there is
        always one, the empty play when the roll cannot be played).

        >>> from backgammon.game import Game, OpeningRoll, Rules
        >>> [kind.__name__ for kind in Game.new(Rules()).apply(OpeningRoll(3, 1)).action_types()]
        ['Move', 'Resign']
        """
        kinds = dict.fromkeys(type(action) for action in self._actions(plays=False))
        if self.phase is GamePhase.MOVE and self.turn is not None:
            return (Move, *kinds)
        return tuple(kinds)

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions available now.

        Dice are the caller's: the opening roll and a roll appear as templates
        (``OpeningRoll()``, ``Roll(player)``, dice None) to be filled in. In
        MOVE every legal play appears as a ``Move``. Resignations are listed at
        each level.
        """
        return self._actions(plays=True)

    def _actions(self, plays: bool) -> tuple[Action, ...]:
        """:meth:`legal_actions`; without the moves when ``plays`` is false."""
        phase, turn = self.phase, self.turn
        if phase is GamePhase.OVER or turn is None:
            return (OpeningRoll(),) if phase is GamePhase.OPENING else ()
        resigns: tuple[Action, ...] = tuple(Resign(turn, level) for level in ResultKind)
        draw: tuple[Action, ...] = (OfferDraw(turn),) if self.rules.casual else ()
        if phase is GamePhase.ROLL:
            double: tuple[Action, ...] = (Double(turn),) if self.may_double(turn) else ()
            return (Roll(turn), *double, *resigns, *draw)
        if phase is GamePhase.MOVE:
            moves: tuple[Action, ...] = tuple(Move(turn, play) for play in self.legal_plays) if plays else ()
            return (*moves, *resigns, *draw)
        if phase is GamePhase.DOUBLED:
            beaver: tuple[Action, ...] = (Beaver(turn),) if self._beaver_refusal() is None else ()
            return (Take(turn), Pass(turn), *beaver)
        if phase is GamePhase.RESIGNATION:
            return (AcceptResignation(turn), RejectResignation(turn))
        return (AcceptDraw(turn), RejectDraw(turn))

    def is_legal(self, action: object) -> bool:
        """True if :meth:`apply` would accept ``action`` now."""
        try:
            self.apply(action)  # type: ignore[arg-type]
        except (IllegalActionError, IllegalPlayError, InvalidInputError):
            return False
        return True

    def play_from_text(self, text: str) -> Play:
        """The legal play that move text such as ``'24/18 13/11*'`` describes for the current dice.

        Raises:
            IllegalActionError: if no dice are waiting to be played.
            InvalidInputError / IllegalPlayError / AmbiguousPlayError: see
                :func:`backgammon.notation.parse_play`.
        """
        return self.find_play(text)

    def find_play(self, query: str | Position | Sequence[tuple[int, int]]) -> Play:
        """The legal play of the current roll that ``query`` means: move text, the resulting
        position or a complete clicked path (see :func:`backgammon.moves.find_play`).

        Raises:
            IllegalActionError: if no dice are waiting to be played.
            InvalidInputError / IllegalPlayError / AmbiguousPlayError: see
                :func:`backgammon.moves.find_play`.
        """
        if self.phase is not GamePhase.MOVE or self.dice is None:
            shown = shorten(query) if isinstance(query, str) else "a move"
            raise IllegalActionError(f"cannot play {shown} now: {self.describe()}")
        return find_play(self.position, self.dice[0], self.dice[1], query, self.legal_plays)

    def move_from_text(self, text: str) -> Move:
        """The :class:`Move` action for move text (see :meth:`play_from_text`)."""
        play = self.play_from_text(text)
        assert self.turn is not None
        return Move(self.turn, play)

    def roll_action(self, source: DiceSource) -> OpeningRoll | Roll:
        """The roll due now, with dice from ``source``: an opening roll (two calls of
        ``source.die()``, white's first) or the side on roll's ``Roll``.

        >>> from backgammon.dice import ScriptedDice
        >>> Game.new().roll_action(ScriptedDice([(2, 5)]))
        OpeningRoll(white_die=2, black_die=5, player=<Player.WHITE: 'white'>)

        Raises:
            IllegalActionError: when no roll is due (a double, a play or an answer is awaited).
        """
        if self.phase is GamePhase.OPENING:
            white = source.die()
            return OpeningRoll(white, source.die())
        if self.phase is GamePhase.ROLL and self.turn is not None:
            return Roll(self.turn, source.roll())
        raise IllegalActionError(f"no roll is due now: {self.describe()}")

    def multiplier(self, kind: ResultKind) -> int:
        """What a win of ``kind`` is worth per cube unit now (Jacoby and backgammon value applied)."""
        if kind is ResultKind.SINGLE:
            return 1
        if self.rules.jacoby_applies and self.cube_owner is None:
            return 1
        return 2 if kind is ResultKind.GAMMON else self.rules.backgammon_value

    def describe(self) -> str:
        """A short lowercase description of what the game waits for."""
        turn = str(self.turn).lower() if self.turn else ""
        other = str(self.turn.other).lower() if self.turn else ""
        phase = self.phase
        if phase is GamePhase.OPENING:
            return "waiting for the opening roll"
        if phase is GamePhase.ROLL:
            return f"{turn} to roll or double" if self.may_double(self.turn) else f"{turn} to roll"  # type: ignore[arg-type]
        if phase is GamePhase.DOUBLED:
            return f"{turn} must take or pass {other}'s double"
        if phase is GamePhase.MOVE:
            assert self.dice is not None
            return f"{turn} to play {self.dice[0]}-{self.dice[1]}"
        if phase is GamePhase.RESIGNATION:
            return f"{turn} must accept or reject {other}'s resignation"
        if phase is GamePhase.DRAW_OFFERED:
            return f"{turn} must accept or reject {other}'s draw offer"
        return f"the game is over: {str(self.result).lower()}"

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> Game:
        """The game after ``action``; this game is left unchanged.

        Raises:
            GameOverError: if the game has ended.
            InvalidInputError: for something that is not an action, or bad dice.
            NotYourTurnError: for an action by the side that is not to act.
            IllegalActionError: for an action the game flow does not allow now
                (no double offered, cube not available, ...).
            IllegalPlayError: for a play that is not legal for the position and dice.
        """
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise InvalidInputError(f"invalid action {action!r}: expected one of the actions of backgammon.game")
        if self.phase is GamePhase.OVER:
            raise GameOverError(f"cannot apply {str(action).lower()!r}: the game is over ({str(self.result).lower()})")
        player = action.player
        if not isinstance(player, Player):
            raise InvalidInputError(f"invalid player {player!r} in {action!r}: expected Player.WHITE or Player.BLACK")
        return handler(self, action)

    def replay(self, actions: Iterable[Action]) -> Game:
        """Apply ``actions`` in order (for instance another game's :attr:`log`).

        Raises:
            the errors of :meth:`apply`.
        """
        game = self
        for action in actions:
            game = game.apply(action)
        return game

    # ---------------------------------------------------------------- helpers
    def _replace(self, **changes: object) -> Game:
        # dataclasses.replace without its per-call field checks (a Game has no __post_init__ and
        # every field is an init field): it took a sixth of the time of replaying a .mat file
        assert _FIELD_SET.issuperset(changes), changes
        game = object.__new__(Game)
        for name in _FIELDS:
            object.__setattr__(game, name, changes[name] if name in changes else getattr(self, name))
        return game

    def _expect(self, action: Action, phases: tuple[GamePhase, ...], what: str) -> None:
        if self.phase not in phases:
            raise IllegalActionError(f"{str(action.player).lower()} cannot {what} now: {self.describe()}")
        if action.player is not self.turn:
            raise NotYourTurnError(f"{str(action.player).lower()} cannot {what}: {self.describe()}")

    def _cube_refusal(self, player: Player) -> str | None:
        """Why ``player`` may not double now, or None if they may."""
        rules = self.rules
        if self.phase is not GamePhase.ROLL:
            return f"doubling is only allowed before rolling ({self.describe()})"
        if player is not self.turn:
            return f"it is not {str(player).lower()}'s turn ({self.describe()})"
        if not rules.uses_cube:
            return "the cube is not used in this game"
        if self.crawford_game:
            return "there is no doubling in the crawford game"
        if self.cube_owner is not None and self.cube_owner is not player:
            return f"{str(self.cube_owner).lower()} owns the cube"
        if self.cube_value * 2 > rules.cube_limit:
            return f"the cube is at its limit of {rules.cube_limit}"
        return None

    def _beaver_refusal(self) -> str | None:
        if self.phase is not GamePhase.DOUBLED:
            return "no double has been offered"
        if not self.rules.beavers_apply:
            return "beavers are not allowed under these rules"
        if self.cube_value * 4 > self.rules.cube_limit:
            return f"a beaver would pass the cube limit of {self.rules.cube_limit}"
        return None

    def _end(
        self, winner: Player | None, kind: ResultKind | None, ending: Ending, action: Action, **changes: object
    ) -> Game:
        if winner is None:
            points = 0
        else:
            assert kind is not None
            points = self.cube_value * (1 if ending is Ending.PASSED else self.multiplier(kind))
        result = GameResult(winner, points, kind, ending, self.cube_value)
        return self._replace(
            phase=GamePhase.OVER,
            turn=None,
            result=result,
            log=(*self.log, action),
            resignation=None,
            resume_phase=None,
            legal_plays=(),
            **changes,
        )

    # --------------------------------------------------------------- handlers
    def _on_opening_roll(self, action: OpeningRoll) -> Game:
        if self.phase is not GamePhase.OPENING:
            raise IllegalActionError(f"cannot make the opening roll now: {self.describe()}")
        white, black = check_die(action.white_die), check_die(action.black_die)
        log = (*self.log, action)
        if white == black:
            if self.auto_doubles < self.rules.max_automatic_doubles and self.cube_value * 2 <= self.rules.cube_limit:
                return self._replace(log=log, cube_value=self.cube_value * 2, auto_doubles=self.auto_doubles + 1)
            return self._replace(log=log)
        winner = Player.WHITE if white > black else Player.BLACK
        dice = (max(white, black), min(white, black))
        position = self.board_for(winner)
        return self._replace(
            log=log,
            phase=GamePhase.MOVE,
            on_roll=winner,
            turn=winner,
            dice=dice,
            legal_plays=position.legal_plays(*dice),
        )

    def _on_roll(self, action: Roll) -> Game:
        self._expect(action, (GamePhase.ROLL,), "roll")
        if action.dice is None:
            raise InvalidInputError("invalid roll None: a Roll needs its dice, e.g. Roll(player, (6, 4))")
        dice = check_roll(action.dice)
        return self._replace(
            log=(*self.log, Roll(action.player, dice)),
            phase=GamePhase.MOVE,
            dice=dice,
            legal_plays=self.position.legal_plays(*dice),
        )

    def _on_double(self, action: Double) -> Game:
        self._expect(action, (GamePhase.ROLL,), "double")
        refusal = self._cube_refusal(action.player)
        if refusal is not None:
            raise IllegalActionError(f"{str(action.player).lower()} cannot double: {refusal}")
        return self._replace(log=(*self.log, action), phase=GamePhase.DOUBLED, turn=action.player.other)

    def _on_take(self, action: Take) -> Game:
        self._expect(action, (GamePhase.DOUBLED,), "take")
        return self._replace(
            log=(*self.log, action),
            phase=GamePhase.ROLL,
            turn=self.on_roll,
            cube_value=self.cube_value * 2,
            cube_owner=action.player,
        )

    def _on_pass(self, action: Pass) -> Game:
        self._expect(action, (GamePhase.DOUBLED,), "pass")
        return self._end(self.on_roll, ResultKind.SINGLE, Ending.PASSED, action)

    def _on_beaver(self, action: Beaver) -> Game:
        self._expect(action, (GamePhase.DOUBLED,), "beaver")
        refusal = self._beaver_refusal()
        if refusal is not None:
            raise IllegalActionError(f"{str(action.player).lower()} cannot beaver: {refusal}")
        return self._replace(
            log=(*self.log, action),
            phase=GamePhase.ROLL,
            turn=self.on_roll,
            cube_value=self.cube_value * 4,
            cube_owner=action.player,
        )

    def _on_move(self, action: Move) -> Game:
        self._expect(action, (GamePhase.MOVE,), "move")
        play = action.play
        if not isinstance(play, Play):
            raise InvalidInputError(f"invalid play {play!r}: expected a Play (see Game.play_from_text)")
        plays = self.legal_plays
        if isinstance(plays, LegalPlays):  # (found by its resulting position: no other play is built)
            canonical = plays.get(play.position) if play.origin == self.position else None
        else:
            canonical = next((p for p in plays if p == play), None)
        if canonical is None:
            assert self.dice is not None
            raise IllegalPlayError(
                f"illegal play {str(play) or '(no move)'!r} for roll {self.dice[0]}-{self.dice[1]} "
                f"in position {self.position.position_id()}"
            )
        mover = action.player
        after = canonical.position  # seen from the opponent
        white_board = after.flip() if mover is Player.WHITE else after
        log = (*self.log, Move(mover, canonical))
        if sum(after.theirs) == 0:  # the mover has borne off every checker
            loser = after.mine
            if CHECKERS - sum(loser) > 0:
                kind = ResultKind.SINGLE
            elif loser[BAR] or any(loser[18:24]):
                kind = ResultKind.BACKGAMMON
            else:
                kind = ResultKind.GAMMON
            done = self._end(mover, kind, Ending.PLAYED, action, white_board=white_board, dice=None)
            return done._replace(log=log)
        return self._replace(
            log=log,
            white_board=white_board,
            phase=GamePhase.ROLL,
            on_roll=mover.other,
            turn=mover.other,
            dice=None,
            legal_plays=(),
        )

    def _on_resign(self, action: Resign) -> Game:
        self._expect(action, (GamePhase.ROLL, GamePhase.MOVE), "resign")
        if not isinstance(action.level, ResultKind):
            raise InvalidInputError(
                f"invalid resignation level {action.level!r}: expected SINGLE, GAMMON or BACKGAMMON"
            )
        return self._replace(
            log=(*self.log, action),
            phase=GamePhase.RESIGNATION,
            turn=action.player.other,
            resignation=action.level,
            resume_phase=self.phase,
        )

    def _on_accept_resignation(self, action: AcceptResignation) -> Game:
        self._expect(action, (GamePhase.RESIGNATION,), "accept a resignation")
        assert self.resignation is not None
        return self._end(action.player, self.resignation, Ending.RESIGNED, action)

    def _on_reject_resignation(self, action: RejectResignation) -> Game:
        self._expect(action, (GamePhase.RESIGNATION,), "reject a resignation")
        return self._replace(
            log=(*self.log, action),
            phase=self.resume_phase,
            turn=self.on_roll,
            resignation=None,
            resume_phase=None,
        )

    def _on_offer_draw(self, action: OfferDraw) -> Game:
        if not self.rules.casual:
            raise IllegalActionError(
                f"{str(action.player).lower()} cannot offer a draw: draws exist only in casual games"
            )
        self._expect(action, (GamePhase.ROLL, GamePhase.MOVE), "offer a draw")
        return self._replace(
            log=(*self.log, action),
            phase=GamePhase.DRAW_OFFERED,
            turn=action.player.other,
            resume_phase=self.phase,
        )

    def _on_accept_draw(self, action: AcceptDraw) -> Game:
        self._expect(action, (GamePhase.DRAW_OFFERED,), "accept a draw")
        return self._end(None, None, Ending.DRAW, action)

    def _on_reject_draw(self, action: RejectDraw) -> Game:
        self._expect(action, (GamePhase.DRAW_OFFERED,), "reject a draw")
        return self._replace(
            log=(*self.log, action),
            phase=self.resume_phase,
            turn=self.on_roll,
            resume_phase=None,
        )

    # ---------------------------------------------------------------- dunders
    def __repr__(self) -> str:
        cube = f"{self.cube_value}" + (f" owned by {self.cube_owner}" if self.cube_owner else " centred")
        return (
            f"<Game {self.phase.name} turn={self.turn} position={self.position.position_id()} "
            f"dice={self.dice} cube={cube} actions={len(self.log)}>"
        )


_FIELDS = tuple(f.name for f in dataclasses.fields(Game))
_FIELD_SET = frozenset(_FIELDS)

_HANDLERS: dict[type, Callable[[Game, Action], Game]] = {
    OpeningRoll: Game._on_opening_roll,  # type: ignore[dict-item]
    Roll: Game._on_roll,  # type: ignore[dict-item]
    Double: Game._on_double,  # type: ignore[dict-item]
    Take: Game._on_take,  # type: ignore[dict-item]
    Pass: Game._on_pass,  # type: ignore[dict-item]
    Beaver: Game._on_beaver,  # type: ignore[dict-item]
    Move: Game._on_move,  # type: ignore[dict-item]
    Resign: Game._on_resign,  # type: ignore[dict-item]
    AcceptResignation: Game._on_accept_resignation,  # type: ignore[dict-item]
    RejectResignation: Game._on_reject_resignation,  # type: ignore[dict-item]
    OfferDraw: Game._on_offer_draw,  # type: ignore[dict-item]
    AcceptDraw: Game._on_accept_draw,  # type: ignore[dict-item]
    RejectDraw: Game._on_reject_draw,  # type: ignore[dict-item]
}


def _check_rules(rules: object) -> Rules:
    if rules is None:
        return Rules()
    if not isinstance(rules, Rules):
        raise InvalidInputError(f"invalid rules {rules!r}: expected a Rules")
    return rules


def _check_score(rules: Rules, score: object) -> tuple[int, int]:
    if not isinstance(score, (tuple, list)) or len(score) != 2 or not all(_is_int(s) and s >= 0 for s in score):
        raise InvalidInputError(f"invalid score {score!r}: expected two non-negative integers (white, black)")
    if not rules.is_money and any(s >= rules.match_length for s in score):
        raise InvalidInputError(
            f"invalid score {tuple(score)!r}: in a {rules.match_length}-point match a game starts "
            f"with both scores below {rules.match_length}"
        )
    return (score[0], score[1])


def _check_crawford(rules: Rules, crawford_game: object, score: tuple[int, int]) -> bool:
    if not isinstance(crawford_game, bool):
        raise InvalidInputError(f"invalid crawford_game {crawford_game!r}: expected True or False")
    if crawford_game and rules.is_money:
        raise InvalidInputError("invalid crawford_game True: there is no crawford game in money play")
    if crawford_game and not rules.crawford_applies:
        raise InvalidInputError(
            "invalid crawford_game True: these rules have no crawford game (crawford off, no cube or casual)"
        )
    if crawford_game and crawford_problem(rules.match_length, score):
        raise InvalidInputError(f"invalid crawford_game True: {crawford_problem(rules.match_length, score)}")
    return crawford_game
