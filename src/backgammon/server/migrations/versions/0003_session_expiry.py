"""Sessions expire: ``sessions.expires_at`` (30 days after login; older rows get created_at + 30
days), indexed for the purge; usernames indexed case-insensitively (``lower(username)``), for
the check that a guest's name is not a registered user's.

Revision ID: 0003_session_expiry
Revises: 0002_study
"""

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = "0003_session_expiry"
down_revision = "0002_study"
branch_labels = None
depends_on = None

SESSION_DAYS = 30


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime, nullable=True))
    sessions = sa.table(
        "sessions",
        sa.column("token_hash", sa.String),
        sa.column("created_at", sa.DateTime),
        sa.column("expires_at", sa.DateTime),
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(sessions.c.token_hash, sessions.c.created_at)).all()
    for token_hash, created in rows:
        connection.execute(
            sessions.update()
            .where(sessions.c.token_hash == token_hash)
            .values(expires_at=created + dt.timedelta(days=SESSION_DAYS))
        )
    with op.batch_alter_table("sessions") as batch:
        batch.alter_column("expires_at", existing_type=sa.DateTime, nullable=False)
        batch.create_index("ix_sessions_expires_at", ["expires_at"])
    op.create_index("ix_users_username_lower", "users", [sa.text("lower(username)")])


def downgrade() -> None:
    op.drop_index("ix_users_username_lower", table_name="users")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_index("ix_sessions_expires_at")
        batch.drop_column("expires_at")
