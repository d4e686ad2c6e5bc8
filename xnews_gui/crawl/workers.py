"""The crawl's threads: ``concurrency`` fetch threads and ONE parse thread.

A fetch thread pops a request, fetches it and queues the page for the parse thread;
the parse thread decodes, extracts and queues links and articles (``engine.Crawler._handle``).
Fetching is waiting: the fetch threads keep ``concurrency`` requests in flight to hide
the server's latency. Parsing is the interpreter's work: in one thread it does not hand
the interpreter lock back and forth between 16 threads (nor between them and the GUI's).
A parsed article's blocking work (fetching its images) goes back to the fetch threads as
a job, which they take before new requests; a profile that needs a browser to render its
pages has each fetch thread parse its own pages (a render waits for the render pool).

At most ``2 * concurrency - 1`` pages are between their pop and the end of their parsing:
``concurrency`` requests stay in flight while up to ``concurrency - 1`` fetched pages are
with the parser (Scrapy's CONCURRENT_REQUESTS also counts requests in the downloader, not
pages being parsed), so the server's latency stays hidden while the parser catches up.
At concurrency 1 the fetch thread waits for each page's parsing: the scheduler's exact
order. While the parser has pages waiting, a freed slot wakes a waiting fetch thread only
when the running ones would leave ``refill`` slots unused (they take a free slot each as they
come back): when the parser is the bottleneck, one woken thread fetches several pages in turn
instead of each page waking a thread (each wake hands the interpreter lock over, on one core a
context switch). When the parser is about to run dry, the server is the bottleneck: every free
slot wakes a thread for a queued request at once (the running ones may be waiting for a slow
server). The stages it calls are handed to it: ``fetch(request)`` (``PARSING`` when it queued the page
with ``to_parser``, else whether the page was handed over), ``handle(request, result)`` (the parse
thread's work), ``hurry()`` (the pipeline: nothing more is coming for now) and ``on_error``; it
shares the crawl's ``RunControl`` (``control``: its lock, stop and pause) with the other stages.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from typing import Callable

from .control import RunControl
from .request import Request

log = logging.getLogger(__name__)

PARSING = "parsing"  # a fetched page queued for the parse thread


class Workers:
    def __init__(self, control: RunControl, scheduler, concurrency: int, max_pages: int, *, fetch: Callable,
                 handle: Callable, hurry: Callable[[], None], on_error: Callable[[str, str, str], None]):
        self.control = control
        self._cond, self._stop = control.cond, control.stop_event
        self.concurrency = concurrency
        self.max_pages = max_pages
        self._fetch, self._handle, self._hurry, self._error = fetch, handle, hurry, on_error
        self.scheduler = scheduler
        self._busy = 0  # pages popped and not over yet (fetching, parsing, in a job or in the pipeline)
        self._open = 0  # pages popped and not parsed yet: at most ``_max_open``
        self._max_open = 2 * self.concurrency - 1  # requests in flight + pages waiting for the parser
        self._refill = max(1, self.concurrency // 4)  # unused slots that wake a waiting fetch thread
        self._alive = 0  # fetch threads not ended
        self._idle = 0  # fetch threads waiting in _next
        self._woken = 0  # of them, woken and not running yet
        self._started_pages = 0
        # fetched pages wait here for the parse thread (bounded by ``_max_open``)
        self._fetched: queue.SimpleQueue = queue.SimpleQueue()
        self._jobs: deque = deque()  # parsed pages' blocking work, for the fetch threads
        self._threads: list[threading.Thread] = []
        self.all_done = threading.Event()

    # --- what the other stages use (under ``control.cond`` where noted) ---------------------------------
    @property
    def busy(self) -> int:
        """Pages popped and not over yet (and sitemap/feed reading while it runs)."""
        return self._busy

    @property
    def threads(self) -> list[threading.Thread]:
        return list(self._threads)

    @property
    def max_open(self) -> int:
        return self._max_open

    @property
    def open(self) -> int:
        """Pages popped and not parsed yet."""
        return self._open

    def parser_backlog(self) -> int:
        return self._fetched.qsize()

    def to_parser(self, req: Request, result) -> None:
        """A fetched page for the parse thread (``fetch`` then returns ``PARSING``)."""
        self._fetched.put((req, result))

    def unstart(self) -> None:
        """Under ``control.cond``: a popped request went back to the scheduler (not a page of the limit)."""
        self._started_pages -= 1

    def hold(self) -> None:
        """Work in progress besides pages (reading sitemaps and feeds): the crawl does not end before
        the matching ``page_over``."""
        with self._cond:
            self._busy += 1

    def work_queued(self) -> None:
        """Under ``control.cond``: requests were queued; wake the waiting fetch threads that can take them."""
        self._work_queued()

    def add_job(self, job) -> None:
        with self._cond:
            self._jobs.append(job)
            self._wake()

    def page_over(self) -> None:
        with self._cond:
            self._busy -= 1
            if self._busy == 0:  # nothing left in progress: the crawl may be over
                self._cond.notify_all()

    def wait_until_over(self) -> None:
        """After a stop or a limit: until the pages still in progress (in the pipeline) are over."""
        with self._cond:
            while self._busy > 0:
                self._cond.wait(0.25)

    def start(self) -> None:
        self._threads = [threading.Thread(target=self._worker, name=f"xnews-crawl-{i}", daemon=True)
                         for i in range(self.concurrency)]
        self._alive = len(self._threads)
        self._parser = threading.Thread(target=self._parse_loop, name="xnews-crawl-parse", daemon=True)
        self._parser.start()
        for t in self._threads:
            t.start()

    def join(self) -> None:
        """After ``all_done``: the fetch threads are over; the parse thread finishes what is queued."""
        for t in self._threads:
            t.join()
        self._fetched.put(None)
        self._parser.join()
        while True:  # jobs queued after the fetch threads ended (a stop): run here, so each page ends
            with self._cond:
                if not self._jobs:
                    return
                job = self._jobs.popleft()
            self._run_task(job)

    def _next(self):
        """The next request to fetch, or a job (a callable) of a page in progress; None: the end."""
        with self._cond:
            while True:
                if self._jobs:
                    return self._jobs.popleft()
                if self._stop.is_set():
                    return None
                if self.control.paused or self._open >= self._max_open:
                    self._wait()
                    continue
                if self.max_pages and self._started_pages >= self.max_pages:
                    # no more pops; the pages in flight are fetched and stored (no stop: it would cut them)
                    self.control.reached_limit()
                    self._cond.notify_all()
                    return None
                req = self.scheduler.pop()
                if req is not None:
                    self._busy += 1
                    self._open += 1
                    self._started_pages += 1
                    return req
                if self._busy == 0 and not self.scheduler.waiting():  # empty frontier, nobody working: the end
                    self._cond.notify_all()
                    return None
                if not self._open and not self._jobs:  # what is left is in the pipeline: nothing more comes
                    self._hurry()
                self._wait()

    def _wait(self) -> None:
        """Under ``_cond``: a fetch thread waits for work (at most 0.25 s)."""
        self._idle += 1
        try:
            self._cond.wait(0.25)
        finally:
            self._idle -= 1
            if self._woken:  # (a timed-out waiter may take a wake meant for another: never below 0)
                self._woken -= 1

    def _wake(self, n: int = 1) -> None:
        """Under ``_cond``: wake up to ``n`` waiting fetch threads."""
        n = min(n, self._idle - self._woken)
        if n > 0:
            self._woken += n
            self._cond.notify(n)

    def _spare_slots(self) -> int:
        """Under ``_cond``: free slots beyond the one each running fetch thread takes when it comes back."""
        return self._max_open - self._open - (self._alive - self._idle + self._woken)

    def _parser_runs_dry(self) -> bool:
        """Under ``_cond``: fewer than ``_refill`` fetched pages wait for the parser."""
        return self._fetched.qsize() < self._refill

    def _work_queued(self) -> None:
        """Under ``_cond``: requests were queued; wake the waiting fetch threads that can take them."""
        if self._parser_runs_dry():
            self._wake(min(self._max_open - self._open, len(self.scheduler)))
            return
        spare = self._spare_slots()
        if spare >= self._refill:
            self._wake(min(spare, len(self.scheduler)))

    def _worker(self) -> None:
        try:
            while True:
                task = self._next()
                if task is None:
                    return
                self._run_task(task)
        finally:
            with self._cond:
                self._alive -= 1
                if self._alive == 0:
                    self.all_done.set()

    def _run_task(self, task) -> None:
        if not isinstance(task, Request):  # a job of a parsed page
            handed_over = False
            try:
                handed_over = task()
            except Exception as exc:  # a bug must not kill the crawl; record it
                log.exception("crawler failure in a job")
                self._error("", "internal", f"{exc.__class__.__name__}: {exc}")
            finally:
                if not handed_over:
                    self.page_over()
            return
        outcome = False
        try:
            outcome = self._fetch(task)
        except Exception as exc:  # a bug must not kill the crawl; record it
            log.exception("crawler failure on %s", task.url)
            self._error(task.url, "internal", f"{exc.__class__.__name__}: {exc}")
        finally:
            if outcome != PARSING:
                self._parsed(handed_over=outcome is True)

    def _parse_loop(self) -> None:
        while True:
            entry = self._fetched.get()
            if entry is None:
                return
            req, result = entry
            handed_over = False
            try:
                handed_over = self._handle(req, result)
            except Exception as exc:  # a bug must not kill the crawl; record it
                log.exception("crawler failure on %s", req.url)
                self._error(req.url, "internal", f"{exc.__class__.__name__}: {exc}")
            finally:
                self._parsed(handed_over)

    def _parsed(self, handed_over: bool) -> None:
        """A popped page is parsed (or failed); unless handed over, it is over."""
        with self._cond:
            self._open -= 1
            if not handed_over:  # else the pipeline or a job ends it
                self._busy -= 1
            # all fetch threads when nothing is left in progress (the crawl may be over); one when
            # nothing is open (the frontier may be empty: it hurries the pipeline); when the parser
            # runs dry, those the queued requests and the free slots need; else one when the running
            # ones leave ``_refill`` slots unused. Waking one for each page had the parse thread hand
            # the interpreter lock to a fetch thread for each page.
            if self._busy == 0:
                self._cond.notify_all()
            elif not self._open:
                self._wake()
            elif self._parser_runs_dry():
                self._wake(min(self._max_open - self._open, len(self.scheduler)))
            elif self._spare_slots() >= self._refill:
                self._wake()
