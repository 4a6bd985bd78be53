"""Analyse my matches: ``uploads`` (match files a player uploaded, their analysis and review).

Revision ID: 0006_uploads
Revises: 0005_puzzles
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_uploads"
down_revision = "0005_puzzles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "uploads",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("summary", sa.JSON, nullable=False),
        sa.Column("side", sa.String(8), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("report", sa.JSON, nullable=True),
        sa.Column("failure", sa.String(300), nullable=True),
    )
    op.create_index("ix_uploads_user_id", "uploads", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_uploads_user_id", "uploads")
    op.drop_table("uploads")
