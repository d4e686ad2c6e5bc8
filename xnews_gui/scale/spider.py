"""The one generic spider of every exported project: it reads a profile, not per-site code.

    scrapy crawl xnews -a profile=NAME -O items.jsonl                     # Scrapy's own scheduler
    scrapy crawl xnews -a profile=NAME -s XNEWS_REDIS_URL=redis://H:P/0   # a shared Redis frontier

List pages give article and list links (the profile's link rules), article pages are extracted
with the desktop's ``extract()``; the topic is added by ``pipelines.TopicPipeline``. The crawl
order follows the profile's strategy through request priorities. As on the desktop, a profile's
``discovery`` also reads sitemaps and feeds (``sources.py``), and robots.txt's Crawl-delay raises
the delay between requests to its site.
"""

from __future__ import annotations

import random
from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.http import TextResponse
from scrapy.utils.defer import maybe_deferred_to_future

from ..core.text.encoding import decode_html
from ..core.extraction.extract import extract
from ..core.extraction.links import article_url, page_links
from ..core.profile.profile import Profile
from ..core.text.urls import UrlError, canonical
from ..crawl.request import SOURCES, Request
from . import packaged, sources

REQUEST = "xnews_request"  # a Scrapy request's meta key for the crawl's own Request (crawl/request.py)
# what Scrapy's redirect and retry middlewares keep in a request's meta between tries
CARRIED_META = ("redirect_times", "redirect_ttl", "redirect_urls", "redirect_reasons")
page_done = object()  # signal(request): a page is finished (links queued, no item); the shared frontier acks it
SOURCE_PRIORITY = 1_000_000  # sitemaps and feeds before pages: they are what the pages come from
# orders Scrapy can follow with priorities; the in-memory orders of the desktop (importance,
# pagerank) need scores that change while URLs wait, and are crawled best-first here
FIFO_ORDERS = {"bfs", "best_first", "focused", "random", "importance", "pagerank"}


def to_scrapy(req: Request, strategy: str, callback, errback) -> scrapy.Request:
    """The Scrapy request that fetches ``req`` (carried whole in its meta)."""
    priority = SOURCE_PRIORITY if req.kind in SOURCES else request_priority(strategy, req.depth, req.priority)
    meta = {REQUEST: req, **{k: v for k, v in req.extra.items() if k in CARRIED_META}}
    if req.tries:
        meta["retry_times"] = req.tries
    return scrapy.Request(req.url, callback=callback, errback=errback, priority=priority, meta=meta,
                          dont_filter="dont_filter" in req.flags)


def as_request(request: scrapy.Request) -> Request:
    """The crawl's Request of a Scrapy request, as it is now: a redirect's new URL, Scrapy's tries and
    redirect counters (the Request it was made from is not changed)."""
    base = request.meta.get(REQUEST)
    if not isinstance(base, Request):
        base = Request(request.url, "list")
    flags = base.flags | {"dont_filter"} if request.dont_filter else base.flags - {"dont_filter"}
    extra = {k: v for k, v in base.extra.items() if k not in CARRIED_META}  # what Scrapy does not keep
    extra.update((k, request.meta[k]) for k in CARRIED_META if k in request.meta)
    return Request(request.url, base.kind, base.depth, base.referrer, base.anchor, base.priority, base.profile,
                   frozenset(flags), int(request.meta.get("retry_times", base.tries) or 0), base.not_before,
                   dict(base.headers), extra)


def request_priority(strategy: str, depth: int, score: float) -> int:
    """Higher first (Scrapy's convention)."""
    if strategy == "bfs":
        return -depth
    if strategy == "dfs":
        return depth
    if strategy == "random":
        return random.randrange(1000)
    return int(round(score * 1000))


