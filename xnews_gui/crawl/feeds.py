"""RSS and Atom feeds: found on a page (autodiscovery), read with feedparser (BSD-2-Clause).

feedparser is handed the bytes the crawler fetched (a stream, so it never opens a URL itself); it
reads XML with expat with external entities off, and we turn off its HTML sanitising and relative-URI
rewriting (we only take links and dates, which we resolve ourselves).
"""

from __future__ import annotations

import calendar
import io
import re
from dataclasses import dataclass
from datetime import datetime, timezone

from lxml import html as lxml_html

from ..core.text.urls import absolute, is_allowed_scheme

FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json")
_FEEDISH_HREF = re.compile(r"(?:\.rss|\.atom|/rss|/feed|rss\.xml|atom\.xml|feed\.xml)/?(?:\?.*)?$", re.I)
MAX_FEEDS_PER_PAGE = 100
MAX_ENTRIES = 5_000


class FeedError(ValueError):
    """A feed that cannot be read; the message says why in one line."""


@dataclass(frozen=True)
class FeedEntry:
    url: str
    modified: datetime | None = None
    title: str = ""


def find_feeds(html_text: str, base_url: str) -> list[str]:
    """Feed URLs a page announces: ``<link rel="alternate" type="application/rss+xml">`` (and Atom),
    then links whose address looks like a feed (``/rss``, ``.rss``, ``feed.xml``...), in page order."""
    try:
        doc = lxml_html.fromstring(html_text)
    except (ValueError, TypeError, lxml_html.etree.ParserError):
        return []
    found: list[str] = []
    for el in doc.iter("link"):
        rel = (el.get("rel") or "").lower().split()
        kind = (el.get("type") or "").lower().split(";", 1)[0].strip()
        if "alternate" in rel and kind in FEED_TYPES and kind != "application/feed+json":
            found.append(el.get("href") or "")
    for el in doc.iter("a"):
        href = el.get("href") or ""
        if _FEEDISH_HREF.search(href.split("#", 1)[0]):
            found.append(href)
    out: list[str] = []
    for href in found:
        url = absolute(base_url, href.strip())
        if url and is_allowed_scheme(url) and url not in out:
            out.append(url)
        if len(out) >= MAX_FEEDS_PER_PAGE:
            break
    return out


def parse_feed(body: bytes, url: str, content_type: str = "") -> list[FeedEntry]:
    """The entries of an RSS 0.9x/1.0/2.0 or Atom feed: their link (absolute), date and title."""
    import feedparser  # here: only profiles that read feeds pay its import (~17 ms of every crawl's start)

    headers = {"content-location": url}
    if content_type:
        headers["content-type"] = content_type
    parsed = feedparser.parse(io.BytesIO(body), response_headers=headers,
                              resolve_relative_uris=False, sanitize_html=False)
    if not parsed.get("version") and not parsed.entries:
        reason = parsed.get("bozo_exception")
        raise FeedError(f"not a readable feed{': ' + str(reason)[:160] if reason else ''}")
    out: list[FeedEntry] = []
    for entry in parsed.entries[:MAX_ENTRIES]:
        link = entry.get("link") or ""
        if not link:
            alternates = [x.get("href") for x in entry.get("links", []) if x.get("rel", "alternate") == "alternate"]
            link = next((h for h in alternates if h), "")
        if not link and entry.get("guidislink"):
            link = entry.get("id", "")
        link = absolute(url, link.strip())
        if not link or not is_allowed_scheme(link):
            continue
        stamp = entry.get("published_parsed") or entry.get("updated_parsed")
        when = None
        if stamp:
            try:
                when = datetime.fromtimestamp(calendar.timegm(stamp), tz=timezone.utc)
            except (OverflowError, ValueError, OSError):
                when = None
        out.append(FeedEntry(link, when, (entry.get("title") or "")[:500]))
    return out
