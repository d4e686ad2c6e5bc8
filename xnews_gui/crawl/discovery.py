"""Where article URLs come from besides link rules: sitemaps and feeds.

    report = discover("https://example.vn/", fetcher)     # the inspector: "a sitemap, 12 feeds"
    finder = Discoverer(fetcher, gate=gate, check=check)   # the crawler: every URL, with its date
    for found in finder.urls(profile, last_dates): ...
    finder.sitemap_dates                                   # each index child's lastmod, for the next crawl

Everything is fetched through the crawler's ``Fetcher`` (its caps, user agent, politeness gate and
scope/robots check). The walk is bounded: sitemap files, index nesting, URLs and feeds are counted and
capped, and a child of a sitemap index whose lastmod is the one the last crawl saw is not
read at all (``last_dates``): the site says nothing in it changed. Entries are given with their dates, never dropped
for them: whether a page is newer than its stored copy is the crawl's question (``revisits``), asked
with the site's dates on both sides, not against our clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Iterator
from urllib.parse import urlsplit

from protego import Protego

from .feeds import FeedError, find_feeds, parse_feed
from .fetcher import FetchError, Fetcher
from .sitemaps import SitemapError, parse_sitemap



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


MAX_FEEDS_READ = 10  # announced feeds the inspector reads to offer them


@dataclass
class SiteReport:
    """What a site offers: its sitemaps (robots.txt lines, else /sitemap.xml if it answers as one),
    the feeds its page announces, and how many page URLs the first sitemaps list."""

    sitemaps: list[str] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    sitemap_urls: int = 0
    feed_urls: int = 0  # page URLs the feeds list (a feed announced that cannot be read is not offered)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        if self.sitemaps:
            parts.append(f"{len(self.sitemaps)} sitemap{'s' if len(self.sitemaps) > 1 else ''}"
                         + (f" ({self.sitemap_urls} URLs)" if self.sitemap_urls else ""))
        if self.feeds:
            parts.append(f"{len(self.feeds)} feed{'s' if len(self.feeds) > 1 else ''}"
                         + (f" ({self.feed_urls} URLs)" if self.feed_urls else ""))
        return "this site has " + " and ".join(parts) if parts else "no sitemap or feed found"


class Discoverer:
    def __init__(self, fetcher: Fetcher, *, gate=None, check: Callable[[str], None] | None = None,
                 limits: DiscoveryLimits | None = None,
                 on_error: Callable[[str, str], None] | None = None,
                 ready: Callable[[], bool] | None = None, robots=None,
                 on_page: Callable[[str, object], None] | None = None):
        self.fetcher = fetcher
        self.gate = gate
        self.check = check  # scope and robots: raises FetchError
        self.limits = limits or DiscoveryLimits()
        self.on_error = on_error  # (url, one-line message)
        self.ready = ready  # blocks while the crawl is paused; False when it stops
        self.robots = robots  # the crawl's RobotsCache: robots.txt is fetched once per crawl, by it
        self.on_page = on_page  # (url, FetchResult) of each page fetched for its feeds: the crawl reads it once
        self.counts = {"sitemaps": 0, "feeds": 0, "urls": 0, "unchanged": 0, "undated": 0, "errors": 0}
        self.sitemap_dates: dict[str, str] = {}  # index child -> its lastmod (ISO), as read this time
        self.parents: dict[str, str] = {}  # index child -> the index that lists it

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
        if self.robots is not None:
            return list(dict.fromkeys(self.robots.sitemaps(site_url)))
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            result = self.fetcher.fetch(robots_url, accept="any", gate=self.gate)
        except FetchError as exc:
            if exc.kind == "stopped":
                raise
            return []
        text = result.body[:512 * 1024].decode("utf-8", errors="replace")
        return list(dict.fromkeys(Protego.parse(text).sitemaps))

    def with_ancestors(self, sitemaps) -> set[str]:
        """These sitemaps and every index above them."""
        out = set()
        for url in sitemaps:
            while url not in out:
                out.add(url)
                url = self.parents.get(url, url)
        return out

    def sitemap_entries(self, roots: list[str], last_dates: dict | None = None) -> Iterator[Found]:
        """Page URLs listed by the sitemaps ``roots`` (indexes followed), with their dates; an index child
        whose lastmod is the one in ``last_dates`` (the last crawl's ``sitemap_dates``) is not read."""
        last_dates = last_dates or {}
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
                yield from self._feed_from(url, result)
                continue
            if sitemap.truncated:
                self._fail(url, "sitemap cut short (too many entries or a broken tail); the rest is skipped")
            dated = sitemap.kind != "index" and meaningful_dates(sitemap.entries)
            if not dated and sitemap.kind != "index":
                self.counts["undated"] += 1
            for entry in sitemap.entries:
                if sitemap.kind == "index" and entry.modified is not None:
                    date = self.sitemap_dates[entry.url] = entry.modified.isoformat()
                    if last_dates.get(entry.url) == date:  # the site says nothing in it changed since the last crawl
                        self.counts["unchanged"] += 1
                        continue
                if sitemap.kind == "index":
                    if depth + 1 > limits.max_depth:
                        self._fail(entry.url, f"sitemap indexes nested deeper than {limits.max_depth}")
                    elif entry.url not in seen:
                        seen.add(entry.url)
                        queue.append((entry.url, depth + 1))
                        self.parents[entry.url] = url
                    continue
                if self.counts["urls"] >= limits.max_urls:
                    self._fail(url, f"more than {limits.max_urls} URLs: the rest are not read")
                    return
                self.counts["urls"] += 1
                yield Found(entry.url, entry.modified if dated else None, url)

    # --- feeds -----------------------------------------------------------------------
    def announced_feeds(self, pages: list[str]) -> list[str]:
        """Feeds announced by these pages (``<link rel=alternate>`` and feed-looking links)."""
        from ..core.text.encoding import decode_html

        out: list[str] = []
        for page in pages:
            result = self._get(page, accept="html")
            if result is None:
                continue
            if self.on_page is not None:
                self.on_page(page, result)
            text, _ = decode_html(result.body, result.content_type)
            out.extend(u for u in find_feeds(text, result.url) if u not in out)
        return out[: self.limits.max_feeds]

    def feed_entries(self, feeds: list[str]) -> Iterator[Found]:
        for url in list(dict.fromkeys(feeds))[: self.limits.max_feeds]:
            result = self._get(url)
            if result is not None:
                yield from self._feed_from(url, result)

    def _feed_from(self, url: str, result) -> Iterator[Found]:
        self.counts["feeds"] += 1
        try:
            entries = parse_feed(result.body, result.url, result.content_type)
        except FeedError as exc:
            self._fail(url, str(exc))
            return
        for entry in entries:
            if self.counts["urls"] >= self.limits.max_urls:
                return
            self.counts["urls"] += 1
            yield Found(entry.url, entry.modified, url)

    # --- a profile's sources, in its order ---------------------------------------------
    def urls(self, profile, last_dates: dict | None = None) -> Iterator[Found]:
        """Every page URL the profile's ``discovery`` sources list (sitemaps, feeds), unfiltered;
        ``last_dates``: the last crawl's ``sitemap_dates``."""
        for mode in profile.discovery:
            if mode == "sitemap":
                roots = list(profile.sitemaps)
                for start in dict.fromkeys(_origin(u) for u in profile.start_urls):
                    roots += self.robots_sitemaps(start)
                if not roots:
                    roots = [_origin(profile.start_urls[0]) + "/sitemap.xml"]
                yield from self.sitemap_entries(roots, last_dates)
            elif mode == "feeds":
                feeds = list(profile.feeds) + self.announced_feeds(list(profile.start_urls))
                yield from self.feed_entries(feeds)


def meaningful_dates(entries) -> bool:
    """Whether a URL set's dates tell its pages apart: one whose every entry (3 or more) carries the same
    moment, give or take a minute, was dated when it was written (a CMS that puts "now" in every
    lastmod), not when each page changed; its dates would make every stored page look changed."""
    dates = [e.modified for e in entries if e.modified is not None]
    return len(dates) < 3 or (max(dates) - min(dates)).total_seconds() > 60


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
    announced = find_feeds(page_html, url) if page_html is not None else finder.announced_feeds([url])
    listed: set[str] = set()
    finder.counts["urls"] = 0  # the sitemaps' count is no cap on the feeds
    for feed in announced[:MAX_FEEDS_READ]:  # offered only when it answers as a feed (not a dead link)
        entries = {found.url for found in finder.feed_entries([feed])}
        if entries:
            report.feeds.append(feed)
            listed |= entries
    report.feed_urls = len(listed)
    return report


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
