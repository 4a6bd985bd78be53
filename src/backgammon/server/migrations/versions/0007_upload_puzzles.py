"""Puzzles from uploaded matches too: ``puzzle_attempts.table_id`` names a table or an upload.

The column kept a foreign key to ``tables``; an upload's puzzle (``up-...``) has no table, so the
table is rebuilt without that key (SQLite cannot drop a constraint in place), its rows kept.

Revision ID: 0007_upload_puzzles
Revises: 0006_uploads
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_upload_puzzles"
down_revision = "0006_uploads"
branch_labels = None
depends_on = None

COLUMNS = "user_id, puzzle_id, table_id, tries, done, solved, first_try, created_at, updated_at"


def _attempts(name: str, table_key: bool) -> None:
    table_id = (
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False)
        if table_key
        else sa.Column("table_id", sa.String(32), nullable=False)
    )
    op.create_table(
        name,
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("puzzle_id", sa.String(64), primary_key=True),
        table_id,
        sa.Column("tries", sa.Integer, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("first_try", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )


def _rebuild(table_key: bool, keep: str) -> None:
    _attempts("puzzle_attempts_new", table_key)
    op.execute(f"INSERT INTO puzzle_attempts_new ({COLUMNS}) SELECT {COLUMNS} FROM puzzle_attempts {keep}")
    op.drop_index("ix_puzzle_attempts_table_id", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.rename_table("puzzle_attempts_new", "puzzle_attempts")
    op.create_index("ix_puzzle_attempts_table_id", "puzzle_attempts", ["table_id"])


def upgrade() -> None:
    _rebuild(table_key=False, keep="")


def downgrade() -> None:
    _rebuild(table_key=True, keep="WHERE table_id IN (SELECT id FROM tables)")  # uploads' attempts go
