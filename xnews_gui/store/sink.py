"""The crawler's sink over the SQLite store (``xnews_gui.crawl.sink.Sink``, by duck typing).

Articles of categories the user hid are stored like the others; the GUI hides them.

The crawl's pipeline stage is its one batching stage: it hands this sink a whole batch
(articles, page-log rows, failures, image records) in one ``write_batch`` call, written
in one transaction, from one thread. ``write_batch`` returns only after the commit, and
the crawler marks a page done only then: a ``kill -9`` loses nothing. The single-row
methods write at once (page-log rows wait for the next batch or ``flush``).
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from ..core.text import neardup
from ..core.text.urls import canonical
from . import repo
from .models import utcnow
from .revisions import UNCHANGED, UPDATED, article_fields
from .store import Store

log = logging.getLogger(__name__)

_ROWS_PER_INSERT = 100
_WRITER_CACHE_KIB = 4000  # the crawl's writing thread only appends: a small page cache keeps the process flat


class StoreSink:
    def __init__(self, store: Store, profile: str, run_id: int | None = None, skip_categories=(), on_watch=None):
        self.store = store
        self.on_watch = on_watch  # on_watch(hits): after a commit, the new articles that matched watches
        self.profile = profile
        self.run_id = run_id
        self.skip_categories = frozenset(skip_categories)  # topics the user is not interested in
        self.image_root = store.images_root
        self.raw_root = store.raw_root
        self._pages: list[tuple] = []
        self._lock = threading.Lock()
        self._tuned = threading.local()

    # --- runs -------------------------------------------------------------------
    def start_run(self) -> int:
        self.run_id = self.store.start_run(self.profile)
        return self.run_id

    def finish_run(self, summary: dict) -> None:
        self.flush()
        self.group_duplicates()
        if self.run_id is not None:
            self.store.finish_run(self.run_id, summary.get("status", "finished"), summary)

    # --- the Sink protocol ----------------------------------------------------------
    def is_known(self, url: str) -> bool:
        return self.store.is_known(url)

    def known_urls(self, urls) -> set[str]:
        return self.store.known_urls(urls)

    def write_batch(self, articles, pages=(), failures=(), images=(), body_pieces=None, sources=None,
                    gone=()) -> list:
        """One transaction: failures, image records, the articles (article, category, confidence,
        section_label) with their near-duplicate group, then the page-log rows. Returns per article
        its (id, created) or the exception it raised; raises if the commit fails. ``body_pieces``:
        per article its body as ``core.text.pieces`` when the caller cut it already (or None);
        ``sources`` and ``gone``: revisits (``crawl.sink.Sink.write_batch``): a revisited article that
        changed is revised (store/revisions.py) and answers (id, UPDATED), else (id, UNCHANGED)."""
        if gone or any(source and source.get("revisit") for source in sources or ()):
            return self._write_revisits(list(articles), pages, failures, images, body_pieces, sources, gone)
        rows = [_page_row(*p) for p in pages]
        with self._lock:
            rows, self._pages = self._pages + rows, []
        if not getattr(self._tuned, "done", False):
            self._tuned.done = True
            self.store.db.execute_sql(f"PRAGMA cache_size = -{_WRITER_CACHE_KIB}")
        articles = list(articles)
        signatures = self._signatures(articles, body_pieces) if articles else None
        out: list = []
        hits: list = []
        grouped = True
        with self.store.grouping_as_stored() if articles else _writing(self.store) as index:
            for url, reason in failures:
                self.store.record_failure(self.profile, url, reason)
            if images:
                self.store.db.cursor().executemany(_UPSERT_IMAGES, [_image_row(*image) for image in images])
            if articles:
                if signatures is None or index is None:
                    index, signatures = None, [None] * len(articles)
                out, grouped = self._store_many(articles, signatures, index, sources)
                hits = self._watch_hits(out)
            if rows:
                self.store.db.cursor().executemany(_UPSERT_PAGES, rows)
        if not grouped:  # stored without their group: grouped now, as a separate step
            self.group_duplicates()
        if hits and self.on_watch is not None:
            try:
                self.on_watch(hits)
            except Exception:  # telling the user must never lose the crawl's articles
                log.exception("watch hits not passed on")
        return out

    def _watch_hits(self, outcomes: list) -> list:
        """The watches the batch's new articles match, recorded in the same transaction (so a crawl killed
        after its commit still has them); a failure here costs the hits, never the articles."""
        created = [o[0] for o in outcomes if isinstance(o, tuple) and o[1]]
        if not created:
            return []
        try:
            with self.store.db.atomic():  # a savepoint
                return self.store.match_watches(created)
        except Exception:
            log.exception("matching watches failed")
            return []

    def _write_revisits(self, articles, pages, failures, images, body_pieces, sources, gone) -> list:
        """A batch with revisits: the revisited articles revised and the gone marked in one transaction,
        then the rest as any batch (a kill in between: the pages are not done, the next crawl asks again)."""
        sources = list(sources or [None] * len(articles))
        out: list = [None] * len(articles)
        fresh = []
        with self.store.writing():
            if gone:
                self.store.mark_gone(gone)
            for i, (row, source) in enumerate(zip(articles, sources)):
                revised = None
                if source and source.get("revisit"):
                    article, category, confidence, section_label = row
                    stored_url = source.get("stored_url") or article.url  # answered from another URL: moved
                    moved = f" (moved to {article.url})" if stored_url != article.url else ""
                    revised = self.store.revise_article(
                        stored_url, article_fields(article), content_hash=article.content_hash,
                        reason=f"changed at the source{moved}", category=category, confidence=confidence,
                        section_label=section_label, source=_source_row(source))
                if revised is not None:
                    out[i] = (revised[0], UPDATED if revised[1] else UNCHANGED)
                else:
                    fresh.append(i)
        pieces = [body_pieces[i] for i in fresh] if body_pieces is not None else None
        news = [dict(sources[i], revisit=False) if sources[i] else None for i in fresh]
        stored = self.write_batch([articles[i] for i in fresh], pages, failures, images, body_pieces=pieces,
                                  sources=news)
        for i, outcome in zip(fresh, stored):
            out[i] = outcome
        return out

    def stored_copies(self, urls) -> dict:
        return self.store.stored_copies(urls)

    def stored_article_urls(self, include_gone: bool = False) -> list[str]:
        return self.store.stored_article_urls(self.profile, include_gone)

    def _signatures(self, articles: list, body_pieces: list | None = None) -> list | None:
        """Each article's near-duplicate signature (None for a skipped topic), taken before the
        transaction; None when signing fails (the articles are grouped after the commit instead)."""
        try:
            signed = [category is None or category not in self.skip_categories for _, category, _, _ in articles]
            texts = [row[0].body_text or "" for row, sign in zip(articles, signed) if sign]
            cut = None
            if body_pieces is not None and all(p is not None for p, sign in zip(body_pieces, signed) if sign):
                cut = [p for p, sign in zip(body_pieces, signed) if sign]
            found = iter(neardup.signatures(texts, pieces=cut))
            return [next(found) if sign else None for sign in signed]
        except Exception:  # grouping is a convenience: never lose a crawl over it
            log.exception("signing near-duplicates failed")
            return None

    def _store_many(self, rows: list, signatures: list, index, sources=None) -> tuple[list, bool]:
        """Each row's (id, created), and whether the new rows got their group: a few statements for
        the whole batch (each SQLite call lets other threads take the GIL, and getting it back can
        take a switch interval); one at a time, each in its own savepoint, when the batch fails."""
        try:
            with self.store.db.atomic("IMMEDIATE"):
                return self._insert_many(rows, signatures, index, sources), index is not None
        except Exception:
            if index is not None:
                index.reset()  # it was told of rows just rolled back
            out: list = []
            for article, category, confidence, section_label in rows:
                try:
                    out.append(self._store_one(article, category, confidence, section_label))
                except Exception as exc:  # its savepoint is rolled back; the others stand
                    out.append(exc)
            return out, False

    def _insert_many(self, rows: list, signatures: list, index, sources=None) -> list:
        """The batch's new articles get the ids SQLite would give them (one more than the largest,
        in order): their group (its first article's id, or their own) is known before the INSERT."""
        db, out = self.store.db, [None] * len(rows)
        fresh: list[tuple[int, str, str]] = []  # (row, canonical url, content hash)
        for i, (article, category, _, _) in enumerate(rows):
            if category is not None and category in self.skip_categories:
                self.store.mark_skipped(article.url, f"topic {category} is skipped")
                out[i] = (None, False)
            else:
                fresh.append((i, canonical(article.url), article.content_hash))
        hashes = sorted({h for i, _, h in fresh if rows[i][0].body_text})
        known: dict[str, int] = {}
        for k in range(0, len(hashes), 500):
            chunk = hashes[k:k + 500]
            known.update(db.execute_sql(same_text_sql(len(chunk)), [self.profile, *chunk]).fetchall())
        candidates, taken = [], set()
        for i, url, digest in fresh:
            if rows[i][0].body_text and (digest in known or digest in taken):
                continue  # the same text under another URL: answered below
            if rows[i][0].body_text:
                taken.add(digest)
            candidates.append((i, url, digest))
        existing: dict[str, int] = {}  # URLs stored before
        urls = sorted({url for _, url, _ in candidates})
        for k in range(0, len(urls), 500):
            chunk = urls[k:k + 500]
            existing.update(db.execute_sql(f"SELECT url, id FROM article WHERE url IN ({','.join('?' * len(chunk))})",
                                           chunk).fetchall())
        next_id = db.execute_sql("SELECT max(id) FROM article").fetchone()[0] or 0
        values, ids, now = [], {}, str(utcnow())
        for i, url, digest in candidates:
            if url in existing or url in ids:
                continue
            article, category, confidence, section_label = rows[i]
            next_id += 1
            ids[url] = next_id
            values.append((next_id, self.profile, url, article.title, article.summary, article.image,
                           article.body_html, article.body_text, article.author, article.date, now,
                           digest, category, confidence, section_label, self.run_id,
                           *(index.group(next_id, signatures[i]) if index is not None else (None, None, None)),
                           *_source_row(sources[i] if sources and sources[i] else {})))
        for k in range(0, len(values), _ROWS_PER_INSERT):
            chunk = values[k:k + _ROWS_PER_INSERT]
            db.execute_sql(_INSERT_ARTICLES + ",".join([_ARTICLE_VALUES] * len(chunk)), [x for row in chunk for x in row])
        if taken:  # the first of a batch's same-text articles was just stored
            known.update((h, i) for h, i in db.execute_sql(same_text_sql(len(taken)), [self.profile, *taken]).fetchall()
                         if h not in known)
        existing.update(ids)
        new = dict(ids)
        for i, url, digest in fresh:
            if url in new:
                out[i] = (new.pop(url), True)
            elif rows[i][0].body_text and digest in known:
                out[i] = (known[digest], False)
            else:
                out[i] = (existing[url], False)
        return out

    def store_article(self, article, category=None, confidence=None, section_label=None) -> tuple[int | None, bool]:
        outcome = self.write_batch([(article, category, confidence, section_label)])[0]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _store_one(self, article, category, confidence, section_label) -> tuple[int | None, bool]:
        """(id, created); (None, False) for an article of a skipped topic, remembered as a known URL."""
        if category is not None and category in self.skip_categories:
            self.store.mark_skipped(article.url, f"topic {category} is skipped")
            return None, False
        return self.store.store_article(article, self.profile, category, confidence, section_label, self.run_id)

    def group_duplicates(self) -> None:
        """Group the articles just stored with their near-duplicates (store/duplicates.py)."""
        try:
            self.store.group_duplicates()
        except Exception:  # grouping is a convenience: never lose a crawl over it
            log.exception("grouping near-duplicates failed")

    def record_page(self, url, status, encoding="", content_type="", raw_path="", kind="", error="") -> None:
        with self._lock:
            self._pages.append(_page_row(url, status, encoding, content_type, raw_path, kind, error))

    def record_failure(self, url, reason) -> None:
        self.write_batch([], failures=[(url, reason)])

    def record_image(self, url, sha256="", content_type="", size=0, error="") -> None:
        self.write_batch([], images=[(url, sha256, content_type, size, error)])

    def flush(self) -> None:
        """Write the page-log rows still waiting."""
        with self._lock:
            waiting = bool(self._pages)
        if waiting:
            self.write_batch([])

    close = flush

    def release(self) -> None:
        """The calling thread is done writing (the crawl's pipeline, at the end of each pass): the raw
        pages of earlier passes that were crawled again are dropped, then its connection closed."""
        self.flush()
        try:
            self.store.tidy_raw_pages()
        except Exception:  # tidying is housekeeping: never lose a crawl over it
            log.exception("tidying the raw pages failed")
        self.store.close()


def same_text_sql(n: int) -> str:
    """The first stored article of each of ``n`` content hashes in one profile. ``+profile``: with a
    long IN list SQLite's planner would walk the profile index instead - every article of the
    profile, read through its body to reach content_hash, for every batch (quadratic over a crawl)."""
    return (f"SELECT content_hash, min(id) FROM article WHERE +profile = ? AND content_hash IN "
            f"({','.join('?' * n)}) GROUP BY content_hash")


@contextmanager
def _writing(store: Store):
    """``Store.writing`` for a batch without articles (no index to hand out)."""
    with store.writing():
        yield None


_INSERT_ARTICLES = (
    "INSERT INTO article (id, profile, url, title, summary, image_url, body_html, body_text, author, published, "
    "fetched_at, content_hash, category, confidence, section_label, run_id, dup_sig, dup_size, dup_group, "
    "etag, last_modified, modified_at, read, starred) VALUES ")
_ARTICLE_VALUES = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)"


