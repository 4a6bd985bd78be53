"""The engine's compiled kernels (numba) that are not a module's own hot loop: :mod:`.nply`, the n-ply search."""
