"""Table chat: ``chat_messages`` (who wrote what at which table, when).

Revision ID: 0004_chat
Revises: 0003_session_expiry
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_chat"
down_revision = "0003_session_expiry"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("seat", sa.String(8), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(600), nullable=False),
    )
    op.create_index("ix_chat_messages_table_id", "chat_messages", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_chat_messages_table_id", "chat_messages")
    op.drop_table("chat_messages")
