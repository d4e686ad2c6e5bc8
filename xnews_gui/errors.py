"""How a failure reads on screen."""

from __future__ import annotations

from pathlib import Path


def describe(exc: BaseException) -> str:
    """A failure in words for the user: XNews's own errors already say what went wrong and what to do (their
    class name means nothing to a user); anything else is a bug and keeps its type for the report."""
    if type(exc).__module__.startswith("xnews_gui.") and str(exc):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return describe_os_error(exc)
    return describe_database_error(exc) or f"{type(exc).__name__}: {exc}"


def describe_database_error(exc: BaseException) -> str | None:
    """SQLite's failures (as sqlite3 or peewee raise them) as a user reads them; None for any other error."""
    import sqlite3

    if not isinstance(exc, sqlite3.DatabaseError) and not (
            type(exc).__module__ == "peewee" and type(exc).__name__.endswith("Error")):
        return None
    text = str(exc)
    if "locked" in text or "busy" in text:
        return ("the database is busy: another XNews (the app, a crawl or a command) is writing to it; "
                "try again when it is done")
    if "malformed" in text or "not a database" in text:
        return (f"the database file is damaged ({text}); choose another data folder, or recover it with "
                "sqlite3's .recover")
    if "is full" in text:  # "database or disk is full"
        return "cannot write the database: the disk is full"
    if "readonly" in text or "read-only" in text:
        return "cannot write the database: its file or folder is read-only"
    return f"database error: {text}"


def foreseen(exc: BaseException) -> bool:
    """A failure the program foresaw and words for the user (its own errors, the file system's, the
    database's), not a bug: the log keeps its message, without a traceback."""
    return (type(exc).__module__.startswith("xnews_gui.") or isinstance(exc, OSError)
            or describe_database_error(exc) is not None)


def describe_os_error(exc: OSError) -> str:
    """A file system error as a user reads it: what went wrong, with which path."""
    name = exc.filename
    if isinstance(exc, FileNotFoundError):
        folder = Path(name).parent if name else None
        if folder is not None and str(folder) not in ("", ".") and not folder.exists():
            return f"no such folder: {folder} (for {name})"
        return f"file not found: {name}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {name}"
    if isinstance(exc, IsADirectoryError):
        return f"is a folder, not a file: {name}"
    if isinstance(exc, NotADirectoryError):
        return f"not a folder: {name}"
    if isinstance(exc, FileExistsError):
        return f"{name} already exists and is not a folder"
    return f"{name}: {exc.strerror}" if name and exc.strerror else str(exc)
