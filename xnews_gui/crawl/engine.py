"""The crawl engine: fetch threads and one parse thread over a persistent frontier, driven by a profile.

    crawler = Crawler(profile, sink, state_dir=data / "crawl", options=CrawlOptions(max_pages=100),
                      classifier=model, on_event=print)
    summary = crawler.run()          # blocking; pause()/resume()/stop() from any thread

The stages, as in Scrapy, each with one job and a small interface: the scheduler (``frontier``: ``push``
answers whether it took the request, ``pop`` gives the next one, ``defer`` holds a retry until its not-before
time; the ``Queuer`` is its claim and feeds it start pages, sitemaps, feeds and each list page's links) -> the
downloader (``downloader``: politeness, robots, scope on every hop; a page or FetchError "retry" when the site
asks to wait, so no thread waits holding the host) -> parsing (``parse``: a page into links or an article;
``workers``: ``concurrency`` fetch threads and one parse thread) -> the item pipeline (images, by the fetch
threads, then ``pipeline``: the one batching stage, which classifies a batch at once and writes it through the
sink's one method, ``write_batch``). What they share to run, pause and stop is one ``RunControl``
(``control``), not each other's attributes; requests are ``request.Request`` throughout, a stored article's
revisit too (``revisits``: the "revisit" flag, the copy's validators; a 304 ends here, a 404/410 is asked
again). ``classifier`` may be a model or a loader (a callable without ``predict``): a loader runs in the background
while the first pages load. ``on_event`` is called from crawler threads, never under a lock; "stats" events
come about every ``stats_interval`` seconds.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Callable

from ..core.text.encoding import FetchedHtml
from ..core.profile.profile import FIELDS, Profile
from ..core.disk.raw_pages import RawPack
from .control import RunControl, how_it_ended
from .cookies import LoginWatch
from .downloader import Downloader
from .conditional import NOT_MODIFIED
from .fetcher import FetchError, FetchResult
from .frontier import DISK_ORDERS, make_scheduler
from .images import ImageFetcher
from .options import DEFAULT_USER_AGENT, ROBOTS_AGENT, CrawlEvent, CrawlOptions  # noqa: F401 (public names)
from .parse import PageParser
from .pipeline import ItemPipeline, ModelSource, PageItem
from .queueing import Queuer
from .request import Request
from .revisits import GONE_STATUSES, Revisits, source_date
from .sink import UNCHANGED, UPDATED
from .state import CrawlState
from .stats import CrawlStats, broken_fields
from .traps import TrapGuard
from .workers import PARSING, Workers

log = logging.getLogger(__name__)
_MAX_WARNINGS = 20  # of the stages' warnings in a summary (each is in the log as it comes)


class Crawler:
    def __init__(self, profile: Profile, sink, *, state_dir: Path, options: CrawlOptions | None = None,
                 classifier=None, on_event: Callable[[CrawlEvent], None] | None = None, renderer=None):
        self.profile = profile
        self.renderer = renderer  # crawl.render.Renderer (the Qt side's render pool) for "render" profiles
        self.sink = sink
        self.options = opts = options or CrawlOptions()
        self.classifier = classifier
        self.on_event = on_event
        settings = profile.crawl
        self.strategy = opts.strategy or settings.strategy
        self.concurrency = max(1, opts.concurrency or settings.concurrency)
        self.delay_s = settings.delay_s if opts.delay_s is None else opts.delay_s
        depth = settings.max_depth if opts.max_depth is None else opts.max_depth
        self.max_depth = depth or 0
        self.max_pages = opts.max_pages or settings.max_pages
        self.state_path = Path(state_dir) / f"{profile.name}.sqlite3"
        self.raw_root = opts.raw_dir or sink.raw_root
        self.image_root = opts.image_dir or sink.image_root
        self.raw_pack = RawPack(self.raw_root) if opts.save_raw and self.raw_root else None
        self.traps = TrapGuard(max_pages_per_host=opts.max_pages_per_host, max_path_repeats=opts.max_path_repeats,
                               max_query_params=opts.max_query_params, max_query_variants=opts.max_query_variants,
                               max_list_pages_per_pattern=opts.max_list_pages_per_pattern,
                               max_url_length=opts.max_url_length)

        # what the stages share: one lock, the stop, the pause, how the run ended (read again by run())
        self.control = RunControl(on_log=lambda message: self._emit("log", {"message": message}))
        self.downloader: Downloader | None = None
        self.workers: Workers | None = None
        self._dead_starts: list[str] = []  # why start pages gave the crawl nothing to follow
        self._first_error = ""  # a run that fetched no page failed: this says why
        self._article_slots = 0
        self._warnings: list[str] = []  # said by the stages during the run (a list page cut at its limit)
        self._ran = False
        self.stats_ = CrawlStats(fields=[f for f in FIELDS if f in profile.fields])
        self.logins = LoginWatch(self.stats_, self._emit)
        self.scheduler = None
        self.state: CrawlState | None = None

    # --- views (any thread) ---------------------------------------------------------
    @property
    def fetcher(self):
        return self.downloader.fetcher if self.downloader is not None else None

    @property
    def stats(self) -> dict:
        with self.control.cond:
            queue = len(self.scheduler) if self.scheduler is not None else 0
            busy = self.workers.busy if self.workers is not None else 0
        return self.stats_.snapshot(queue=queue, busy=busy, paused=self.control.paused, strategy=self.strategy)

    @property
    def paused(self) -> bool:
        return self.control.paused

    def pause(self) -> None:
        self.control.pause()

    def resume(self) -> None:
        self.control.resume()

    def stop(self) -> None:
        self.control.stop()

    # --- the run ---------------------------------------------------------------
    def run(self) -> dict:
        if self._ran:
            raise RuntimeError("a Crawler runs once; make a new one for the next crawl")
        self._ran = True
        opts, control = self.options, self.control
        self._cond = control.cond
        self.state = CrawlState(self.state_path)
        self.revisits = Revisits(self.profile, opts, self.state, self.sink, self.stats_, self._emit)
        self.downloader = Downloader(opts, domains=self.profile.allowed_domains, concurrency=self.concurrency,
                                     delay_s=self.delay_s, stop=control.stop_event, on_error=self._error,
                                     on_log=lambda message: self._emit("log", {"message": message}),
                                     on_warning=self._warn)
        if self.downloader.proxies is not None and self.renderer is not None:
            self.downloader.proxies.on_change = self.renderer.use_proxy  # rendered pages follow the rotation
            self.renderer.use_proxy(self.downloader.proxies.current())
        control.interrupt = self.downloader.interrupt
        model = ModelSource(self.classifier, on_error=self._warn)  # in the summary too: nothing labelled
        self.parser = PageParser(self.profile, self.options, self.strategy, model, on_error=self._error,
                                 renderer=self.renderer, stats=self.stats_, on_warning=self._warn)
        self.queuer = Queuer(control, profile=self.profile, options=opts, state=self.state, traps=self.traps,
                             stats=self.stats_, sink=self.sink, downloader=self.downloader, max_depth=self.max_depth,
                             emit=self._emit, on_error=self._error, revisits=self.revisits)
        self.pipeline = ItemPipeline(self.sink, model, on_stored=self._stored, on_error=self._error)
        self.images = (ImageFetcher(self.downloader, self.image_root, self.pipeline.image, self.stats_)
                       if opts.fetch_images and self.image_root else None)
        # bfs/dfs/random/best-first keep their queue on disk (a window in memory); the orders whose
        # scores change while URLs wait (importance, pagerank) keep it in memory
        # "Fetch again" queues its articles in memory: a disk queue would serve an interrupted pass's URLs
        on_disk = self.strategy in DISK_ORDERS and not opts.revisit_urls
        resumed = self.state.begin(load=not on_disk)
        self.scheduler = make_scheduler(self.strategy, self.queuer.claim, keywords=self.profile.crawl.topic_keywords,
                                        seed=opts.seed, store=self.state if on_disk else None)
        self.workers = workers = Workers(control, self.scheduler, self.concurrency, self.max_pages, fetch=self._fetch,
                                         handle=self._handle, hurry=self.pipeline.hurry, on_error=self._error)
        self.queuer.attach(self.scheduler, workers)
        previous_fill = json.loads(self.state.get("fill_rate", "{}") or "{}")
        self.pipeline.start()
        try:
            self.queuer.seed(resumed)
            workers.start()
            deadline = time.monotonic() + opts.max_seconds if opts.max_seconds else None
            next_stats = time.monotonic() + opts.stats_interval
            while not workers.all_done.wait(min(0.1, opts.stats_interval)):
                now = time.monotonic()
                if now >= next_stats:
                    next_stats = now + opts.stats_interval
                    self.state.commit()
                    self._emit("stats", self.stats)
                if deadline and now >= deadline:
                    control.halt("limit")
                control.cut_paused_requests(now)
            workers.join()
            control.stop_event.set()  # the page limit stops sitemap and feed reading once its pages are in
            self.queuer.join()
            workers.wait_until_over()  # articles still in the pipeline end their pages once stored
        finally:
            self.pipeline.close()  # finishes what is queued (and flushes the sink), then ends
            status, reason = how_it_ended(control.status, self.stats_, self._dead_starts, self._first_error)
            aside = opts.revisit_urls and self.state.resumed  # the interrupted pass is still to resume
            if status in ("finished", "failed") and not aside:  # a failed pass is over too: the next start begins again
                self.state.finish_pass()
            control.stop_event.set()
            self.state.commit()
            self.downloader.close()
            if self.raw_pack is not None:
                self.raw_pack.close()
        summary = self.stats
        summary["status"] = status
        summary["pass"] = self.state.pass_no
        summary["resumed"] = self.state.resumed
        summary["broken_fields"] = broken_fields(summary["fill_rate"], self.stats_.get("extracted"), previous_fill)
        summary["warnings"] = list(self.traps.warnings) + self.logins.summary() + self._warnings
        if reason:
            summary[f"{status}_reason"] = reason
        summary["trap_refused"] = dict(self.traps.refused)
        summary["next_revisit_at"] = self.state.next_article_check(time.time() - self.revisits.watch_s)
        if self.stats_.get("extracted") >= 5:
            self.state.put("fill_rate", json.dumps(summary["fill_rate"]))
        self.state.close()
        self._emit("finished", summary)
        return summary

    # --- one page ----------------------------------------------------------------
    def _fetch(self, req: Request):
        """Fetch one page: PARSING when it went on to the parse thread, else whether it was handed over."""
        if req.kind == "list" and self.options.due_only and req.depth > 0 and not self.state.due(req.url):
            self.state.done(req.url)
            self._settled(req.url)
            self.stats_.add(not_due=1)
            return False
        revisit = "revisit" in req.flags
        try:
            result = self.downloader.page(req.url, req.tries, req.headers if revisit else None)
        except FetchError as exc:
            if exc.kind == "interrupted":  # cut by a pause: fetched again on resume
                with self._cond:
                    self.workers.unstart()
                    self.scheduler.restore(req)
            elif exc.kind == "retry":  # the site asked to wait: the thread and the host's slot go on meanwhile
                self._defer(req, exc.retry_after or 0.0)
                self.stats_.add(retries=1)
            elif revisit and exc.status in GONE_STATUSES:  # a stored article: gone, or asked again a bit later
                if self.revisits.missing(req, exc.status) == "again":
                    self._defer(req, self.options.gone_confirm_s)
                else:
                    self.pipeline.gone(req.url)
                    self.state.done(req.url)
                    self._settled(req.url)
            elif exc.kind != "stopped":  # a stopped fetch stays queued for the next start
                self._failed(req, exc.kind, str(exc), exc.status)
            return False
        if result.status == NOT_MODIFIED:  # the stored copy is the page: nothing to parse or store
            self.revisits.not_modified(req)
            self.state.done(req.url)
            self._settled(req.url)
            return False
        self.stats_.add(pages=1, bytes=len(result.body), **{f"{req.kind}_pages": 1})
        if self.profile.needs_browser:  # rendering blocks: each fetch thread parses its own pages
            return self._handle(req, result)
        self.workers.to_parser(req, result)
        return PARSING

    def _handle(self, req: Request, result: FetchResult) -> bool:
        """Parse one fetched page; True when it is handed over (to the pipeline or a job)."""
        page = FetchedHtml(result.body, result.content_type)  # the text is decoded only when needed
        raw_path = self._save_raw(result.url, result.body)
        result.body = b""  # not needed any more: nothing queued holds a page body
        if req.kind == "list":
            links = self.parser.list_page(req, page, result.url)
            item = PageItem(req, result.url, result.status, result.content_type, page.encoding, raw_path)
            if links.fingerprint is not None:  # the list page's revisit interval follows its articles
                crawl = self.profile.crawl
                self.state.list_visit(req.url, links.fingerprint, crawl.revisit_min * 60, crawl.revisit_max_min * 60)
            if not links.expand:  # a focused crawl's page under the relevance threshold
                self.stats_.add(not_expanded=1)
            else:
                if req.depth == 0 and not links.articles and not links.lists:
                    self._dead_start(result.url, page.text)
                self.queuer.push_links(req, links.articles, links.lists, links.score)
        else:
            article = self.parser.article_page(page, result.url)
            item = PageItem(req, result.url, result.status, result.content_type, page.encoding, raw_path)
            revisit = "revisit" in req.flags
            item.source = {"etag": result.etag, "last_modified": result.last_modified, "revisit": revisit,
                           "modified_at": source_date(result.last_modified, req.extra.get("lastmod", "")),
                           "stored_url": req.url if revisit else ""}  # a redirect revises the copy asked for
            if not article.ok and revisit:  # the stored copy (and its raw page) stays as it was
                item.raw_path = ""
            if not article.ok and self.logins.check(page.text, result.url):  # no evidence against the rules
                self._page_finished(item, ok=False)  # failed: the next pass asks again (after a login)
                self.pipeline.failure(result.url, "the site answered with a login form")
                self._error(result.url, "login", "the site answered with a login form")
                return False
            self.stats_.extracted(article)
            if not article.ok:
                reason = "; ".join(article.errors)
                self.pipeline.failure(result.url, reason)
                self._error(result.url, "extraction", reason)
                self._page_finished(item, error=f"extraction: {reason}" if revisit else "")
                return False
            else:
                if not revisit and not self._take_article_slot():
                    return False  # over the article limit: left queued
                item.article, item.section = article, self.profile.topic_for_url(result.url)
                if self.images is not None and (article.image or article.images):
                    self.workers.add_job(lambda: self._store_with_images(item))
                else:
                    self.pipeline.article(item)
                return True
        self._page_finished(item)
        return False

    def _store_with_images(self, item: PageItem) -> bool:
        self.images.fetch(item.article)  # before storing: an article in the store has its images cached
        self.pipeline.article(item)
        return True

    def _dead_start(self, url: str, text: str) -> None:
        article = self.parser.article_page(text, url).ok if self.profile.fields else False
        why = "is an article, not a list page" if article else "has no link the profile's link rules follow"
        reason = (f"the start page {url} {why}: set the start pages and link rules in the Sites tab "
                  "(Check coverage shows what they reach)")
        self._dead_starts.append(reason)
        self._emit("log", {"message": reason, "warning": True})

    def _take_article_slot(self) -> bool:
        limit = self.options.max_articles
        if not limit:
            return True
        with self._cond:
            if self._article_slots >= limit:
                self.control.reached_limit()
                self.control.stop_event.set()
                self._cond.notify_all()
                return False
            self._article_slots += 1
        return True

    def _page_finished(self, item: PageItem, ok: bool = True, error: str = "") -> None:
        self.pipeline.page(item.url, item.status, item.encoding, item.content_type, item.raw_path, item.req.kind,
                           error)
        self.state.done(item.req.url, ok=ok)  # only now: after a kill -9 an unfinished page is fetched again
        with self._cond:
            self.scheduler.page_done(item.req.url)
        self._emit("page", {"url": item.url, "status": item.status, "kind": item.req.kind})

    def _stored(self, item: PageItem, outcome) -> None:
        """Called by the pipeline once an article's batch is written (or failed)."""
        try:
            if isinstance(outcome, BaseException):
                self._error(item.req.url, "store", f"{outcome.__class__.__name__}: {outcome}")
                return  # the page stays queued: fetched again by the next start
            article_id, created = outcome
            if created in (UPDATED, UNCHANGED):  # a revisit
                self.revisits.stored(item.req.url, created == UPDATED)
                if created == UPDATED:
                    self._emit("updated", {"id": article_id, "url": item.article.url, "title": item.article.title})
            elif not created:
                # id None: the sink declined it (a topic the user skips); else it was already stored
                self.stats_.add(**({"skipped_topic": 1} if article_id is None else {"duplicates": 1}))
                if self.options.max_articles and "revisit" not in item.req.flags:
                    with self._cond:
                        self._article_slots -= 1
            else:
                self.stats_.add(articles=1)
                self.revisits.watch(item.req.url)
                self._emit("article", {"id": article_id, "url": item.article.url, "title": item.article.title,
                                       "category": item.category, "confidence": item.confidence})
            self._page_finished(item)
        finally:
            self.workers.page_over()

    def _defer(self, req: Request, wait_s: float) -> None:
        """A popped request back to the scheduler, not before ``wait_s`` from now (it is not a page of the limit)."""
        with self._cond:
            self.workers.unstart()
            self.scheduler.defer(req.retry(wait_s, time.time()))

    def _settled(self, url: str) -> None:
        with self._cond:
            self.scheduler.settled(url)

    def _failed(self, req: Request, kind: str, message: str, status: int = 0) -> None:
        self.state.done(req.url, ok=False)
        self._settled(req.url)
        self.pipeline.page(req.url, status, kind=req.kind, error=f"{kind}: {message}")
        self._error(req.url, kind, message)

    def _warn(self, message: str) -> None:
        with self._cond:
            if len(self._warnings) < _MAX_WARNINGS:
                self._warnings.append(message)
        self._emit("log", {"message": f"WARNING: {message}", "warning": True})

    def _error(self, url: str, kind: str, message: str) -> None:
        self.stats_.error(kind)
        self._first_error = self._first_error or message
        self._emit("error", {"url": url, "kind": kind, "message": message})

    def _save_raw(self, url: str, body: bytes) -> str:
        if self.raw_pack is None:
            return ""
        try:
            return self.raw_pack.save(url, body)
        except OSError as exc:
            self._error(url, "raw_store", f"cannot save the raw page: {exc}")
            return ""

    # --- events -------------------------------------------------------------------------
    def _emit(self, kind: str, data: dict) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(CrawlEvent(kind, data))
        except Exception:  # a listener's bug must not break the crawl
            log.exception("crawl event listener failed")


__all__ = ["Crawler", "CrawlOptions", "CrawlEvent", "DEFAULT_USER_AGENT", "FetchResult"]

