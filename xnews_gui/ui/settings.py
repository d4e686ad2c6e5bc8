"""The user's preferences (QSettings) and how they become crawl options."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QSettings

from ..crawl.engine import DEFAULT_USER_AGENT, CrawlOptions
from ..crawl.fetcher import FetchLimits

ORGANIZATION = "XNews"
APPLICATION = "xnews"


@dataclass
class Preferences:
    data_dir: str = ""  # empty = the default folder (or --data-dir / XNEWS_HOME)
    concurrency: int = 0  # 0 = the profile's
    delay_s: float = -1.0  # < 0 = the profile's
    user_agent: str = ""  # empty = XNews's own
    contact: str = ""
    image_cache_mb: int = 500
    max_image_kb: int = 8192
    mark_read_on_open: bool = True
    skip_hidden_topics: bool = False  # don't store articles of topics marked 'not interested'

    @classmethod
    def load(cls, settings: QSettings | None = None) -> "Preferences":
        s = settings or QSettings()
        d = cls()
        return cls(
            data_dir=str(s.value("data/folder", d.data_dir) or ""),
            concurrency=_int(s.value("crawl/concurrency"), d.concurrency),
            delay_s=_float(s.value("crawl/delay_s"), d.delay_s),
            user_agent=str(s.value("crawl/user_agent", d.user_agent) or ""),
            contact=str(s.value("crawl/contact", d.contact) or ""),
            image_cache_mb=_int(s.value("images/cache_mb"), d.image_cache_mb),
            max_image_kb=_int(s.value("images/max_kb"), d.max_image_kb),
            mark_read_on_open=str(s.value("reader/mark_read_on_open", "true")).lower() in ("true", "1"),
            skip_hidden_topics=str(s.value("crawl/skip_hidden_topics", "false")).lower() in ("true", "1"),
        )

    def save(self, settings: QSettings | None = None) -> None:
        s = settings or QSettings()
        s.setValue("data/folder", self.data_dir)
        s.setValue("crawl/concurrency", self.concurrency)
        s.setValue("crawl/delay_s", self.delay_s)
        s.setValue("crawl/user_agent", self.user_agent)
        s.setValue("crawl/contact", self.contact)
        s.setValue("images/cache_mb", self.image_cache_mb)
        s.setValue("images/max_kb", self.max_image_kb)
        s.setValue("reader/mark_read_on_open", self.mark_read_on_open)
        s.setValue("crawl/skip_hidden_topics", self.skip_hidden_topics)
        s.sync()

    def crawl_options(self, **overrides):
        """CrawlOptions for the engine; the profile's own settings apply where none is set here."""
        opts = CrawlOptions(
            concurrency=self.concurrency or None,
            delay_s=self.delay_s if self.delay_s >= 0 else None,
            user_agent=self.user_agent or DEFAULT_USER_AGENT,
            contact=self.contact,
            limits=replace(FetchLimits(), max_image_bytes=max(1, self.max_image_kb) * 1024),
        )
        return replace(opts, **overrides)


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _float(value, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default
