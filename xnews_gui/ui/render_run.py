"""A crawl that needs a render pool, outside the app (the command line): Qt offscreen in this thread,
the crawl in another.

    summary, interrupted = run_with_render_pool(2, make_handle, on_interrupt)

``make_handle(pool)`` builds the crawl (``services.crawl.start_crawl(..., renderer=pool)``); this
function runs Qt's event loop (the pool's pages live there) until the crawl's thread ends; Ctrl-C
stops the crawl cleanly, as the command line does without a pool.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable


def run_with_render_pool(size: int, make_handle: Callable, on_interrupt: Callable[[], None] = lambda: None,
                         recycle_after: int = 50):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no window: a crawl from a terminal or a cron job
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # Chromium refuses to sandbox as root
    from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer

    import PySide6.QtWebEngineCore  # noqa: F401  (before the application object)
    from PySide6.QtGui import QGuiApplication

    from .crash_log import quiet_chromium
    from .render_pool import RenderPool, unthrottle

    quiet_chromium(os.environ)
    unthrottle(os.environ)
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    pool = RenderPool(size, recycle_after=recycle_after)
    result: list = []
    failure: list = []
    interrupted = threading.Event()
    handle = make_handle(pool)

    def target():
        try:
            result.append(handle.run())
        except BaseException as exc:  # reported below, in this thread
            failure.append(exc)

    def on_sigint(*_):
        if not interrupted.is_set():
            interrupted.set()
            on_interrupt()
            handle.stop()

    thread = threading.Thread(target=target, name="xnews-crawl-main")
    watch = QTimer(interval=100)  # also gives Python the hand, so Ctrl-C is seen while Qt waits
    watch.timeout.connect(lambda: None if thread.is_alive() else app.quit())
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        thread.start()
        watch.start()
        app.exec()
        thread.join()
    finally:
        signal.signal(signal.SIGINT, previous)
        watch.stop()
        pool.close()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # pages before their profile
        QCoreApplication.processEvents()
        pool.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    if failure and not interrupted.is_set():
        raise failure[0]
    return (result[0] if result else None), interrupted.is_set()
