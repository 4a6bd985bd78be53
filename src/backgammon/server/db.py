"""Storage: SQLAlchemy 2 models and the database set-up (Alembic migrations at start).

The default database is SQLite in the data folder (``<data_dir>/backgammon.sqlite3``);
``--database-url postgresql://...`` puts the same schema on PostgreSQL. The schema is
created and upgraded by the Alembic migrations in :mod:`backgammon.server.migrations`,
run by :func:`open_database` every time the server starts.

Every game action is a row of ``actions`` (``table_id``, ``seq``), appended before it is
broadcast; a table's state is the replay of its actions.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    create_engine,
    event,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from backgammon.errors import InvalidInputError


def utcnow() -> _dt.datetime:
    """The current time, UTC, without tzinfo (portable across SQLite and PostgreSQL)."""
    return _dt.datetime.now(_dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    rating: Mapped[float] = mapped_column(Float, default=1500.0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    settings: Mapped[dict] = mapped_column(JSON, default=dict)


class Session(Base):
    __tablename__ = "sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[_dt.datetime] = mapped_column(DateTime, index=True)  # refused (and deleted) from then on


class Table(Base):
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    config: Mapped[dict] = mapped_column(JSON)  # rules, mode, AI seat and level, clock, start position
    white_token: Mapped[str | None] = mapped_column(String(64), nullable=True)  # sha256 of the seat token
    black_token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    white_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    black_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    white_name: Mapped[str] = mapped_column(String(64), default="")
    black_name: Mapped[str] = mapped_column(String(64), default="")
    listed: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="waiting")  # waiting / playing / over
    rated: Mapped[bool] = mapped_column(Boolean, default=False)  # rating already applied


class Action(Base):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("table_id", "seq", name="uq_actions_table_seq"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    payload: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)


def database_url_for(data_dir: Path) -> str:
    """The default SQLite URL inside ``data_dir``."""
    return f"sqlite:///{(data_dir / 'backgammon.sqlite3').resolve()}"


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # pragma: no cover - trivial
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def open_database(url: str) -> sessionmaker:
    """Connect, run the Alembic migrations to the latest revision, return a session factory.

    Raises:
        InvalidInputError: if the URL is not a database URL SQLAlchemy understands.
    """
    try:
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://") :]
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except Exception as exc:  # noqa: BLE001 - sqlalchemy.exc.ArgumentError, missing driver (ImportError)
        raise InvalidInputError(f"invalid database url {url!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    run_migrations(engine)
    return sessionmaker(engine, expire_on_commit=False)


MIGRATION_LOCK = 0x6267_6D69_6772  # the advisory-lock key held while the schema is upgraded


def run_migrations(engine: Engine) -> None:
    """Upgrade the schema to the latest Alembic revision."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":  # several processes start at once: one migrates, the others wait
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")


class Review(Base):
    """A coached review of a finished table (the study tools' engine report, JSON)."""

    __tablename__ = "reviews"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    report: Mapped[dict] = mapped_column(JSON)


class ChatMessage(Base):
    """One line of a table's chat (written by a seated player)."""

    __tablename__ = "chat_messages"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    seat: Mapped[str] = mapped_column(String(8))
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(String(600))


class PuzzleAttempt(Base):
    """How one account did on one puzzle made from its own games (:mod:`backgammon.server.puzzles`)."""

    __tablename__ = "puzzle_attempts"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(64), primary_key=True)  # "<table id>.<game>.<action index>"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[bool] = mapped_column(Boolean, default=False)  # right, or two wrong tries: the answer was shown
    solved: Mapped[bool] = mapped_column(Boolean, default=False)
    first_try: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
