"""The crawler's sink over the SQLite store (``xnews_gui.crawl.sink.Sink``, by duck typing).

Articles of categories the user hid are stored like the others; the GUI hides them.
Page-log rows are written in batches (they are a log, not data: a crash loses at
most the last batch); articles, failures and images are written at once.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ..paths import image_cache_dir, raw_pages_dir
from . import repo
from .db import write_lock
from .models import database

PAGE_BATCH = 200


class StoreSink:
    def __init__(self, profile: str, data_dir: Path, run_id: int | None = None):
        self.profile = profile
        self.run_id = run_id
        self.image_root = image_cache_dir(Path(data_dir))
        self.raw_root = raw_pages_dir(Path(data_dir))
        self._pages: list[dict] = []
        self._lock = threading.Lock()

    # --- runs -------------------------------------------------------------------
    def start_run(self) -> int:
        self.run_id = repo.start_run(self.profile)
        return self.run_id

    def finish_run(self, summary: dict) -> None:
        self.flush()
        if self.run_id is not None:
            repo.finish_run(self.run_id, summary.get("status", "finished"), summary)

    # --- the Sink protocol ----------------------------------------------------------
    def is_known(self, url: str) -> bool:
        return repo.is_known(url)

    def known_urls(self, urls) -> set[str]:
        return repo.known_urls(urls)

    def store_article(self, article, category=None, confidence=None, section_label=None) -> tuple[int, bool]:
        return repo.store_article(article, self.profile, category, confidence, section_label, self.run_id)

    def record_page(self, url, status, encoding="", content_type="", raw_path="", kind="", error="") -> None:
        row = {"url": url, "status": status, "encoding": encoding, "content_type": content_type,
               "raw_path": raw_path, "kind": kind, "error": error}
        with self._lock:
            self._pages.append(row)
            full = len(self._pages) >= PAGE_BATCH
        if full:
            self.flush()

    def record_failure(self, url, reason) -> None:
        repo.record_failure(self.profile, url, reason)

    def record_image(self, url, sha256="", content_type="", size=0, error="") -> None:
        repo.record_image(url, sha256, content_type, size, error)

    def flush(self) -> None:
        with self._lock:
            rows, self._pages = self._pages, []
        if rows:
            with write_lock, database.atomic():
                for row in rows:
                    repo.record_page(**row)
