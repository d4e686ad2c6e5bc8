"""What a page says about itself: Open Graph / Twitter ``<meta>`` tags and JSON-LD articles.

These values are *anchors*: cross-checks for clicked rules and the last fallbacks of a field's chain
(``{"kind": "jsonld", "selector": "headline"}``; the JSON-LD itself is read by ``profile.jsonld``).
"""

from __future__ import annotations

import os
import re

from ..profile.rules import Rule
from ..text.text import normalize_space

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


def anchors_on(field: str, doc) -> list[Rule]:
    """The field's anchors that give a value on this page."""
    found = []
    for rule in ANCHORS.get(field, ()):
        if any(v for v in rule.apply(doc)):
            found.append(rule)
    return found