class XNewsSpider(scrapy.Spider):
    name = "xnews"

    def __init__(self, *args, profile: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if not profile:
            raise ValueError("choose a profile: scrapy crawl xnews -a profile=NAME")
        self.profile_arg = profile
        self.crawl_delays: dict[str, float] = {}  # netloc -> robots.txt's Crawl-delay (seconds)
        # URLs this spider asked for already: a link seen again (the menu on every list page) is not made
        # a request for the scheduler to drop (each one costs Scrapy's middlewares and a task)
        self.asked: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.profile = packaged.load_profile(settings.get("XNEWS_DATA_PACKAGE") or "", spider.profile_arg)
        spider.allowed_domains = list(spider.profile.allowed_domains)
        spider.strategy = spider.profile.crawl.strategy
        for name, value in profile_settings(spider.profile, bool(settings.get("XNEWS_REDIS_URL"))).items():
            settings.set(name, value, priority="spider")  # -s on the command line still wins
        crawler.signals.connect(spider.dropped, signal=signals.request_dropped)
        return spider

    async def start(self):
        modes = tuple(getattr(self.profile, "discovery", ("links",)) or ("links",))
        robots = {site: await self.read_robots(site)
                  for site in dict.fromkeys(sources.origin(u) for u in self.profile.start_urls)}
        self.crawl_delays = {urlsplit(site).netloc: r.crawl_delay for site, r in robots.items() if r.crawl_delay}
        self.apply_crawl_delays()
        if "sitemap" in modes:
            for url in sources.sitemap_roots(self.profile, robots):
                yield self.source(url, "sitemap", 0)
        if "feeds" in modes:
            for url in self.profile.feeds:
                yield self.source(url, "feed", 0)
        if "links" in modes or "feeds" in modes:  # start pages: their links, their announced feeds
            flags = frozenset(f for f in ("links", "feeds") if f in modes)
            for url in self.profile.start_urls:
                try:
                    yield self.scrapy_request(Request(canonical(url), "start", 0, priority=1.0,
                                                      profile=self.profile.name, flags=flags))
                except UrlError as exc:
                    self.logger.error("bad start URL %s: %s", url, exc)

    async def read_robots(self, site: str) -> sources.Robots:
        """The site's robots.txt beyond what Scrapy obeys (Allow/Disallow): Sitemap lines, Crawl-delay."""
        request = scrapy.Request(site + "/robots.txt", meta={"dont_obey_robotstxt": True}, dont_filter=True)
        engine = self.crawler.engine
        try:
            if hasattr(engine, "download_async"):  # Scrapy 2.14+
                response = await engine.download_async(request)
            else:
                response = await maybe_deferred_to_future(engine.download(request))
        except Exception as exc:  # noqa: BLE001 - no robots.txt read: nothing beyond Scrapy's own rules
            self.logger.info("robots.txt of %s not read: %s", site, exc)
            return sources.Robots()
        if response.status != 200:
            return sources.Robots()
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or "XNews"
        return sources.Robots.parse(response.body, agent)

    def apply_crawl_delays(self) -> None:
        """A Crawl-delay above the profile's delay holds for the site: ``politeness.SitePoliteness``
        reads ``crawl_delays`` (over all workers in a cluster, in this process alone)."""
        for netloc, delay in self.crawl_delays.items():
            self.logger.info("robots.txt of %s asks for %.2f s between requests", netloc, delay)
            self.crawler.stats.max_value("xnews/crawl_delay", delay)

    def scrapy_request(self, req: Request) -> scrapy.Request:
        return to_scrapy(req, self.strategy, self.parse, self.failed)

    def source(self, url: str, kind: str, depth: int, referrer: str = "") -> scrapy.Request:
        return self.scrapy_request(Request(url, kind, depth, referrer, profile=self.profile.name))

    def follow(self, url: str, kind: str, depth: int, score: float, referrer: str = "") -> scrapy.Request:
        return self.scrapy_request(Request(url, kind, depth, referrer, priority=score, profile=self.profile.name))

    def new_links(self, links):
        """The links this spider has not asked for yet (and from now on, has)."""
        for link in links:
            if link in self.asked:
                self.crawler.stats.inc_value("xnews/links_seen_before")
                continue
            self.asked.add(link)
            yield link

    # --- responses ----------------------------------------------------------------------
    def parse(self, response):
        req = as_request(response.request)
        if req.kind in SOURCES:
            yield from self.read_source(response, req)
            self.done(response.request)
            return
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("xnews/not_html")
            self.done(response.request)
            return
        ctype = response.headers.get("Content-Type", b"").decode("latin-1") or None
        if req.listing:
            yield from self.expand(response, ctype, req)
        else:
            item = self.article(response, ctype)
            if item is not None:
                yield item  # the page is done once its item is exported (frontier.py: item_scraped)
                return
        self.done(response.request)

    def read_source(self, response, req: Request):
        """Page URLs of a sitemap or feed (the profile's article pattern and scope filter them)."""
        kind, depth = req.kind, req.depth
        ctype = response.headers.get("Content-Type", b"").decode("latin-1")
        try:
            if kind == "sitemap":
                children, pages = sources.read_sitemap(response.body, response.url, ctype)
            else:
                children, pages = [], sources.read_feed(response.body, response.url, ctype)
        except ValueError as exc:  # SitemapError, FeedError: one line
            self.crawler.stats.inc_value("xnews/source_errors")
            self.logger.warning("%s %s not read: %s", kind, response.url, exc)
            return
        self.crawler.stats.inc_value(f"xnews/{kind}s_read")
        for child in children:
            read = self.crawler.stats.get_value("xnews/sitemaps_read", 0)
            if depth + 1 > sources.MAX_DEPTH or read >= sources.MAX_SITEMAPS:
                self.logger.warning("sitemap %s not read: indexes nested deeper than %d or more than %d sitemaps",
                                    child, sources.MAX_DEPTH, sources.MAX_SITEMAPS)
                continue
            yield self.source(child, "sitemap", depth + 1, response.url)
        links = []
        for url in pages:
            link = article_url(self.profile, url)
            if link is None:
                self.crawler.stats.inc_value("xnews/listed_not_articles")
                continue
            self.crawler.stats.inc_value("xnews/discovered")
            links.append(link)
        for link in self.new_links(links):
            yield self.follow(link, "article", 1, 1.0, response.url)

    def expand(self, response, ctype, req: Request):
        text = decode_html(response.body, ctype)[0]
        if req.kind == "start" and "feeds" in req.flags:
            for url in sources.announced_feeds(text, response.url):
                yield self.source(url, "feed", 0, response.url)
        if req.kind == "start" and "links" not in req.flags:
            return
        articles, lists = page_links(self.profile, text, response.url)  # the desktop crawl's links
        depth, score = req.depth + 1, req.priority
        for link in self.new_links(articles):
            yield self.follow(link, "article", depth, score, response.url)
        max_depth = self.profile.crawl.max_depth
        if max_depth and depth > max_depth:
            self.crawler.stats.inc_value("xnews/dropped_by_depth", len(lists))
            return
        for link in self.new_links(lists):
            yield self.follow(link, "list", depth, score, response.url)

    def article(self, response, ctype) -> dict | None:
        article = extract(response.body, response.url, self.profile, content_type=ctype)
        if not article.ok:
            self.crawler.stats.inc_value("xnews/extraction_failed")
            self.logger.warning("extraction failed on %s: %s", response.url, "; ".join(article.errors))
            return None
        try:
            article.url = canonical(response.url)
        except UrlError:
            pass
        self.crawler.stats.inc_value("xnews/articles")
        return {"url": article.url, "title": article.title, "summary": article.summary, "image": article.image,
                "body_html": article.body_html, "body_text": article.body_text, "author": article.author,
                "date": article.date, "topic": None, "confidence": None, "images": list(article.images),
                "section": self.profile.topic_for_url(response.url), "profile": self.profile.name}

    def failed(self, failure):
        request = getattr(failure, "request", None) or getattr(failure.value, "request", None)
        response = getattr(failure.value, "response", None)
        if request is None and response is not None:
            request = response.request
        self.crawler.stats.inc_value("xnews/failed")
        self.logger.info("failed %s: %s", getattr(request, "url", "?"), failure.getErrorMessage())
        if request is not None:
            self.done(request)

    def done(self, request) -> None:
        """The page is finished (its links are queued, no item): said with the ``page_done`` signal,
        which the shared frontier hears (with Scrapy's own scheduler nobody listens)."""
        self.crawler.signals.send_catch_log(page_done, request=request, spider=self)

    def dropped(self, request, spider=None, **kwargs) -> None:
        """The scheduler did not take a request (seen before, here or by another worker)."""
        self.crawler.stats.inc_value("xnews/dropped")


def profile_settings(profile: Profile, cluster: bool) -> dict:
    """Scrapy settings that follow the profile's crawl settings."""
    crawl = profile.crawl
    settings = {
        "CONCURRENT_REQUESTS": crawl.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": crawl.concurrency,
        "DOWNLOAD_DELAY": 0.0 if cluster else crawl.delay_s,  # in a cluster, politeness.py spaces them
        "XNEWS_DELAY": crawl.delay_s,
        "SCHEDULER_MEMORY_QUEUE": ("scrapy.squeues.FifoMemoryQueue" if crawl.strategy in FIFO_ORDERS
                                   else "scrapy.squeues.LifoMemoryQueue"),
        "SCHEDULER_DISK_QUEUE": ("scrapy.squeues.PickleFifoDiskQueue" if crawl.strategy in FIFO_ORDERS
                                 else "scrapy.squeues.PickleLifoDiskQueue"),
        "XNEWS_LIFO": crawl.strategy not in FIFO_ORDERS,
    }
    if crawl.max_pages:
        settings["CLOSESPIDER_PAGECOUNT"] = crawl.max_pages
    if cluster:
        settings["SCHEDULER"] = "xnews_gui.scale.frontier.RedisFrontier"
    return settings
