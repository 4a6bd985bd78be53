"""``backgammon play``: a match against the computer in the terminal.

Built on the rules core (:class:`backgammon.match.Match`, :mod:`backgammon.render`) and the
computer player that the web site's tables use too (:mod:`backgammon.engine.players`: an
:class:`~backgammon.engine.players.EngineAgent` at the chosen level, asked through
:func:`~backgammon.engine.players.decide`); it needs no web server, so it works with the base
install. Every prompt accepts a fixed set of words (see :data:`HELP`);
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
def make_computer(level: str, seed: int | None, evaluator_factory: Callable[[], Any]) -> Any:
    """The computer player: the engine at ``level`` (:class:`~backgammon.engine.players.EngineAgent`
    over ``evaluator_factory``'s evaluator, called once), which raises instead of playing on
    without the engine.

    Raises:
        InvalidInputError: for an unknown level.
    """
    from backgammon.engine.players import EngineAgent

    return EngineAgent(level, seed, evaluator_factory=evaluator_factory, fall_back=False)


# ------------------------------------------------------------------- session
@dataclass
class Session:
    """A match between a person at the terminal (``me``) and the computer.

    ``computer`` is an :class:`~backgammon.engine.players.Agent`; ``ask(prompt) -> str`` reads one
    answer (``quit`` at the end of input); ``say`` prints a line.
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
        """The computer's action (:func:`backgammon.engine.players.decide`), applied and told."""
        from backgammon.engine.players import decide
        from backgammon.game import AcceptResignation, Move, Pass, RejectResignation, Roll, Take

        action = decide(self.computer, game, self.me.other, post_crawford=self.match.is_post_crawford)
        if isinstance(action, Roll):
            action = game.roll_action(self.dice)
        self.match = self.match.apply(action)
        if isinstance(action, Move):
            what = f"plays {action.play}" if str(action.play) else "has no legal move"
            self.say(f"The computer has {_dice(game.dice)} and {what}.")
        elif isinstance(action, Take):
            self.say(f"The computer takes: the cube is at {game.cube_value * 2}, the computer's to turn.")
        elif isinstance(action, Pass):
            self.say("The computer passes.")
        elif isinstance(action, AcceptResignation):
            self.say("The computer accepts your resignation.")
        elif isinstance(action, RejectResignation):
            self.say("The computer rejects your resignation: play on.")
        # a roll says nothing (the move tells its dice); a double is announced by the take-or-pass prompt

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
    computer = make_computer(level, seed, load_evaluator)
    computer.load()  # load the engine now: a missing one is an error before the game
    names = ("You", "Computer") if me is Player.WHITE else ("Computer", "You")
    session = Session(Match.new(Rules(match_length=length), players=names), me, computer, RandomDice(seed), _ask)
    session.run()
    sys.stdout.flush()


def register(app: typer.Typer) -> None:
    app.command("play")(play)
