"""Study tools: stored coached reviews of finished tables.

Revision ID: 0002_study
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_study"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("report", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reviews")
