"""Storage: SQLAlchemy 2 models and the database set-up (Alembic migrations at start).

The default database is SQLite in the data folder (``<data_dir>/backgammon.sqlite3``);
``--database-url postgresql://...`` puts the same schema on PostgreSQL. The schema is
created and upgraded by the Alembic migrations in :mod:`backgammon.server.migrations`,
run by :func:`open_database` every time the server starts.

Every game action is a row of ``actions`` (``table_id``, ``seq``), appended before it is
broadcast; a table's state is the replay of its actions.

A SQLite database refuses to start broken (:class:`StorageError`, one line naming the file and
what to do): a second process on the same file (a lock file beside it, held while the process
lives: the kernel frees it when the process ends, even by ``kill -9``), a file of zero bytes (a
truncated site; a new site has no file yet), and a file that SQLite's ``PRAGMA quick_check``
finds damaged. On PostgreSQL the migrations of processes that start at once are serialised by
an advisory lock (:data:`MIGRATION_LOCK`).
"""

from __future__ import annotations

import datetime as _dt
import os
import threading
import weakref
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

from backgammon.errors import BackgammonError, InvalidInputError


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


class StorageError(BackgammonError):
    """The database cannot be used as it is (in use by another process, empty, damaged)."""


_LOCKS: dict[str, list[int]] = {}  # lock file -> [descriptor, engines of this process using it]
_LOCKS_GUARD = threading.Lock()


def lock_sqlite_file(engine: Engine, path: Path) -> None:
    """Hold ``<path>.lock`` for this process while ``engine`` lives (an exclusive ``flock``, which
    the kernel drops when the process ends); other engines of this process share it.

    Raises:
        StorageError: if another process holds it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return
    if not path.parent.is_dir():
        return  # nothing to lock: SQLite says it cannot open the file
    lock_path = path.with_name(path.name + ".lock")
    key = str(lock_path.resolve())
    with _LOCKS_GUARD:
        held = _LOCKS.get(key)
        if held is None:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                owner = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                raise StorageError(
                    f"the database {str(path)!r} is in use by another server process"
                    + (f" (pid {owner})" if owner.isdigit() else "")
                    + ": one process per SQLite data folder; stop that one or give another --data-dir "
                    "(several processes need PostgreSQL: --database-url postgresql://... --workers N)"
                ) from None
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            held = _LOCKS[key] = [fd, 0]
        held[1] += 1
    weakref.finalize(engine, _unlock_sqlite_file, key)


def _unlock_sqlite_file(key: str) -> None:
    with _LOCKS_GUARD:
        held = _LOCKS.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] <= 0:
            del _LOCKS[key]
            os.close(held[0])  # (closing the last descriptor drops the flock)


def check_sqlite_file(engine: Engine, path: Path) -> None:
    """Refuse a SQLite file that exists but is empty (zero bytes: a new site has no file yet) or
    that ``PRAGMA quick_check`` finds damaged.

    Raises:
        StorageError: naming the file, what is wrong and what to do.
    """
    if not path.is_file():
        return  # a new site (or a path SQLite cannot open: it says so)
    if path.stat().st_size == 0:
        raise StorageError(
            f"the database {str(path)!r} is empty (0 bytes): it was truncated, or created by hand; restore it "
            "from a backup, or delete it to start a new site"
        )
    try:
        with engine.connect() as connection:
            rows = [str(row[0]) for row in connection.exec_driver_sql("PRAGMA quick_check")]
    except Exception as exc:  # noqa: BLE001 - sqlite3.DatabaseError: "file is not a database", "malformed"
        detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        rows = [detail[0] if detail else type(exc).__name__]
    if rows != ["ok"]:
        shown = "; ".join(rows[:3]) + (f" (and {len(rows) - 3} more)" if len(rows) > 3 else "")
        raise StorageError(
            f"the database {str(path)!r} is damaged (SQLite's quick_check: {shown[:200]}); restore it from a "
            "backup (or try sqlite3's .recover); the server does not start on a damaged database"
        )


def sqlite_file(engine: Engine) -> Path | None:
    """The file of a SQLite engine, or None (another database, or SQLite in memory)."""
    name = engine.url.database
    if engine.dialect.name != "sqlite" or not name or name == ":memory:" or name.startswith("file:"):
        return None
    return Path(name)


def open_database(url: str) -> sessionmaker:
    """Connect, run the Alembic migrations to the latest revision, return a session factory.

    A SQLite file is locked for this process and checked first (:func:`lock_sqlite_file`,
    :func:`check_sqlite_file`).

    Raises:
        InvalidInputError: if the URL is not a database URL SQLAlchemy understands.
        StorageError: if the SQLite file is in use by another process, empty or damaged.
    """
    try:
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://") :]
        engine = create_engine(url, future=True, pool_pre_ping=True)
    except Exception as exc:  # noqa: BLE001 - sqlalchemy.exc.ArgumentError, missing driver (ImportError)
        raise InvalidInputError(f"invalid database url {url!r}: {exc}") from None
    path = sqlite_file(engine)
    if path is not None:
        lock_sqlite_file(engine, path)
        check_sqlite_file(engine, path)  # (before the pragmas: WAL mode writes to the file)
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
    table_id: Mapped[str] = mapped_column(String(32), index=True)  # a table's, or an upload's (migration 0007)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[bool] = mapped_column(Boolean, default=False)  # right, or two wrong tries: the answer was shown
    solved: Mapped[bool] = mapped_column(Boolean, default=False)
    first_try: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
