"""What the crawler is handed: a sink for its results and an optional classifier.

The crawler never imports the store; ``xnews_gui.store.sink.StoreSink`` is the
real sink, ``MemorySink`` below serves tests and benchmarks.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

# a revisited article's outcome from ``write_batch``: (id, UPDATED) when a changed version replaced the stored
# one (which is kept as an earlier version), (id, UNCHANGED) when its fields are the same
UPDATED, UNCHANGED = "updated", "unchanged"


@runtime_checkable
class Sink(Protocol):
    """Where a crawl's results go. Everything written goes through ``write_batch``, from one thread (the
    crawl's pipeline stage); ``known_urls`` is asked from any worker; ``release`` ends the writing thread."""

    image_root: Path | None  # where images go (content-addressed), None = no image cache
    raw_root: Path | None  # where raw pages go (packs, core/disk/raw_pages.py), None = not kept

    def write_batch(self, articles: list, pages: list, failures: list, images: list,
                    body_pieces: list | None = None, sources: list | None = None, gone: list = ()) -> list:
        """Everything of one pipeline batch in one call (one transaction): articles as (article, category,
        confidence, section_label), pages as (url, status, encoding, content_type, raw_path, kind, error),
        failures as (url, reason), images as (url, sha256, content_type, size, error); body_pieces: each
        article's body as core.text.pieces, cut once by the pipeline, or None; sources: per article None or
        its copy at the source {"etag", "last_modified", "modified_at", "revisit"} (with "revisit" true, a
        stored article of that URL takes the new fields as a new version); gone: URLs whose articles the
        source removed (404/410 twice). Returns, per article, (id, created) — id None: declined (a topic
        the user skips); created UPDATED or UNCHANGED for a revisit — or the exception storing it raised."""
        ...

    def known_urls(self, urls: list[str]) -> set[str]:
        """Which of these article URLs are stored already."""
        ...

    # optional, for revisits (crawl/revisits.py; a sink without them gets none):
    # stored_copies(urls) -> {url: {"etag", "last_modified", "modified_at", "fetched_at", "gone"}} of stored
    # articles; stored_article_urls(include_gone=False) -> every stored article URL of the crawl's profile

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
        self.gone: set[str] = set()
        self.versions: list[dict] = []  # the earlier versions of revisited articles that changed
        self.sources: dict[str, dict] = {}
        self._by_url: dict[str, int] = {}
        self._by_hash: dict[str, int] = {}
        self._lock = threading.Lock()

    def known_urls(self, urls) -> set[str]:
        return {u for u in urls if u in self._by_url}

    def write_batch(self, articles, pages, failures, images, body_pieces=None, sources=None, gone=()) -> list:
        for row in pages:
            self.record_page(*row)
        self.failures.extend(tuple(row) for row in failures)
        for url, sha256, content_type, size, error in images:
            self.images.append({"url": url, "sha256": sha256, "content_type": content_type, "size": size,
                                "error": error})
        self.gone.update(gone)
        out = []
        for row, source in zip(articles, sources or [None] * len(articles)):
            if source and source.get("revisit") and row[0].url in self._by_url:
                out.append(self._revise(row, source))
            else:
                out.append(self.store_article(*row))
                if source and out[-1][1]:
                    self.sources[row[0].url] = source
        return out

    def _revise(self, row, source) -> tuple:
        with self._lock:
            stored = self.articles[self._by_url[row[0].url] - 1]
            self.sources[row[0].url] = source
            self.gone.discard(row[0].url)
            old = stored["article"]
            fields = ("title", "summary", "image", "body_html", "body_text", "author", "date")
            if all(getattr(old, f) == getattr(row[0], f) for f in fields):
                return stored["id"], UNCHANGED
            self.versions.append({"id": stored["id"], "article": old})
            stored.update(article=row[0], category=row[1], confidence=row[2], section_label=row[3])
            return stored["id"], UPDATED

    def stored_copies(self, urls) -> dict:
        out = {}
        for url in urls:
            if url in self._by_url:
                source = self.sources.get(url, {})
                out[url] = {"etag": source.get("etag", ""), "last_modified": source.get("last_modified", ""),
                            "modified_at": source.get("modified_at", ""), "fetched_at": "", "gone": url in self.gone}
        return out

    def stored_article_urls(self, include_gone: bool = False) -> list[str]:
        return [a["article"].url for a in self.articles if include_gone or a["article"].url not in self.gone]

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

