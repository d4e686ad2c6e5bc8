"""Raw HTML as the crawler sees it (requests, no JavaScript), cached per URL for the session."""

from __future__ import annotations

import threading

import requests
from PySide6.QtCore import QThreadPool

from ...core.encoding import decode_html

USER_AGENT = "XNews/0.1 (wrapper builder preview)"
MAX_BYTES = 5_000_000


class PageCache:
    """Thread-safe URL -> HTML text cache; ``fetch`` is safe to call from workers."""

    def __init__(self, timeout: float = 15.0):
        self.timeout = timeout
        self._pages: dict[str, str] = {}
        self._lock = threading.Lock()
        self._session = requests.Session()
        self._session.headers["User-Agent"] = USER_AGENT
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
            with self._session.get(url, timeout=self.timeout, stream=True) as resp:
                resp.raise_for_status()
                data = resp.raw.read(MAX_BYTES + 1, decode_content=True)
                if len(data) > MAX_BYTES:
                    raise ValueError(f"page larger than {MAX_BYTES // 1_000_000} MB")
                text = decode_html(data, resp.headers.get("Content-Type"))[0]
        finally:
            with self._lock:
                self._in_flight -= 1
                last = self._closing and self._in_flight == 0
            if last:
                self._close_session()
        with self._lock:
            self._pages[url] = text
        return text

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()

    def close(self) -> None:
        """Close the HTTP session now, or after the last fetch still running (never under it)."""
        with self._lock:
            self._closing = True
            idle = self._in_flight == 0
        if idle:
            self._close_session()

    def _close_session(self) -> None:
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._session.close()


_pool: QThreadPool | None = None


def inspector_pool() -> QThreadPool:
    """The inspector's workers. Not a child of the widget: a pool's destructor waits for its
    threads, and closing the inspector must not wait for a slow page."""
    global _pool
    if _pool is None:
        _pool = QThreadPool()
        _pool.setMaxThreadCount(3)
        _pool.setExpiryTimeout(5000)
    return _pool
