"""The links a profile follows on a page: the one implementation the crawl, the inspector's
preview and the coverage check share, so that what the inspector shows is what the crawl fetches.

A link is kept when its href is a real address (not ``#``, ``javascript:``, ...), its canonical
form is in the profile's domains, it passes the link rule's allow/deny patterns and is not longer
than ``max_url_length``. Duplicates (after canonicalisation) are dropped, document order is kept.
"""

from __future__ import annotations

from ..profile.profile import LinkRule, Profile
from ..profile.rules import parse_html
from ..text.urls import UrlError, absolute, canonical, in_scope

MAX_URL_LENGTH = 2048
_NOT_ADDRESSES = ("#", "javascript:", "mailto:", "tel:", "data:")


def follow(doc, base: str, rule: LinkRule, allowed_domains, *, max_url_length: int = MAX_URL_LENGTH,
           anchors: bool = False) -> list[tuple[str, str]]:
    """(canonical URL, anchor text or "") for every link of ``doc`` (parsed, at ``base``) the rule follows."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for el in rule.as_rule().select(doc):
        href = (el.get("href") or "").strip()
        if not href or href.startswith(_NOT_ADDRESSES):
            continue
        try:
            link = canonical(absolute(base, href))
        except (UrlError, ValueError):
            continue
        if link in seen or len(link) > max_url_length or not in_scope(link, allowed_domains) or not rule.accepts(link):
            continue
        seen.add(link)
        out.append((link, el.text_content().strip() if anchors else ""))
    return out


def page_links(profile: Profile, html: str, url: str, *, max_url_length: int = MAX_URL_LENGTH) -> tuple[list[str], list[str]]:
    """(article URLs, list-page URLs) the crawl of ``profile`` queues from the page ``html`` at ``url``.

    A link that is both is an article (as in the crawl); the page itself is never one of its links.
    """
    doc = parse_html(html, url)
    try:
        here = canonical(url)
    except (UrlError, ValueError):
        here = url
    domains = profile.allowed_domains
    articles = [u for u, _ in follow(doc, url, profile.articles, domains, max_url_length=max_url_length)
                if u != here] if profile.articles else []
    taken = set(articles)
    lists = [u for u, _ in follow(doc, url, profile.lists, domains, max_url_length=max_url_length)
             if u != here and u not in taken] if profile.lists else []
    return articles, lists


def article_url(profile: Profile, url: str, max_url_length: int = MAX_URL_LENGTH) -> str | None:
    """The canonical URL if it is in the profile's scope and matches its article URL pattern
    (``links.articles`` allow/deny), else None: for URLs listed by sitemaps and feeds."""
    try:
        link = canonical(url)
    except (UrlError, ValueError):
        return None
    if len(link) > max_url_length or not in_scope(link, profile.allowed_domains):
        return None
    if profile.articles is not None and not profile.articles.accepts(link):
        return None
    return link
