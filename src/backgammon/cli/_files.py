"""Checks of the folders the commands write in, so that a bad one gets one line, not a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from backgammon.errors import InvalidInputError


def writable_folder(path: str | Path, option: str) -> Path:
    """``path`` as a folder this process can write in, created (with its parents) if missing.

    ``option`` names the argument in the message (``--data-dir``, ``RUN_DIR``).

    Raises:
        InvalidInputError: if it is a file, cannot be created, or cannot be written in.
    """
    folder = Path(path)
    if not str(path).strip():
        raise InvalidInputError(f"invalid {option} {str(path)!r}: expected a folder")
    if folder.exists() and not folder.is_dir():
        raise InvalidInputError(f"invalid {option} {str(path)!r}: it is a file, not a folder; give a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidInputError(
            f"cannot create {option} {str(path)!r}: {exc.strerror or exc}; give another folder"
        ) from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise InvalidInputError(
            f"cannot write in {option} {str(path)!r}: {exc.strerror or exc}; give a folder you can write to"
        ) from None
    return folder
