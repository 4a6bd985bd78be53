"""Puzzles from a player's own games: ``puzzle_attempts`` (per account, how each puzzle went).

A puzzle is one decision of a stored review (``<table id>.<game>.<action index>``); the row
counts the tries, and once the puzzle is done (right, or two wrong tries) whether it was solved
and at the first try.

Revision ID: 0005_puzzles
Revises: 0004_chat
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_puzzles"
down_revision = "0004_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_attempts",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("puzzle_id", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("first_try", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_puzzle_attempts_table_id", "puzzle_attempts", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_attempts_table_id", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
