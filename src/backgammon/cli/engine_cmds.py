"""Engine subcommands: ``hint``, ``eval``, ``rollout``, ``analyze`` and ``engine`` (plus ``train``).

The evaluator is the engine's network (``NetEvaluator.default()``, shipped weights);
the environment variable ``BACKGAMMON_EVALUATOR=module:factory`` names
another one (a callable returning an object with ``evaluate_boards``), for
tests and experiments.

``register(app)`` adds the play/analysis commands of this module and the
training command (``register_train`` of :mod:`backgammon.cli.train_cmds`).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any

import typer

from backgammon.cli.train_cmds import register_train
from backgammon.errors import EngineError, InvalidInputError
from backgammon.position import Position


def load_evaluator() -> Any:
    """The evaluator used by the commands (see the module docstring).

    Raises:
        EngineError: if no evaluator can be loaded.
    """
    spec = os.environ.get("BACKGAMMON_EVALUATOR")
    if spec:
        module_name, _, attr = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr or "default_evaluator")
        except (ImportError, AttributeError) as exc:
            raise EngineError(f"cannot load evaluator {spec!r}: {exc}") from None
        return factory()
    from backgammon.engine.evaluator import NetEvaluator

    return NetEvaluator.default()


def _cube_info(
    match_id: str | None, xgid: str | None, position: Position | None, jacoby: bool
) -> tuple[Position | None, Any]:
    from backgammon.engine.cube import CubeInfo
    from backgammon.protocols.jsonlines import cube_info_from_match_state, parse_match_id, parse_xgid

    if match_id and xgid:
        raise InvalidInputError("give either --match-id or --xgid, not both")
    if xgid:
        position, state = parse_xgid(xgid)
        return position, cube_info_from_match_state(state, state.dice_owner, jacoby)
    if match_id:
        state = parse_match_id(match_id)
        return position, cube_info_from_match_state(state, state.dice_owner, jacoby)
    return position, CubeInfo.money(jacoby=jacoby)


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def hint(
    position_id: str = typer.Argument(..., help="GNU Backgammon Position ID (player on roll first)"),
    dice: str = typer.Argument(..., help="the roll, e.g. 31 or 3-1"),
    plies: int = typer.Option(0, "--plies", help="search depth (0, 1 or 2)"),
    rollout: int = typer.Option(0, "--rollout", help="roll out the best candidates with this many trials"),
    candidates: int = typer.Option(5, "--candidates", help="plays to roll out (with --rollout)"),
    truncate: int = typer.Option(0, "--truncate", help="truncate rollouts after this many plies (0: play out)"),
    seed: int = typer.Option(0, "--seed", help="rollout seed"),
    match_id: str = typer.Option(None, "--match-id", help="gnubg Match ID: rank by cubeful equity at that score"),
    jacoby: bool = typer.Option(False, "--jacoby", help="money play with the Jacoby rule"),
    cubeless: bool = typer.Option(False, "--cubeless", help="rank by cubeless equity instead of cubeful"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Rank the legal plays for a roll: equity and win/gammon chances, each with its depth and kind.

    Plays are ranked by cubeful equity: money with a centred cube, or with --match-id at that
    cube and score (EMG); --cubeless ranks by cubeless money equity. Plays dropped by the move
    filters are listed below the deepest ones, at the depth they reached.
    """
    from backgammon.cli.core import parse_dice
    from backgammon.engine.search import EvalContext, rank_plays
    from backgammon.protocols.jsonlines import candidate_json

    position = Position.from_position_id(position_id)
    d1, d2 = parse_dice(dice)
    cube = None if cubeless else _cube_info(match_id, None, position, jacoby)[1]
    if plies not in (0, 1, 2):
        raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
    if rollout < 0 or candidates < 1 or truncate < 0:
        raise InvalidInputError("invalid rollout options: expected non-negative trials/truncation and candidates >= 1")
    evaluator = load_evaluator()
    ranked = rank_plays(position, (d1, d2), EvalContext(evaluator, plies, cube))
    rows: list[dict[str, Any]] = [{**candidate_json(r), "label": r.label} for r in ranked]
    if rollout:
        from backgammon.engine.rollout import RolloutSettings, rollout_plays

        if match_id:
            raise InvalidInputError("--rollout with --match-id is not supported: rollouts here are cubeless money")
        settings = RolloutSettings(trials=rollout, truncate=truncate or None, seed=seed, workers=0)
        top = [r.play for r in ranked[:candidates]]
        with _progress("rollout", rollout * len(top), as_json) as advance:
            results = rollout_plays(position, (d1, d2), evaluator, settings, top, progress=advance)
        rows = [
            {
                "play": str(r.play),
                "position_id": r.play.position.position_id(),
                "equity": r.result.equity,
                "equity_ci95": r.result.equity_ci95,
                "probabilities": list(r.result.probabilities),
                "trials": r.result.trials,
                "kind": "cubeless",
                "label": f"cubeless rollout, {r.result.trials} trials",
            }
            for r in results
        ]
    for row in rows:
        row["move"] = row["play"]  # the older name of the field
    if as_json:
        doc = {"position_id": position.position_id(), "dice": [d1, d2], "plies": plies, "cubeful": cube is not None}
        print(json.dumps({**doc, "plays": rows}))
        return
    best, top_plies = rows[0]["equity"], rows[0].get("plies")
    header = (
        f"{'#':>3} {'play':<24}{'equity':>9}{'diff':>8}  {'win':>6} {'w.g':>6} {'w.bg':>6} {'l.g':>6} {'l.bg':>6}"
        "  depth and kind"
    )
    print(header)
    for i, row in enumerate(rows, 1):
        w, wg, wb, lg, lb = row["probabilities"]
        extra = f" +-{row['equity_ci95']:.3f}" if "equity_ci95" in row else ""
        # a difference only against plays of the same depth (those the filters dropped come last)
        diff = f"{row['equity'] - best:>+8.3f}" if row.get("plies") == top_plies else f"{'':>8}"
        print(
            f"{i:>3} {row['play'] or '(no legal move)':<24}{row['equity']:>+9.3f}{diff}  "
            f"{_pct(w)} {_pct(wg)} {_pct(wb)} {_pct(lg)} {_pct(lb)}  {row['label']}{extra}"
        )


