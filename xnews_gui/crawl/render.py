"""Pages that need JavaScript: the crawler's side (Qt-free).

A profile marked ``render`` ({"wait_for": CSS selector, "timeout_s": seconds}) is crawled like any
other: the page is fetched with the crawler's Fetcher (scope, robots, politeness, caps) and extracted.
Only when that yields no article does the crawl look further, cheapest first:

1. embedded JSON: a schema.org ``NewsArticle`` in JSON-LD with ``articleBody``, or a ``__NEXT_DATA__``
   blob holding a title and a body; no browser needed;
2. a ``Renderer`` (the Qt side's ``ui.render_pool.RenderPool``): the page rendered by QtWebEngine,
   then the same rules run on the rendered HTML.

A profile whose list pages load more (``more``: a "Xem thêm" button, infinite scroll) has those list
pages opened by the ``Renderer`` too (``load_more``), and their links taken from the page once loaded.
"""

from __future__ import annotations

import html as html_lib
import json
from typing import Protocol

from lxml import html as lxml_html

from ..core.profile.profile import Profile

_MAX_JSON = 2 * 1024 * 1024
_ARTICLE_TYPES = {"NewsArticle", "Article", "ReportageNewsArticle", "AnalysisNewsArticle", "BlogPosting"}


class RenderError(Exception):
    """A page that could not be rendered (time limit, load failure, pool closed); one line."""


class Renderer(Protocol):
    def render(self, url: str, wait_for: str = "", timeout_s: float | None = None) -> str: ...

    def load_more(self, url: str, more, count: str, timeout_s: float | None = None):
        """The list page after clicking its "Xem thêm" button or scrolling while new ``count`` matches come
        (``more``: core.profile.profile_settings.MoreSettings): a core.extraction.load_more.MoreResult, or RenderError."""

    def use_cookies(self, jar) -> None:
        """Send these cookies (``crawl.cookies.CookieFile``) with the pages rendered from now on."""

    def use_proxy(self, url: str) -> None:
        """Load the pages rendered from now on through this proxy (``crawl.proxies``; "" for none)."""


def embedded_article(text: str) -> dict | None:
    """{"title", "body", "summary", "author", "date", "image"} from the page's embedded JSON, or None."""
    try:
        doc = lxml_html.fromstring(text)
    except (ValueError, lxml_html.etree.ParserError):
        return None
    for script in doc.xpath("//script[@type='application/ld+json' or @id='__NEXT_DATA__']"):
        raw = script.text or ""
        if len(raw) > _MAX_JSON:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        found = _from_ld(data) if script.get("id") != "__NEXT_DATA__" else _from_next(data)
        if found:
            return found
    return None


def _from_ld(data) -> dict | None:
    for item in _walk(data, depth=0):
        kind = item.get("@type")
        kinds = set(kind) if isinstance(kind, list) else {kind}
        if kinds & _ARTICLE_TYPES and isinstance(item.get("articleBody"), str) and item.get("headline"):
            author = item.get("author")
            if isinstance(author, list):
                author = author[0] if author else ""
            if isinstance(author, dict):
                author = author.get("name", "")
            image = item.get("image")
            if isinstance(image, list):
                image = image[0] if image else ""
            if isinstance(image, dict):
                image = image.get("url", "")
            return {"title": str(item["headline"]), "body": item["articleBody"],
                    "summary": str(item.get("description") or ""), "author": str(author or ""),
                    "date": str(item.get("datePublished") or ""), "image": str(image or "")}
    return None


def _from_next(data) -> dict | None:
    for item in _walk(data, depth=0):
        title = item.get("title") or item.get("headline")
        body = item.get("body") or item.get("content") or item.get("articleBody")
        if isinstance(title, str) and isinstance(body, str) and len(body) > 200:
            return {"title": title, "body": body, "summary": str(item.get("description") or item.get("summary") or ""),
                    "author": str(item.get("author") or "") if not isinstance(item.get("author"), (dict, list)) else "",
                    "date": str(item.get("publishedAt") or item.get("datePublished") or item.get("date") or ""),
                    "image": str(item.get("image") or "") if isinstance(item.get("image"), str) else ""}
    return None


def _walk(data, depth: int):
    """Every dict inside ``data`` (bounded depth), outermost first."""
    if depth > 12:
        return
    if isinstance(data, dict):
        yield data
        for value in data.values():
            yield from _walk(value, depth + 1)
    elif isinstance(data, list):
        for value in data[:1000]:
            yield from _walk(value, depth + 1)


def _body_html(body: str) -> str:
    """A plain-text body (as JSON carries it) as paragraphs; an HTML body is kept for the sanitiser."""
    if "<p" in body or "<div" in body:
        return body
    return "".join(f"<p>{html_lib.escape(p.strip())}</p>" for p in body.split("\n") if p.strip())


def generic_page(found: dict) -> str:
    """A plain page holding what ``embedded_article`` found, for ``GENERIC_PROFILE`` to extract: so an
    article from JSON goes through the same extraction (sanitising, dates, image URLs) as any other."""
    e = html_lib.escape
    return (f"<html><body><h1>{e(found['title'])}</h1><p class='x-summary'>{e(found['summary'])}</p>"
            f"<span class='x-author'>{e(found['author'])}</span><time datetime='{e(found['date'])}'></time>"
            f"<img class='x-image' src='{e(found['image'])}'><div class='x-body'>{_body_html(found['body'])}</div>"
            "</body></html>")


GENERIC_PROFILE = Profile.from_dict({
    "schema": 1, "name": "embedded-json", "start_urls": ["http://localhost/"],
    "fields": {"title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
               "summary": {"kind": "css", "selector": "p.x-summary", "take": "text"},
               "author": {"kind": "css", "selector": "span.x-author", "take": "text"},
               "date": {"kind": "css", "selector": "time", "take": "attr:datetime"},
               "image": {"kind": "css", "selector": "img.x-image", "take": "attr:src"},
               "body": {"kind": "css", "selector": "div.x-body", "take": "html", "required": True}},
})
