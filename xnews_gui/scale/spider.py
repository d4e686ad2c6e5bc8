"""The one generic spider of every exported project: it reads a profile, not per-site code.

    scrapy crawl xnews -a profile=NAME -O items.jsonl                     # Scrapy's own scheduler
    scrapy crawl xnews -a profile=NAME -s XNEWS_REDIS_URL=redis://H:P/0   # a shared Redis frontier

List pages give article and list links (the profile's link rules), article pages are extracted
with the desktop's ``extract()``; the topic is added by ``pipelines.TopicPipeline``. The crawl
order follows the profile's strategy through request priorities.
"""

from __future__ import annotations

import random

import scrapy
from scrapy.http import TextResponse

from ..core.encoding import decode_html
from ..core.extract import extract
from ..core.links import page_links
from ..core.profile import Profile
from ..core.urls import UrlError, canonical
from . import packaged

KIND, DEPTH, SCORE = "xnews_kind", "xnews_depth", "xnews_score"
# orders Scrapy can follow with priorities; the in-memory orders of the desktop (importance,
# pagerank) need scores that change while URLs wait, and are crawled best-first here
FIFO_ORDERS = {"bfs", "best_first", "focused", "random", "importance", "pagerank"}


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
        self.frontier = None  # the shared frontier when one is used (it sets itself here)
        self.items_in_flight: dict[int, scrapy.Request] = {}

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.profile = packaged.load_profile(settings.get("XNEWS_DATA_PACKAGE") or "", spider.profile_arg)
        spider.allowed_domains = list(spider.profile.allowed_domains)
        spider.strategy = spider.profile.crawl.strategy
        for name, value in profile_settings(spider.profile, bool(settings.get("XNEWS_REDIS_URL"))).items():
            settings.set(name, value, priority="spider")  # -s on the command line still wins
        return spider

    async def start(self):
        skipped = [mode for mode in getattr(self.profile, "discovery", ("links",)) if mode != "links"]
        if skipped:  # sitemaps and feeds are read by the desktop crawl only, for now
            self.logger.warning("profile %s: discovery by %s is not done by Scrapy workers; following its "
                                "link rules from the start URLs", self.profile.name, " and ".join(skipped))
        for url in self.profile.start_urls:
            try:
                yield self.follow(canonical(url), "list", 0, 1.0)
            except UrlError as exc:
                self.logger.error("bad start URL %s: %s", url, exc)

    def follow(self, url: str, kind: str, depth: int, score: float) -> scrapy.Request:
        return scrapy.Request(url, callback=self.parse, errback=self.failed,
                              priority=request_priority(self.strategy, depth, score),
                              meta={KIND: kind, DEPTH: depth, SCORE: score})

    # --- responses ----------------------------------------------------------------------
    def parse(self, response):
        if not isinstance(response, TextResponse):
            self.crawler.stats.inc_value("xnews/not_html")
            self.done(response.request)
            return
        kind = response.meta.get(KIND, "list")
        ctype = response.headers.get("Content-Type", b"").decode("latin-1") or None
        if kind == "list":
            yield from self.expand(response, ctype)
        else:
            item = self.article(response, ctype)
            if item is not None:
                if self.frontier is not None:  # done once exported (frontier.py)
                    self.items_in_flight[id(item)] = response.request
                yield item
                return
        self.done(response.request)

    def expand(self, response, ctype):
        text = decode_html(response.body, ctype)[0]
        articles, lists = page_links(self.profile, text, response.url)  # the desktop crawl's links
        depth = response.meta.get(DEPTH, 0) + 1
        score = response.meta.get(SCORE, 1.0)
        for link in articles:
            yield self.follow(link, "article", depth, score)
        max_depth = self.profile.crawl.max_depth
        for link in lists:
            if max_depth and depth > max_depth:
                self.crawler.stats.inc_value("xnews/dropped_by_depth")
                continue
            yield self.follow(link, "list", depth, score)

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
        """The page is finished (its links are queued, its item exported or none): the shared
        frontier may forget it. A no-op with Scrapy's own scheduler."""
        if self.frontier is not None:
            self.frontier.ack(request)


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
