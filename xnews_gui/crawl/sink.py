"""What the crawler is handed: a sink for its results and an optional classifier.

The crawler never imports the store; ``xnews_gui.store.sink.StoreSink`` is the
real sink, ``MemorySink`` below serves tests and benchmarks.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol, runtime_checkable


@runtime_checkable
class Sink(Protocol):
    """Where a crawl's results go. Everything written goes through ``write_batch``, from one thread (the
    crawl's pipeline stage); ``known_urls`` is asked from any worker; ``release`` ends the writing thread."""

    image_root: Path | None  # where images go (content-addressed), None = no image cache
    raw_root: Path | None  # where raw pages go (packs, core/raw_pages.py), None = not kept

    def write_batch(self, articles: list, pages: list, failures: list, images: list,
                    body_pieces: list | None = None) -> list:
        """Everything of one pipeline batch in one call (one transaction): articles as (article, category,
        confidence, section_label), pages as (url, status, encoding, content_type, raw_path, kind, error),
        failures as (url, reason), images as (url, sha256, content_type, size, error); body_pieces: each
        article's body as core.text.pieces, cut once by the pipeline, or None. Returns, per article,
        (id, created) — id None: declined (a topic the user skips) — or the exception storing it raised."""
        ...

    def known_urls(self, urls: list[str]) -> set[str]:
        """Which of these article URLs are stored already."""
        ...

    def release(self) -> None:
        """The writing thread is done with the sink (the end of a crawl pass)."""
        ...


@runtime_checkable
class Classifier(Protocol):
    def predict(self, text: str) -> tuple[str, float]: ...

    # optional: predict_many(texts, pieces=None) -> [(label, confidence), ...] (the pipeline classifies
    # in batches; pieces: each text as core.text.pieces, cut once for the classifier and the signature),
    # proba(text) -> {label: probability} (focused crawling)


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

    def known_urls(self, urls) -> set[str]:
        return {u for u in urls if u in self._by_url}

    def write_batch(self, articles, pages, failures, images, body_pieces=None) -> list:
        for row in pages:
            self.record_page(*row)
        self.failures.extend(tuple(row) for row in failures)
        for url, sha256, content_type, size, error in images:
            self.images.append({"url": url, "sha256": sha256, "content_type": content_type, "size": size,
                                "error": error})
        return [self.store_article(*row) for row in articles]

    def release(self) -> None:
        pass

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

