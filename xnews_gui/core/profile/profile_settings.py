"""How a profile's site is crawled: crawl settings, JavaScript rendering, list pages that load more,
the self-test sample.

Split from ``profile`` (which re-exports these names); every value is checked on
read and a bad one raises ``ProfileError`` saying where and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .patterns import PatternError, check_pattern
from .rules import Rule, RuleError

STRATEGIES = ("bfs", "dfs", "random", "best_first", "importance", "pagerank", "focused")
# the largest value each crawl number may take (a typo or a hostile file must not start a runaway crawl)
CRAWL_LIMITS = {"delay_s": 3600.0, "revisit_min": 525_600.0, "revisit_max_min": 525_600.0,
                "relevance_threshold": 1.0, "concurrency": 64, "max_depth": 10_000, "max_pages": 100_000_000,
                "article_revisit_min": 525_600.0, "article_revisit_max_min": 525_600.0, "watch_days": 3650.0,
                "revisit_budget": 1_000_000}


class ProfileError(ValueError):
    """A profile that cannot be used; the message says which, where and why."""


@dataclass(frozen=True)
class CrawlSettings:
    strategy: str = "bfs"
    delay_s: float = 0.5
    concurrency: int = 4
    max_depth: int = 3
    revisit_min: float = 30.0
    revisit_max_min: float = 24 * 60.0
    max_pages: int = 0
    topic_keywords: dict = field(default_factory=dict)
    focus_topics: tuple = ()  # classifier labels of interest: their probability is a page's relevance
    relevance_threshold: float = 0.6
    # stored articles (crawl/revisits.py): the first revisit after this many minutes, each later one adapted
    # by the article's observed changes up to article_revisit_max_min; articles stored more than watch_days
    # ago are revisited only on demand; at most revisit_budget revisits per crawl pass
    article_revisit_min: float = 60.0
    article_revisit_max_min: float = 7 * 24 * 60.0
    watch_days: float = 14.0
    revisit_budget: int = 200

    @classmethod
    def from_dict(cls, data: Any, where: str) -> "CrawlSettings":
        if not isinstance(data, dict):
            raise ProfileError(f"{where}: expected an object")
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ProfileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        data = dict(data)
        if "focus_topics" in data:
            data["focus_topics"] = tuple(string_list(data["focus_topics"], f"{where}.focus_topics"))
        s = cls(**data)
        if s.strategy not in STRATEGIES:
            raise ProfileError(f"{where}.strategy: {s.strategy!r} is not one of {', '.join(STRATEGIES)}")
        for name in ("delay_s", "revisit_min", "revisit_max_min", "relevance_threshold", "article_revisit_min",
                     "article_revisit_max_min", "watch_days"):
            value = getattr(s, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= CRAWL_LIMITS[name]:
                raise ProfileError(f"{where}.{name}: must be a number from 0 to {CRAWL_LIMITS[name]:g}")
        for name in ("concurrency", "max_depth", "max_pages", "revisit_budget"):
            value = getattr(s, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= CRAWL_LIMITS[name]:
                raise ProfileError(f"{where}.{name}: must be a whole number from 0 to {CRAWL_LIMITS[name]:,}")
        if s.concurrency < 1:
            raise ProfileError(f"{where}.concurrency: must be at least 1")
        if not isinstance(s.topic_keywords, dict) or len(s.topic_keywords) > 10_000 or not all(
            isinstance(k, str) and isinstance(v, (int, float)) and math.isfinite(v) for k, v in s.topic_keywords.items()
        ):
            raise ProfileError(f"{where}.topic_keywords: must map words to numeric weights")
        return s

    def to_dict(self) -> dict:
        defaults = CrawlSettings()
        out = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name in ("strategy", "delay_s", "concurrency", "max_depth", "revisit_min") or value != getattr(defaults, name):
                out[name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class RenderSettings:
    """Article pages whose content only JavaScript builds: wait for ``wait_for`` (CSS), at most ``timeout_s``."""

    wait_for: str = ""
    timeout_s: float = 15.0

    @classmethod
    def from_dict(cls, data: Any) -> "RenderSettings":
        if data is True:
            return cls()
        if not isinstance(data, dict):
            raise RuleError('render: expected an object like {"wait_for": "h1.title", "timeout_s": 15}')
        unknown = set(data) - {"wait_for", "timeout_s"}
        if unknown:
            raise RuleError(f"render: unknown key(s) {', '.join(sorted(unknown))}")
        wait_for = data.get("wait_for", "")
        timeout = data.get("timeout_s", 15.0)
        if not isinstance(wait_for, str):
            raise RuleError("render.wait_for: expected a CSS selector")
        if wait_for:
            Rule(kind="css", selector=wait_for).check("render.wait_for")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 1 <= timeout <= 120:
            raise RuleError("render.timeout_s: a number of seconds from 1 to 120")
        return cls(wait_for, float(timeout))

    def to_dict(self) -> dict:
        return {"wait_for": self.wait_for, "timeout_s": self.timeout_s}


MORE_LIMITS = {"max_loads": (1, 500), "max_links": (1, 100_000), "max_seconds": (1.0, 600.0), "settle_s": (0.2, 30.0)}


@dataclass(frozen=True)
class MoreSettings:
    """List pages that load more links by JavaScript: click ``click`` (a CSS selector: the site's "Xem
    thêm" button) or, with ``scroll``, scroll to the bottom, again and again, until no new article link
    comes within ``settle_s`` or a limit is reached (``max_loads`` clicks or scrolls, ``max_links`` article
    links, ``max_seconds``). ``pages``: URL patterns of the list pages that do it (none: a page whose raw
    HTML has the button, or every list page of a scrolling profile)."""

    click: str = ""
    scroll: bool = False
    pages: tuple = ()
    max_loads: int = 30
    max_links: int = 2000
    max_seconds: float = 60.0
    settle_s: float = 3.0

    @classmethod
    def from_dict(cls, data: Any) -> "MoreSettings":
        if not isinstance(data, dict):
            raise RuleError('more: expected an object like {"click": "button.load-more"} or {"scroll": true}')
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise RuleError(f"more: unknown key(s) {', '.join(sorted(unknown))}")
        click, scroll = data.get("click", ""), data.get("scroll", False)
        if not isinstance(click, str) or not isinstance(scroll, bool):
            raise RuleError("more.click: a CSS selector; more.scroll: true or false")
        if bool(click) == scroll:
            raise RuleError("more: either 'click' (the button's CSS selector) or 'scroll': true, not both")
        if click:
            Rule(kind="css", selector=click).check("more.click")
        pages = tuple(string_list(data.get("pages", []), "more.pages"))
        for pattern in pages:
            try:
                check_pattern(pattern)
            except PatternError as exc:
                raise RuleError(f"more.pages: invalid URL pattern: {exc}") from None
        values = {}
        for name, (low, high) in MORE_LIMITS.items():
            value = data.get(name, getattr(cls, name))
            whole = isinstance(low, int)
            if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or not low <= value <= high:
                raise RuleError(f"more.{name}: a {'whole ' if whole else ''}number from {low:g} to {high:g}")
            values[name] = value if whole else float(value)
        return cls(click=click, scroll=scroll, pages=pages, **values)

    def to_dict(self) -> dict:
        out: dict = {"click": self.click} if self.click else {"scroll": True}
        if self.pages:
            out["pages"] = list(self.pages)
        for name in MORE_LIMITS:
            if getattr(self, name) != getattr(MoreSettings, name):
                out[name] = getattr(self, name)
        return out

    @property
    def limits(self) -> str:
        return f"{self.max_loads} loads, {self.max_links} links, {self.max_seconds:g} s"


@dataclass(frozen=True)
class SelfTest:
    file: str = ""
    url: str = ""
    page_url: str = ""
    expect: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {k: v for k, v in (("file", self.file), ("url", self.url), ("page_url", self.page_url)) if v}
        out["expect"] = dict(self.expect)
        return out


def string_list(value: Any, where: str, required: bool = False) -> list[str]:
    if value is None:
        value = []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RuleError(f"{where}: expected a list of non-empty strings")
    if required and not value:
        raise RuleError(f"{where}: at least one is required")
    return [v.strip() for v in value]
