"""Store writes that can wait, off the GUI thread, with callbacks on it (Anki's ``CollectionOp``).

    store_ops.write(store.set_flags, article_id, read=True,
                    on_done=lambda _result: refresh_row(article_id), owner=self)

The write runs on a one-thread pool, so writes land in the order the user made them and
the GUI never waits for the crawl's writer to let go of the database. ``on_done`` and
``on_error`` run on the GUI thread, and only while ``owner`` (a QObject) still exists.
A failure is never lost: it goes to the log, to ``on_error`` when given, else to
``reporter().failed`` (the main window shows it in its status bar).
"""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QObject, Signal

from . import workers

log = logging.getLogger(__name__)


class Reporter(QObject):
    failed = Signal(str)  # a one-line message for the user


_reporter: Reporter | None = None


def reporter() -> Reporter:
    global _reporter
    if _reporter is None:
        _reporter = Reporter()
    return _reporter


def write(fn, *args, on_done=None, on_error=None, owner: QObject | None = None, **kwargs) -> workers.Worker:
    """Run ``fn(*args, **kwargs)`` (a store write) in the background; see the module's note."""
    name = getattr(fn, "__name__", "store write")

    def alive() -> bool:
        return owner is None or shiboken6.isValid(owner)

    def done(result) -> None:
        if on_done is not None and alive():
            on_done(result)

    def failed(message: str) -> None:
        log.error("%s failed: %s", name, message)
        if on_error is not None and alive():
            on_error(message)
        else:
            reporter().failed.emit(f"Could not save ({name.replace('_', ' ')}): {message}")

    worker = workers.Worker(fn, *args, **kwargs)
    worker.signals.result.connect(done)
    worker.signals.error.connect(failed)
    return workers.start(worker, workers.write_pool())
