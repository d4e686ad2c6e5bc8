"""What the crawler is handed: a sink for its results and an optional classifier.

The crawler never imports the store; ``xnews_gui.store.sink.StoreSink`` is the
real sink, ``MemorySink`` below serves tests and benchmarks.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterable, Protocol, runtime_checkable


@runtime_checkable
class Sink(Protocol):
    image_root: Path | None  # where images go (content-addressed), None = no image cache
    raw_root: Path | None  # where raw pages go (packs, core/raw_pages.py), None = not kept

    def is_known(self, url: str) -> bool: ...

    def store_article(self, article, category: str | None, confidence: float | None,
                      section_label: str | None) -> tuple[int, bool]: ...

    def record_page(self, url: str, status: int, encoding: str = "", content_type: str = "",
                    raw_path: str = "", kind: str = "", error: str = "") -> None: ...

    def record_failure(self, url: str, reason: str) -> None: ...

    def record_image(self, url: str, sha256: str = "", content_type: str = "", size: int = 0,
                     error: str = "") -> None: ...

    # optional: known_urls(urls) -> set (batch is_known), flush(), release() (the writing thread ends),
    # write_batch(articles, pages, failures, images, body_pieces=None) -> [(id, created) or the
    # exception, per article]: everything of one pipeline batch in one call (one transaction); the rows
    # are the arguments of store_article, record_page, record_failure and record_image (body_pieces:
    # each article's body as core.text.pieces, cut once by the pipeline, or None). The crawler calls the sink's
    # writing methods from one thread only (its pipeline stage); known_urls from any worker.


@runtime_checkable
class Classifier(Protocol):
    def predict(self, text: str) -> tuple[str, float]: ...

    # optional: predict_many(texts, pieces=None) -> [(label, confidence), ...] (the pipeline classifies
    # in batches; pieces: each text as core.text.pieces, cut once for the classifier and the signature),
    # proba(text) -> {label: probability} (focused crawling)


def known_urls(sink, urls: Iterable[str]) -> set[str]:
    """The sink's batch look-up when it has one, else one ``is_known`` per URL."""
    urls = list(urls)
    if not urls:
        return set()
    batch = getattr(sink, "known_urls", None)
    if batch is not None:
        return set(batch(urls))
    return {u for u in urls if sink.is_known(u)}


class MemorySink:
    """Keeps everything in lists; unique by URL and by content hash, like the store."""

    def __init__(self, image_root: Path | None = None, raw_root: Path | None = None):
        self.image_root = image_root
        self.raw_root = raw_root
        self.articles: list[dict] = []
        self.pages: list[dict] = []
        self.failures: list[tuple[str, str]] = []
        self.images: list[dict] = []
        self._by_url: dict[str, int] = {}
        self._by_hash: dict[str, int] = {}
        self._lock = threading.Lock()

    def is_known(self, url: str) -> bool:
        return url in self._by_url

    def known_urls(self, urls) -> set[str]:
        return {u for u in urls if u in self._by_url}

    def store_article(self, article, category=None, confidence=None, section_label=None):
        with self._lock:
            existing = self._by_url.get(article.url)
            if existing is None and article.body_text:
                existing = self._by_hash.get(article.content_hash)
            if existing is not None:
                return existing, False
            new_id = len(self.articles) + 1
            self.articles.append({"id": new_id, "article": article, "category": category,
                                  "confidence": confidence, "section_label": section_label})
            self._by_url[article.url] = new_id
            self._by_hash[article.content_hash] = new_id
            return new_id, True

    def record_page(self, url, status, encoding="", content_type="", raw_path="", kind="", error=""):
        self.pages.append({"url": url, "status": status, "encoding": encoding, "content_type": content_type,
                           "raw_path": raw_path, "kind": kind, "error": error})

    def record_failure(self, url, reason):
        self.failures.append((url, reason))

    def record_image(self, url, sha256="", content_type="", size=0, error=""):
        self.images.append({"url": url, "sha256": sha256, "content_type": content_type, "size": size,
                            "error": error})