def eval_cmd(
    position_id: str = typer.Argument("", help="GNU Backgammon Position ID (omit with --xgid)"),
    match_id: str = typer.Option(None, "--match-id", help="gnubg Match ID: adds the cube decision at that score"),
    xgid: str = typer.Option(None, "--xgid", help="an XGID (position, cube and score) instead of the IDs"),
    jacoby: bool = typer.Option(False, "--jacoby", help="money play with the Jacoby rule"),
    plies: int = typer.Option(0, "--plies", help="evaluation depth (0, 1 or 2)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Evaluate a position: probabilities, cubeless equity and (with a Match ID or XGID) the cube decision."""
    from backgammon.engine.search import EvalContext, decide_cube
    from backgammon.protocols.jsonlines import decision_json

    position = Position.from_position_id(position_id) if position_id else None
    if position is None and not xgid:
        raise InvalidInputError("missing position: give a Position ID or --xgid")
    position, info = _cube_info(match_id, xgid, position, jacoby)
    assert position is not None
    if position.is_game_over():
        raise InvalidInputError(f"the game is over in position {position.position_id()!r}")
    if plies not in (0, 1, 2):
        raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
    analysed = decide_cube(position, EvalContext(load_evaluator(), plies, info))
    decision, p = analysed.decision, analysed.probabilities
    probs = (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)
    with_cube = bool(match_id or xgid or jacoby)
    if as_json:
        doc: dict[str, Any] = {
            "position_id": position.position_id(),
            "probabilities": list(probs),
            "equity": decision.cubeless_equity,
            # the position's one cubeful number: after the right cube action of the side on roll (what a
            # hint's play that leaves this position shows, negated); the no-double figure is in "no_double"
            "cubeful_equity": analysed.equity,
            "no_double": decision.no_double,
            "plies": analysed.plies,
            "kind": analysed.kind,
        }
        if with_cube:
            doc["cube"] = decision_json(decision)
        print(json.dumps(doc))
        return
    w, wg, wb, lg, lb = probs
    print(
        f"position {position.position_id()}  "
        f"({'money' if info.is_money else f'{info.away[0]}-away/{info.away[1]}-away'})"
    )
    print(f"win {_pct(w)}  win gammon {_pct(wg)}  win bg {_pct(wb)}  lose gammon {_pct(lg)}  lose bg {_pct(lb)}")
    print(
        f"{plies}-ply cubeless equity {decision.cubeless_equity:+.3f}   "
        f"{analysed.label} {analysed.equity:+.3f} ({decision.action.value}; no double {decision.no_double:+.3f})"
    )
    if with_cube:
        print(
            f"cube: {decision.action.value}  (no double {decision.no_double:+.3f}, double/take "
            f"{decision.double_take:+.3f}, double/pass {decision.double_pass:+.3f}; receiver should "
            f"{'take' if decision.take else 'pass'})"
        )


class _progress:
    """A rich progress bar on stderr (quiet when asked or when stderr is not a terminal)."""

    def __init__(self, label: str, total: int, quiet: bool) -> None:
        self.label, self.total, self.quiet = label, total, quiet or not sys.stderr.isatty()
        self.offset = 0
        self.last = 0

    def __enter__(self) -> Any:
        if self.quiet:
            return lambda done, total: None
        from rich.progress import Progress

        self.bar = Progress(transient=True)
        self.bar.__enter__()
        self.task = self.bar.add_task(self.label, total=self.total)

        def advance(done: int, total: int) -> None:
            if done < self.last:  # a new batch of candidates
                self.offset += self.last
            self.last = done
            self.bar.update(self.task, completed=self.offset + done)

        return advance

    def __exit__(self, *exc: object) -> None:
        if not self.quiet:
            self.bar.__exit__(None, None, None)


def rollout_cmd(
    position_id: str = typer.Argument(..., help="GNU Backgammon Position ID"),
    dice: str = typer.Argument("", help="a roll: roll out every legal play for it (else the position itself)"),
    trials: int = typer.Option(1296, "--trials", help="games per candidate"),
    truncate: int = typer.Option(0, "--truncate", help="plies before evaluating (0: play to the end)"),
    seed: int = typer.Option(0, "--seed", help="dice seed: same seed, same result"),
    ply: int = typer.Option(0, "--ply", help="lookahead of the plays chosen in the trials: 0 or 1 (slower, stronger)"),
    workers: int = typer.Option(0, "--workers", help="processes (0: one per CPU)"),
    cluster: str = typer.Option(None, "--cluster", help="Ray cluster address (needs the 'cluster' extra)"),
    cubeful: bool = typer.Option(False, "--cubeful", help="play the cube too (money, centred cube by default)"),
    match_id: str = typer.Option(None, "--match-id", help="gnubg Match ID: cubeful rollout at that cube and score"),
    variance_reduction: bool = typer.Option(
        True, "--variance-reduction/--no-variance-reduction", help="subtract each roll's luck (default: on)"
    ),
    stop_confidence: float = typer.Option(
        0.0, "--stop-confidence", help="with DICE: stop once the best play is separated at this confidence (e.g. 0.95)"
    ),
    min_trials: int = typer.Option(144, "--min-trials", help="trials before --stop-confidence may stop"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Roll out a position (or every play for a roll): means, standard errors and 95% intervals.

    Trials are variance-reduced (each roll's luck subtracted) unless --no-variance-reduction.
    With DICE, every legal play is rolled out on the same dice and listed best first with its
    difference from the best and that difference's 95% interval; --stop-confidence 0.95 stops
    once the best play's difference from every other excludes zero at 95% (after --min-trials).
    With --cubeful or --match-id the cube is played too; the cubeful result is money points per
    cube, or the match-winning chance of the player on roll (--match-id).
    """
    from backgammon.cli.core import parse_dice
    from backgammon.engine.cube import CubeInfo
    from backgammon.engine.rollout import OUTPUT_NAMES, RolloutSettings, rollout_plays, rollout_position

    position = Position.from_position_id(position_id)
    cube = _cube_info(match_id, None, position, False)[1] if match_id else CubeInfo.money()
    if stop_confidence and not dice:
        raise InvalidInputError("--stop-confidence needs a roll: it stops once the best play for it is separated")
    settings = RolloutSettings(
        trials=trials,
        truncate=truncate or None,
        seed=seed,
        ply=ply,
        workers=workers,
        cluster=cluster,
        cubeful=cubeful or bool(match_id),
        cube=cube,
        variance_reduction=variance_reduction,
        stop_confidence=stop_confidence or None,
        min_trials=min_trials,
    )
    evaluator = load_evaluator()
    diffs: list[tuple[float, float] | None]
    if dice:
        d1, d2 = parse_dice(dice)
        count = len(position.legal_plays(d1, d2))
        with _progress("rollout", trials * count, as_json) as advance:
            plays = rollout_plays(position, (d1, d2), evaluator, settings, progress=advance)
        results = [(str(r.play), r.result) for r in plays]
        diffs = [(r.diff, r.diff_ci95) for r in plays]
    else:
        with _progress("rollout", trials, as_json) as advance:
            results = [("", rollout_position(position, evaluator, settings, progress=advance))]
        diffs = [None]
    unit = "points per cube" if settings.cube.is_money else "match winning chance"
    if as_json:
        doc = [
            {
                "move": move,
                "trials": r.trials,
                "mean": dict(zip(OUTPUT_NAMES, r.mean)),
                "se": dict(zip(OUTPUT_NAMES, r.se)),
                "ci95": dict(zip(OUTPUT_NAMES, r.ci95)),
                **(
                    {
                        "cubeful": r.cubeful,
                        "cubeful_se": r.cubeful_se,
                        "cubeful_ci95": r.cubeful_ci95,
                        "cubeful_unit": unit,
                    }
                    if r.cubeful is not None
                    else {}
                ),
                **({"diff": diff[0], "diff_ci95": diff[1]} if diff is not None else {}),
            }
            for (move, r), diff in zip(results, diffs)
        ]
        print(
            json.dumps(
                {
                    "position_id": position.position_id(),
                    "seed": seed,
                    "variance_reduction": variance_reduction,
                    "stop_confidence": stop_confidence or None,
                    "trials_asked": trials,
                    "results": doc,
                }
            )
        )
        return
    print(
        f"{'play':<24}{'trials':>7}{'equity':>9}{'s.e.':>7}{'+-95%':>7}{'diff':>8}{'+-95%':>7}  "
        f"{'win':>6} {'w.g':>6} {'w.bg':>6} {'l.g':>6} {'l.bg':>6}"
    )
    for (move, r), diff in zip(results, diffs):
        w, wg, wb, lg, lb = r.probabilities
        if r.cubeful is None:
            cube = ""
        elif settings.cube.is_money:
            cube = f"  cubeful {r.cubeful:+.3f} s.e. {r.cubeful_se:.3f} +-{r.cubeful_ci95:.3f}"
        else:
            cube = f"  match winning chance {r.cubeful:.3f} s.e. {r.cubeful_se:.3f} +-{r.cubeful_ci95:.3f}"
        gap = f"{-diff[0]:>+8.3f}{diff[1]:>7.3f}" if diff is not None and diff[0] else f"{'':>15}"
        print(
            f"{move or '(position)':<24}{r.trials:>7}{r.equity:>+9.3f}{r.equity_se:>7.3f}{r.equity_ci95:>7.3f}{gap}  "
            f"{_pct(w)} {_pct(wg)} {_pct(wb)} {_pct(lg)} {_pct(lb)}{cube}"
        )
    stopped = results[0][1].trials
    note = "variance-reduced (luck subtracted)" if variance_reduction else "plain (no variance reduction)"
    if stop_confidence and stopped < trials:
        note += f"; stopped after {stopped} of {trials} trials: best play separated at {stop_confidence:.0%}"
    print(note)


def analyze(
    paths: list[str] = typer.Argument(..., help="one or more Jellyfish .mat match files"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
    errors_only: bool = typer.Option(False, "--errors", help="list only decisions with an error"),
    plies: int = typer.Option(0, "--plies", help="search depth for judging plays (0, 1 or 2)"),
    luck: bool = typer.Option(False, "--luck", help="also rate each roll's luck"),
) -> None:
    """Analyse matches: every play and cube decision of both players, errors and totals.

    Several files are analysed in one process (the engine loads once): a report per file, then a
    table of every file and the total. A file that cannot be read is named on stderr and the
    others are still analysed (exit status 2 at the end)."""
    from backgammon.engine.analysis import analyze_mat_file, batch_json, batch_text, report_json, report_text

    if plies not in (0, 1, 2):
        raise InvalidInputError(f"invalid plies {plies!r}: expected 0, 1 or 2")
    evaluator = load_evaluator()
    if len(paths) == 1:
        report = analyze_mat_file(paths[0], evaluator, plies=plies, luck=luck)
        print(json.dumps(report_json(report)) if as_json else report_text(report, errors_only=errors_only))
        return
    import time

    done = []
    failed = []
    for path in paths:
        started = time.perf_counter()
        try:
            report = analyze_mat_file(path, evaluator, plies=plies, luck=luck)
        except InvalidInputError as exc:
            failed.append((path, str(exc).replace("\n", " ")))
            print(f"error: {path}: {failed[-1][1]}", file=sys.stderr)
            continue
        done.append((path, report, time.perf_counter() - started))
        if not as_json:
            print(f"== {path}")
            print(report_text(report, errors_only=errors_only))
            print()
    if as_json:
        print(json.dumps(batch_json(done, failed)))
    else:
        print(batch_text(done))
    if failed:
        raise typer.Exit(2)


def engine() -> None:
    """Line protocol on stdin/stdout: one JSON request per line, one JSON answer per line."""
    from backgammon.protocols.jsonlines import request_lines, serve

    # bytes in, ASCII out: no locale can make a request line undecodable or an answer unprintable
    serve(request_lines(sys.stdin.buffer), sys.stdout, load_evaluator)


def external(
    port: int = typer.Option(0, "--port", help="TCP port to listen on (0: any free port, printed at start)"),
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
    unix_socket: str = typer.Option(None, "--socket", help="listen on this Unix socket path instead of TCP"),
    level: str = typer.Option(None, "--level", help="engine level (default: the strongest)"),
    plies: int = typer.Option(None, "--plies", help="search depth 0, 1 or 2 (replaces the level's)"),
    seed: int = typer.Option(None, "--seed", help="seed of the level's noise"),
    once: bool = typer.Option(False, "--once", help="stop after the first connection"),
    log_file: str = typer.Option(None, "--log", help="append one JSON line per decision to this file"),
    dialect: str = typer.Option("gnubg", "--dialect", help="score fields as gnubg 1.07 writes them, or as FIBS: fibs"),
) -> None:
    """Serve gnubg's external player interface: in gnubg, `set player 0 external HOST:PORT`."""
    from backgammon.protocols.external import DIALECTS, EnginePlayer, listen, serve

    if dialect not in DIALECTS:
        raise InvalidInputError(f"unknown dialect {dialect!r}: expected {' or '.join(DIALECTS)}")
    player = EnginePlayer(load_evaluator, level, plies, seed)
    player.warm_up()  # load the network before gnubg connects: its first question is answered at once
    try:
        log_stream = open(log_file, "a", encoding="utf-8") if log_file else None
    except OSError as exc:
        raise InvalidInputError(f"cannot open the log file {log_file!r}: {exc.strerror or exc}") from None
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # a plain kill still closes the log and the socket file
    try:
        sock = listen(host, port, unix_socket)
        where = unix_socket or "{}:{}".format(*sock.getsockname()[:2])
        print(f"external player: listening on {where} ({player.level.name}, {player.level.plies}-ply)", file=sys.stderr)
        sys.stderr.flush()
        serve(sock, player, once=once, log_stream=log_stream, dialect=dialect)
    except KeyboardInterrupt:
        pass
    finally:
        if log_stream is not None:
            log_stream.close()
        if unix_socket and "sock" in locals() and os.path.exists(unix_socket):
            os.unlink(unix_socket)


def ubgi(
    level: str = typer.Option(None, "--level", help="engine level (default: the strongest)"),
    plies: int = typer.Option(None, "--plies", help="search depth 0, 1 or 2 (replaces the level's)"),
) -> None:
    """UBGI (Universal Backgammon Interface) 0.2, as the bgci match runner speaks it, on stdin/stdout."""
    from backgammon.protocols.jsonlines import request_lines
    from backgammon.protocols.ubgi import MAX_LINE, make_player, run

    run(request_lines(sys.stdin.buffer, MAX_LINE), sys.stdout, sys.stderr, make_player(load_evaluator, level, plies))


def register_play(app: typer.Typer) -> None:
    """Add hint, eval, rollout, analyze and engine."""
    app.command("hint")(hint)
    app.command("eval")(eval_cmd)
    app.command("rollout")(rollout_cmd)
    app.command("analyze")(analyze)
    app.command("engine")(engine)
    app.command("external")(external)
    app.command("ubgi")(ubgi)


def register(app: typer.Typer) -> None:
    """Add the engine's commands and the training command (:mod:`backgammon.cli.train_cmds`)."""
    register_play(app)
    register_train(app)
