"""The engine's compiled kernels (numba) that stand apart from the module that drives them, such as
:mod:`.nply`, the n-ply search that :mod:`backgammon.engine.search` runs (and the training package's
label shards reuse). Runtime code only: nothing here imports :mod:`backgammon.training`."""
