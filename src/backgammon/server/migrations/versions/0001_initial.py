"""Initial schema: users, sessions, tables, actions.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("experience", sa.Integer, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
    )
    op.create_index("ix_users_username", "users", ["username"], unique=True)
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("white_token", sa.String(64), nullable=True),
        sa.Column("black_token", sa.String(64), nullable=True),
        sa.Column("white_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("black_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("white_name", sa.String(64), nullable=False),
        sa.Column("black_name", sa.String(64), nullable=False),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("table_id", "seq", name="uq_actions_table_seq"),
    )
    op.create_index("ix_actions_table_id", "actions", ["table_id"])


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("tables")
    op.drop_table("sessions")
    op.drop_table("users")
