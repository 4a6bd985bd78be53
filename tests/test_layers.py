"""The layer contracts (``[tool.importlinter]`` in pyproject.toml, run by scripts/lint.sh) cover every module, and
nothing the engine, the protocols, the server or the CLI's play commands load at run time loads training code."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "backgammon"


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert config["root_package"] == "backgammon"
    return {contract["id"]: contract for contract in config["contracts"]}


def _names(layer: str) -> set[str]:
    return {name.strip() for part in layer.split("|") for name in part.split(":")}


def test_the_core_layer_names_every_top_level_module_and_the_layers_every_package() -> None:
    layers = _contracts()["layers"]["layers"]
    core = _names(layers[-1])
    modules = {f"backgammon.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert core == modules | {"backgammon.lessons"}  # a new core module joins the core layer (or another one)
    listed = set().union(*(_names(layer) for layer in layers))
    packages = {f"backgammon.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert packages <= listed, sorted(packages - listed)


def test_only_the_cli_commands_that_need_them_may_import_training_and_the_server() -> None:
    contracts = _contracts()
    assert contracts["training"]["protected_modules"] == ["backgammon.training"]
    assert contracts["training"]["allowed_importers"] == ["backgammon.cli.train_cmds"]
    assert contracts["server"]["protected_modules"] == ["backgammon.server"]
    assert contracts["server"]["allowed_importers"] == ["backgammon.cli.server_cmds"]


PROBE = """
import sys
import backgammon.cli, backgammon.cli.engine_cmds, backgammon.cli.play_cmd, backgammon.cli.train_cmds
import backgammon.engine.analysis, backgammon.engine.levels, backgammon.engine.rollout, backgammon.engine.search
import backgammon.protocols.external, backgammon.protocols.jsonlines, backgammon.protocols.ubgi
print(sorted(m for m in sys.modules if m.startswith(("backgammon.training", "backgammon.server"))))
print("backgammon.engine._kernels.nply" in sys.modules)
"""


def test_the_engine_protocols_and_cli_load_no_training_or_server_code() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]  # (the search's compiled n-ply kernels did load)
