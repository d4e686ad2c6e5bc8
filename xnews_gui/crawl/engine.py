"""The crawl engine: worker threads over a persistent frontier, driven by a profile.

    crawler = Crawler(profile, sink, state_dir=data / "crawl", options=CrawlOptions(max_pages=100),
                      classifier=model, on_event=print)
    summary = crawler.run()          # blocking; pause()/resume()/stop() from any thread

List pages are parsed once and their article/list links pushed to the frontier;
article pages are extracted, classified and handed to the sink. ``on_event``
is called from crawler threads, never under a lock; "stats" events come about
every ``stats_interval`` seconds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import xnews_gui
from ..core.encoding import decode_html
from ..core.extract import extract
from ..core.links import follow
from ..core.profile import FIELDS, LinkRule, Profile
from ..core.rules import parse_html
from ..core.urls import UrlError, absolute, canonical, host_of, in_scope, is_allowed_scheme
from .fetcher import FetchError, Fetcher, FetchLimits, FetchResult
from .discovery import Discoverer, article_url
from .frontier import DISK_ORDERS, Request, make_scheduler
from .politeness import HostGate
from .relevance import KeywordRelevance
from .robots import RobotsCache
from .sink import known_urls
from .state import KNOWN, NEW, CrawlState
from .stats import CrawlStats, broken_fields
from .storage import image_file, raw_name, write_atomic

log = logging.getLogger(__name__)

# The GIL's switch interval while a crawl runs (Python's default is 5 ms). Sixteen threads that mostly
# wait on sockets and SQLite hand the GIL over constantly; with 5 ms a thread that has just been woken
# (an answer arrived, a commit is done) waits behind a parsing thread. 0.5 ms measured ~10 % more
# pages/s and less CPU per page (fewer involuntary context switches) on the benchmark site.
SWITCH_INTERVAL_S = 0.0005
_switch_lock = threading.Lock()
_switch_users = 0
_switch_saved = 0.0


def _enter_switch_interval() -> None:
    global _switch_users, _switch_saved
    with _switch_lock:
        if _switch_users == 0:
            _switch_saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_saved, SWITCH_INTERVAL_S))
        _switch_users += 1


def _leave_switch_interval() -> None:
    global _switch_users
    with _switch_lock:
        _switch_users -= 1
        if _switch_users == 0:
            sys.setswitchinterval(_switch_saved)


PAUSE_GRACE_S = 0.5  # after a pause, requests still waiting this long are cut (and fetched again on resume)

ROBOTS_AGENT = "XNews"
DEFAULT_USER_AGENT = f"XNews/{xnews_gui.__version__} (personal news reader for offline reading)"


@dataclass
class CrawlOptions:
    max_pages: int = 0  # 0 = no limit (the profile's crawl.max_pages applies when set)
    max_articles: int = 0
    max_seconds: float = 0
    concurrency: int | None = None  # None = the profile's
    per_host: int | None = None  # connections per host; None = concurrency
    delay_s: float | None = None  # None = the profile's
    strategy: str | None = None  # None = the profile's
    max_depth: int | None = None  # list-page depth; None = the profile's, 0 = unlimited
    user_agent: str = DEFAULT_USER_AGENT
    contact: str = ""  # e-mail or URL appended to the User-Agent
    save_raw: bool = True
    fetch_images: bool = True
    incremental: bool = True
    obey_robots: bool = True
    relevance_threshold: float | None = None  # focused crawling; None = the profile's (default 0.6)
    topics: tuple = ()  # classifier labels of interest for focused crawling (default: the profile's focus_topics)
    due_only: bool = False  # periodic passes: read only list pages whose revisit is due
    seed: int | None = None  # random strategy
    limits: FetchLimits = field(default_factory=FetchLimits)
    raw_dir: Path | None = None  # None = the sink's raw_root
    image_dir: Path | None = None  # None = the sink's image_root
    stats_interval: float = 0.5
    max_url_length: int = 2048

    def agent(self) -> str:
        return f"{self.user_agent}; +{self.contact}" if self.contact else self.user_agent


@dataclass
class _ToStore:
    """An extracted article page on its way to the store stage."""

    req: Request
    result: FetchResult
    encoding: str
    raw_path: str
    article: object
    category: str | None
    confidence: float | None
    section: str | None


_STORE_BATCH = 64
_STORE_GATHER_S = 0.05  # a batch waits this long for company: one transaction for several articles


@dataclass
class CrawlEvent:
    kind: str  # "page" | "article" | "error" | "stats" | "log" | "finished"
    data: dict


class Crawler:
    def __init__(self, profile: Profile, sink, *, state_dir: Path, options: CrawlOptions | None = None,
                 classifier=None, on_event: Callable[[CrawlEvent], None] | None = None):
        self.profile = profile
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
        self.threshold = settings.relevance_threshold if opts.relevance_threshold is None else opts.relevance_threshold
        self.keywords = KeywordRelevance(settings.topic_keywords)
        self.state_path = Path(state_dir) / f"{profile.name}.sqlite3"
        self.raw_root = opts.raw_dir or getattr(sink, "raw_root", None)
        self.image_root = opts.image_dir or getattr(sink, "image_root", None)

        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._paused = False
        self._paused_at = 0.0
        self._pause_cut = False
        self.fetcher: Fetcher | None = None
        self._halted = False
        self._status = "finished"
        self._busy = 0
        self._started_pages = 0
        self._article_slots = 0
        self._claim_result = NEW
        self._images_seen: set[str] = set()
        self._delays_set: set[str] = set()
        self._ran = False
        self.stats_ = CrawlStats(fields=[f for f in FIELDS if f in profile.fields])
        self.scheduler = None
        self.state: CrawlState | None = None
        self._discovery: threading.Thread | None = None

    # --- control (any thread) ---------------------------------------------------
    def pause(self) -> None:
        with self._cond:
            if not self._paused:
                self._paused_at = time.monotonic()
                self._pause_cut = False
            self._paused = True
        self._emit("log", {"message": "paused"})

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._cond.notify_all()
        self._emit("log", {"message": "resumed"})

    def stop(self) -> None:
        self._halt("stopped")

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def stats(self) -> dict:
        with self._cond:
            queue = len(self.scheduler) if self.scheduler is not None else 0
            busy = self._busy
        return self.stats_.snapshot(queue=queue, busy=busy, paused=self._paused, strategy=self.strategy)

    def _halt(self, status: str) -> None:
        with self._cond:
            if not self._halted:
                self._halted = True
                self._status = status
            self._stop.set()
            self._cond.notify_all()
        if self.fetcher is not None:
            self.fetcher.interrupt()  # requests waiting to connect or for an answer fail now

    # --- the run ---------------------------------------------------------------
    def run(self) -> dict:
        if self._ran:
            raise RuntimeError("a Crawler runs once; make a new one for the next crawl")
        self._ran = True
        opts = self.options
        self.state = CrawlState(self.state_path)
        self.fetcher = Fetcher(opts.agent(), opts.limits, pool_size=self.concurrency + 2, stop=self._stop)
        per_host = opts.per_host or self.concurrency
        self.gate = HostGate(self.delay_s, per_host, stop=self._stop)
        self.robots = RobotsCache(self.fetcher, ROBOTS_AGENT, gate=self.gate, on_error=self._robots_error)
        # bfs/dfs/random/best-first keep their queue on disk (a window in memory); the orders whose
        # scores change while URLs wait (importance, pagerank) keep it in memory
        on_disk = self.strategy in DISK_ORDERS
        resumed = self.state.begin(load=not on_disk)
        self.scheduler = make_scheduler(self.strategy, self._claim, keywords=self.profile.crawl.topic_keywords,
                                        seed=opts.seed, store=self.state if on_disk else None)
        previous_fill = json.loads(self.state.get("fill_rate", "{}") or "{}")
        _enter_switch_interval()
        try:
            self._seed(resumed)
            threads = [threading.Thread(target=self._worker, name=f"xnews-crawl-{i}", daemon=True)
                       for i in range(self.concurrency)]
            self._alive = len(threads)
            self._all_done = threading.Event()
            self._store_q = queue.Queue(maxsize=2 * self.concurrency)
            store = threading.Thread(target=self._store_stage, name="xnews-crawl-store", daemon=True)
            store.start()
            for t in threads:
                t.start()
            deadline = time.monotonic() + opts.max_seconds if opts.max_seconds else None
            next_stats = time.monotonic() + opts.stats_interval
            while not self._all_done.wait(min(0.1, opts.stats_interval)):
                now = time.monotonic()
                if now >= next_stats:
                    next_stats = now + opts.stats_interval
                    self.state.commit()
                    self._emit("stats", self.stats)
                if deadline and now >= deadline:
                    self._halt("limit")
                self._cut_paused_requests(now)
            for t in threads:
                t.join()
            if self._discovery is not None:
                self._discovery.join()
            self._store_q.put(None)  # the store stage finishes what is queued, then ends
            store.join()
            status = self._status
            if status == "finished":
                self.state.finish_pass()
        finally:
            _leave_switch_interval()
            self._stop.set()
            self.state.commit()
            self.fetcher.close()
            flush = getattr(self.sink, "flush", None)
            if flush:
                flush()
        summary = self.stats
        summary["status"] = status
        summary["pass"] = self.state.pass_no
        summary["resumed"] = self.state.resumed
        summary["broken_fields"] = broken_fields(summary["fill_rate"], self.stats_.get("extracted"), previous_fill)
        if self.stats_.get("extracted") >= 5:
            self.state.put("fill_rate", json.dumps(summary["fill_rate"]))
        self.state.close()
        self._emit("finished", summary)
        return summary

    def _cut_paused_requests(self, now: float) -> None:
        """A pause takes effect within about a second even when a request hangs: the ones still
        in flight after the grace time are cut and go back to the frontier."""
        with self._cond:
            due = self._paused and not self._pause_cut and now - self._paused_at >= PAUSE_GRACE_S
            if due:
                self._pause_cut = True
        if due:
            self.fetcher.interrupt()

    def _seed(self, resumed: list[Request]) -> None:
        if self.state.resumed:
            with self._cond:
                for req in resumed:  # an in-memory queue; a disk queue reads its own
                    self.scheduler.restore(req)
                queued = len(self.scheduler)
            self._emit("log", {"message": f"resuming pass {self.state.pass_no}: {queued} URLs queued"})
            self._start_discovery()  # unless this pass already read its sitemaps and feeds
            return
        self._start_discovery()
        modes = self.profile.discovery
        if "links" in modes and modes.index("links") == 0:  # else once sitemaps and feeds are read
            self._push_start_urls()

    def _push_start_urls(self) -> None:
        with self._cond:
            for url in self.profile.start_urls:
                try:
                    self.scheduler.push(Request(url=canonical(url), kind="list", depth=0, score=1.0))
                except UrlError as exc:
                    self._emit("error", {"url": url, "kind": "bad_url", "message": str(exc)})

    # --- sitemaps and feeds ------------------------------------------------------
    def _start_discovery(self) -> None:
        """Read the profile's sitemaps and feeds in a thread of their own, pushing article URLs as
        they come; the crawl counts it as a page in progress, so it does not end before it."""
        if not any(m in ("sitemap", "feeds") for m in self.profile.discovery):
            return
        if self.state.get("discovered_pass") == str(self.state.pass_no):
            return
        with self._cond:
            self._busy += 1
        self._discovery = threading.Thread(target=self._discover, name="xnews-crawl-discovery", daemon=True)
        self._discovery.start()

    def _discover(self) -> None:
        from datetime import datetime, timezone

        started = datetime.now(timezone.utc)
        last = self.state.get("discovered_at") if self.options.incremental else ""
        since = datetime.fromisoformat(last) if last else None
        finder = Discoverer(self.fetcher, gate=self.gate, check=self._check, ready=self._wait_unpaused,
                            on_error=lambda url, message: self._error(url, "discovery", message))
        batch: list = []
        try:
            for found in finder.urls(self.profile, since):
                link = article_url(self.profile, found.url, self.options.max_url_length)
                if link is None:
                    self.stats_.add(discovered_skipped=1)
                    continue
                batch.append((link, found.source))
                if len(batch) >= 200:
                    self._push_discovered(batch)
                    batch = []
            self._push_discovered(batch)
            self.state.put("discovered_pass", str(self.state.pass_no))
            self.state.put("discovered_at", started.isoformat())
            c = finder.counts
            self._emit("log", {"message": f"discovery: {c['urls']} URLs from {c['sitemaps']} sitemaps and "
                                          f"{c['feeds']} feeds ({c['older']} entries older than the last crawl)"})
        except FetchError:  # stopped: the next start reads them again
            pass
        except Exception as exc:  # a bug must not kill the crawl; record it
            log.exception("discovery failure")
            self._error("", "internal", f"discovery: {exc.__class__.__name__}: {exc}")
        finally:
            if "links" in self.profile.discovery[1:] and not self._stop.is_set():
                self._push_start_urls()  # the link rules come after: their turn now
            self._page_over()

    def _push_discovered(self, batch: list) -> None:
        stored = known_urls(self.sink, [u for u, _ in batch]) if self.options.incremental else set()
        new = known = 0
        with self._cond:
            for link, source in batch:
                if link in stored:
                    known += 1
                elif self.scheduler.push(Request(link, "article", 1, source, "", 1.0)):
                    new += 1
                elif self._claim_result == KNOWN:
                    known += 1
            self._cond.notify_all()
        self.stats_.add(discovered=new, known_skipped=known)

    def _wait_unpaused(self) -> bool:
        with self._cond:
            while self._paused and not self._stop.is_set():
                self._cond.wait(0.25)
            return not self._stop.is_set()

    def _claim(self, req: Request, key: float = 0.0) -> bool:
        # called by the scheduler under self._cond
        self._claim_result = self.state.claim(req, key)
        return self._claim_result == NEW

    def _next(self) -> Request | None:
        with self._cond:
            while True:
                if self._stop.is_set():
                    return None
                if self._paused:
                    self._cond.wait(0.25)
                    continue
                if self.max_pages and self._started_pages >= self.max_pages:
                    self._halted, self._status = True, "limit"
                    self._stop.set()
                    self._cond.notify_all()
                    return None
                req = self.scheduler.pop()
                if req is not None:
                    self._busy += 1
                    self._started_pages += 1
                    return req
                if self._busy == 0:  # empty frontier, nobody working: the crawl is over
                    self._cond.notify_all()
                    return None
                self._cond.wait(0.25)

    def _worker(self) -> None:
        try:
            while True:
                req = self._next()
                if req is None:
                    return
                handed_over = False
                try:
                    handed_over = self._process(req)
                except Exception as exc:  # a bug must not kill the crawl; record it
                    log.exception("crawler failure on %s", req.url)
                    self._error(req.url, "internal", f"{exc.__class__.__name__}: {exc}")
                finally:
                    if not handed_over:  # else the store stage ends this page
                        self._page_over()
        finally:
            with self._cond:
                self._alive -= 1
                if self._alive == 0:
                    self._all_done.set()

    def _page_over(self) -> None:
        with self._cond:
            self._busy -= 1
            self._cond.notify_all()

    # --- one page ----------------------------------------------------------------
    def _process(self, req: Request) -> bool:
        """Fetch and handle one page; True when an article was handed over to the store stage."""
        if req.kind == "list" and self.options.due_only and req.depth > 0 and not self.state.due(req.url):
            self.state.done(req.url)
            self._settled(req.url)
            self.stats_.add(not_due=1)
            return False
        try:
            result = self.fetcher.fetch(req.url, accept="html", gate=self.gate, check=self._check)
        except FetchError as exc:
            if exc.kind == "interrupted":  # cut by a pause: fetched again on resume
                with self._cond:
                    self._started_pages -= 1
                    self.scheduler.restore(req)
            elif exc.kind != "stopped":  # a stopped fetch stays queued for the next start
                self._failed(req, exc.kind, str(exc), exc.status)
            return False
        self.stats_.add(pages=1, bytes=len(result.body), **{f"{req.kind}_pages": 1})
        text, encoding = decode_html(result.body, result.content_type)
        raw_path = self._save_raw(result.url, result.body)
        if req.kind == "list":
            self._expand(req, text, result.url)
        else:
            item = self._article(req, text, result.url)
            if item is False:
                return False  # over the article limit: left queued
            if item is not None:
                result.body = b""  # not needed any more: the store queue holds no page bodies
                item.result, item.encoding, item.raw_path = result, encoding, raw_path
                self._store_q.put(item)
                return True
        self._page_finished(req, result, encoding, raw_path)
        return False

    def _page_finished(self, req: Request, result: FetchResult, encoding: str, raw_path: str) -> None:
        self.sink.record_page(result.url, result.status, encoding, result.content_type, raw_path, req.kind)
        self.state.done(req.url)  # only now: after a kill -9 an unfinished page is fetched again
        with self._cond:
            self.scheduler.page_done(req.url)
        self._emit("page", {"url": result.url, "status": result.status, "kind": req.kind})

    # --- the store stage ------------------------------------------------------------
    def _store_stage(self) -> None:
        """One thread hands the extracted articles to the sink, in batches when the sink takes
        them (``store_articles``): the workers go on fetching while a transaction commits, and
        a page is marked done only once its article is stored."""
        closing = False
        while not closing:
            batch: list[_ToStore] = []
            item = self._store_q.get()
            until = time.monotonic() + _STORE_GATHER_S
            while True:
                if item is None:
                    closing = True
                    break
                batch.append(item)
                if len(batch) >= _STORE_BATCH:
                    break
                try:
                    item = self._store_q.get(timeout=max(0.0, until - time.monotonic()))
                except queue.Empty:
                    break
            if batch:
                for item, outcome in zip(batch, self._store_many(batch)):
                    try:
                        self._stored(item, outcome)
                    except Exception as exc:  # a bug must not stop the stage; record it
                        log.exception("crawler failure on %s", item.req.url)
                        self._error(item.req.url, "internal", f"{exc.__class__.__name__}: {exc}")
                    finally:
                        self._page_over()

    def _store_many(self, batch: list[_ToStore]) -> list:
        rows = [(i.article, i.category, i.confidence, i.section) for i in batch]
        many = getattr(self.sink, "store_articles", None)
        if many is not None:
            try:
                return list(many(rows))
            except Exception as exc:
                return [exc] * len(rows)
        out: list = []
        for row in rows:
            try:
                out.append(self.sink.store_article(*row))
            except Exception as exc:
                out.append(exc)
        return out

    def _stored(self, item: _ToStore, outcome) -> None:
        if isinstance(outcome, BaseException):
            raise outcome  # the page stays queued: fetched again by the next start
        article_id, created = outcome
        article = item.article
        if not created:
            # id None: the sink declined it (a topic the user skips); else it was already stored
            self.stats_.add(**({"skipped_topic": 1} if article_id is None else {"duplicates": 1}))
            if self.options.max_articles:
                with self._cond:
                    self._article_slots -= 1
        else:
            self.stats_.add(articles=1)
            self._emit("article", {"id": article_id, "url": article.url, "title": article.title,
                                   "category": item.category, "confidence": item.confidence})
        self._page_finished(item.req, item.result, item.encoding, item.raw_path)

    def _check(self, url: str) -> None:
        if not in_scope(url, self.profile.allowed_domains):
            raise FetchError("scope", f"outside the profile's domains: {url}")
        self._robots_check(url)

    def _robots_check(self, url: str) -> None:
        if not self.options.obey_robots:
            return
        if not self.robots.allowed(url):
            raise FetchError("robots", f"disallowed by robots.txt: {url}")
        host = host_of(url)
        if host not in self._delays_set:
            self._delays_set.add(host)
            delay = self.robots.crawl_delay(url)
            if delay:
                self.gate.set_delay(_netloc(url), delay)
                self._emit("log", {"message": f"robots.txt of {host} asks for a {delay:g} s crawl delay"})

    def _robots_error(self, url: str, exc: FetchError) -> None:
        self._error(url, "robots", f"robots.txt unreachable ({exc.kind}: {exc}); not crawling that host")

    def _settled(self, url: str) -> None:
        with self._cond:
            self.scheduler.settled(url)

    def _failed(self, req: Request, kind: str, message: str, status: int = 0) -> None:
        self.state.done(req.url, ok=False)
        self._settled(req.url)
        self.sink.record_page(req.url, status, kind=req.kind, error=f"{kind}: {message}")
        self._error(req.url, kind, message)

    def _error(self, url: str, kind: str, message: str) -> None:
        self.stats_.error(kind)
        self._emit("error", {"url": url, "kind": kind, "message": message})

    def _save_raw(self, url: str, body: bytes) -> str:
        if not (self.options.save_raw and self.raw_root):
            return ""
        name = raw_name(url)
        try:
            write_atomic(Path(self.raw_root) / name, body)
        except OSError as exc:
            self._error(url, "raw_store", f"cannot save the raw page: {exc}")
            return ""
        return name

    # --- list pages ----------------------------------------------------------------
    def _expand(self, req: Request, text: str, url: str) -> None:
        doc = parse_html(text, url)
        score = 1.0
        expand = True
        if self.strategy in ("best_first", "focused"):
            score = self._relevance(doc)
            if self.strategy == "focused" and req.depth > 0 and score < self.threshold:
                expand = False
                self.stats_.add(not_expanded=1)
        anchors = self.strategy == "importance"
        articles = self._links(doc, url, self.profile.articles, anchors) if self.profile.articles else []
        lists = self._links(doc, url, self.profile.lists, anchors) if self.profile.lists else []
        if req.kind == "list" and articles:
            fingerprint = hashlib.sha1("\n".join(sorted(u for u, _ in articles)).encode()).hexdigest()
            settings = self.profile.crawl
            self.state.list_visit(req.url, fingerprint, settings.revisit_min * 60, settings.revisit_max_min * 60)
        if not expand:
            return
        incremental = self.options.incremental
        stored = known_urls(self.sink, [u for u, _ in articles]) if incremental else set()
        article_set = {u for u, _ in articles}
        new = known = dropped = 0
        depth = req.depth + 1
        with self._cond:
            for link, anchor in articles:
                if link in stored:
                    known += 1
                    continue
                if self.scheduler.push(Request(link, "article", depth, req.url, anchor, score)):
                    new += 1
                elif self._claim_result == KNOWN:
                    known += 1
            # pagination stops on a list page that only brought articles we already have
            if not (incremental and req.depth > 0 and new == 0 and known > 0):
                for link, anchor in lists:
                    if link in article_set:
                        continue
                    if self.max_depth and depth > self.max_depth:
                        dropped += 1
                        continue
                    self.scheduler.push(Request(link, "list", depth, req.url, anchor, score))
            self._cond.notify_all()
        self.stats_.add(known_skipped=known, dropped_by_depth=dropped)

    def _links(self, doc, base: str, rule: LinkRule, anchors: bool) -> list[tuple[str, str]]:
        return follow(doc, base, rule, self.profile.allowed_domains, max_url_length=self.options.max_url_length,
                      anchors=anchors)

    def _relevance(self, doc) -> float:
        text = " ".join(doc.itertext())  # not text_content(): it glues words of adjacent elements
        proba = getattr(self.classifier, "proba", None)
        topics = self.options.topics or self.profile.crawl.focus_topics
        if proba is not None and topics:
            try:
                probs = proba(text)
                return min(1.0, sum(probs.get(t, 0.0) for t in topics))
            except Exception as exc:  # a broken model must not stop the crawl
                self._error("", "classifier", f"{exc.__class__.__name__}: {exc}")
        if self.keywords:
            return self.keywords(text)
        return 1.0

    # --- article pages ---------------------------------------------------------------
    def _article(self, req: Request, text: str, url: str):
        """Extract and classify: the article to store, None (extraction failed, recorded) or
        False (over the article limit)."""
        article = extract(text, url, self.profile)
        self.stats_.extracted(article)
        if not article.ok:
            reason = "; ".join(article.errors)
            self.sink.record_failure(url, reason)
            self._error(url, "extraction", reason)
            return None
        try:
            article.url = canonical(url)
        except UrlError:
            pass
        limit = self.options.max_articles
        if limit:
            with self._cond:
                if self._article_slots >= limit:
                    self._halted, self._status = True, "limit"
                    self._stop.set()
                    self._cond.notify_all()
                    return False
                self._article_slots += 1
        section = self.profile.topic_for_url(url)
        category, confidence = self._classify(article, section)
        if self.options.fetch_images and self.image_root:
            self._fetch_images(article)  # before storing: an article in the store has its images cached
        return _ToStore(req, None, "", "", article, category, confidence, section)

    def _classify(self, article, section: str | None) -> tuple[str | None, float | None]:
        if self.classifier is None:
            return section, None  # no model: the section the URL belongs to
        text = "\n".join(filter(None, (article.title, article.summary, article.body_text)))
        try:
            label, confidence = self.classifier.predict(text)
            return label, float(confidence)
        except Exception as exc:
            self._error(article.url, "classifier", f"{exc.__class__.__name__}: {exc}")
            return section, None

    def _fetch_images(self, article) -> None:
        urls = [article.image] + list(article.images)
        for src in dict.fromkeys(u for u in urls if u):
            src = absolute(article.url, src)
            if not is_allowed_scheme(src):
                continue
            with self._cond:
                if src in self._images_seen:
                    continue
                if len(self._images_seen) > 100_000:
                    self._images_seen.clear()
                self._images_seen.add(src)
            try:
                result = self.fetcher.fetch(src, accept="image", gate=self.gate, check=self._robots_check)
            except FetchError as exc:
                if exc.kind == "stopped":
                    return
                if exc.kind == "interrupted":  # cut by a pause: left for a later article that shows it
                    with self._cond:
                        self._images_seen.discard(src)
                    continue
                self.stats_.add(image_errors=1)
                self.sink.record_image(src, error=f"{exc.kind}: {exc}")
                continue
            ctype = result.content_type.split(";", 1)[0].strip().lower()
            sha = hashlib.sha256(result.body).hexdigest()
            path = image_file(Path(self.image_root), sha, ctype)
            try:
                if not path.exists():
                    write_atomic(path, result.body)
            except OSError as exc:
                self.stats_.add(image_errors=1)
                self.sink.record_image(src, error=f"image_store: {exc}")
                continue
            self.sink.record_image(src, sha, ctype, len(result.body))
            self.stats_.add(images=1)

    # --- events -------------------------------------------------------------------------
    def _emit(self, kind: str, data: dict) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(CrawlEvent(kind, data))
        except Exception:  # a listener's bug must not break the crawl
            log.exception("crawl event listener failed")


def _netloc(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).netloc
