"""robots.txt per origin (protego), fetched once and cached for the crawl.

Following RFC 9309: a 4xx robots.txt means no restrictions; a server error or
an unreachable server means "disallow everything" for this crawl.
"""

from __future__ import annotations

import threading

from protego import Protego

from .fetcher import FetchError, Fetcher
from .fetcher import origin as origin_of

_ROBOTS_CAP = 512 * 1024


class RobotsCache:
    def __init__(self, fetcher: Fetcher, agent: str, gate=None, on_error=None):
        self.fetcher = fetcher
        self.agent = agent  # the product token matched against User-agent lines
        self.gate = gate
        self.on_error = on_error  # callback(url, FetchError)
        self._rules: dict[tuple[str, str], Protego | None | bool] = {}  # per (scheme, netloc)
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def allowed(self, url: str, key: tuple[str, str] | None = None) -> bool:
        """``key``: the URL's (scheme, netloc) when known."""
        rules = self._get(url, key)
        if rules is True:
            return True
        if rules is False:
            return False
        return rules.can_fetch(url, self.agent)

    def unreadable(self, url: str, key: tuple[str, str] | None = None) -> bool:
        """The site's robots.txt could not be read (a server error, no answer): nothing there is crawled."""
        return self._get(url, key) is False

    def crawl_delay(self, url: str) -> float | None:
        rules = self._get(url)
        if isinstance(rules, bool):
            return None
        delay = rules.crawl_delay(self.agent)
        rate = rules.request_rate(self.agent)
        if rate and rate.requests:
            delay = max(delay or 0.0, rate.seconds / rate.requests)
        return float(delay) if delay else None

    def sitemaps(self, url: str) -> list[str]:
        """The ``Sitemap:`` lines of the robots.txt of ``url``'s site (read once per crawl, with the rules)."""
        rules = self._get(url)
        return [] if isinstance(rules, bool) else list(rules.sitemaps)

    def _get(self, url: str, key: tuple[str, str] | None = None):
        key = key or origin_of(url)
        rules = self._rules.get(key)
        if rules is not None:
            return rules
        origin = f"{key[0]}://{key[1]}"
        with self._lock:
            lock = self._locks.setdefault(origin, threading.Lock())
        with lock:
            if key not in self._rules:
                self._rules[key] = self._load(origin)
        return self._rules[key]

    def _load(self, origin: str):
        robots_url = origin + "/robots.txt"
        limits = self.fetcher.limits
        try:
            result = self.fetcher.fetch(robots_url, accept="any", gate=self.gate)
        except FetchError as exc:
            if exc.kind == "http_4xx":
                return True
            if exc.kind in ("stopped", "interrupted"):  # not an answer: asked again next time
                raise
            if self.on_error:
                self.on_error(robots_url, exc)
            return False
        body = result.body[:min(_ROBOTS_CAP, limits.max_bytes)]
        if len(body) < len(result.body):  # RFC 9309: the rules in the first 500 KiB hold, the rest is not read
            body = body[:body.rfind(b"\n") + 1]
        return Protego.parse(body.decode("utf-8", errors="replace"))
