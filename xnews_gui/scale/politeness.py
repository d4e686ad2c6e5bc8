"""The profile's per-site delay over all workers of a cluster, not per worker.

A request may start when its site's next free moment (in Redis, on the server's clock) has
come: one atomic script either takes the moment (free = now + delay) and lets the request go,
or answers how long to wait, and the request asks again then. Taking the moment at the last
instant, not reserving a future one, keeps a worker that was busy parsing from sending a
request late, right on top of another worker's. The delay is the profile's, or the site's
robots.txt Crawl-delay when that is longer (``XNewsSpider.crawl_delays``). Without a shared
frontier, Scrapy's own DOWNLOAD_DELAY keeps the profile's delay, and a longer robots.txt Crawl-delay is
kept here with a clock in the worker's process.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import task

# ARGV: key, delay ms. Returns 0 (go now) or the wait in ms.
TAKE = """
local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local free = tonumber(redis.call('GET', ARGV[1]) or '0')
if now < free then return free - now end
redis.call('SET', ARGV[1], now + tonumber(ARGV[2]), 'PX', tonumber(ARGV[2]) + 60000)
return 0
"""


class SitePoliteness:
    """The spacing of requests to one site: over all workers (a clock in Redis) in a cluster; in a
    worker alone, only a robots.txt Crawl-delay longer than the profile's delay (a clock in this
    process; Scrapy's DOWNLOAD_DELAY keeps the profile's)."""

    def __init__(self, crawler):
        settings = crawler.settings
        self.crawler = crawler
        self.url = settings.get("XNEWS_REDIS_URL")
        self.delay_ms = int(settings.getfloat("XNEWS_DELAY", 0.0) * 1000)
        self.take = None
        self.local: dict[str, float] = {}  # netloc -> its next free moment (monotonic seconds), alone
        if self.url:  # the profile's delay, or a robots.txt Crawl-delay learnt at the start
            from .frontier import redis_client

            self.take = redis_client(self.url).register_script(TAKE)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_request(self, request, spider=None):
        spider = self.crawler.spider
        netloc = urlsplit(request.url).netloc
        crawl_delay_ms = int(getattr(spider, "crawl_delays", {}).get(netloc, 0.0) * 1000)  # robots.txt's
        if self.take is None:
            if crawl_delay_ms > self.delay_ms:
                await self._wait_local(netloc, crawl_delay_ms / 1000.0)
            return None
        delay_ms = max(self.delay_ms, crawl_delay_ms)
        if delay_ms <= 0:
            return None
        profile = getattr(spider, "profile", None)
        key = f"xnews:{profile.name if profile is not None else 'default'}:next:{netloc}"
        while True:
            wait_ms = int(self.take(args=[key, delay_ms]))
            self.crawler.stats.inc_value("xnews/politeness_round_trips")
            if wait_ms <= 0:
                return None
            await _sleep(wait_ms / 1000.0)

    async def _wait_local(self, netloc: str, delay: float) -> None:
        while True:
            now = time.monotonic()
            free = self.local.get(netloc, 0.0)
            if now >= free:
                self.local[netloc] = now + delay
                return
            await _sleep(free - now)


async def _sleep(seconds: float) -> None:
    from twisted.internet import reactor

    await maybe_deferred_to_future(task.deferLater(reactor, seconds))
