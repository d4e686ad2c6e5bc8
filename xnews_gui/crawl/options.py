"""What a crawl is told (``CrawlOptions``) and what it tells (``CrawlEvent``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import xnews_gui
from .fetcher import FetchLimits

ROBOTS_AGENT = "XNews"
DEFAULT_USER_AGENT = f"XNews/{xnews_gui.__version__} (personal news reader for offline reading)"


@dataclass
class CrawlOptions:
    max_pages: int = 0  # 0 = no limit (the profile's crawl.max_pages applies when set)
    max_articles: int = 0
    max_seconds: float = 0
    concurrency: int | None = None  # None = the profile's
    per_host: int | None = None  # connections per host; None = concurrency
    delay_s: float | None = None  # None = the profile's
    strategy: str | None = None  # None = the profile's
    max_depth: int | None = None  # list-page depth; None = the profile's, 0 = unlimited
    user_agent: str = DEFAULT_USER_AGENT
    contact: str = ""  # e-mail or URL appended to the User-Agent
    save_raw: bool = True
    fetch_images: bool = True
    incremental: bool = True
    obey_robots: bool = True
    relevance_threshold: float | None = None  # focused crawling; None = the profile's (default 0.6)
    topics: tuple = ()  # classifier labels of interest for focused crawling (default: the profile's focus_topics)
    due_only: bool = False  # periodic passes: read only list pages whose revisit is due
    revisit: bool = False  # revisit every stored article of the profile now (conditional requests), no budget
    revisit_urls: tuple = ()  # revisit these stored articles now, and crawl nothing else ("Fetch again")
    gone_confirm_s: float = 3.0  # a 404/410 on a revisit is asked again after this long; the second marks it gone
    seed: int | None = None  # random strategy
    limits: FetchLimits = field(default_factory=FetchLimits)
    raw_dir: Path | None = None  # None = the sink's raw_root
    image_dir: Path | None = None  # None = the sink's image_root
    stats_interval: float = 0.5
    max_url_length: int = 2048
    cookies: object = None  # crawl.cookies.CookieFile: the profile's cookies (a login), sent where they match
    proxies: tuple = ()  # proxy URLs rotated through (crawl/proxies.py); () = the environment's, if any
    # spider-trap guards (per crawl); 0 = no limit
    max_pages_per_host: int = 50_000
    max_path_repeats: int = 3  # the same path segment this many times: a loop of relative links
    max_query_params: int = 12
    max_query_variants: int = 1_000  # distinct query strings on one path
    max_list_pages_per_pattern: int = 500  # list pages whose URLs differ only in their numbers (a calendar)

    def agent(self) -> str:
        return f"{self.user_agent}; +{self.contact}" if self.contact else self.user_agent


@dataclass
class CrawlEvent:
    kind: str  # "page" | "article" | "error" | "warning" | "stats" | "log" | "finished"
    data: dict
