"""How much of a site a profile's link rules reach: follow them from the start pages a few levels,
politely and within limits, the way the crawl will (``core.extraction.links``), and say what was found.

    report = check_coverage(profile, fetch)     # fetch(url) -> html; runs off the GUI thread
    check_coverage(profile, fetch, load_more=pool_load)   # list pages that load more: load_more(url) -> MoreResult
    report.summary()   # "reaches 7 list pages and 64 article links"
    report.warning()   # "" or what looks wrong (far fewer links than the pages show, ...)
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from ..extraction.extract import extract
from ..extraction.links import page_links
from ..extraction.load_more import applies
from ..profile.profile import LinkRule, Profile
from ..text.urls import UrlError, canonical

MAX_PAGES = 40  # list pages read at most
MAX_DEPTH = 3  # list-link levels below the start pages
DELAY_S = 0.2  # between two requests: a check must not hammer the site


@dataclass
class Coverage:
    list_pages: int = 0  # list pages read
    articles: set = field(default_factory=set)  # article URLs the rules reach
    unread_lists: int = 0  # list pages found but left unread (limits)
    missed: set = field(default_factory=set)  # article-like URLs on those pages the rules do not select
    start_is_article: bool = False  # a start page is itself an article (and links to none)
    errors: list = field(default_factory=list)
    has_list_rule: bool = False
    by_loading_more: int = 0  # article links only loading more (a button, scrolling) reached
    more_warnings: list = field(default_factory=list)  # list pages still loading more at their limit

    @property
    def article_links(self) -> int:
        return len(self.articles)

    def summary(self) -> str:
        text = (f"reaches {self.list_pages} list page{'s' if self.list_pages != 1 else ''} and "
                f"{self.article_links} article link{'s' if self.article_links != 1 else ''}")
        if self.by_loading_more:
            text += f" ({self.by_loading_more} by loading more)"
        if self.unread_lists:
            text += f" (and {self.unread_lists} more list pages not checked)"
        return text

    def warning(self) -> str:
        """What a person should look at before crawling; "" when nothing looks wrong."""
        if self.start_is_article:
            return ("the start page is an article, not a list page: set the start page to the site's "
                    "home or a section page")
        if self.list_pages == 0:
            return "no start page could be read" + (f" ({self.errors[0]})" if self.errors else "")
        if not self.articles:
            return "no article link is reached: pick Article links on a list page"
        if len(self.missed) > max(3, len(self.articles) // 5):
            return (f"the pages read show {len(self.missed)} more article-like links than the rules select: "
                    "pick more article links (another block of the page) or widen the rule")
        if self.more_warnings:
            return self.more_warnings[0]
        if not self.has_list_rule and not self.by_loading_more:
            return "only the start pages are read: pick Section links or Next page to reach more articles"
        return ""


def check_coverage(profile: Profile, fetch: Callable[[str], str], *, max_pages: int = MAX_PAGES,
                   max_depth: int = MAX_DEPTH, delay_s: float = DELAY_S,
                   aborted: Callable[[], bool] = lambda: False, sleep=time.sleep, load_more=None) -> Coverage:
    """Breadth first from the start pages along the list links (sections, next pages). ``load_more(url)``:
    a list page of a profile whose pages load more (``profile.more``) after loading (a MoreResult), as the
    crawl takes its links; without it such pages count their raw links."""
    report = Coverage(has_list_rule=profile.lists is not None)
    depth_cap = min(max_depth, profile.crawl.max_depth) if profile.crawl.max_depth else max_depth
    queue: deque[tuple[str, int]] = deque()
    seen: set[str] = set()
    for url in profile.start_urls:
        try:
            url = canonical(url)
        except UrlError as exc:
            report.errors.append(str(exc))
            continue
        if url not in seen:
            seen.add(url)
            queue.append((url, 0))
    first = True
    while queue and not aborted():
        if report.list_pages >= max_pages:
            report.unread_lists = len(queue)
            break
        url, depth = queue.popleft()
        if not first and delay_s:
            sleep(delay_s)
        first = False
        try:
            html = fetch(url)
        except Exception as exc:  # one page that fails must not end the check
            report.errors.append(f"{url}: {str(exc) or type(exc).__name__}")  # fetch's errors are one line for the user
            continue
        report.list_pages += 1
        articles, lists = page_links(profile, html, url)
        if load_more is not None and applies(profile.more, url, html):
            try:
                loaded = load_more(url)
            except Exception as exc:  # the raw page's links still count
                report.errors.append(f"{url}: loading more: {exc}")
            else:
                html = loaded.html
                raw = set(articles)
                articles, lists = page_links(profile, html, url)
                report.by_loading_more += len(set(articles) - raw - report.articles)
                warning = loaded.warning(url, profile.more)
                if warning:
                    report.more_warnings.append(warning)
        if depth == 0 and not articles and profile.fields and _article_address(profile, url) \
                and extract(html, url, profile).ok:
            report.start_is_article = True
        report.articles.update(articles)
        report.missed.update(_article_like(profile, html, url, set(articles) | set(lists)))
        for link in lists:
            if link in seen:
                continue
            seen.add(link)
            if depth + 1 <= depth_cap:
                queue.append((link, depth + 1))
    report.missed -= report.articles
    return report


def _article_address(profile: Profile, url: str) -> bool:
    """Whether ``url`` may be an article's: the article URL pattern says (a page whose address is not one,
    a site map or a folder listing, is no article however its text reads); without a pattern, it may."""
    rule = profile.articles
    return rule is None or not rule.allow or rule.accepts(url)


def _article_like(profile: Profile, html: str, url: str, followed: set) -> set:
    """In-scope links of the page that fit the article URL pattern but are not followed."""
    rule = profile.articles
    if rule is None or not rule.allow:
        return set()  # without a URL pattern every link would look like an article
    everything = profile.with_(articles=LinkRule(kind="css", selector="a[href]", allow=rule.allow, deny=rule.deny),
                               lists=None)
    found, _ = page_links(everything, html, url)
    return {u for u in found if u not in followed}

