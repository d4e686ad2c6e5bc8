"""What goes into the frontier: the profile's start URLs (or the queue of an interrupted
pass), the article URLs of its sitemaps and feeds when it asks for them, and each list
page's links, through the spider-trap guards (``traps``).

Sitemaps and feeds are read in a thread of their own, pushing article URLs as they come;
the crawl counts that thread as a page in progress, so it does not end before it.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone

from ..core.links import article_url
from ..core.urls import UrlError, canonical
from .fetcher import FetchError
from .request import Request
from .state import KNOWN, NEW

log = logging.getLogger(__name__)


class Queuer:
    def __init__(self, crawler):
        self.c = crawler
        self.thread: threading.Thread | None = None

    def seed(self, resumed: list[Request]) -> None:
        c = self.c
        if c.state.resumed:
            with c._cond:
                for req in resumed:  # an in-memory queue; a disk queue reads its own
                    c.scheduler.restore(req)
                queued = len(c.scheduler)
            c._emit("log", {"message": f"resuming pass {c.state.pass_no}: {queued} URLs queued"})
            self._start_discovery()  # unless this pass already read its sitemaps and feeds
            return
        self._start_discovery()
        modes = c.profile.discovery
        if "links" in modes and modes.index("links") == 0:  # else once sitemaps and feeds are read
            self.push_start_urls()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()

    def push_start_urls(self) -> None:
        c = self.c
        with c._cond:
            for url in c.profile.start_urls:
                try:
                    c.scheduler.push(Request(url=canonical(url), kind="list", depth=0, priority=1.0))
                except UrlError as exc:
                    c._emit("error", {"url": url, "kind": "bad_url", "message": str(exc)})
            c._work_queued()  # after sitemaps and feeds, fetch threads may be waiting for work

    def push_links(self, req: Request, articles, lists, score: float, stored: set[str]) -> None:
        """Queue a list page's new links (through the trap guards); pagination stops on a list page
        that only brought articles we already have."""
        c = self.c
        incremental = c.options.incremental
        article_set = {u for u, _ in articles}
        new = known = dropped = 0
        depth = req.depth + 1
        warnings = []
        with c._cond, c.state.together():  # all of a page's links or none survive a kill
            for link, anchor in articles:
                if link in stored:
                    known += 1
                elif self._queue(Request(link, "article", depth, req.url, anchor, score), warnings):
                    new += 1
                elif c._claim_result == KNOWN:
                    known += 1
            if not (incremental and req.depth > 0 and new == 0 and known > 0):
                for link, anchor in lists:
                    if link in article_set:
                        continue
                    if c.max_depth and depth > c.max_depth:
                        dropped += 1
                        continue
                    self._queue(Request(link, "list", depth, req.url, anchor, score), warnings)
            c._work_queued()
        c.stats_.add(known_skipped=known, dropped_by_depth=dropped)
        for message in warnings:
            c._emit("log", {"message": f"WARNING: {message}", "warning": True})

    def _queue(self, req: Request, warnings: list) -> bool:
        # under the crawler's lock
        c = self.c
        c._claim_result = NEW
        ok, warning = c.traps.admit(req.url, req.kind)
        if warning:
            warnings.append(warning)
        if not ok:
            c._claim_result = "trap"
            return False
        if c.scheduler.push(req):
            c.traps.queued(req.url, req.kind)
            return True
        return False

    # --- sitemaps and feeds ------------------------------------------------------
    def _start_discovery(self) -> None:
        c = self.c
        if not any(m in ("sitemap", "feeds") for m in c.profile.discovery):
            return
        if c.state.get("discovered_pass") == str(c.state.pass_no):
            return
        with c._cond:
            c._busy += 1
        self.thread = threading.Thread(target=self._discover, name="xnews-crawl-discovery", daemon=True)
        self.thread.start()

    def _discover(self) -> None:
        c = self.c
        started = datetime.now(timezone.utc)
        last = c.state.get("discovered_at") if c.options.incremental else ""
        since = datetime.fromisoformat(last) if last else None
        d = c.downloader
        from .discovery import Discoverer  # sitemaps and feeds: only profiles that list them import it

        finder = Discoverer(d.fetcher, gate=d.gate, check=d.check, ready=self._wait_unpaused,
                            on_error=lambda url, message: c._error(url, "discovery", message))
        batch: list = []
        try:
            for found in finder.urls(c.profile, since):
                link = article_url(c.profile, found.url, c.options.max_url_length)
                if link is None:
                    c.stats_.add(discovered_skipped=1)
                    continue
                batch.append((link, found.source))
                if len(batch) >= 200:
                    self._push_discovered(batch)
                    batch = []
            self._push_discovered(batch)
            c.state.put("discovered_pass", str(c.state.pass_no))
            c.state.put("discovered_at", started.isoformat())
            n = finder.counts
            c._emit("log", {"message": f"discovery: {n['urls']} URLs from {n['sitemaps']} sitemaps and "
                                       f"{n['feeds']} feeds ({n['older']} entries older than the last crawl)"})
        except FetchError:  # stopped: the next start reads them again
            pass
        except Exception as exc:  # a bug must not kill the crawl; record it
            log.exception("discovery failure")
            c._error("", "internal", f"discovery: {exc.__class__.__name__}: {exc}")
        finally:
            if "links" in c.profile.discovery[1:] and not c._stop.is_set():
                self.push_start_urls()  # the link rules come after: their turn now
            c._page_over()

    def _push_discovered(self, batch: list) -> None:
        c = self.c
        stored = c.sink.known_urls([u for u, _ in batch]) if c.options.incremental and batch else set()
        new = known = 0
        with c._cond:
            for link, source in batch:
                if link in stored:
                    known += 1
                elif c.scheduler.push(Request(link, "article", 1, source, "", 1.0)):
                    new += 1
                elif c._claim_result == KNOWN:
                    known += 1
            c._cond.notify_all()
        c.stats_.add(discovered=new, known_skipped=known)

    def _wait_unpaused(self) -> bool:
        c = self.c
        with c._cond:
            while c._paused and not c._stop.is_set():
                c._cond.wait(0.25)
            return not c._stop.is_set()
