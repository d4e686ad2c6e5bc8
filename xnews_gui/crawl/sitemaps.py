"""Sitemaps (sitemaps.org, Google News sitemaps, plain-text lists), parsed from bytes.

Written on lxml rather than taken from ultimate-sitemap-parser, the field's library, because that one
is GPL-3.0 and XNews ships under MIT. A sitemap is untrusted XML: no DTD, no entity substitution, no
network access, a cap on the inflated size of a gzipped file (a gzip bomb stops at the cap), a cap on
the number of entries, and the tree is cleared as it is read (iterparse), so memory stays small.
"""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass
from datetime import datetime

from dateutil import parser as dateparser
from lxml import etree

from ..core.text.dates import as_utc

MAX_INFLATED_BYTES = 50 * 1024 * 1024  # the sitemaps.org limit for one file, uncompressed
MAX_ENTRIES = 50_000  # the sitemaps.org limit for one file
MAX_GZIP_MEMBERS = 1000
# "&" not starting an entity: sitemaps written by hand or by string joins leave it in query strings, and the
# parser's recovery would drop "&y" from "?x=1&y=2" (a wrong URL, in silence)
_BARE_AMPERSAND = re.compile(rb"&(?!(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});)")
_CDATA = re.compile(rb"(<!\[CDATA\[.*?\]\]>)", re.S)  # where "&" is the character itself


class SitemapError(ValueError):
    """A sitemap that cannot be read; the message says why in one line."""


@dataclass(frozen=True)
class SitemapEntry:
    url: str
    modified: datetime | None = None  # lastmod, or the news:publication_date when there is no lastmod
    title: str = ""  # news:title, when the sitemap is a Google News sitemap


@dataclass(frozen=True)
class Sitemap:
    kind: str  # "index" (entries are sitemaps) | "urlset" (entries are pages) | "text" | "feed"
    entries: tuple[SitemapEntry, ...]
    truncated: bool = False  # more entries than MAX_ENTRIES (the rest were dropped), or the document ends early


def inflate(body: bytes, cap: int = MAX_INFLATED_BYTES) -> bytes:
    """The body as it is, or gunzipped when it is gzip data (``.xml.gz``), never past ``cap`` bytes."""
    if body[:2] != b"\x1f\x8b":
        return body
    parts: list[bytes] = []
    size = 0
    for _ in range(MAX_GZIP_MEMBERS):  # a file of several gzip members (``cat a.gz b.gz``) is their data joined
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            part = d.decompress(body, cap + 1 - size)
        except zlib.error as exc:
            raise SitemapError(f"corrupt gzip data: {exc}") from None
        parts.append(part)
        size += len(part)
        if size > cap or d.unconsumed_tail:
            raise SitemapError(f"gzipped sitemap inflates past {cap // (1024 * 1024)} MiB (refused)")
        body = d.unused_data
        if body[:2] != b"\x1f\x8b":
            return b"".join(parts)
    raise SitemapError(f"more than {MAX_GZIP_MEMBERS} gzip members (refused)")


def parse_sitemap(body: bytes, max_entries: int = MAX_ENTRIES) -> Sitemap:
    """Read a sitemap index, a URL set (news extensions included) or a plain-text URL list.
    An RSS/Atom document (allowed as a sitemap) comes back with kind "feed" and no entries."""
    data = inflate(body)
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return _text_sitemap(data, max_entries)
    entries: list[SitemapEntry] = []
    kind = ""
    truncated = False
    context = etree.iterparse(io.BytesIO(_escape_bare_ampersands(data)), events=("start", "end"), resolve_entities=False,
                              no_network=True, load_dtd=False, huge_tree=False, recover=True,
                              remove_comments=True, remove_pis=True)
    try:
        for event, el in context:
            name = etree.QName(el).localname if isinstance(el.tag, str) else ""
            if event == "start":
                if not kind:
                    kind = {"sitemapindex": "index", "urlset": "urlset", "rss": "feed", "feed": "feed",
                            "RDF": "feed"}.get(name, "unknown")
                    if kind in ("feed", "unknown"):
                        break
                continue
            if name not in ("url", "sitemap") or el.getparent() is None:
                continue
            entry = _entry(el)
            el.clear()
            while el.getprevious() is not None:  # drop what is read: memory stays flat
                del el.getparent()[0]
            if entry is None:
                continue
            if len(entries) >= max_entries:
                truncated = True
                break
            entries.append(entry)
    except etree.XMLSyntaxError as exc:
        if not entries:
            raise SitemapError(f"not a readable sitemap: {exc}") from None
        truncated = True  # a broken tail: keep what came before it
    if kind == "unknown":
        raise SitemapError("not a sitemap (the root element is neither urlset nor sitemapindex)")
    if not kind:
        raise SitemapError("empty document")
    if any(e.type_name == "ERR_TAG_NOT_FINISHED" for e in context.error_log):  # "Premature end of data"
        truncated = True  # cut off in transfer: the parser closed what was open, the last entry may be cut too
        entries = entries[:-1]
    return Sitemap(kind, tuple(entries), truncated)


def _escape_bare_ampersands(data: bytes) -> bytes:
    if b"&" not in data:
        return data
    if b"<![CDATA[" not in data:
        return _BARE_AMPERSAND.sub(b"&amp;", data)
    return b"".join(part if i % 2 else _BARE_AMPERSAND.sub(b"&amp;", part)
                    for i, part in enumerate(_CDATA.split(data)))


def _entry(el) -> SitemapEntry | None:
    loc = lastmod = published = title = ""
    for child in el.iter():
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname
        text = (child.text or "").strip()
        if name == "loc" and not loc and child.getparent() is el:  # not image:loc
            loc = text
        elif name == "lastmod":
            lastmod = text
        elif name == "publication_date":
            published = text
        elif name == "title" and child.getparent() is not None and etree.QName(child.getparent()).localname == "news":
            title = text
    if not loc:
        return None
    return SitemapEntry(loc, parse_date(lastmod) or parse_date(published), title[:500])


def _text_sitemap(data: bytes, max_entries: int) -> Sitemap:
    entries = []
    truncated = False
    for line in data.decode("utf-8-sig", errors="replace").splitlines():
        line = line.strip()
        if not line.startswith(("http://", "https://")):
            continue
        if len(entries) >= max_entries:
            truncated = True
            break
        entries.append(SitemapEntry(line))
    if not entries:
        raise SitemapError("not a sitemap (neither XML nor a list of URLs)")
    return Sitemap("text", tuple(entries), truncated)


def parse_date(text: str) -> datetime | None:
    """A W3C datetime (or anything dateutil reads) as an aware UTC datetime; None if unreadable."""
    if not text or len(text) > 64:
        return None
    try:
        when = dateparser.isoparse(text)
    except (ValueError, OverflowError):
        try:
            when = dateparser.parse(text)
        except (ValueError, OverflowError):
            return None
    return as_utc(when)
