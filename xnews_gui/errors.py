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
    return f"{type(exc).__name__}: {exc}"


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
