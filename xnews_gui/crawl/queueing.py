"""What goes into the frontier: the profile's start URLs (or the queue of an interrupted
pass), the article URLs of its sitemaps and feeds when it asks for them, and each list
page's links, through the spider-trap guards (``traps``).

Sitemaps and feeds are read in a thread of their own, pushing article URLs as they come;
the crawl counts that thread as a page in progress (``workers.hold``), so it does not end before it.
The queuer is the scheduler's ``claim``: the crawl state's verdict on each URL (new, seen in this
pass, known from an earlier one) stays here, where the counts of known URLs are made. Stored articles
come back as revisits (``revisits``): those a pass starts with, and those a sitemap or feed dates
after their stored copy.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Callable

from ..core.extraction.links import article_url
from ..core.text.urls import UrlError, canonical
from .control import RunControl
from .fetcher import FetchError
from .request import Request
from .state import KNOWN, NEW

log = logging.getLogger(__name__)


class Queuer:
    def __init__(self, control: RunControl, *, profile, options, state, traps, stats, sink, downloader,
                 max_depth: int, emit: Callable[[str, dict], None], on_error: Callable[[str, str, str], None],
                 revisits=None):
        self.control = control
        self.profile, self.options, self.state, self.traps, self.stats = profile, options, state, traps, stats
        self.sink, self.downloader, self.max_depth = sink, downloader, max_depth
        self.emit, self.on_error = emit, on_error
        self.revisits = revisits  # crawl.revisits.Revisits (None: stored articles are never asked again)
        self.scheduler = None
        self.workers = None
        self.verdict = NEW  # the crawl state's word on the last URL claimed (under control.cond)
        self.thread: threading.Thread | None = None

    def attach(self, scheduler, workers) -> None:
        self.scheduler, self.workers = scheduler, workers

    def claim(self, req: Request, key: float = 0.0) -> bool:
        """The scheduler's dedup (called by it under ``control.cond``)."""
        self.verdict = self.state.claim(req, key)
        return self.verdict == NEW

    def seed(self, resumed: list[Request]) -> None:
        if self.options.revisit_urls:  # "Fetch again": those articles and nothing else; an interrupted
            self._push_revisits()      # pass's queue stays on disk for the next crawl to resume
            return
        if self.state.resumed:
            with self.control.cond:
                for req in resumed:  # an in-memory queue; a disk queue reads its own
                    self.scheduler.restore(req)
                queued = len(self.scheduler)
            self.emit("log", {"message": f"resuming pass {self.state.pass_no}: {queued} URLs queued"})
            self._push_revisits()  # asked for (--revisit) or due: a resumed pass revisits too
            self._start_discovery()  # unless this pass already read its sitemaps and feeds
            return
        self._push_revisits()
        self._start_discovery()
        modes = self.profile.discovery
        if "links" in modes and modes.index("links") == 0:  # else once sitemaps and feeds are read
            self.push_start_urls()

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()

    def _push_revisits(self) -> None:
        seeds = self.revisits.seed() if self.revisits is not None else []
        with self.control.cond:
            queued = sum(1 for req in seeds if self.scheduler.push(req))
            self.control.cond.notify_all()
        if seeds:
            self.emit("log", {"message": f"revisiting {queued} stored article{'s' if queued != 1 else ''}"})

    def push_start_urls(self) -> None:
        with self.control.cond:
            for url in self.profile.start_urls:
                try:
                    self.scheduler.push(Request(url=canonical(url), kind="list", depth=0, priority=1.0))
                except UrlError as exc:
                    self.emit("error", {"url": url, "kind": "bad_url", "message": str(exc)})
            self.workers.work_queued()  # after sitemaps and feeds, fetch threads may be waiting for work

    def push_links(self, req: Request, articles, lists, score: float) -> None:
        """Queue a list page's new links (through the trap guards); pagination stops on a list page
        that only brought articles we already have."""
        stored = self.sink.known_urls([u for u, _ in articles]) if self.options.incremental and articles else set()
        incremental = self.options.incremental
        article_set = {u for u, _ in articles}
        new = known = dropped = 0
        depth = req.depth + 1
        warnings = []
        with self.control.cond, self.state.together():  # all of a page's links or none survive a kill
            for link, anchor in articles:
                if link in stored:
                    known += 1
                elif self._queue(Request(link, "article", depth, req.url, anchor, score), warnings):
                    new += 1
                elif self.verdict == KNOWN:
                    known += 1
            if not (incremental and req.depth > 0 and new == 0 and known > 0):
                for link, anchor in lists:
                    if link in article_set:
                        continue
                    if self.max_depth and depth > self.max_depth:
                        dropped += 1
                        continue
                    self._queue(Request(link, "list", depth, req.url, anchor, score), warnings)
            self.workers.work_queued()
        self.stats.add(known_skipped=known, dropped_by_depth=dropped)
        for message in warnings:
            self.emit("log", {"message": f"WARNING: {message}", "warning": True})

    def _queue(self, req: Request, warnings: list) -> bool:
        # under control.cond
        self.verdict = NEW
        ok, warning = self.traps.admit(req.url, req.kind)
        if warning:
            warnings.append(warning)
        if not ok:
            self.verdict = "trap"
            return False
        if self.scheduler.push(req):
            self.traps.queued(req.url, req.kind)
            return True
        return False

    # --- sitemaps and feeds ------------------------------------------------------
    def _start_discovery(self) -> None:
        if not any(m in ("sitemap", "feeds") for m in self.profile.discovery):
            return
        if self.state.get("discovered_pass") == str(self.state.pass_no):
            return
        self.workers.hold()
        self.thread = threading.Thread(target=self._discover, name="xnews-crawl-discovery", daemon=True)
        self.thread.start()

    def _discover(self) -> None:
        seen = json.loads(self.state.get("sitemap_dates", "{}") or "{}") if self.options.incremental else {}
        d = self.downloader
        from .discovery import Discoverer  # sitemaps and feeds: only profiles that list them import it

        finder = Discoverer(d.fetcher, gate=d.gate, check=d.check, ready=self.control.wait_unpaused,
                            on_error=lambda url, message: self.on_error(url, "discovery", message),
                            robots=d.robots, on_page=d.keep)
        batch: list = []
        deferred: set[str] = set()  # sitemaps with a newer stored article left over the revisit budget
        try:
            for found in finder.urls(self.profile, seen):
                link = article_url(self.profile, found.url, self.options.max_url_length)
                if link is None:
                    self.stats.add(discovered_skipped=1)
                    continue
                batch.append((link, found.source, found.modified))
                if len(batch) >= 200:
                    self._push_discovered(batch, deferred)
                    batch = []
            self._push_discovered(batch, deferred)
            self.state.put("discovered_pass", str(self.state.pass_no))
            # a sitemap (and each index above it) is "unchanged, not read" next time only when all it said was acted on
            unread = finder.with_ancestors(deferred)
            self.state.put("sitemap_dates", json.dumps({url: date for url, date in finder.sitemap_dates.items()
                                                        if url not in unread}))
            if deferred:
                left = self.stats.get("revisits_deferred")
                self.emit("log", {"message": f"WARNING: {left} stored article(s) newer in a sitemap or feed were "
                                             f"left for the next pass (at most {self.profile.crawl.revisit_budget} "
                                             "revisits per pass: the profile's revisit_budget)", "warning": True})
            n = finder.counts
            self.emit("log", {"message": f"discovery: {n['urls']} URLs from {n['sitemaps']} sitemaps and "
                                       f"{n['feeds']} feeds ({n['unchanged']} sitemaps unchanged since the last "
                                       "crawl, not read" + (f"; {n['undated']} giving every page the same date, "
                                                            "their dates not used" if n["undated"] else "") + ")"})
        except FetchError:  # stopped: the next start reads them again
            pass
        except Exception as exc:  # a bug must not kill the crawl; record it
            log.exception("discovery failure")
            self.on_error("", "internal", f"discovery: {exc.__class__.__name__}: {exc}")
        finally:
            if "links" in self.profile.discovery[1:] and not self.control.stopped:
                self.push_start_urls()  # the link rules come after: their turn now
            self.workers.page_over()

    def _push_discovered(self, batch: list, deferred: set[str]) -> None:
        """Article URLs of sitemaps and feeds: the new ones queued, a stored one revisited when its date
        there is newer than the stored copy (within the pass's revisit budget)."""
        stored = self.sink.known_urls([u for u, _, _ in batch]) if self.options.incremental and batch else set()
        revisits = self.revisits
        copies = revisits.copies([u for u, _, when in batch if u in stored and when]) if revisits else {}
        new = known = newer = left = 0
        with self.control.cond:
            for link, source, when in batch:
                copy = copies.get(link)
                if copy is not None and revisits.newer(copy, when):
                    if revisits.spend():
                        newer += self.scheduler.push(revisits.request(link, copy, referrer=source, lastmod=when))
                    else:
                        left += 1
                        deferred.add(source)
                elif link in stored:
                    known += 1
                elif self.scheduler.push(Request(link, "article", 1, source, "", 1.0,
                                                 extra={"lastmod": when.isoformat()} if when else {})):
                    new += 1
                elif self.verdict == KNOWN:
                    known += 1
            self.control.cond.notify_all()
        self.stats.add(discovered=new, known_skipped=known, revisits_newer=newer, revisits_deferred=left)
