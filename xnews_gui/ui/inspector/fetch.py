"""Raw HTML as the crawler sees it (no JavaScript), cached per URL for the session.

Fetched through the crawler's ``Fetcher`` with the user agent and limits of the user's crawl
settings, so the inspector checks the very page a crawl would get.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QThreadPool

from ...core.text.encoding import decode_html
from ...crawl.fetcher import Fetcher, FetchLimits
from ...services.pages import fetch_html
from .. import workers
from ..settings import Preferences


class PageCache:
    """Thread-safe URL -> HTML text cache; ``fetch`` is safe to call from workers and raises
    ``services.pages.PageError`` (one line for the user) when a page can't be had as HTML."""

    def __init__(self, user_agent: str | None = None, limits: FetchLimits | None = None):
        if user_agent is None or limits is None:
            crawl = Preferences.load().crawl_options()
            user_agent = user_agent or crawl.agent()
            limits = limits or crawl.limits
        self.user_agent = user_agent
        self._pages: dict[str, str] = {}
        self._files: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._fetcher = Fetcher(user_agent, limits)
        self._in_flight = 0
        self._closing = False
        self.closed = False

    def get(self, url: str) -> str | None:
        with self._lock:
            return self._pages.get(url)

    def fetch(self, url: str) -> str:
        with self._lock:
            cached = self._pages.get(url)
            if cached is not None:
                return cached
            if self._closing:
                raise RuntimeError("the inspector is closed")
            self._in_flight += 1
        try:
            result = fetch_html(self._fetcher, url)
            text = decode_html(result.body, result.content_type)[0]
            with self._lock:
                self._pages[url] = text  # before the fetcher may close: once closed, every page read is here
            return text
        finally:
            with self._lock:
                self._in_flight -= 1
                last = self._closing and self._in_flight == 0
            if last:
                self._close_fetcher()

    def fetch_file(self, url: str) -> bytes:
        """Any file (a sitemap), as the crawler fetches it; cached like pages. Raises ``PageError``."""
        from ...crawl.fetcher import FetchError
        from ...services.pages import PageError

        key = "file:" + url
        with self._lock:
            cached = self._files.get(key)
            if cached is not None:
                return cached
            if self._closing:
                raise RuntimeError("the inspector is closed")
            self._in_flight += 1
        try:
            try:
                body = self._fetcher.get(url, accept="any").body
            except FetchError as exc:
                raise PageError(f"cannot fetch {url}: {exc}") from None
            with self._lock:
                self._files[key] = body
            return body
        finally:
            with self._lock:
                self._in_flight -= 1
                last = self._closing and self._in_flight == 0
            if last:
                self._close_fetcher()

    def use_cookies(self, jar) -> None:
        """Fetch with these cookies (``crawl.cookies.CookieFile``: the login made in the inspector's
        browser) from now on; pages fetched without them are forgotten."""
        with self._lock:
            self._fetcher.cookies = jar
            self._pages.clear()
            self._files.clear()

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()
            self._files.clear()

    def close(self) -> None:
        """Close the connections now, or after the last fetch still running (never under it,
        never waiting for it)."""
        with self._lock:
            self._closing = True
            idle = self._in_flight == 0
        if idle:
            self._close_fetcher()

    def _close_fetcher(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._fetcher.close()


def inspector_pool() -> QThreadPool:
    """The inspector's workers (closing the inspector must not wait for a slow page)."""
    return workers.dedicated_pool("inspector", 3, expiry_ms=5000)
