"""Background work: a QRunnable with a separate signals object and a cooperative abort.

``Worker(fn, *args)`` runs ``fn(*args, worker=...)`` only if fn accepts ``worker``
(so it can poll ``worker.aborted``). Results and errors cross to the GUI thread as
queued signals; the GUI never waits on a worker.
"""

from __future__ import annotations

import inspect
import logging
import threading

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..errors import describe, foreseen

log = logging.getLogger(__name__)
_active: set["Worker"] = set()
_active_lock = threading.Lock()


class WorkerSignals(QObject):
    result = Signal(object)
    error = Signal(str)  # a one-line reason; the traceback goes to the log
    progress = Signal(object)
    finished = Signal()


class Worker(QRunnable):
    def __init__(self, fn, *args, **kwargs):
        super().__init__()
        self.setAutoDelete(False)  # Python owns it; the pool must not delete it under us
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = WorkerSignals()
        self._abort = threading.Event()
        try:
            self._wants_worker = "worker" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            self._wants_worker = False

    @property
    def aborted(self) -> bool:
        return self._abort.is_set()

    def abort(self) -> None:
        self._abort.set()

    def run(self) -> None:
        try:
            kwargs = dict(self.kwargs, worker=self) if self._wants_worker else self.kwargs
            result = self.fn(*self.args, **kwargs)
        except Exception as exc:  # report, never crash the pool thread
            name = getattr(self.fn, "__qualname__", self.fn)
            if foreseen(exc):  # a refusal that says what to do (a file not writable, a busy database): no bug
                log.warning("background job %s: %s", name, describe(exc))
            else:
                log.exception("background job %s failed", name)
            self._emit(self.signals.error, describe(exc))
        else:
            if not self.aborted:
                self._emit(self.signals.result, result)
        finally:
            self._emit(self.signals.finished)
            with _active_lock:
                _active.discard(self)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the receiver's C++ side is gone (window closed)
            pass


def query_pool() -> QThreadPool:
    """Short database jobs."""
    return QThreadPool.globalInstance()


_pools: dict[str, QThreadPool] = {}


def dedicated_pool(name: str, threads: int, expiry_ms: int = 2000) -> QThreadPool:
    """A process-wide pool of its own, made on first use. Not a child of any widget: a pool's
    destructor waits for its threads, and closing a window must not wait for a slow job."""
    pool = _pools.get(name)
    if pool is None:
        pool = _pools[name] = QThreadPool()
        pool.setMaxThreadCount(threads)
        pool.setExpiryTimeout(expiry_ms)
    return pool


def crawl_pool() -> QThreadPool:
    """Long-running crawls: kept apart so they never starve the query jobs."""
    return dedicated_pool("crawl", 8)


def write_pool() -> QThreadPool:
    """Store writes from the GUI (store_ops): one thread, so they land in the order they were made."""
    return dedicated_pool("write", 1)


def start(worker: Worker, pool: QThreadPool | None = None) -> Worker:
    with _active_lock:
        _active.add(worker)
    (pool or query_pool()).start(worker)
    return worker


def run_in_background(fn, *args, on_result=None, on_error=None, pool=None, **kwargs) -> Worker:
    worker = Worker(fn, *args, **kwargs)
    if on_result is not None:
        worker.signals.result.connect(on_result)
    if on_error is not None:
        worker.signals.error.connect(on_error)
    return start(worker, pool)


def active_workers() -> list[Worker]:
    with _active_lock:
        return list(_active)


def abort_all() -> None:
    for w in active_workers():
        w.abort()


def wait_all(timeout_ms: int = 5000) -> bool:
    """Abort and wait for every worker (application shutdown, tests)."""
    abort_all()
    ok = write_pool().waitForDone(timeout_ms)  # writes first: they are the user's changes
    ok = query_pool().waitForDone(timeout_ms) and ok
    return crawl_pool().waitForDone(timeout_ms) and ok
