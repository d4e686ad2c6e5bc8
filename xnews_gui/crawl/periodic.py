"""Periodic re-crawl: one incremental pass over the seeds' list pages, wait, again.

Each list page gets its own revisit interval from its observed change rate
(``revisit``), and so does each stored article (``revisits``); a pass re-reads the
seeds and the list pages that are due and revisits the articles that are, and the
next pass starts when the earliest of them is due again, bounded by the profile's
``revisit_min`` / ``revisit_max_min`` (minutes).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from .engine import CrawlEvent, CrawlOptions, Crawler
from .state import CrawlState

WAIT_STEP_S = 30.0  # between passes, the wall clock is asked again this often


class PeriodicCrawler:
    def __init__(self, profile, sink, *, state_dir: Path, options: CrawlOptions | None = None, classifier=None,
                 on_event: Callable[[CrawlEvent], None] | None = None, clock: Callable[[], float] = time.time,
                 renderer=None):
        self.profile = profile
        self.sink = sink
        self.state_dir = Path(state_dir)
        self.options = replace(options or CrawlOptions(), incremental=True, due_only=True)
        self.classifier = classifier
        self.on_event = on_event
        self.clock = clock
        self.renderer = renderer  # crawl.render.Renderer for "render" profiles, kept across passes
        self.next_run_at: float | None = None  # epoch seconds of the next pass; None while one runs
        self.passes: list[dict] = []
        self._stop = threading.Event()
        self._current: Crawler | None = None
        self._lock = threading.Lock()

    def run_pass(self) -> dict:
        """One pass now; sets ``next_run_at`` and returns the pass's summary."""
        crawler = Crawler(self.profile, self.sink, state_dir=self.state_dir, options=self.options,
                          classifier=self.classifier, on_event=self.on_event, renderer=self.renderer)
        with self._lock:
            self._current = crawler
            self.next_run_at = None
        if self._stop.is_set():
            crawler.stop()
        summary = crawler.run()
        with self._lock:
            self._current = None
        self.passes.append(summary)
        self.next_run_at = self._next_run()
        summary["next_run_at"] = self.next_run_at
        if self.on_event:
            self.on_event(CrawlEvent("log", {"message": "next pass at " + time.strftime(
                "%Y-%m-%d %H:%M:%S", time.localtime(self.next_run_at)), "next_run_at": self.next_run_at}))
        return summary

    def run_forever(self, max_passes: int = 0) -> list[dict]:
        """Passes until ``stop()`` (or ``max_passes``); returns their summaries."""
        while not self._stop.is_set():
            summary = self.run_pass()
            if summary["status"] == "stopped" or (max_passes and len(self.passes) >= max_passes):
                break
            if self._wait_until(self.next_run_at or self.clock()):
                break
        return self.passes

    def _wait_until(self, when: float) -> bool:
        """Wait for the wall clock to reach ``when`` (True: stopped first). In short steps, each asking the
        clock again: a wait measured once runs on a clock that stands still while the machine sleeps, and a
        pass due during a night's suspend would start hours after waking."""
        while (left := when - self.clock()) > 0:
            if self._stop.wait(min(left, WAIT_STEP_S)):
                return True
        return self._stop.is_set()

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._current is not None:
                self._current.stop()

    def _next_run(self) -> float:
        now = self.clock()
        settings = self.profile.crawl
        low, high = now + settings.revisit_min * 60, now + settings.revisit_max_min * 60
        state = CrawlState(self.state_dir / f"{self.profile.name}.sqlite3")
        try:  # the earliest list page or stored article due again
            due = [t for t in (state.next_visit(), state.next_article_check(now - settings.watch_days * 86400))
                   if t is not None]
        finally:
            state.close()
        return min(high, max(low, min(due) if due else low))
