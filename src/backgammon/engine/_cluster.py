"""Running engine work as tasks on a Ray cluster (rollouts, refinement labels).

Ray is imported only here, and only when a cluster address is given
(``pip install backgammon[cluster]``). :func:`run_tasks` connects to the
cluster at the address (unless this process is connected already: it stays
connected, ``ray.shutdown()`` disconnects), puts the shared argument in the
object store once, runs ``fn(shared, item)`` for every item as a Ray task and
yields the results in the items' order, each as soon as it and those before it
are done.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from backgammon.errors import EngineError


def _ray(address: str, purpose: str) -> Any:
    """The ``ray`` module, connected to the cluster at ``address``.

    Raises:
        EngineError: if Ray is missing or the cluster cannot be reached.
    """
    try:
        import ray  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise EngineError(f"{purpose} on a cluster need ray: pip install 'backgammon[cluster]'") from None
    if not ray.is_initialized():
        _probe(address)
        try:
            ray.init(address=address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise EngineError(f"cannot connect to the Ray cluster at {address!r}: {exc}") from None
    return ray


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast when nothing listens at a ``host:port`` (or ``ray://host:port``) address: Ray itself
    keeps retrying for minutes. Other forms (``auto``) are left to Ray.

    Raises:
        EngineError: if the address has a port and no connection to it opens within ``timeout`` seconds.
    """
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise EngineError(f"cannot connect to the Ray cluster at {address!r}: {exc.strerror or exc}") from None


def cluster_cpus(address: str, purpose: str) -> int:
    """The number of CPUs of the cluster at ``address`` (at least 1).

    Raises:
        EngineError: as :func:`run_tasks`.
    """
    ray = _ray(address, purpose)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_tasks(
    fn: Callable[[Any, Any], Any], shared: Any, items: Sequence[Any], address: str, purpose: str
) -> Iterator[Any]:
    """``fn(shared, item)`` for each item, as Ray tasks on the cluster at ``address``; results in order.

    ``fn`` must be importable by the cluster's workers (a module-level function
    of this package). ``purpose`` names the work in error messages ("rollouts").

    Raises:
        EngineError: if Ray is missing or the cluster cannot be reached.
    """
    ray = _ray(address, purpose)
    ref = ray.put(shared)
    remote = ray.remote(fn)
    refs = [remote.remote(ref, item) for item in items]
    for r in refs:
        yield ray.get(r)
