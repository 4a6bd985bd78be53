"""Alembic environment: runs on the connection given by :func:`backgammon.server.db.run_migrations`.

Importing this module outside a migration run (doctest collection) does nothing.
"""

from alembic import context

from backgammon.server.db import Base


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:  # pragma: no cover - only the server runs migrations
        raise RuntimeError("migrations are run by backgammon.server.db.run_migrations")
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if getattr(context, "config", None) is not None:
    run()
