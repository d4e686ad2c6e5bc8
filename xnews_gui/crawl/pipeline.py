"""The item pipeline: the crawl's one batching stage.

Worker threads download and parse; everything they produce for the sink goes through
this stage's queue: extracted articles, page-log rows, extraction failures and image
records. One thread takes what is queued (up to ``BATCH`` articles, waiting at most
``GATHER_S`` for company), classifies the articles of the batch in one call
(``predict_many``) and hands the whole batch to the sink in one call
(``write_batch``: one transaction); ``hurry()`` ends a gather at once when the crawl knows that
nothing more is coming for now. The thread sleeps through its gather: what is queued wakes
it only when it was idle, when the batch is full, or for a hurry or the close (waking it for
each article had the interpreter lock change hands twice per article). Only then is each article's page reported back
(``on_stored``): the engine marks a page done once its article is stored, so a
``kill -9`` loses nothing. The sink is only ever called from this thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from ..core.text import text
from .request import Request

log = logging.getLogger(__name__)

BATCH = 64
# a batch costs ~1.5 ms of CPU whatever its size (its transaction, a new FTS segment, NumPy calls,
# cold caches): gathering up to 0.25 s fills batches when pages come 50 ms apart (0.05 s: ~20-30
# articles). The last batch of a crawl pass does not wait for it (``hurry``).
GATHER_S = 0.25
_BUSY, _ANY, _FULL = "busy", "any entry", "a full batch"  # what the stage's thread waits for


@dataclass(slots=True)
class PageItem:
    """A fetched page on its way through the pipeline (``article`` set for an extracted article)."""

    req: Request
    url: str  # after redirects
    status: int
    content_type: str
    encoding: str
    raw_path: str
    article: object = None
    section: str | None = None
    category: str | None = None
    confidence: float | None = None
    body_pieces: list | None = None  # core.text.pieces of the body: cut once, read by classifier and signature
    source: dict | None = None  # the copy at its source: validators, date, and whether it is a revisit


class ModelSource:
    """The classifier, or a loader (a callable without ``predict``) run in the background, so
    the first pages are fetched while the model loads. ``get()`` waits for it."""

    def __init__(self, classifier, on_error: Callable[[str], None]):
        self._on_error = on_error
        self._model = None
        self._ready = threading.Event()
        if classifier is None or hasattr(classifier, "predict"):
            self._model = classifier
            self._ready.set()
        else:
            self._loader = classifier
            threading.Thread(target=self._load, name="xnews-model-load", daemon=True).start()

    def _load(self) -> None:
        try:
            self._model = self._loader()
        except Exception as exc:  # a broken model must not stop the crawl
            self._on_error(f"topic model not usable ({exc.__class__.__name__}: {exc}); articles get their section's topic")
        finally:
            self._ready.set()

    @property
    def present(self) -> bool:
        return not self._ready.is_set() or self._model is not None

    def get(self):
        self._ready.wait()
        return self._model


def classify(model, items: list[PageItem], on_error: Callable[[str, str], None]) -> None:
    """Fill each item's category and confidence: the model's, else the section's topic."""
    for item in items:
        item.category, item.confidence = item.section, None
    if model is None or not items:
        return
    articles = [i.article for i in items]
    texts = ["\n".join(filter(None, (a.title, a.summary, a.body_text))) for a in articles]
    for item, a in zip(items, articles):  # each body cut once: the sink's signature reads it too
        item.body_pieces = text.pieces(a.body_text or "")
    try:
        many = getattr(model, "predict_many", None)
        predictions = many(texts, pieces=[text.joined_pieces((a.title, a.summary, a.body_text), i.body_pieces)
                                          for a, i in zip(articles, items)]) \
            if many is not None else [model.predict(t) for t in texts]
    except Exception as exc:
        on_error(items[0].url, f"{exc.__class__.__name__}: {exc}")
        return
    for item, (label, confidence) in zip(items, predictions):
        item.category, item.confidence = label, float(confidence)


