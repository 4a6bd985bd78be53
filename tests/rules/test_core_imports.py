"""``import backgammon`` is pure: no side effects, no numpy, no numba."""

import os
import subprocess
import sys

PROBE = (
    "import os, sys; before = dict(os.environ); import backgammon, backgammon.formats; "
    "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'numba'))); "
    "print(dict(os.environ) == before)"
)


def test_import_backgammon_loads_no_numpy_or_numba_and_changes_no_environment() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    loaded, unchanged = out.stdout.split("\n")[:2]
    assert loaded == "[]"
    assert unchanged == "True"


def test_asking_for_plays_loads_the_compiled_generator_only() -> None:
    probe = (
        "import sys, backgammon; backgammon.Position.initial().legal_plays(3, 1); "
        "print(*(m in sys.modules for m in ('backgammon.engine._movegen', 'backgammon.engine.search', "
        "'backgammon.engine.evaluator', 'backgammon.server')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False", "False"]
