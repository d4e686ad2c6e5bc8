"""The profile's per-site delay over all workers of a cluster, not per worker.

A request may start when its site's next free moment (in Redis, on the server's clock) has
come: one atomic script either takes the moment (free = now + delay) and lets the request go,
or answers how long to wait, and the request asks again then. Taking the moment at the last
instant, not reserving a future one, keeps a worker that was busy parsing from sending a
request late, right on top of another worker's. The delay is the profile's, or the site's
robots.txt Crawl-delay when that is longer (``XNewsSpider.crawl_delays``). Without a shared
frontier, or with a delay of 0, this does nothing: Scrapy's own DOWNLOAD_DELAY applies.
"""

from __future__ import annotations

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


class ClusterPoliteness:
    def __init__(self, crawler):
        settings = crawler.settings
        self.crawler = crawler
        self.url = settings.get("XNEWS_REDIS_URL")
        self.delay_ms = int(settings.getfloat("XNEWS_DELAY", 0.0) * 1000)
        self.take = None
        if self.url:  # the profile's delay, or a robots.txt Crawl-delay learnt at the start
            from .frontier import redis_client

            self.take = redis_client(self.url).register_script(TAKE)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_request(self, request, spider=None):
        if self.take is None:
            return None
        profile = getattr(self.crawler.spider, "profile", None)
        name = profile.name if profile is not None else "default"
        netloc = urlsplit(request.url).netloc
        key = f"xnews:{name}:next:{netloc}"
        frontier = getattr(self.crawler.spider, "frontier", None)
        crawl_delay = getattr(self.crawler.spider, "crawl_delays", {}).get(netloc, 0.0)  # robots.txt's
        delay_ms = max(self.delay_ms, int(crawl_delay * 1000))
        if delay_ms <= 0:
            return None
        while True:
            wait_ms = int(self.take(args=[key, delay_ms]))
            if frontier is not None:
                frontier.round_trips += 1
            if wait_ms <= 0:
                return None
            from twisted.internet import reactor

            await maybe_deferred_to_future(task.deferLater(reactor, wait_ms / 1000.0))
