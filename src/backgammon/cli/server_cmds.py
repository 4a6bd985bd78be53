"""Web platform subcommands: ``serve`` (the web app) and ``play`` (a terminal game against the computer)."""

from __future__ import annotations

from pathlib import Path

import typer

from backgammon.errors import BackgammonError, InvalidInputError


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    port: int = typer.Option(8000, "--port", help="port to listen on"),
    data_dir: str = typer.Option("data", "--data-dir", help="folder for the SQLite database"),
    database_url: str = typer.Option(
        None, "--database-url", help="e.g. postgresql://user:pw@host/db (default: SQLite in the data folder)"
    ),
    dice_seed: int = typer.Option(None, "--dice-seed", help="seed every table's dice (tests only)"),
    test_hooks: bool = typer.Option(
        False, "--test-hooks", help="allow tables that start from a given position (tests only)"
    ),
    bot_delay: float = typer.Option(0.4, "--bot-delay", help="seconds the computer waits before acting"),
    workers: int = typer.Option(1, "--workers", help="server processes (more than 1 needs PostgreSQL)"),
) -> None:
    """Start the web app (http://127.0.0.1:8000 by default)."""
    import uvicorn

    from backgammon.server.app import ServerConfig, create_app

    if not 0 < port < 65536:
        raise InvalidInputError(f"invalid port {port!r}: expected 1 to 65535")
    check_workers(workers, database_url)
    config = ServerConfig(
        data_dir=Path(data_dir),
        database_url=database_url,
        dice_seed=dice_seed,
        test_hooks=test_hooks,
        bot_delay=bot_delay,
    )
    print(f"backgammon: serving on http://{host}:{port}/" + (f" ({workers} processes)" if workers > 1 else ""), flush=True)
    if workers == 1:
        uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
        return
    import os

    from backgammon.server.app import CONFIG_ENV, config_to_env

    os.environ[CONFIG_ENV] = config_to_env(config)  # each worker builds its app from these settings
    uvicorn.run(
        "backgammon.server.app:app_from_env", factory=True, workers=workers, host=host, port=port, log_level="warning"
    )


def check_workers(workers: int, database_url: str | None) -> None:
    """Refuse more than one process where the tables cannot be shared.

    Raises:
        InvalidInputError: for fewer than 1 process, or several on SQLite (one process only: several
            processes share tables through PostgreSQL; see README, "Several processes").
    """
    if workers < 1:
        raise InvalidInputError(f"invalid --workers {workers!r}: expected 1 or more")
    if workers > 1 and (not database_url or not database_url.startswith("postgresql")):
        raise InvalidInputError(
            f"--workers {workers} needs PostgreSQL: SQLite serves one process only; "
            "give --database-url postgresql://... or run with --workers 1"
        )


def play(
    level: str = typer.Option("intermediate", "--level", help="the computer's level"),
    length: int = typer.Option(1, "--length", help="match length (0 = one money game)"),
    seed: int = typer.Option(None, "--seed", help="seed the dice"),
    color: str = typer.Option("white", "--color", help="your colour: white or black"),
) -> None:
    """Play against the computer in the terminal (type moves like 24/18 13/11; 'double', 'resign', 'quit')."""
    from backgammon.dice import RandomDice
    from backgammon.game import Double, GamePhase, Move, Pass, Player, Resign, ResultKind, Roll, Rules, Take
    from backgammon.server.agents import make_agent
    from backgammon.server.matchflow import new_match
    from backgammon.server.tables import decide

    if not 0 <= length <= 25:
        raise InvalidInputError(f"invalid match length {length!r}: expected 0 to 25")
    if color not in ("white", "black"):
        raise InvalidInputError(f"invalid colour {color!r}: expected white or black")
    me = Player.WHITE if color == "white" else Player.BLACK
    dice = RandomDice(seed)
    agent = make_agent(level, seed)
    flow = new_match(Rules(match_length=length))
    games_seen = 0
    shown = None
    while not flow.is_over:
        game = flow.game
        if length == 0 and flow.games:
            break
        if len(flow.games) != games_seen:
            games_seen = len(flow.games)
            print(f"\n{flow.games[-1].result}. Score: White {flow.score[0]}, Black {flow.score[1]}")
        if game.phase is GamePhase.OPENING:
            from backgammon.game import OpeningRoll

            flow = flow.apply(OpeningRoll(dice.die(), dice.die()))
            continue
        if game.turn is not me:
            action = decide(agent, game, me.other)
            if isinstance(action, Roll):
                action = Roll(me.other, dice.roll())
            if isinstance(action, Move):
                print(f"Computer plays {game.dice[0]}{game.dice[1]}: {action.play or '(no move)'}")
            elif not isinstance(action, Roll):
                print(f"Computer: {type(action).__name__.lower()}")
            flow = flow.apply(action)
            continue
        if game.phase is GamePhase.ROLL:
            shown = _show(game.board_for(me), me, shown)
            answer = _ask("roll (enter), double, resign, quit: ")
            if answer in ("quit", "q"):
                return
            try:
                if answer == "double":
                    flow = flow.apply(Double(me))
                elif answer == "resign":
                    flow = flow.apply(Resign(me, ResultKind.SINGLE))
                else:
                    flow = flow.apply(Roll(me, dice.roll()))
            except BackgammonError as exc:
                print(f"error: {exc}")
            continue
        if game.phase is GamePhase.DOUBLED:
            answer = _ask(f"Computer doubles to {game.cube_value * 2}: take or pass? ")
            flow = flow.apply(Pass(me) if answer.startswith("p") else Take(me))
            continue
        if game.phase is GamePhase.MOVE:
            if len(game.legal_plays) == 1:
                play = game.legal_plays[0]
                print(f"You roll {game.dice[0]}{game.dice[1]}: forced {play or '(no move)'}")
                flow = flow.apply(Move(me, play))
                continue
            shown = _show(game.board_for(me), me, shown)
            text = _ask(f"You roll {game.dice[0]}{game.dice[1]}. Your move: ")
            if text in ("quit", "q"):
                return
            try:
                flow = flow.apply(Move(me, game.play_from_text(text)))
            except BackgammonError as exc:
                print(f"error: {exc}")
            continue
        # resignation / draw answers by the human: accept
        answer = _ask(f"{game.describe()} (accept/reject): ")
        from backgammon.game import AcceptResignation, RejectResignation

        flow = flow.apply(AcceptResignation(me) if answer.startswith("a") else RejectResignation(me))
    if flow.games:
        print(f"\n{flow.games[-1].result}. Final score: White {flow.score[0]}, Black {flow.score[1]}")
    if flow.winner is not None:
        print("You win the match!" if flow.winner is me else "The computer wins the match.")


def _show(board, me, shown):
    """Print the board unless it is the one printed last; return it."""
    from backgammon.render import ascii_board

    if board != shown:
        print()
        print(ascii_board(board, x_name=f"You ({me})", o_name="Computer"))
    return board


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip().lower()
    except EOFError:
        return "quit"


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("play")(play)
