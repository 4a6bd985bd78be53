"""numba's kernel cache goes in a directory named by the package's source files."""

import os
import subprocess
import sys

SHOW = "import os, backgammon; print(os.environ['NUMBA_CACHE_DIR'])"


def _run(env: dict) -> str:
    out = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_cache_directory_is_per_source_tree(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    first = _run(env)
    assert first.startswith(str(tmp_path / "backgammon" / "numba")) and os.path.isdir(first)
    assert _run(env) == first  # the same sources, the same directory


def test_a_chosen_cache_directory_is_kept(tmp_path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert _run(env) == str(tmp_path / "mine")


def test_an_unusable_cache_home_falls_back_to_numba(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(blocker)
    show = "import os, backgammon; print(os.environ.get('NUMBA_CACHE_DIR', 'unset'))"
    out = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "unset"
