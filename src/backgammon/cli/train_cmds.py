"""The training commands: ``train`` (self-play), ``refine``, ``label`` and ``fit`` (nets fitted to label shards).

:func:`register_train` adds it; :mod:`backgammon.cli.engine_cmds` calls that.
"""

from __future__ import annotations

from pathlib import Path

import typer

from backgammon.cli._files import writable_folder
from backgammon.errors import InvalidInputError


def _check_export(export: Path | None) -> None:
    """Refuse an ``--export`` path that cannot be written, before hours of work.

    Raises:
        InvalidInputError: if it is a folder, or its folder cannot be written in.
    """
    if export is None:
        return
    if export.is_dir():
        raise InvalidInputError(f"invalid --export {str(export)!r}: it is a folder; give a file name for the weights")
    writable_folder(export.parent, "--export's folder")


def _alpha_steps(text: str, unit: str) -> tuple[int, ...]:
    """The counts of ``--alpha-steps`` (comma-separated ``unit``), sorted.

    Raises:
        InvalidInputError: for anything but whole numbers."""
    try:
        return tuple(sorted(int(x) for x in text.split(",") if x.strip()))
    except ValueError:
        raise InvalidInputError(f"expected --alpha-steps as comma-separated {unit}, got {text!r}") from None


def train(
    run_dir: Path = typer.Argument(..., help="directory for the checkpoint, log and best weights (resumed if present)"),
    games: int = typer.Option(100_000, "--games", "-n", help="train until this many games in total"),
    seed: int = typer.Option(1, "--seed", help="seed of the run (initial weights and every game's dice)"),
    contact_hidden: int = typer.Option(96, "--contact-hidden", help="hidden units of the contact net"),
    race_hidden: int = typer.Option(48, "--race-hidden", help="hidden units of the race net"),
    alpha: float = typer.Option(0.1, "--alpha", help="initial learning rate (halves at each --alpha-steps count)"),
    alpha_steps: str = typer.Option(
        "100000,300000,800000", "--alpha-steps", help="game counts at which the learning rate halves, comma-separated"
    ),
    init_from: Path | None = typer.Option(
        None, "--init-from", help="start from this weights file (an older encoding is widened)"
    ),
    lam: float = typer.Option(
        0.0, "--lambda", help="TD(lambda): 0 = online TD(0); 0 < lambda <= 1 = offline lambda-returns"
    ),
    chunk: int = typer.Option(2000, "--chunk", help="games between checkpoints"),
    eval_every: int = typer.Option(20_000, "--eval-every", help="games between strength checks against pubeval"),
    eval_pairs: int = typer.Option(500, "--eval-pairs", help="dice sequences per check (each played twice)"),
    export: Path | None = typer.Option(None, "--export", help="write the best weights here when done"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar"),
) -> None:
    """Train the nets by self-play TD learning (resumable; see the run directory's train.log)."""
    from backgammon.training.train import BEST, TrainConfig, run

    if games < 0 or chunk <= 0 or eval_every <= 0 or eval_pairs <= 0:
        raise InvalidInputError(f"expected positive counts, got games={games!r} chunk={chunk!r}")
    if contact_hidden <= 0 or race_hidden <= 0 or not alpha > 0:
        raise InvalidInputError(f"expected positive sizes and rate, got {contact_hidden!r}, {race_hidden!r}, {alpha!r}")
    if not 0.0 <= lam <= 1.0:
        raise InvalidInputError(f"expected --lambda between 0 and 1, got {lam!r}")
    steps = _alpha_steps(alpha_steps, "game counts")
    if init_from is not None and not init_from.is_file():
        raise InvalidInputError(f"--init-from: no such weights file {str(init_from)!r}")
    writable_folder(run_dir, "RUN_DIR")
    _check_export(export)
    if init_from is not None:  # a file that is not weights (or too big for the nets) is refused before training
        import numpy as np

        from backgammon.training.train import warm_start

        warm_start(init_from, contact_hidden, race_hidden, np.random.default_rng(0))
    config = TrainConfig(
        seed=seed,
        contact_hidden=contact_hidden,
        race_hidden=race_hidden,
        alpha=alpha,
        alpha_steps=steps,
        lam=lam,
        init_from=str(init_from) if init_from else "",
    )
    if quiet:
        state = run(run_dir, config, games, chunk, eval_every, eval_pairs)
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(
            TextColumn("training"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeRemainingColumn(),
        ) as bar:
            task = bar.add_task("train", total=games, info="")

            def progress(state, info) -> None:
                text = f"{info['games_per_s']:.0f} games/s"
                if state.history:
                    h = state.history[-1]
                    text += f"  vs pubeval {h['vs_pubeval']:+.3f} ± {h['se']:.3f} at {h['games']}"
                bar.update(task, completed=state.games, info=text)

            state = run(run_dir, config, games, chunk, eval_every, eval_pairs, progress)
    last = state.history[-1] if state.history else None
    print(
        f"games {state.games}  seconds {state.seconds:.0f}  "
        + (f"vs pubeval {last['vs_pubeval']:+.3f} ± {last['se']:.3f} ({last['n']} games)" if last else "")
    )
    if export is not None:
        import shutil

        shutil.copyfile(Path(run_dir) / BEST, export)
        print(f"best weights written to {export}")


def refine(
    run_dir: Path = typer.Argument(..., help="directory for the checkpoint, log and best weights (resumed if present)"),
    init_from: Path = typer.Option(..., "--init-from", help="the weights file to refine (e.g. a train run's best.npz)"),
    iterations: int = typer.Option(30, "--iterations", "-n", help="refine until this many iterations in total"),
    positions: int = typer.Option(30_000, "--positions", help="positions labelled per iteration"),
    label_ply: int = typer.Option(1, "--label-ply", help="depth of the labels: 1, or 2 (about 25 times slower)"),
    keep: float = typer.Option(1.0, "--keep", help="share of the sampling games' positions labelled (0 < keep <= 1)"),
    lam: float = typer.Option(
        0.0,
        "--lambda",
        help="0: fit the labels; 0 < lambda <= 1: fit lambda-returns of whole "
        "self-play games built on them, the dice's luck taken out",
    ),
    explore: float = typer.Option(0.1, "--explore", help="share of random moves in the sampling games"),
    buffer: int = typer.Option(3, "--buffer", help="iterations of labels fitted each iteration"),
    epochs: int = typer.Option(1, "--epochs", help="passes over those labels each iteration"),
    alpha: float = typer.Option(0.01, "--alpha", help="learning rate (halves at each --alpha-steps iteration)"),
    alpha_steps: str = typer.Option("15,30", "--alpha-steps", help="iterations at which the rate halves"),
    seed: int = typer.Option(1, "--seed", help="seed of the run"),
    contact_hidden: int = typer.Option(
        512, "--contact-hidden", help="hidden units of the contact net (>= the file's; the shipped nets have 512)"
    ),
    race_hidden: int = typer.Option(64, "--race-hidden", help="hidden units of the race net (>= the file's)"),
    eval_pairs: int = typer.Option(500, "--eval-pairs", help="dice sequences per pubeval check (each played twice)"),
    threads: int = typer.Option(1, "--threads", help="threads for labelling (the run is the same for any count)"),
    cluster: str = typer.Option(
        None,
        "--cluster",
        help="Ray cluster address: its workers make the labels (the run is the same; needs the 'cluster' extra)",
    ),
    export: Path | None = typer.Option(None, "--export", help="write the best weights here when done"),
) -> None:
    """Refine trained nets on their own 1-ply (or 2-ply) values of self-play positions (resumable)."""
    from backgammon.training.refine import RefineConfig, run
    from backgammon.training.train import BEST

    steps = _alpha_steps(alpha_steps, "counts")
    if not init_from.is_file():
        raise InvalidInputError(f"--init-from: no such weights file {str(init_from)!r}")
    if not alpha > 0 or eval_pairs <= 0:
        raise InvalidInputError(f"expected a positive --alpha and --eval-pairs, got {alpha!r}, {eval_pairs!r}")
    config = RefineConfig(
        init_from=str(init_from),
        seed=seed,
        contact_hidden=contact_hidden,
        race_hidden=race_hidden,
        positions=positions,
        explore=explore,
        buffer=buffer,
        epochs=epochs,
        alpha=alpha,
        alpha_steps=steps,
        label_ply=label_ply,
        keep=keep,
        lam=lam,
    )

    if iterations < 0 or positions <= 0 or buffer <= 0 or epochs <= 0:
        raise InvalidInputError(
            f"expected --iterations >= 0 and positive --positions, --buffer and --epochs, got {iterations!r}, "
            f"{positions!r}, {buffer!r}, {epochs!r}"
        )
    if threads < 1:
        raise InvalidInputError(f"expected --threads >= 1, got {threads!r}")
    if cluster is not None:  # connect first: a cluster that cannot be reached leaves no run folder behind
        from backgammon.engine._cluster import cluster_cpus

        cluster_cpus(cluster, "refinement labels")
    writable_folder(run_dir, "RUN_DIR")
    _check_export(export)

    def progress(state, info) -> None:
        print(
            f"iteration {info['iteration']}: {info['games']} games, rms error {info['rms_error']:.4f}, "
            f"vs pubeval {info['vs_pubeval']:+.3f} ± {info['vs_pubeval_se']:.3f} "
            f"(label {info['label_s']} s, fit {info['fit_s']} s)",
            flush=True,
        )

    run(run_dir, config, iterations, eval_pairs, progress, threads, cluster)
    if export is not None:
        import shutil

        shutil.copyfile(Path(run_dir) / BEST, export)
        print(f"best weights written to {export}")


def label(
    out: Path = typer.Option(Path("training/labels"), "--out", help="folder of the shards and manifest.json (resumed)"),
    plies: int = typer.Option(2, "--plies", help="depth of the labels: 1, 2 or 3"),
    seed: int = typer.Option(1, "--seed", help="seed of the run (shard i samples with a seed from (seed, i))"),
    positions: int = typer.Option(100_000, "--positions", help="positions this run labels in all"),
    shard_size: int = typer.Option(5000, "--shard-size", help="positions per shard file"),
    threads: int = typer.Option(1, "--threads", help="threads for labelling (the labels are the same for any count)"),
    explore: float = typer.Option(
        0.1, "--explore", help="share of the sampling games' moves drawn among near-best plays"
    ),
    near: float = typer.Option(0.1, "--near", help="equity window of those plays (0: any legal play)"),
    keep: float = typer.Option(0.25, "--keep", help="share of the sampling games' positions labelled (0 < keep <= 1)"),
    prune: int = typer.Option(
        12, "--prune", help="replies per roll evaluated at the inner plies of a 2- or 3-ply label (0: all of them)"
    ),
    focus: float = typer.Option(
        0.0,
        "--focus",
        help="share of back-game and crashed positions labelled, to have more of them (0: as --keep)",
    ),
    rolls: int = typer.Option(
        0,
        "--rolls",
        help="at 3 plies: value the chosen play at 2 plies for only this many of the 21 rolls, drawn per "
        "position, and at 1 ply plus their mean difference for the others (an unbiased estimate at a "
        "fraction of the cost; 0: all rolls)",
    ),
    siblings: int = typer.Option(
        0,
        "--siblings",
        help="label decisions instead of positions: for each sampled contact position and a random roll, up to this "
        "many of its best plays by 0 ply (their results), grouped by decision (0: positions)",
    ),
    window: float = typer.Option(
        0.12, "--window", help="with --siblings: only the plays within this equity of the 0-ply best"
    ),
    weights: Path | None = typer.Option(None, "--weights", help="teacher weights (default: the shipped nets)"),
) -> None:
    """Label self-play positions of the shipped nets at 1, 2 or 3 plies into resumable shards (see
    training/labels/README.md); a rerun with the same settings skips the shards already written."""
    from backgammon.training.labels import LabelSettings, write_labels

    settings = LabelSettings(
        plies=plies,
        seed=seed,
        shard_size=shard_size,
        explore=explore,
        near=near,
        keep=keep,
        prune=prune,
        focus=focus,
        rolls=rolls,
        siblings=siblings,
        window=window,
    )
    settings.check()
    if positions < 0 or threads < 1:
        raise InvalidInputError(f"expected --positions >= 0 and --threads >= 1, got {positions!r}, {threads!r}")
    if weights is not None and not weights.is_file():
        raise InvalidInputError(f"--weights: no such weights file {str(weights)!r}")
    if weights is not None:
        from backgammon.engine.network import NetPair

        NetPair.load(weights)  # not a weights file: one line before anything is printed
    writable_folder(out, "--out")
    print(
        f"labelling {positions} positions at {plies} plies into {out} (shards of {shard_size}, seed {seed})", flush=True
    )
    entries = write_labels(out, settings, positions, threads, weights, lambda line: print(line, flush=True))
    print(f"done: {sum(e['count'] for e in entries)} labels in {len(entries)} shards of this run in {out}")


def fit(
    labels: Path = typer.Option(
        Path("training/labels"), "--labels", help="folder of the label shards and manifest.json (training/labels)"
    ),
    out: Path = typer.Option(
        ..., "--out", help="run folder: checkpoint, train.log, weights.npz and weights.json (resumed if present)"
    ),
    epochs: int = typer.Option(20, "--epochs", "-n", help="fit until this many epochs in total"),
    seed: int = typer.Option(1, "--seed", help="seed of the run (initial weights and each epoch's order)"),
    init_from: str = typer.Option(
        "", "--init-from", help="start from this weights file ('shipped': the package's nets; default: random weights)"
    ),
    contact_hidden: int = typer.Option(
        512, "--contact-hidden", help="hidden units of the contact net (the shipped nets have 512)"
    ),
    race_hidden: int = typer.Option(64, "--race-hidden", help="hidden units of the race net"),
    batch: int = typer.Option(256, "--batch", help="positions per Adam step"),
    alpha: float = typer.Option(0.001, "--alpha", help="Adam's step size (halves at each --alpha-steps epoch)"),
    alpha_steps: str = typer.Option("10,15", "--alpha-steps", help="epochs at which the step size halves"),
    holdout: float = typer.Option(0.05, "--holdout", help="share of the positions held out for validation"),
    average: float = typer.Option(
        0.0, "--average", help="decay per step of a moving average of the weights (0: none; e.g. 0.999)"
    ),
    shards: int = typer.Option(0, "--shards", help="use the manifest's first N shards (0: all listed at the start)"),
    teachers: str = typer.Option(
        "",
        "--teachers",
        help="comma-separated: use only the shards whose teacher (manifest) contains one of these, "
        "e.g. a weights sha256 prefix (default: every teacher)",
    ),
    plies: str = typer.Option(
        "",
        "--plies",
        help="comma-separated: use only the shards labelled at these depths, e.g. 3 (default: every depth)",
    ),
    nets: str = typer.Option(
        "", "--nets", help="fit only this net, 'contact' or 'race'; the other stays as it starts (default: both)"
    ),
    aux_ratio: float = typer.Option(
        0.0,
        "--aux-ratio",
        help="also fit an auxiliary output layer, on the same hidden layer, to this many other labels per label "
        "each epoch (e.g. 2-ply labels beside 3-ply ones; 0: none)",
    ),
    aux_teachers: str = typer.Option(
        "", "--aux-teachers", help="like --teachers, for the auxiliary labels (default: every teacher)"
    ),
    aux_plies: str = typer.Option("", "--aux-plies", help="like --plies, for the auxiliary labels, e.g. 2"),
    sibling_weight: float = typer.Option(
        0.0,
        "--sibling-weight",
        help="also fit the contact net to sibling shards (backgammon label --siblings), adding this weight times "
        "the squared errors between each decision's plays to the loss (0: none)",
    ),
    sibling_teachers: str = typer.Option(
        "", "--sibling-teachers", help="like --teachers, for the sibling shards (default: every teacher)"
    ),
    sibling_plies: str = typer.Option("", "--sibling-plies", help="like --plies, for the sibling shards"),
    sibling_groups: int = typer.Option(16, "--sibling-groups", help="sibling decisions met per Adam step"),
) -> None:
    """Fit the contact and race nets to the label shards (resumable; prints the error per epoch; the
    best nets by held-out error go to OUT/weights.npz with their training record in OUT/weights.json)."""
    from backgammon.training.fit import WEIGHTS, FitConfig, run

    steps = _alpha_steps(alpha_steps, "epochs")
    if init_from == "shipped":
        from backgammon.engine.evaluator import default_weights_path

        init_from = str(default_weights_path())
    if init_from and not Path(init_from).is_file():
        raise InvalidInputError(f"--init-from: no such weights file {init_from!r}")
    if init_from and contact_hidden > 0 and race_hidden > 0:  # not weights (or too big): refused before the run
        import numpy as np

        from backgammon.training.train import warm_start

        warm_start(init_from, contact_hidden, race_hidden, np.random.default_rng(0))
    if epochs < 0:
        raise InvalidInputError(f"expected --epochs >= 0, got {epochs!r}")
    config = FitConfig(
        labels=str(labels),
        seed=seed,
        init_from=init_from,
        contact_hidden=contact_hidden,
        race_hidden=race_hidden,
        batch=batch,
        alpha=alpha,
        alpha_steps=steps,
        holdout=holdout,
        average=average,
        shards=shards,
        teachers=teachers,
        plies=plies,
        nets=nets,
        aux_ratio=aux_ratio,
        aux_teachers=aux_teachers,
        aux_plies=aux_plies,
        sibling_weight=sibling_weight,
        sibling_teachers=sibling_teachers,
        sibling_plies=sibling_plies,
        sibling_groups=sibling_groups,
    )
    config.check()
    if not (labels / "manifest.json").is_file():
        raise InvalidInputError(f"--labels: no manifest.json in {str(labels)!r}")
    writable_folder(out, "--out")
    print(f"fitting to the labels in {labels} into {out} ({epochs} epochs, seed {seed})", flush=True)
    state = run(out, config, epochs, lambda line: print(line, flush=True))
    print(
        f"done: {state.epoch} epochs in {state.seconds:.0f} s; best epochs contact {state.best_epoch['contact']}, "
        f"race {state.best_epoch['race']}; weights in {out / WEIGHTS}"
    )


def ship(
    run_dir: Path = typer.Argument(..., help="a finished backgammon fit run (its weights.npz and weights.json)"),
    stage: str = typer.Option(..., "--stage", help="what the stage is, in a few words"),
    selected: str = typer.Option(..., "--selected", help="how the run's nets were chosen, with the figures"),
    strength: Path = typer.Option(..., "--strength", help="a JSON file: an object of the figures measured"),
    note: str = typer.Option("", "--note", help="more about the stage (its labels, what changed)"),
    into: str = typer.Option(
        "shipped", "--into", help="the weights file to replace ('shipped': the package's, weights.npz and .json)"
    ),
) -> None:
    """Ship a fit run's nets: they replace the weights file (the package's by default), whose record keeps
    every earlier stage and gains this one (the run's configuration, history and label shards)."""
    from backgammon import safejson
    from backgammon.engine.evaluator import default_weights_path
    from backgammon.training.fit import ship as ship_run

    target = default_weights_path() if into == "shipped" else Path(into)
    if not target.is_file():
        raise InvalidInputError(f"--into: no such weights file {str(target)!r}")
    try:
        text = strength.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"--strength: cannot read {str(strength)!r} ({exc})") from None
    figures = safejson.loads(text, what="--strength file", max_length=1_000_000, expect_object=True)
    pair = ship_run(run_dir, target, stage, selected, figures, note)
    record = target.with_suffix(".json")
    print(f"shipped {run_dir} as stage {pair.meta['stage_number']} into {target} (record {record})")


def register_train(app: typer.Typer) -> None:
    app.command("train")(train)
    app.command("refine")(refine)
    app.command("label")(label)
    app.command("fit")(fit)
    app.command("ship")(ship)
