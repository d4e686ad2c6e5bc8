"""What a page says about itself: Open Graph / Twitter ``<meta>`` tags and JSON-LD articles.

JSON-LD is read with ``json.loads`` (never with regexes over raw HTML). These
values are *anchors*: cross-checks for clicked rules and the last fallbacks of a
field's chain (``{"kind": "jsonld", "selector": "headline"}``).
"""

from __future__ import annotations

import json
import os
import re
import threading

from ..profile.rules import Rule, normalize_space

ARTICLE_TYPES = {"NewsArticle", "Article", "ReportageNewsArticle", "BlogPosting", "AnalysisNewsArticle",
                 "OpinionNewsArticle", "LiveBlogPosting", "Report", "WebPage", "ReviewNewsArticle"}
JSONLD_KEYS = ("headline", "articleBody", "description", "datePublished", "dateModified", "author", "image", "name")
_MAX_SCRIPT = 2_000_000  # characters of one JSON-LD block that are read at most
_KEY = re.compile(r"^[A-Za-z@][A-Za-z0-9@_]*$")


# "Headline | Site | 28.04.2023" -> "Headline": page-title style suffixes after a bar or guillemet
SITE_SUFFIX = r"^\s*(.+?)(?:\s+[|»]\s+[^|»]{1,30}){0,3}\s*$"


_TAIL_SEPARATORS = "-\u2013\u2014|:\u00b7\u00bb"


def learn_title_suffix(pairs) -> str:
    """A ``post`` regex for a metadata title from ``(headline, metadata title)`` pairs of the same site.

    Sites append their name (and often the section) to ``og:title`` and ``<title>``:
    "Headline-Politics | Daily" or "Headline - Daily Online"; some put it first ("Daily: Headline").
    The affix they share is learned from pages where the headline is known; a varying part before the
    tail (the section, one word) may change from page to page. Pages with another tail still get
    the generic ' | Site' stripping. Returns "" when there is nothing to learn.
    """
    tails, heads = [], []
    for head, meta in pairs:
        head, meta = normalize_space(head), normalize_space(meta)
        at = meta.find(head) if head else -1
        if at < 0 or len(meta) <= len(head):
            continue
        heads.append(meta[:at])
        tails.append(meta[at + len(head):])
    prefix = os.path.commonprefix(heads).strip() if heads and all(h.strip() for h in heads) else ""
    tails = [t for t in tails if t.strip()]
    shared = os.path.commonprefix([t[::-1] for t in tails])[::-1].strip() if tails else ""
    if len(shared) > 60:
        shared = ""
    if len(prefix) > 60:
        prefix = ""
    if not shared and not prefix:
        return ""
    seps = re.escape(_TAIL_SEPARATORS)
    lead = rf"(?:{re.escape(prefix)}\s*)?" if prefix else ""
    if not shared:
        return rf"^\s*{lead}(.+?)(?:(?:\s+[|»]\s+[^|»]{{1,30}}){{0,3}})\s*$"
    learned = re.escape(shared)
    if any(t.strip() != shared for t in tails):  # a word before the shared tail varies (the section)
        learned = rf"(?:\s*[{seps}]\s*[^\s{seps}]{{1,30}})?\s*{learned}"
    else:
        learned = rf"\s*{learned}"
    return rf"^\s*{lead}(.+?)(?:{learned}|(?:\s+[|»]\s+[^|»]{{1,30}}){{0,3}})\s*$"


def _meta(prop: str, post: str = "") -> Rule:
    attr = "property" if prop.startswith(("og:", "article:")) else "name"
    return Rule(kind="css", selector=f"meta[{attr}='{prop}']", take="attr:content", post=post)


# per field, the anchors worth trying, best first
ANCHORS: dict[str, tuple[Rule, ...]] = {
    "title": (Rule(kind="jsonld", selector="headline"), _meta("og:title", SITE_SUFFIX),
              _meta("twitter:title", SITE_SUFFIX)),
    "summary": (Rule(kind="jsonld", selector="description"), _meta("og:description"), _meta("description")),
    "body": (Rule(kind="jsonld", selector="articleBody"),),
    "date": (Rule(kind="jsonld", selector="datePublished"), _meta("article:published_time")),
    "author": (Rule(kind="jsonld", selector="author"), _meta("author"), _meta("article:author")),
    "image": (Rule(kind="jsonld", selector="image"), _meta("og:image"), _meta("twitter:image")),
}


# the last resort of a title chain: the page's <title>, its site affix learned at authoring (else ' | Site')
PAGE_TITLE = Rule(kind="css", selector="title", take="text", post=SITE_SUFFIX)


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


def anchors_on(field: str, doc) -> list[Rule]:
    """The field's anchors that give a value on this page."""
    found = []
    for rule in ANCHORS.get(field, ()):
        if any(v for v in rule.apply(doc)):
            found.append(rule)
    return found