def _source_row(source: dict) -> tuple:
    return (str(source.get("etag") or "")[:512], str(source.get("last_modified") or "")[:128],
            str(source.get("modified_at") or "")[:40])


def _page_row(url, status, encoding="", content_type="", raw_path="", kind="", error="") -> tuple:
    return url, status, encoding, content_type, raw_path, kind, error, str(utcnow())


def _image_row(url, sha256="", content_type="", size=0, error="") -> tuple:
    return url, sha256, content_type, size, error


# ``Store.record_image`` for many rows (the last row for a URL wins)
_UPSERT_IMAGES = (
    "INSERT INTO image_cache (url, sha256, content_type, size, error) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT(url) DO UPDATE SET sha256 = excluded.sha256, content_type = excluded.content_type, "
    "size = excluded.size, error = excluded.error")

# ``Store.record_page`` for many rows (the last row for a URL wins); a page skipped for its topic
# stays marked so (it is how a re-crawl knows it). One prepared statement, no query building per batch.
_UPSERT_PAGES = (
    "INSERT INTO page (url, status, encoding, content_type, raw_path, kind, error, fetched_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(url) DO UPDATE SET status = excluded.status, "
    "encoding = excluded.encoding, content_type = excluded.content_type, "
    # a failed fetch keeps the raw copy of the last good one (the stored article's page: re-extraction reads it)
    "raw_path = CASE WHEN excluded.raw_path = '' AND excluded.error != '' THEN page.raw_path "
    "ELSE excluded.raw_path END, "
    "error = excluded.error, fetched_at = excluded.fetched_at, "
    f"kind = CASE WHEN page.kind = '{repo.SKIPPED}' THEN page.kind ELSE excluded.kind END")
