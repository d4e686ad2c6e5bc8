"""Where article URLs come from besides link rules: sitemaps and feeds.

    report = discover("https://example.vn/", fetcher)     # the inspector: "a sitemap, 12 feeds"
    finder = Discoverer(fetcher, gate=gate, check=check)   # the crawler: every URL, with its date
    for found in finder.urls(profile, since=last_time): ...

Everything is fetched through the crawler's ``Fetcher`` (its caps, user agent, politeness gate and
scope/robots check). The walk is bounded: sitemap files, index nesting, URLs and feeds are counted and
capped, and a sitemap (or a child of an index) whose date is older than ``since`` is not read at all,
so a re-crawl fetches only what is new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable, Iterator
from urllib.parse import urlsplit

from protego import Protego

from .feeds import FeedError, find_feeds, parse_feed
from .fetcher import FetchError, Fetcher
from .sitemaps import SitemapError, parse_sitemap

# dates in sitemaps and feeds are the server's, our 'since' is our clock: a margin for the difference
CLOCK_SLACK = timedelta(hours=1)


@dataclass
class DiscoveryLimits:
    max_sitemaps: int = 2000  # sitemap files read in one crawl
    max_depth: int = 3  # sitemap indexes within indexes
    max_urls: int = 1_000_000
    max_feeds: int = 200


@dataclass(frozen=True)
class Found:
    url: str
    modified: datetime | None
    source: str  # the sitemap or feed that lists it


@dataclass
class SiteReport:
    """What a site offers: its sitemaps (robots.txt lines, else /sitemap.xml if it answers as one),
    the feeds its page announces, and how many page URLs the first sitemaps list."""

    sitemaps: list[str] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    sitemap_urls: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        if self.sitemaps:
            parts.append(f"{len(self.sitemaps)} sitemap{'s' if len(self.sitemaps) > 1 else ''}"
                         + (f" ({self.sitemap_urls} URLs)" if self.sitemap_urls else ""))
        if self.feeds:
            parts.append(f"{len(self.feeds)} feed{'s' if len(self.feeds) > 1 else ''}")
        return "this site has " + " and ".join(parts) if parts else "no sitemap or feed found"


class Discoverer:
    def __init__(self, fetcher: Fetcher, *, gate=None, check: Callable[[str], None] | None = None,
                 limits: DiscoveryLimits | None = None,
                 on_error: Callable[[str, str], None] | None = None,
                 ready: Callable[[], bool] | None = None):
        self.fetcher = fetcher
        self.gate = gate
        self.check = check  # scope and robots: raises FetchError
        self.limits = limits or DiscoveryLimits()
        self.on_error = on_error  # (url, one-line message)
        self.ready = ready  # blocks while the crawl is paused; False when it stops
        self.counts = {"sitemaps": 0, "feeds": 0, "urls": 0, "older": 0, "errors": 0}

    # --- fetching ---------------------------------------------------------------
    def _get(self, url: str, accept: str = "any", check: bool = True):
        """The fetch result, or None after reporting why; a stopped crawl raises."""
        for _ in range(3):
            if self.ready is not None and not self.ready():
                raise FetchError("stopped", "crawl stopped")
            try:
                return self.fetcher.fetch(url, accept=accept, gate=self.gate, check=self.check if check else None)
            except FetchError as exc:
                if exc.kind == "stopped":
                    raise
                if exc.kind == "interrupted":  # cut by a pause: ask again once resumed
                    continue
                self._fail(url, f"{exc.kind}: {exc}")
                return None
        self._fail(url, "interrupted three times")
        return None

    def _fail(self, url: str, message: str) -> None:
        self.counts["errors"] += 1
        if self.on_error:
            self.on_error(url, message)

    # --- sitemaps ----------------------------------------------------------------
    def robots_sitemaps(self, site_url: str) -> list[str]:
        """The ``Sitemap:`` lines of the site's robots.txt (none when it has no robots.txt)."""
        parts = urlsplit(site_url)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            result = self.fetcher.fetch(robots_url, accept="any", gate=self.gate)
        except FetchError as exc:
            if exc.kind == "stopped":
                raise
            return []
        text = result.body[:512 * 1024].decode("utf-8", errors="replace")
        return list(dict.fromkeys(Protego.parse(text).sitemaps))

    def sitemap_entries(self, roots: list[str], since: datetime | None = None) -> Iterator[Found]:
        """Page URLs listed by the sitemaps ``roots`` (indexes followed), with their dates."""
        limits = self.limits
        queue = [(url, 0) for url in dict.fromkeys(roots)]
        seen = set(u for u, _ in queue)
        while queue:
            url, depth = queue.pop(0)
            if self.counts["sitemaps"] >= limits.max_sitemaps:
                self._fail(url, f"more than {limits.max_sitemaps} sitemaps: the rest are not read")
                return
            result = self._get(url, accept="sitemap")
            if result is None:
                continue
            self.counts["sitemaps"] += 1
            try:
                sitemap = parse_sitemap(result.body)
            except SitemapError as exc:
                self._fail(url, str(exc))
                continue
            if sitemap.kind == "feed":
                yield from self._feed_from(url, result, since)
                continue
            if sitemap.truncated:
                self._fail(url, "sitemap cut short (too many entries or a broken tail); the rest is skipped")
            for entry in sitemap.entries:
                if since is not None and entry.modified is not None and entry.modified < since - CLOCK_SLACK:
                    self.counts["older"] += 1
                    continue
                if sitemap.kind == "index":
                    if depth + 1 > limits.max_depth:
                        self._fail(entry.url, f"sitemap indexes nested deeper than {limits.max_depth}")
                    elif entry.url not in seen:
                        seen.add(entry.url)
                        queue.append((entry.url, depth + 1))
                    continue
                if self.counts["urls"] >= limits.max_urls:
                    self._fail(url, f"more than {limits.max_urls} URLs: the rest are not read")
                    return
                self.counts["urls"] += 1
                yield Found(entry.url, entry.modified, url)

    # --- feeds -----------------------------------------------------------------------
    def announced_feeds(self, pages: list[str]) -> list[str]:
        """Feeds announced by these pages (``<link rel=alternate>`` and feed-looking links)."""
        from ..core.encoding import decode_html

        out: list[str] = []
        for page in pages:
            result = self._get(page, accept="html")
            if result is None:
                continue
            text, _ = decode_html(result.body, result.content_type)
            out.extend(u for u in find_feeds(text, result.url) if u not in out)
        return out[: self.limits.max_feeds]

    def feed_entries(self, feeds: list[str], since: datetime | None = None) -> Iterator[Found]:
        for url in list(dict.fromkeys(feeds))[: self.limits.max_feeds]:
            result = self._get(url)
            if result is not None:
                yield from self._feed_from(url, result, since)

    def _feed_from(self, url: str, result, since: datetime | None) -> Iterator[Found]:
        self.counts["feeds"] += 1
        try:
            entries = parse_feed(result.body, result.url, result.content_type)
        except FeedError as exc:
            self._fail(url, str(exc))
            return
        for entry in entries:
            if since is not None and entry.modified is not None and entry.modified < since - CLOCK_SLACK:
                self.counts["older"] += 1
                continue
            if self.counts["urls"] >= self.limits.max_urls:
                return
            self.counts["urls"] += 1
            yield Found(entry.url, entry.modified, url)

    # --- a profile's sources, in its order ---------------------------------------------
    def urls(self, profile, since: datetime | None = None) -> Iterator[Found]:
        """Every page URL the profile's ``discovery`` sources list (sitemaps, feeds), unfiltered."""
        for mode in profile.discovery:
            if mode == "sitemap":
                roots = list(profile.sitemaps)
                for start in dict.fromkeys(_origin(u) for u in profile.start_urls):
                    roots += self.robots_sitemaps(start)
                if not roots:
                    roots = [_origin(profile.start_urls[0]) + "/sitemap.xml"]
                yield from self.sitemap_entries(roots, since)
            elif mode == "feeds":
                feeds = list(profile.feeds) + self.announced_feeds(list(profile.start_urls))
                yield from self.feed_entries(feeds, since)