class ItemPipeline:
    def __init__(self, sink, model: ModelSource, *, on_stored: Callable[[PageItem, object], None],
                 on_error: Callable[[str, str, str], None], max_articles_queued: int = 4 * BATCH):
        self.sink = sink
        self.model = model
        self.on_stored = on_stored
        self.on_error = on_error
        # only articles are bounded (they are big; and the stage itself queues page rows)
        self._article_slots = threading.Semaphore(max_articles_queued)
        self._cond = threading.Condition(threading.Lock())
        self._entries: deque = deque()  # (kind, row) in the order queued
        self._articles = 0  # articles among the entries
        self._waiting = _BUSY  # what the stage's thread waits for (under _cond)
        self._hurried = False
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="xnews-crawl-pipeline", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def article(self, item: PageItem) -> None:
        """Queue an extracted article (blocks while the stage is behind: back-pressure)."""
        self._article_slots.acquire()
        with self._cond:
            self._entries.append(("article", item))
            self._articles += 1
            if self._waiting is _ANY or (self._waiting is _FULL and self._articles >= BATCH):
                self._cond.notify()

    def page(self, url, status, encoding="", content_type="", raw_path="", kind="", error="") -> None:
        self._put(("page", (url, status, encoding, content_type, raw_path, kind, error)))

    def failure(self, url: str, reason: str) -> None:
        self._put(("failure", (url, reason)))

    def image(self, url: str, sha256: str = "", content_type: str = "", size: int = 0, error: str = "") -> None:
        self._put(("image", (url, sha256, content_type, size, error)))

    def gone(self, url: str) -> None:
        """A stored article its source removed (404/410 twice): marked, never deleted."""
        self._put(("gone", url))

    def _put(self, entry: tuple) -> None:
        with self._cond:
            self._entries.append(entry)
            if self._waiting is _ANY:  # it starts its gather
                self._cond.notify()

    def hurry(self) -> None:
        """Nothing more is coming for now (the crawl's other pages are over): write what is queued
        without waiting ``GATHER_S`` for company. Cheap to call often."""
        if not self._hurried:
            with self._cond:
                self._hurried = True
                self._cond.notify()

    def close(self) -> None:
        """Finish what is queued, then end the stage."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join()

    # --- the stage's thread ----------------------------------------------------------
    def _run(self) -> None:
        while True:
            batch = self._gather()
            if batch is None:
                break
            try:
                self._process(batch)
            except Exception as exc:  # a bug must not stop the stage; record it
                log.exception("crawl pipeline failure")
                for item in batch["article"]:
                    self._over(item, exc)
                self._article_slots.release(len(batch["article"]))
        try:
            self.sink.release()  # this thread is done with the sink
        except Exception as exc:
            log.exception("crawl pipeline: releasing the sink failed")
            self.on_error("", "store", f"{exc.__class__.__name__}: {exc}")

    def _gather(self) -> dict[str, list] | None:
        """The next batch: what is queued once ``BATCH`` articles are, ``GATHER_S`` after the first
        entry, at a hurry or at the close; None when closed and all is taken."""
        with self._cond:
            while not self._entries:
                if self._closed:
                    return None
                self._hurried = False  # nothing was waiting for it
                self._waiting = _ANY
                self._cond.wait()
            until = time.monotonic() + GATHER_S
            self._waiting = _FULL
            while self._articles < BATCH and not self._hurried and not self._closed:
                left = until - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            self._waiting = _BUSY
            self._hurried = False
            batch: dict[str, list] = {"article": [], "page": [], "failure": [], "image": [], "gone": []}
            entries, articles = self._entries, batch["article"]
            while entries and len(articles) < BATCH:
                kind, row = entries.popleft()
                batch[kind].append(row)
            self._articles -= len(articles)
        return batch

    def _process(self, batch: dict[str, list]) -> None:
        items = batch["article"]
        if items:
            classify(self.model.get() if self.model.present else None, items,
                     lambda url, msg: self.on_error(url, "classifier", msg))
        rows = [(i.article, i.category, i.confidence, i.section) for i in items]
        sources = [i.source for i in items] if any(i.source for i in items) else None
        outcomes = write(self.sink, rows, batch["page"], batch["failure"], batch["image"], [i.body_pieces for i in items],
                         sources, batch["gone"])
        for item, outcome in zip(items, outcomes):
            self._over(item, outcome)
        if items:
            self._article_slots.release(len(items))

    def _over(self, item: PageItem, outcome) -> None:
        try:
            self.on_stored(item, outcome)
        except Exception as exc:  # a bug must not stop the stage; record it
            log.exception("crawler failure on %s", item.req.url)
            self.on_error(item.req.url, "internal", f"{exc.__class__.__name__}: {exc}")


def write(sink, articles: list, pages: list, failures: list, images: list, body_pieces: list | None = None,
          sources: list | None = None, gone: list = ()) -> list:
    """Everything of one batch to the sink in one call. Returns, per article, (id, created) or the
    exception storing it raised. ``body_pieces``: each article's body as ``core.text.pieces`` (or None);
    ``sources`` and ``gone``: see ``Sink.write_batch`` (left out when there are none)."""
    more = {"sources": sources} if sources else {}
    if gone:
        more["gone"] = gone
    try:
        return list(sink.write_batch(articles, pages, failures, images, body_pieces=body_pieces, **more))
    except Exception as exc:  # the transaction failed: nothing of it is stored
        return [exc] * len(articles)
