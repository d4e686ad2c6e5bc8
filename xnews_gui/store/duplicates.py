"""The same story twice: articles grouped by near-duplicate body text, across sites and over time.

    store.group_duplicates()          # signs and groups every article not grouped yet; returns how many

Each article gets a MinHash signature of its body (``core/text/neardup.py``) and a group: the id of the
first stored article telling the same story (its own id when there is none). New articles are
compared with the most recent ``WINDOW`` signed articles (any profile), kept in memory per store and
topped up incrementally, so grouping costs a few milliseconds per article. The crawl's sink groups
its articles as it inserts them (``grouping_as_stored``: the columns written with the row, no second
write); reading ``dup_group`` gives "3 sources" and lets lists hide the repeats.
"""

from __future__ import annotations

import logging
import threading
import weakref
from contextlib import contextmanager

import numpy as np

from ..core.text import neardup

WINDOW = 20_000  # signatures compared with (the most recent); ~10 MiB
_BATCH = 500

log = logging.getLogger(__name__)


class _Index:
    """The newest ``WINDOW`` signatures (with their fingerprints, see ``neardup.best_match``). Appending
    is amortised (room doubles, the oldest are dropped once the buffers hold two windows): one article
    at a time must not copy the whole window."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Forget every signature (the next ``_load_signed`` reads the newest window back)."""
        self._ids = np.empty(0, dtype=np.int64)
        self._groups = np.empty(0, dtype=np.int64)
        self._sizes = np.empty(0, dtype=np.int64)
        self._sigs = np.empty((0, neardup.PERMUTATIONS), dtype=np.uint32)
        self._fingerprints = np.empty((neardup.PERMUTATIONS, 0), dtype=np.uint8)  # one column per signature
        self._start = self._end = 0
        self.loaded_to = 0  # articles up to this id are in (or were too short)

    ids = property(lambda self: self._ids[self._start:self._end])
    groups = property(lambda self: self._groups[self._start:self._end])
    sizes = property(lambda self: self._sizes[self._start:self._end])
    sigs = property(lambda self: self._sigs[self._start:self._end])
    fingerprints = property(lambda self: self._fingerprints[:, self._start:self._end])

    def add(self, ids, groups, sizes, sigs) -> None:
        n = len(ids)
        if n:
            end = self._room(n)
            self._ids[self._end:end], self._groups[self._end:end] = ids, groups
            self._sizes[self._end:end], self._sigs[self._end:end] = sizes, sigs
            self._fingerprints[:, self._end:end] = neardup.fingerprints(sigs)
            self._moved_to(end)

    def add_one(self, article_id: int, group: int, size: int, sig: np.ndarray) -> None:
        at = self._end
        self._moved_to(self._room(1))
        self._ids[at], self._groups[at], self._sizes[at] = article_id, group, size
        self._sigs[at] = sig
        self._fingerprints[:, at] = sig.astype(np.uint8)  # the low bytes

    def _room(self, n: int) -> int:
        """Where n more rows end (the buffers grown and compacted as needed)."""
        if self._end + n > len(self._ids):
            keep = min(self._end - self._start, WINDOW)  # the newest
            room = max(64, min(2 * (keep + n), keep + n + WINDOW // 4))
            buffers = []
            for old in (self._ids, self._groups, self._sizes, self._sigs):
                new = np.empty((room,) + old.shape[1:], dtype=old.dtype)
                new[:keep] = old[self._end - keep:self._end]
                buffers.append(new)
            self._ids, self._groups, self._sizes, self._sigs = buffers
            columns = np.empty((neardup.PERMUTATIONS, room), dtype=np.uint8)
            columns[:, :keep] = self._fingerprints[:, self._end - keep:self._end]
            self._fingerprints = columns
            self._start, self._end = 0, keep
        return self._end + n

    def _moved_to(self, end: int) -> None:
        self._end = end
        self._start = max(self._start, end - WINDOW)

    def group(self, article_id: int, sig: tuple[np.ndarray, int] | None) -> tuple[bytes | None, int | None, int]:
        """The next article (ids ascending): its (dup_sig, dup_size, dup_group) columns; it joins the window."""
        self.loaded_to = max(self.loaded_to, article_id)
        if sig is None:
            return None, None, article_id
        match = neardup.best_match(sig, self.sigs, self.sizes, self.fingerprints)
        group = int(self.groups[match]) if match >= 0 else article_id
        self.add_one(article_id, group, sig[1], sig[0])
        return neardup.to_blob(sig[0]), sig[1], group


_indexes: "weakref.WeakKeyDictionary[object, _Index]" = weakref.WeakKeyDictionary()
_indexes_lock = threading.Lock()


def _index_for(store) -> _Index:
    with _indexes_lock:
        index = _indexes.get(store)
        if index is None:
            index = _indexes[store] = _Index()
        return index


class Duplicates:
    """Mixed into ``Store``: near-duplicate grouping and its read side."""

    def group_duplicates(self, limit: int = 0) -> int:
        """Sign and group the articles that have no group yet, oldest first; how many were grouped."""
        index = _index_for(self)
        with index.lock:
            self._load_signed(index)
            return self._group_waiting(index, limit)

    @contextmanager
    def grouping_as_stored(self):
        """For a writer that stores new articles with their group (the crawl's sink): one write
        transaction, in which the articles waiting for a group (stored another way) are grouped first.
        Yields the index: ``index.group(article_id, signature) -> (dup_sig, dup_size, dup_group)`` for
        each new article in id order, its columns inserted with it. When the block fails the index is
        reset (it must not keep articles that were not stored); a caller that rolls back part of the
        block calls ``index.reset()``. Yields None when grouping cannot run: store without a group,
        ``group_duplicates`` groups them later."""
        index = _index_for(self)
        with index.lock:
            try:
                with self.writing():
                    try:
                        self._load_signed(index)
                        self._group_waiting(index)
                        usable = index
                    except Exception:  # grouping is a convenience: never lose a crawl over it
                        log.exception("grouping near-duplicates failed")
                        index.reset()
                        usable = None
                    yield usable
            except BaseException:
                index.reset()
                raise

    def _group_waiting(self, index: _Index, limit: int = 0) -> int:
        done = 0
        while not limit or done < limit:
            rows = self.db.execute_sql(
                "SELECT id, body_text FROM article WHERE dup_group IS NULL ORDER BY id LIMIT ?",
                (_BATCH if not limit else min(_BATCH, limit - done),)).fetchall()
            if not rows:
                break
            try:
                signatures = neardup.signatures([body or "" for _, body in rows])
                updates = [(*index.group(article_id, sig), article_id)
                           for (article_id, _), sig in zip(rows, signatures)]
                with self.writing() as db:
                    db.connection().executemany(
                        "UPDATE article SET dup_sig = ?, dup_size = ?, dup_group = ? WHERE id = ?", updates)
            except BaseException:
                index.reset()  # it may hold signatures that were not written
                raise
            done += len(rows)
        return done

    def _load_signed(self, index: _Index) -> None:
        """Signatures grouped since the index last looked (by another process too), newest WINDOW."""
        rows = self.db.execute_sql(
            "SELECT id, dup_group, dup_size, dup_sig FROM (SELECT id, dup_group, dup_size, dup_sig FROM article "
            "WHERE id > ? AND dup_sig IS NOT NULL ORDER BY id DESC LIMIT ?) ORDER BY id",
            (index.loaded_to, WINDOW)).fetchall()
        if not rows:
            return
        index.add(np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64),
                  np.array([r[2] for r in rows], dtype=np.int64),
                  np.stack([neardup.from_blob(r[3]) for r in rows]))
        index.loaded_to = rows[-1][0]

    def story_sources(self, article_id: int) -> list[tuple[int, str, str]]:
        """(id, profile, url) of every stored article in the same story group, first stored first."""
        return [tuple(r) for r in self.db.execute_sql(
            "SELECT b.id, b.profile, b.url FROM article a JOIN article b ON b.dup_group = a.dup_group "
            "WHERE a.id = ? ORDER BY b.id", (article_id,)).fetchall()]
