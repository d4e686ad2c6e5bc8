"""A page's JSON-LD articles, read with ``json.loads`` (never with regexes over raw HTML).

What a ``jsonld`` rule reads (``{"kind": "jsonld", "selector": "headline"}``): one key of the page's
article-like objects, as plain text.
"""

from __future__ import annotations

import json
import re
import threading

from ..text.text import normalize_space

ARTICLE_TYPES = {"NewsArticle", "Article", "ReportageNewsArticle", "BlogPosting", "AnalysisNewsArticle",
                 "OpinionNewsArticle", "LiveBlogPosting", "Report", "WebPage", "ReviewNewsArticle"}
_MAX_SCRIPT = 2_000_000  # characters of one JSON-LD block that are read at most
_KEY = re.compile(r"^[A-Za-z@][A-Za-z0-9@_]*$")


def check_key(key: str) -> None:
    if not isinstance(key, str) or not _KEY.match(key):
        raise ValueError(f"a jsonld rule's selector is one JSON-LD key such as 'headline', not {key!r}")


_local = threading.local()  # per thread: [(doc, articles)] for the last few documents (a chain asks several times)


def jsonld_articles(doc) -> list[dict]:
    """The article-like JSON-LD objects of a parsed page, in document order."""
    _cache = getattr(_local, "cache", None)
    if _cache is None:
        _cache = _local.cache = []
    for cached_doc, items in _cache:
        if cached_doc is doc:
            return items
    items = []
    for script in doc.xpath("//script[@type='application/ld+json' or @type='application/json+ld']"):
        raw = (script.text or "")[:_MAX_SCRIPT].strip()
        if not raw:
            continue
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        for item in _walk(data, 0):
            types = item.get("@type")
            types = set(types) if isinstance(types, list) else {types}
            if any(isinstance(t, str) and t in ARTICLE_TYPES for t in types):
                items.append(item)
    # an Article beats a WebPage wrapper
    items.sort(key=lambda it: 1 if it.get("@type") == "WebPage" else 0)
    _cache.insert(0, (doc, items))
    del _cache[4:]
    return items


def jsonld_read(doc) -> bool:
    """Whether this page's JSON-LD was read already (a rule or an anchor asked): then asking again is free."""
    cache = getattr(_local, "cache", None) or []
    return any(cached is doc for cached, _ in cache)


def _walk(data, depth: int):
    if depth > 6:
        return
    if isinstance(data, list):
        for item in data[:200]:
            yield from _walk(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        for key in ("@graph", "mainEntity", "mainEntityOfPage"):
            if isinstance(data.get(key), (list, dict)):
                yield from _walk(data[key], depth + 1)


def jsonld_values(doc, key: str) -> list[str]:
    """The key's values over the page's JSON-LD articles, as plain strings."""
    out = []
    for item in jsonld_articles(doc):
        if key in item:
            value = _as_text(item[key], key)
            if value and value not in out:
                out.append(value)
    return out


def _as_text(value, key: str) -> str:
    if isinstance(value, str):
        if key == "articleBody":  # keep paragraph breaks
            return "\n".join(normalize_space(p) for p in value.split("\n") if p.strip())
        return normalize_space(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        for sub in ("name", "url", "contentUrl", "@id"):
            if isinstance(value.get(sub), str):
                return normalize_space(value[sub])
        return ""
    if isinstance(value, list):
        parts = [_as_text(v, key) for v in value[:20]]
        parts = [p for p in parts if p]
        if key == "author":
            return ", ".join(dict.fromkeys(parts))
        return parts[0] if parts else ""
    return ""
