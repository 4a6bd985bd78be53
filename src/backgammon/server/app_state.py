"""The app's shared state, typed: what :func:`backgammon.server.app.create_app` and its start-up
keep for the routers (:mod:`backgammon.server.api`) in one dict.

``config`` and ``quotas`` are there from the start; ``sessions``, ``manager`` and ``pairing`` once
the app has started (its lifespan); ``chouettes``, ``uploads`` and ``rollouts`` from their first use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from backgammon.server.app import ServerConfig
    from backgammon.server.chouette_tables import ChouetteManager
    from backgammon.server.pairing import PairingManager
    from backgammon.server.quotas import Quotas
    from backgammon.server.rollouts import RolloutJobs
    from backgammon.server.tables import TableManager
    from backgammon.server.uploads import UploadJobs


class AppState(TypedDict, total=False):
    """The app's state (see the module's docstring for when each part is there)."""

    config: ServerConfig
    quotas: Quotas
    sessions: sessionmaker[Session]
    manager: TableManager
    pairing: PairingManager
    chouettes: ChouetteManager
    uploads: UploadJobs
    rollouts: RolloutJobs
    gc: asyncio.Task[None]
    warm: asyncio.Task[bool]
    revoke_chouette_seats: Callable[[int], Awaitable[int]]
