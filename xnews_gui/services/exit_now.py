"""``exit_now(code)``: end a crawl's process as soon as its work is written and closed.

A normal exit tears the interpreter down: it frees every object one by one (the topic model,
the caches, the modules of a big crawl: CPU for nothing, the OS takes the memory back at once).
The command line's crawl and the app's crawl child end this way instead. What a normal exit
would still do is done first: garbage that holds a resource is finalised (a SQLite connection
left by an ended thread is closed, so SQLite checkpoints its log into the database as on a
normal exit), exit handlers run, the output is flushed.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading


def exit_now(code: int) -> None:
    """End the process with ``code``. Does not return, unless a thread that is not a daemon still
    runs: then the caller's normal exit waits for it."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()):
        return
    gc.collect()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed, or the reader left
            pass
    os._exit(code)