def discover(url: str, fetcher: Fetcher, *, check: Callable[[str], None] | None = None,
             count_urls: bool = True, page_html: str | None = None) -> SiteReport:
    """What a site offers besides its links: sitemaps (robots.txt, else /sitemap.xml) and the feeds
    the page at ``url`` announces (``page_html``: that page's HTML when the caller has it, so it is not
    fetched again). Qt-free; for the inspector ("this site has a sitemap / N feeds")."""
    report = SiteReport()
    finder = Discoverer(fetcher, check=check, limits=DiscoveryLimits(max_sitemaps=20),
                        on_error=lambda u, m: report.errors.append(f"{u}: {m}"))
    report.sitemaps = finder.robots_sitemaps(url)
    if not report.sitemaps:
        fallback = _origin(url) + "/sitemap.xml"
        result = finder._get(fallback, accept="sitemap")
        if result is not None:
            try:
                if parse_sitemap(result.body).kind in ("index", "urlset"):
                    report.sitemaps = [fallback]
            except SitemapError:
                pass
            report.errors.clear()  # a missing /sitemap.xml is not an error worth showing
    if count_urls and report.sitemaps:
        report.sitemap_urls = sum(1 for _ in finder.sitemap_entries(report.sitemaps))
    if page_html is not None:
        report.feeds = find_feeds(page_html, url)[: finder.limits.max_feeds]
    else:
        report.feeds = finder.announced_feeds([url])
    return report


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
