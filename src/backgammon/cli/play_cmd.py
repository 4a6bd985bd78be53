"""``backgammon play``: a match against the computer in the terminal.

Built on the rules core (:class:`backgammon.match.Match`, :mod:`backgammon.render`) and the
engine (:func:`backgammon.engine.levels.choose_play` for plays,
:func:`backgammon.engine.search.decide_cube` for the cube); it needs no web server, so it
works with the base install. Every prompt accepts a fixed set of words (see :data:`HELP`);
anything else gets a short help and the same prompt again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from backgammon.engine.met import MAX_AWAY
from backgammon.errors import BackgammonError, InvalidInputError

MAX_LENGTH = MAX_AWAY
"""The longest match (the match equity table the computer's cube decisions use stops at 25)."""

QUIT = "quit"

_ANY_TIME_WORDS = {"h": "help", "help": "help", "?": "help", "q": QUIT, "quit": QUIT, "exit": QUIT}
"""The words every prompt takes."""
MOVE_WORDS = {"s": "resign", "resign": "resign", "b": "board", "board": "board", **_ANY_TIME_WORDS}
ROLL_WORDS = {"": "roll", "r": "roll", "roll": "roll", "d": "double", "double": "double", **MOVE_WORDS}
DOUBLE_WORDS = {
    "t": "take",
    "take": "take",
    "p": "pass",
    "pass": "pass",
    "drop": "pass",
    "beaver": "beaver",
    **_ANY_TIME_WORDS,
}
LEVEL_WORDS = {
    "1": "single",
    "s": "single",
    "single": "single",
    "2": "gammon",
    "g": "gammon",
    "gammon": "gammon",
    "3": "backgammon",
    "bg": "backgammon",
    "backgammon": "backgammon",
    "": "cancel",
    "c": "cancel",
    "cancel": "cancel",
    "h": "help",
    "help": "help",
    "?": "help",
    "q": QUIT,
    "quit": QUIT,
    "exit": QUIT,
}

HELP = {
    "roll": "Enter or 'roll' rolls the dice; 'double' offers the cube; 'resign' resigns; "
    "'board' redraws the board; 'quit' ends the game.",
    "move": "Type your move in the usual notation, one step per checker, e.g. '24/18 13/11' or '8/5(2)' "
    "('bar/22' enters from the bar, '6/off' bears off); 'resign' resigns; 'board' redraws; 'quit' ends the game.",
    "double": "'take' accepts the double (the game goes on at twice the stake); 'pass' gives up the game "
    "at the current stake; 'quit' ends the game.",
    "level": "'single' (1), 'gammon' (2) or 'backgammon' (3): the most you offer to lose, times the cube; "
    "Enter or 'cancel' to play on.",
}


# ------------------------------------------------------------------ computer
class Computer:
    """The computer player: the engine at one difficulty level.

    Plays, doubles and takes are the engine's :class:`~backgammon.protocols.external.EnginePlayer`
    (:func:`~backgammon.engine.levels.choose_play` at the level's depth and noise, ranked by cubeful
    equity at the game's cube and score; :func:`~backgammon.engine.search.decide_cube` for the cube);
    this class only turns the game into its decisions. ``evaluator_factory`` is called once.

    Raises:
        InvalidInputError: for an unknown level.
    """

    def __init__(self, level: str, seed: int | None, evaluator_factory: Callable[[], Any]) -> None:
        from backgammon.protocols.external import EnginePlayer

        self.player = EnginePlayer(evaluator_factory, level, None, seed)

    @staticmethod
    def _cube(game: Any, player: Any) -> Any:
        """The cube and score seen by ``player`` (the engine's ``CubeInfo``)."""
        from backgammon.formats.match_id import MatchState
        from backgammon.protocols.jsonlines import cube_info_from_match_state

        state = MatchState.from_game(game)
        return cube_info_from_match_state(state, player.gnubg_index, game.rules.jacoby_applies)

    def _decision(self, kind: str, game: Any, player: Any, dice: Any = None) -> Any:
        from backgammon.protocols.external import Decision

        return Decision(kind, game.board_for(player), dice, self._cube(game, player))

    def choose_play(self, game: Any) -> Any:
        from backgammon.protocols.external import MOVE

        play = self.player.play(self._decision(MOVE, game, game.turn, game.dice))
        return play if play is not None else game.legal_plays[0]  # no legal move: the empty play

    def wants_to_double(self, game: Any) -> bool:
        from backgammon.protocols.external import DOUBLE

        return self.player.doubles(self._decision(DOUBLE, game, game.turn))

    def takes(self, game: Any) -> bool:
        from backgammon.protocols.external import TAKE

        return self.player.takes(self._decision(TAKE, game, game.on_roll))  # seen from the doubler

    def accepts_resignation(self, game: Any) -> bool:
        """Accept when the offer is worth at least the game's cubeless value to the computer, or wins the match."""
        from backgammon.engine.search import evaluate_ply

        me, resigner = game.turn, game.on_roll
        offered = game.multiplier(game.resignation) * game.cube_value
        if game.rules.match_length:
            mine = game.score[0] if me.gnubg_index == 1 else game.score[1]  # score is (white, black)
            if game.rules.match_length - mine <= offered:
                return True
        chances = evaluate_ply(game.board_for(resigner), self.player.evaluator, self.player.level.plies).flip()
        return offered >= float(chances.equity()) * game.cube_value - 0.02


# ------------------------------------------------------------------- session
@dataclass
class Session:
    """A match between a person at the terminal (``me``) and the computer.

    ``ask(prompt) -> str`` reads one answer (``quit`` at the end of input); ``say`` prints a line.
    """

    match: Any
    me: Any
    computer: Any
    dice: Any
    ask: Callable[[str], str]
    say: Callable[[str], None] = print
    shown: Any = None

    # -------------------------------------------------------------- output
    def _name(self, player: Any) -> str:
        return "you" if player is self.me else "the computer"

    def _score(self) -> str:
        match, me = self.match, self.me
        mine, theirs = match.score_of(me), match.score_of(me.other)
        if match.is_money:
            return f"you {mine}, computer {theirs} (money game)"
        crawford = ", Crawford game: no doubling" if match.is_crawford_game else ""
        return f"you {mine}, computer {theirs} ({match.match_length}-point match{crawford})"

    def _cube(self) -> str:
        game = self.match.game
        if not game.rules.uses_cube:
            return "no cube"
        owner = "centred" if game.cube_owner is None else ("yours" if game.cube_owner is self.me else "the computer's")
        return f"{game.cube_value}, {owner}"

    def show_board(self, force: bool = False) -> None:
        from backgammon.render import ascii_board

        game = self.match.game
        board = game.board_for(self.me)
        if board == self.shown and not force:
            return
        self.shown = board
        self.say("")
        self.say(ascii_board(board, x_name=f"You (X, {str(self.me).lower()})", o_name="Computer (O)"))
        self.say(f"Score: {self._score()}.  Cube: {self._cube()}.")

    def _result(self, game: Any) -> str:
        from backgammon.game import Ending

        result = game.result
        if result.winner is None:
            return "The game is drawn."
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[result.kind.value if result.kind else 1]
        points = f"{result.points} point{'s' if result.points != 1 else ''}"
        how = {Ending.RESIGNED: " by resignation", Ending.PASSED: ": the double was passed"}.get(result.ending, "")
        who = "You win" if result.winner is self.me else "The computer wins"
        if result.ending is Ending.PASSED:
            return f"{who} {points}{how}."
        return f"{who} {kind}{how}: {points}."

    # ---------------------------------------------------------------- input
    def _choose(self, prompt: str, words: dict[str, str], topic: str) -> str:
        """Ask until the answer is one of ``words``; unknown answers get a short help."""
        while True:
            answer = " ".join(self.ask(prompt).strip().lower().split())
            choice = words.get(answer)
            if choice == "help":
                self.say(HELP[topic])
                continue
            if choice is not None:
                return choice
            self.say(f"unknown answer {answer!r}. {HELP[topic]}")

    # --------------------------------------------------------------- the loop
    def run(self) -> None:
        """Play until the match ends (one game for money) or the person quits."""
        games_seen = 0
        while not self.match.is_over:
            if self.match.is_money and self.match.games:
                break
            if len(self.match.games) != games_seen:
                games_seen = len(self.match.games)
                self.say("")
                self.say(f"{self._result(self.match.games[-1])} Score: {self._score()}.")
            if not self._step():
                self.say("Game abandoned.")
                return
        if self.match.games:
            self.say("")
            self.say(f"{self._result(self.match.games[-1])} Final score: {self._score()}.")
        if self.match.winner is not None:
            self.say("You win the match!" if self.match.winner is self.me else "The computer wins the match.")

    def _apply(self, action: Any) -> bool:
        try:
            self.match = self.match.apply(action)
        except BackgammonError as exc:
            self.say(f"error: {exc}")
            return False
        return True

    def _step(self) -> bool:
        """One action by whoever is to act; False when the person quits."""
        from backgammon.game import GamePhase, OpeningRoll

        game = self.match.game
        if game.phase is GamePhase.OPENING:
            action = game.roll_action(self.dice)
            assert isinstance(action, OpeningRoll)
            self.match = self.match.apply(action)
            mine, theirs = (action.white_die, action.black_die)
            assert mine is not None and theirs is not None  # roll_action rolled both dice
            if self.me.value == "black":
                mine, theirs = theirs, mine
            self.say("")
            if self.match.game.phase is GamePhase.OPENING:
                self.say(f"Opening roll: you {mine}, computer {theirs}: a tie, roll again.")
                return True
            first = "you play" if self.match.game.turn is self.me else "the computer plays"
            self.say(f"Opening roll: you {mine}, computer {theirs}: {first} {max(mine, theirs)}-{min(mine, theirs)}.")
            return True
        if game.turn is not self.me:
            self._computer_acts(game)
            return True
        handler = {
            GamePhase.ROLL: self._my_roll,
            GamePhase.MOVE: self._my_move,
            GamePhase.DOUBLED: self._my_answer_to_double,
        }[game.phase]  # the computer never resigns, and this command starts no casual games (no draws)
        return handler(game)

    def _computer_acts(self, game: Any) -> None:
        from backgammon.game import (
            AcceptResignation,
            Double,
            GamePhase,
            Move,
            Pass,
            RejectResignation,
            Take,
        )

        them, phase = self.me.other, game.phase
        if phase is GamePhase.ROLL:
            if game.may_double(them) and self._useful_double(game, them) and self.computer.wants_to_double(game):
                self.match = self.match.apply(Double(them))  # announced by the take-or-pass prompt
            else:
                self.match = self.match.apply(game.roll_action(self.dice))
        elif phase is GamePhase.MOVE:
            play = self.computer.choose_play(game)
            self.match = self.match.apply(Move(them, play))
            what = f"plays {play}" if str(play) else "has no legal move"
            self.say(f"The computer has {_dice(game.dice)} and {what}.")
        elif phase is GamePhase.DOUBLED:
            if self.computer.takes(game):
                self.match = self.match.apply(Take(them))
                self.say(f"The computer takes: the cube is at {game.cube_value * 2}, the computer's to turn.")
            else:
                self.match = self.match.apply(Pass(them))
                self.say("The computer passes.")
        else:  # a resignation offered by the person
            if self.computer.accepts_resignation(game):
                self.match = self.match.apply(AcceptResignation(them))
                self.say("The computer accepts your resignation.")
            else:
                self.match = self.match.apply(RejectResignation(them))
                self.say("The computer rejects your resignation: play on.")

    def _useful_double(self, game: Any, player: Any) -> bool:
        """False where the cube is dead for ``player``: a match where a win at the current cube already wins it."""
        if not game.rules.match_length:
            return True
        return self.match.away(player) > game.cube_value

    def _my_roll(self, game: Any) -> bool:
        from backgammon.game import Double

        self.show_board()
        can_double = game.may_double(self.me) and self._useful_double(game, self.me)
        prompt = "Your turn: roll (Enter), " + ("double, " if can_double else "") + "resign, board, help or quit? "
        choice = self._choose(prompt, ROLL_WORDS, "roll")
        if choice == QUIT:
            return False
        if choice == "board":
            self.show_board(force=True)
        elif choice == "resign":
            return self._resign(game)
        elif choice == "double":
            if game.may_double(self.me) and not can_double:
                self.say(
                    f"error: doubling gains you nothing: you need {self.match.away(self.me)} point(s) to win "
                    f"the match and the cube is at {game.cube_value}"
                )
            elif self._apply(Double(self.me)):
                self.say(f"You double to {game.cube_value * 2}.")
        else:
            self._apply(game.roll_action(self.dice))
        return True

    def _my_move(self, game: Any) -> bool:
        from backgammon.game import Move

        if len(game.legal_plays) == 1:
            play = game.legal_plays[0]
            self.say(f"You have {_dice(game.dice)}: " + (f"forced move {play}." if str(play) else "no legal move."))
            self._apply(Move(self.me, play))
            return True
        self.show_board()
        answer = self.ask(f"You have {_dice(game.dice)}. Your move (or resign, board, help, quit): ").strip()
        word = MOVE_WORDS.get(answer.lower())
        if word == QUIT:
            return False
        if word == "help":
            self.say(HELP["move"])
        elif word == "board":
            self.show_board(force=True)
        elif word == "resign":
            return self._resign(game)
        elif not answer:
            self.say(f"error: no move given. {HELP['move']}")
        else:
            try:
                self.match = self.match.apply(Move(self.me, game.play_from_text(answer)))
            except BackgammonError as exc:
                self.say(f"error: {exc}. Type 'help' for help.")
        return True

    def _resign(self, game: Any) -> bool:
        """Ask the level and offer the resignation; False when the person quits."""
        from backgammon.game import Resign, ResultKind

        cube = game.cube_value
        options = ", ".join(
            f"{kind.name.lower()} ({game.multiplier(kind) * cube} "
            f"point{'s' if game.multiplier(kind) * cube != 1 else ''})"
            for kind in ResultKind
        )
        choice = self._choose(f"Resign which: {options}, or cancel? ", LEVEL_WORDS, "level")
        if choice == QUIT:
            return False
        if choice == "cancel":
            self.say("Resignation cancelled.")
            return True
        kind = ResultKind[choice.upper()]
        if self._apply(Resign(self.me, kind)):
            points = game.multiplier(kind) * cube
            what = "a single game" if kind is ResultKind.SINGLE else f"a {choice}"
            self.say(f"You offer to resign {what} ({points} point{'s' if points != 1 else ''}).")
        return True

    def _my_answer_to_double(self, game: Any) -> bool:
        from backgammon.game import Beaver, Pass, Take

        beaver = game.is_legal(Beaver(self.me))
        prompt = f"The computer doubles to {game.cube_value * 2}: take or pass{' (or beaver)' if beaver else ''}? "
        choice = self._choose(prompt, DOUBLE_WORDS, "double")
        if choice == QUIT:
            return False
        action = {"take": Take, "pass": Pass, "beaver": Beaver}[choice](self.me)
        if self._apply(action):
            self.say({"take": "You take.", "pass": "You pass.", "beaver": "You beaver."}[choice])
        return True


def _dice(dice: tuple[int, int]) -> str:
    """A roll as players write it, the higher die first: ``6-4``."""
    return f"{max(dice)}-{min(dice)}"


def _ask(prompt: str) -> str:
    """One line from stdin; ``quit`` at the end of input."""
    try:
        return input(prompt)
    except EOFError:
        print()
        return QUIT


def play(
    level: str = typer.Option(
        "intermediate",
        "--level",
        help="the computer's level: beginner, casual, intermediate, advanced, expert, world_class or supremo",
    ),
    length: int = typer.Option(1, "--length", help=f"match length, 1 to {MAX_LENGTH} (0 = one money game)"),
    seed: int = typer.Option(None, "--seed", help="seed the dice and the computer's choices (0 or more)"),
    color: str = typer.Option("white", "--color", help="your colour: white or black"),
) -> None:
    """Play against the computer in the terminal (moves like 24/18 13/11; 'help' at any prompt)."""
    from backgammon.cli.engine_cmds import load_evaluator
    from backgammon.dice import RandomDice
    from backgammon.game import Player, Rules, check_match_length
    from backgammon.match import Match

    check_match_length(length, limit=MAX_LENGTH)
    if color.strip().lower() not in ("white", "black"):
        raise InvalidInputError(f"invalid colour {color!r}: expected white or black")
    if seed is not None and seed < 0:
        raise InvalidInputError(f"invalid seed {seed!r}: expected 0 or more")
    from backgammon.engine.levels import get_level

    get_level(level)  # an unknown level stops here, before anything is loaded
    me = Player.WHITE if color.strip().lower() == "white" else Player.BLACK
    computer = Computer(level, seed, load_evaluator)
    computer.player.evaluator  # noqa: B018 - load the engine now: a missing one is an error before the game
    names = ("You", "Computer") if me is Player.WHITE else ("Computer", "You")
    session = Session(Match.new(Rules(match_length=length), players=names), me, computer, RandomDice(seed), _ask)
    session.run()
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("play")(play)
