"""One profile's crawl, run in a worker thread and reported to the GUI in batches.

The engine calls ``on_event`` from its own threads at any rate; those calls only append
to a deque. A GUI timer drains the deque a few times a second and emits one signal per
kind with everything that arrived, so a fast crawl cannot flood the event loop.
"""

from __future__ import annotations

import collections
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.profile import Profile
from ..crawl.engine import Crawler
from ..store.sink import StoreSink
from ..store import repo
from . import workers

DRAIN_MS = 200


def make_sink(data_dir: Path, profile: str, run_id: int | None):
    from .settings import Preferences

    skip = repo.hidden_categories() if Preferences.load().skip_hidden_topics else ()
    return StoreSink(profile, data_dir, run_id, skip_categories=skip)


def image_cache_bytes() -> int:
    from ..store.models import ImageCache
    from peewee import fn

    return int(ImageCache.select(fn.COALESCE(fn.SUM(ImageCache.size), 0)).scalar() or 0)


class CrawlSession(QObject):
    articlesStored = Signal(list)  # [{"id", "url", "title", "category", "confidence"}, ...]
    statsChanged = Signal(dict)
    errorsAdded = Signal(list)  # [{"url", "kind", "message", "at"}, ...]
    logAdded = Signal(list)  # [str, ...]
    stateChanged = Signal(str)  # starting | running | paused | stopping | finished | stopped | limit | failed
    finished = Signal(dict)  # the engine's summary

    def __init__(self, profile: Profile, data_dir: Path, options, classifier=None, parent=None,  # classifier or loader
                 image_cache_limit: int = 0):
        super().__init__(parent)
        self.profile = profile
        self.data_dir = Path(data_dir)
        self.options = options
        self.classifier = classifier
        self.image_cache_limit = image_cache_limit
        self.state = "idle"
        self.stats: dict = {}
        self.summary: dict | None = None
        self.started_at: float | None = None
        self._events: collections.deque = collections.deque()
        self._crawler = None
        self._worker = None
        self._stop_requested = False
        self._timer = QTimer(self, interval=DRAIN_MS)
        self._timer.timeout.connect(self._drain)

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
        self._worker = workers.Worker(self._run)
        self._worker.signals.result.connect(self._done)
        self._worker.signals.error.connect(self._crashed)
        workers.start(self._worker, workers.crawl_pool())

    def pause(self) -> None:
        if self._crawler is not None and self.state == "running":
            self._crawler.pause()
            self._set_state("paused")

    def resume(self) -> None:
        if self._crawler is not None and self.state == "paused":
            self._crawler.resume()
            self._set_state("running")

    def stop(self) -> None:
        if self.is_active():
            self._set_state("stopping")
            self._stop_requested = True
            if self._crawler is not None:
                self._crawler.stop()

    # --- worker thread ------------------------------------------------------------
    def _run(self) -> dict:
        options = self.options
        if options.fetch_images and self.image_cache_limit and image_cache_bytes() >= self.image_cache_limit:
            from dataclasses import replace

            options = replace(options, fetch_images=False)
            self._events.append(("log", {"message": "the image cache is full (see Settings): images are not fetched"}))
        classifier = self.classifier
        if classifier is not None and not hasattr(classifier, "predict"):
            try:
                classifier = classifier()  # a loader: models load here, off the GUI thread
            except Exception as exc:  # a broken model must not stop the crawl
                self._events.append(("log", {"message": f"classifier not used: {exc}"}))
                classifier = None
        run_id = repo.start_run(self.profile.name)
        crawler = Crawler(self.profile, make_sink(self.data_dir, self.profile.name, run_id),
                          state_dir=self.data_dir / "crawl", options=options, classifier=classifier,
                          on_event=lambda ev: self._events.append((ev.kind, ev.data)))
        self._crawler = crawler
        if self._stop_requested:
            crawler.stop()
        self._events.append(("state", "running"))
        try:
            summary = crawler.run()
        finally:
            self._crawler = None
        repo.finish_run(run_id, summary.get("status", "finished"), summary)
        return summary

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
