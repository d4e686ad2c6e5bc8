"""How a failure reads on screen."""

from __future__ import annotations


def describe(exc: BaseException) -> str:
    """A failure in words for the user: XNews's own errors already say what went wrong and what to do (their
    class name means nothing to a user); anything else is a bug and keeps its type for the report."""
    if type(exc).__module__.startswith("xnews_gui.") and str(exc):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return f"{type(exc).__name__}: {exc}"
