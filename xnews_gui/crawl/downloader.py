"""The downloader: the crawl's one way to the network.

One ``Fetcher`` (connection pools, caps, retries), the per-host politeness gate and
robots.txt; every hop of a page fetch (redirects included) is checked against the
profile's domains and robots.txt, an image hop against robots.txt.
"""

from __future__ import annotations

import threading
from typing import Callable
from ..core.text.urls import UrlError, canonical, host_of, in_scope
from .fetcher import FetchError, Fetcher, FetchResult, origin
from .options import ROBOTS_AGENT, CrawlOptions
from .politeness import HostGate
from .proxies import ProxyList
from .robots import RobotsCache

_MEMO = 4096  # hosts remembered per crawl (a hostile site's endless host names are just checked again)


class Downloader:
    def __init__(self, options: CrawlOptions, *, domains, concurrency: int, delay_s: float, stop: threading.Event,
                 on_error: Callable[[str, str, str], None], on_log: Callable[[str], None],
                 on_warning: Callable[[str], None] | None = None):
        self.options = options
        self.domains = domains
        self.on_error = on_error
        self.on_log = on_log
        self.on_warning = on_warning or on_log
        # every request (pages, images, robots.txt, sitemaps) through the rotation; a failing proxy is a warning
        self.proxies = ProxyList(options.proxies, on_warning=self.on_warning) if options.proxies else None
        self.fetcher = Fetcher(options.agent(), options.limits, stop=stop, cookies=options.cookies,
                               proxies=self.proxies)
        self.gate = HostGate(delay_s, options.per_host or concurrency, stop=stop)
        self.robots = RobotsCache(self.fetcher, ROBOTS_AGENT, gate=self.gate, on_error=self._robots_error)
        self._delays_set: set[str] = set()
        # per (scheme, netloc): whether it is in scope (core.text.urls.in_scope depends on nothing else),
        # and the netlocs whose robots.txt crawl delay was looked at
        self._scope: dict[tuple[str, str], bool] = {}
        self._delay_netlocs: set[str] = set()
        self._kept: dict[str, FetchResult] = {}  # pages discovery fetched already (start pages): read once

    def keep(self, url: str, result: FetchResult) -> None:
        """A page fetched before the crawl asks for it (discovery looked for its feeds): the crawl's own
        request of it gets this result instead of fetching the page again."""
        try:
            key = canonical(url)
        except UrlError:
            return
        if len(self._kept) < 64:
            self._kept[key] = result

    def page(self, url: str, tried: int = 0, conditions: dict | None = None) -> FetchResult:
        """The page, or FetchError("retry") when the site asks to wait: the host's slot and the thread are
        free meanwhile (the crawl reschedules the request for its not-before time). ``conditions``: a
        revisit's If-None-Match / If-Modified-Since (a 304 result has no body)."""
        kept = self._kept.pop(url, None) if self._kept and not conditions else None
        if kept is not None:
            return kept
        return self.fetcher.fetch(url, accept="html", gate=self.gate, check=self.check, tried=tried, later=True,
                                  conditions=conditions)

    def image(self, url: str) -> FetchResult:
        return self.fetcher.fetch(url, accept="image", gate=self.gate, check=self.robots_check)

    def interrupt(self) -> None:
        self.fetcher.interrupt()

    def close(self) -> None:
        self.fetcher.close()

    def check(self, url: str) -> None:
        key = origin(url)
        allowed = self._scope.get(key)
        if allowed is None:
            allowed = in_scope(url, self.domains)
            if len(self._scope) < _MEMO:
                self._scope[key] = allowed
        if not allowed:
            raise FetchError("scope", f"outside the profile's domains: {url}")
        self.robots_check(url, key)

    def robots_check(self, url: str, key: tuple[str, str] | None = None) -> None:
        """``key``: the URL's (scheme, netloc) when known."""
        if not self.options.obey_robots:
            return
        key = key or origin(url)
        if not self.robots.allowed(url, key):
            if self.robots.unreadable(url, key):
                raise FetchError("robots", f"not fetched: the site's robots.txt could not be read (the error "
                                           f"before says why), so nothing there is crawled: {url}")
            raise FetchError("robots", f"disallowed by robots.txt: {url}")
        netloc = key[1]
        if netloc in self._delay_netlocs:
            return
        if len(self._delay_netlocs) < _MEMO:
            self._delay_netlocs.add(netloc)
        host = host_of(url)
        if host not in self._delays_set:
            self._delays_set.add(host)
            delay = self.robots.crawl_delay(url)
            if delay:
                self.gate.set_delay(netloc, delay)
                self.on_log(f"robots.txt of {host} asks for a {delay:g} s crawl delay")

    def _robots_error(self, url: str, exc: FetchError) -> None:
        if not in_scope(url, self.domains):  # a host of images only (a CDN): no page of the crawl is lost
            self.on_warning(f"robots.txt of {host_of(url)} unreachable ({exc.kind}: {exc}); its images are not "
                            "fetched")
            return
        self.on_error(url, "robots", f"robots.txt unreachable ({exc.kind}: {exc}); not crawling that host")
