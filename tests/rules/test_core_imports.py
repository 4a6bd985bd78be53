"""``import backgammon`` is pure: no side effects, no numpy, no numba; legal plays load numba only when worth it."""

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


def _probe(code: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "BACKGAMMON_PURE_PYTHON"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


LOADED = (
    "print(*(m in sys.modules for m in ('numba', 'backgammon.engine.movegen', 'backgammon.engine.search', "
    "'backgammon.engine.evaluator', 'backgammon.server')))"
)


def test_a_few_plays_load_no_numba_and_many_load_only_the_compiled_generator() -> None:
    few = "import sys, backgammon; p = backgammon.Position.initial(); [p.legal_plays(3, 1) for _ in range(50)]; "
    assert _probe(few + LOADED) == ["False"] * 5
    many = "import sys, backgammon; p = backgammon.Position.initial(); [p.legal_plays(3, 1) for _ in range(1100)]; "
    assert _probe(many + LOADED) == ["True", "True", "False", "False", "False"]


def test_the_kernel_is_used_at_once_when_the_engine_is_loaded() -> None:
    code = (
        "import backgammon.engine.movegen, backgammon, backgammon.moves as m; "
        "backgammon.Position.initial().legal_plays(3, 1); print(m._ACCELERATOR != [None] and len(m._ACCELERATOR))"
    )
    assert _probe(code) == ["1"]
