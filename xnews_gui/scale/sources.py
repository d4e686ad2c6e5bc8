"""What a worker reads besides list pages: robots.txt (its ``Sitemap:`` lines and ``Crawl-delay``),
sitemaps and feeds, for a profile whose ``discovery`` names them.

Scrapy fetches; the parsing is the desktop crawl's own (``crawl/sitemaps.py`` and ``crawl/feeds.py``
ship in the worker's wheel), and so is the filter of what is an article URL (``core.extraction.links``). The
walk is bounded as on the desktop: sitemap files counted, index nesting limited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from protego import Protego

from ..crawl.feeds import FeedError, find_feeds, parse_feed
from ..crawl.sitemaps import SitemapError, parse_sitemap

ROBOTS_CAP = 512 * 1024
MAX_SITEMAPS = 2000  # sitemap files one worker reads in a crawl
MAX_DEPTH = 3  # sitemap indexes within indexes


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class Robots:
    """One site's robots.txt as the worker uses it beyond Scrapy's Allow/Disallow."""

    sitemaps: list[str] = field(default_factory=list)
    crawl_delay: float = 0.0  # seconds; Request-rate counts too, as on the desktop

    @classmethod
    def parse(cls, body: bytes, agent: str) -> "Robots":
        rules = Protego.parse(body[:ROBOTS_CAP].decode("utf-8", errors="replace"))
        delay = rules.crawl_delay(agent) or 0.0
        rate = rules.request_rate(agent)
        if rate and rate.requests:
            delay = max(delay, rate.seconds / rate.requests)
        return cls(list(dict.fromkeys(rules.sitemaps)), float(delay))


def sitemap_roots(profile, robots: dict[str, Robots]) -> list[str]:
    """The sitemaps to read: the profile's, then the robots.txt lines; /sitemap.xml when none."""
    roots = list(profile.sitemaps)
    for site in robots.values():
        roots += site.sitemaps
    if not roots:
        roots = [origin(profile.start_urls[0]) + "/sitemap.xml"]
    return list(dict.fromkeys(roots))


def read_sitemap(body: bytes, url: str, content_type: str = "") -> tuple[list[str], list[str]]:
    """(child sitemaps, page URLs) of a sitemap; a feed where a sitemap was expected is read as one.
    Raises ValueError (SitemapError, FeedError) with a one-line reason."""
    sitemap = parse_sitemap(body)
    if sitemap.kind == "feed":
        return [], read_feed(body, url, content_type)
    urls = [e.url for e in sitemap.entries]
    return (urls, []) if sitemap.kind == "index" else ([], urls)


def read_feed(body: bytes, url: str, content_type: str = "") -> list[str]:
    return [e.url for e in parse_feed(body, url, content_type)]


def announced_feeds(html_text: str, url: str) -> list[str]:
    return find_feeds(html_text, url)


__all__ = ["FeedError", "SitemapError", "Robots", "announced_feeds", "origin", "read_feed", "read_sitemap",
           "sitemap_roots"]
