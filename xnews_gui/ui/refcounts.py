"""A guard against PySide6 6.12.0's lost references, until the app runs on a PySide6 without them.

On Python 3.11 (where True, False and None are counted like any object), PySide6 6.12.0 drops one
reference to True on every ``Signal.emit`` made from Python, and one to None on every
``processEvents`` or ``QEventLoop.exec``; when a count reaches zero the interpreter aborts
("Fatal Python error: bool_dealloc"). The app holds ~4,000 references to True and loses ~2 per
background job, so a long session (a few thousand jobs: reading, crawling) would end that way.
PySide6 6.11.3 loses none (measured). ``keep_counts_up()`` adds references where a count runs low;
from Python 3.12 on these objects are immortal and it does nothing.
"""

from __future__ import annotations

import sys

LOW = 200_000  # topped up below this many references
STEP = 400_000  # references added at a time (3.2 MB of list per object and top-up)


def keep_counts_up() -> int:
    """Add references to True, False and None where they run low; how many were added.

    The references sit in lists that are never freed (one extra reference to each list, never
    given back): freeing them at exit would take back more than the lost references left."""
    if sys.version_info >= (3, 12):
        return 0
    import ctypes

    added = 0
    for obj in (True, False, None):
        if sys.getrefcount(obj) < LOW:
            ctypes.pythonapi.Py_IncRef(ctypes.py_object([obj] * STEP))
            added += STEP
    return added


def start(parent) -> None:
    """Top the counts up now and every few seconds while ``parent`` (a QObject) lives."""
    from PySide6.QtCore import QTimer

    keep_counts_up()
    timer = QTimer(parent, interval=5000)
    timer.timeout.connect(keep_counts_up)
    timer.start()
