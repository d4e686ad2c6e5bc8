"""One profile's crawl, run in a worker thread and reported to the GUI in batches.

The engine calls ``on_event`` from its own threads at any rate; those calls only append
to a deque. A GUI timer drains the deque a few times a second and emits one signal per
kind with everything that arrived, so a fast crawl cannot flood the event loop.
"""

from __future__ import annotations

import collections
import time

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.profile import Profile
from ..services.crawl import start_crawl
from ..store import Store
from . import workers

DRAIN_MS = 200


def skip_hidden_topics() -> bool:
    from .settings import Preferences

    return Preferences.load().skip_hidden_topics


class CrawlSession(QObject):
    articlesStored = Signal(list)  # [{"id", "url", "title", "category", "confidence"}, ...]
    statsChanged = Signal(dict)
    errorsAdded = Signal(list)  # [{"url", "kind", "message", "at"}, ...]
    logAdded = Signal(list)  # [str, ...]
    stateChanged = Signal(str)  # starting | running | paused | stopping | finished | stopped | limit | failed
    finished = Signal(dict)  # the engine's summary

    def __init__(self, profile: Profile, store: Store, options, classifier=None, parent=None,  # classifier or loader
                 image_cache_limit: int = 0):
        super().__init__(parent)
        self.profile = profile
        self.store = store
        self.options = options
        self.classifier = classifier
        self.image_cache_limit = image_cache_limit
        self.state = "idle"
        self.stats: dict = {}
        self.summary: dict | None = None
        self.started_at: float | None = None
        self._events: collections.deque = collections.deque()
        self._handle = None
        self._worker = None
        self._stop_requested = False
        self._timer = QTimer(self, interval=DRAIN_MS)
        self._timer.timeout.connect(self._drain)
        self._render_pool = None  # offscreen pages for a profile marked "render" (ui/render_pool.py)

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def max_pages(self) -> int:
        return self.options.max_pages or self.profile.crawl.max_pages

    def is_active(self) -> bool:
        return self.state in ("starting", "running", "paused", "stopping")

    def start(self) -> None:
        if self.is_active():
            return
        self.summary, self.stats = None, {}
        self.started_at = time.time()
        self._set_state("starting")
        self._timer.start()
        self._stop_requested = False
        if self.profile.render is not None and self._render_pool is None:
            from .render_pool import RenderPool

            self._render_pool = RenderPool(2, parent=self)
        self._worker = workers.Worker(self._run)
        self._worker.signals.result.connect(self._done)
        self._worker.signals.error.connect(self._crashed)
        workers.start(self._worker, workers.crawl_pool())

    def pause(self) -> None:
        if self._handle is not None and self.state == "running":
            self._handle.pause()
            self._set_state("paused")

    def resume(self) -> None:
        if self._handle is not None and self.state == "paused":
            self._handle.resume()
            self._set_state("running")

    def stop(self) -> None:
        if self.is_active():
            self._set_state("stopping")
            self._stop_requested = True
            if self._handle is not None:
                self._handle.stop()

    # --- worker thread ------------------------------------------------------------
    def _run(self) -> dict:
        handle = start_crawl(self.profile, self.store, self.options,
                             lambda ev: self._events.append((ev.kind, ev.data)), classifier=self.classifier,
                             skip_hidden_topics=skip_hidden_topics(), image_cache_limit=self.image_cache_limit,
                             renderer=self._render_pool)
        self._handle = handle
        if self._stop_requested:
            handle.stop()
        self._events.append(("state", "running"))
        try:
            return handle.run()
        finally:
            self._handle = None

    # --- GUI thread -------------------------------------------------------------------
    def _drain(self) -> None:
        articles, errors, logs, stats, summary = [], [], [], None, None
        now = time.time()
        while self._events:
            kind, data = self._events.popleft()
            if kind == "article":
                articles.append(data)
            elif kind == "error":
                errors.append(dict(data, at=now))
            elif kind == "log":
                logs.append(str(data.get("message", "")))
            elif kind == "stats":
                stats = data
            elif kind == "finished":
                summary = data
            elif kind == "state" and self.state == "starting":
                self._set_state(data)
        if stats is not None:
            self.stats = stats
            self.statsChanged.emit(stats)
        if articles:
            self.articlesStored.emit(articles)
        if errors:
            self.errorsAdded.emit(errors)
        if logs:
            self.logAdded.emit(logs)
        if summary is not None:
            self.summary = summary

    def _done(self, summary: dict) -> None:
        self._finish(summary, summary.get("status", "finished"))

    def _crashed(self, message: str) -> None:
        self._events.append(("log", {"message": f"crawl failed: {message}"}))
        self._finish(self.summary or dict(self.stats, status="failed"), "failed")

    def _finish(self, summary: dict, state: str) -> None:
        if self._render_pool is not None:  # its pages go before their profile (Qt's order)
            self._render_pool.close()
            self._render_pool.deleteLater()
            self._render_pool = None
        self._drain()
        self._timer.stop()
        self.summary = summary
        self.stats = {k: v for k, v in summary.items() if k != "broken_fields"} or self.stats
        self.statsChanged.emit(self.stats)
        self._set_state(state)
        self.finished.emit(summary)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)
