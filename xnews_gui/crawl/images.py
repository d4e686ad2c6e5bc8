"""The images pipeline: an article's images into the content-addressed cache before it is stored."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from ..core.text.urls import absolute, is_allowed_scheme
from .downloader import Downloader
from .fetcher import FetchError
from .storage import image_file, write_atomic

_SEEN_CAP = 100_000


class ImageFetcher:
    def __init__(self, downloader: Downloader, root: Path, record, stats):
        self.downloader = downloader
        self.root = Path(root)
        self.record = record  # record(url, sha256="", content_type="", size=0, error="")
        self.stats = stats
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def fetch(self, article) -> None:
        """Only http(s) images, resolved against the article's own URL, each fetched once per crawl."""
        urls = [article.image] + list(article.images)
        for src in dict.fromkeys(u for u in urls if u):
            src = absolute(article.url, src)
            if not is_allowed_scheme(src):
                continue
            with self._lock:
                if src in self._seen:
                    continue
                if len(self._seen) > _SEEN_CAP:
                    self._seen.clear()
                self._seen.add(src)
            try:
                result = self.downloader.image(src)
            except FetchError as exc:
                if exc.kind == "stopped":
                    return
                if exc.kind == "interrupted":  # cut by a pause: left for a later article that shows it
                    with self._lock:
                        self._seen.discard(src)
                    continue
                self.stats.add(image_errors=1)
                self.record(src, error=f"{exc.kind}: {exc}")
                continue
            ctype = result.content_type.split(";", 1)[0].strip().lower()
            sha = hashlib.sha256(result.body).hexdigest()
            path = image_file(self.root, sha, ctype)
            try:
                if not path.exists():
                    write_atomic(path, result.body)
            except OSError as exc:
                self.stats.add(image_errors=1)
                self.record(src, error=f"image_store: {exc}")
                continue
            self.record(src, sha, ctype, len(result.body))
            self.stats.add(images=1)
