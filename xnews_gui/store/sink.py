"""The crawler's sink over the SQLite store (``xnews_gui.crawl.sink.Sink``, by duck typing).

Articles of categories the user hid are stored like the others; the GUI hides them.

All writes go through one writer thread with its own connection ("group commit"):
a crawler thread that stores an article queues it and waits; the writer takes
everything queued, writes it in one transaction, commits, and only then answers.
So ``store_article`` still returns after its article is committed (the crawler
marks a URL done only then: a ``kill -9`` loses nothing), but 16 crawler threads
no longer pay for 16 connections, 16 page caches and one commit per article.
Page-log rows are a log, not data: they ride along with the next transaction
(a crash loses at most the rows not yet written).
"""

from __future__ import annotations

import threading

from peewee import EXCLUDED, Case

from . import repo
from .models import Page, utcnow
from .store import Store

PAGE_BATCH = 200  # page rows waiting before the writer is woken for them alone
_ROWS_PER_INSERT = 100
_IDLE_EXIT_S = 0.5  # the writer thread ends after this long without work
_WRITER_CACHE_KIB = 4000  # the writer only appends: a small page cache keeps the process flat


class _Job:
    __slots__ = ("fn", "args", "result", "error", "done")

    def __init__(self, fn, args):
        self.fn = fn
        self.args = args
        self.result = None
        self.error: BaseException | None = None
        self.done = threading.Event()


class StoreSink:
    def __init__(self, store: Store, profile: str, run_id: int | None = None, skip_categories=()):
        self.store = store
        self.profile = profile
        self.run_id = run_id
        self.skip_categories = frozenset(skip_categories)  # topics the user is not interested in
        self.image_root = store.images_root
        self.raw_root = store.raw_root
        self._pages: list[dict] = []
        self._jobs: list[_Job] = []
        self._cv = threading.Condition()
        self._writer: threading.Thread | None = None
        self._writing = False

    # --- runs -------------------------------------------------------------------
    def start_run(self) -> int:
        self.run_id = self.store.start_run(self.profile)
        return self.run_id

    def finish_run(self, summary: dict) -> None:
        self.flush()
        if self.run_id is not None:
            self.store.finish_run(self.run_id, summary.get("status", "finished"), summary)

    # --- the Sink protocol ----------------------------------------------------------
    def is_known(self, url: str) -> bool:
        return self.store.is_known(url)

    def known_urls(self, urls) -> set[str]:
        return self.store.known_urls(urls)

    def store_article(self, article, category=None, confidence=None, section_label=None) -> tuple[int | None, bool]:
        return self._call(self._store_one, article, category, confidence, section_label)

    def _store_one(self, article, category, confidence, section_label) -> tuple[int | None, bool]:
        """(id, created); (None, False) for an article of a skipped topic, remembered as a known URL."""
        if category is not None and category in self.skip_categories:
            self.store.mark_skipped(article.url, f"topic {category} is skipped")
            return None, False
        return self.store.store_article(article, self.profile, category, confidence, section_label, self.run_id)

    def store_articles(self, rows) -> list:
        """Several ``store_article`` calls in one transaction: for each (article, category,
        confidence, section_label), its (id, created) or the exception it raised."""
        return self._call(self._store_many, list(rows))

    def _store_many(self, rows: list) -> list:
        out: list = []
        for article, category, confidence, section_label in rows:
            try:
                out.append(self._store_one(article, category, confidence, section_label))
            except Exception as exc:  # its savepoint is rolled back; the others stand
                out.append(exc)
        return out

    def record_page(self, url, status, encoding="", content_type="", raw_path="", kind="", error="") -> None:
        row = {"url": url, "status": status, "encoding": encoding, "content_type": content_type,
               "raw_path": raw_path, "kind": kind, "error": error, "fetched_at": utcnow()}
        with self._cv:
            self._pages.append(row)
            if len(self._pages) >= PAGE_BATCH:
                self._wake()

    def record_failure(self, url, reason) -> None:
        self._call(self.store.record_failure, self.profile, url, reason)

    def record_image(self, url, sha256="", content_type="", size=0, error="") -> None:
        self._call(self.store.record_image, url, sha256, content_type, size, error)

    def flush(self) -> None:
        """Write everything queued and end the writer thread (it starts again when needed)."""
        with self._cv:
            writer = self._writer
            if writer is not None:
                self._writer = None  # the writer drains the queue, then ends
                self._cv.notify_all()
        if writer is not None and writer is not threading.current_thread():
            writer.join()
        self._write_batch()  # anything queued after the writer left (or when there was none)

    close = flush

    # --- the writer ---------------------------------------------------------------------
    def _call(self, fn, *args):
        job = _Job(fn, args)
        with self._cv:
            self._jobs.append(job)
            self._wake()
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def _wake(self) -> None:
        # under self._cv
        if self._writer is None:
            self._writer = threading.Thread(target=self._run_writer, name="xnews-store-writer", daemon=True)
            self._writer.start()
        self._cv.notify_all()

    def _run_writer(self) -> None:
        me = threading.current_thread()
        try:
            try:
                self.store.db.execute_sql(f"PRAGMA cache_size = -{_WRITER_CACHE_KIB}")
            except Exception:  # no database yet: the jobs will say so
                pass
            while True:
                with self._cv:
                    while not self._jobs and len(self._pages) < PAGE_BATCH and self._writer is me:
                        if not self._cv.wait(_IDLE_EXIT_S) and not self._jobs and self._writer is me:
                            self._writer = None  # idle: write what is left, then end
                    leaving = self._writer is not me
                self._write_batch()
                if leaving:
                    return
        finally:
            try:
                self.store.close()  # this thread's connection
            except Exception:
                pass
            with self._cv:  # a job queued while this thread was leaving gets a new writer
                if self._jobs and self._writer is None:
                    self._wake()

    def _write_batch(self) -> None:
        with self._cv:
            jobs, self._jobs = self._jobs, []
            pages, self._pages = self._pages, []
        if not jobs and not pages:
            return
        try:
            with self.store.writing():
                for job in jobs:
                    try:
                        job.result = job.fn(*job.args)  # each in its own savepoint
                    except Exception as exc:
                        job.error = exc
                for i in range(0, len(pages), _ROWS_PER_INSERT):
                    _insert_pages(pages[i:i + _ROWS_PER_INSERT])
        except BaseException as exc:  # the commit failed: nothing of this batch is stored
            for job in jobs:
                job.error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            for job in jobs:
                job.done.set()


def _insert_pages(rows: list[dict]) -> None:
    """``Store.record_page`` for many rows in one statement (the last row for a URL wins)."""
    update = {getattr(Page, name): getattr(EXCLUDED, name)
              for name in ("status", "encoding", "content_type", "raw_path", "error", "fetched_at")}
    # a page skipped for its topic stays marked so (it is how a re-crawl knows it)
    update[Page.kind] = Case(None, [(Page.kind == repo.SKIPPED, repo.SKIPPED)], EXCLUDED.kind)
    Page.insert_many(rows).on_conflict(conflict_target=[Page.url], update=update).execute()
