"""Training: self-play, label shards, fitting and shipping the engine's nets.

:mod:`.train` (self-play TD, its kernels in :mod:`._selfplay`), :mod:`.labels` (n-ply label
shards), :mod:`.refine` (refinement on the nets' own n-ply values), :mod:`.fit` (fitting the
nets to label shards, and shipping them) and the kernels they share (:mod:`._distill`). It sits
above :mod:`backgammon.engine` and uses its runtime (the nets, the move generator, the compiled
n-ply search); nothing the engine, the protocols, the server or the CLI's play and analysis
commands import imports this package (the layer contracts in ``pyproject.toml`` check it): the
CLI's train commands (:mod:`backgammon.cli.train_cmds`) load it when they run.

Its numba kernels are filed in the engine's content-keyed kernel cache
(:mod:`backgammon.engine._numba_cache`), which importing the engine, first, configures.
"""

import backgammon.engine  # noqa: F401  (first: it configures numba's cache before numba loads)
