"""The results table's display order: the sort keys and ids of every matching article.

Kept as two flat sequences (a list of keys, an array of ids) rather than 100,000 (key, id)
tuples: fewer objects to build in the worker that reads them and to free when the order is
replaced. Read in a worker (``read``); an order that is replaced is emptied in a worker too
(``release``), so the GUI thread never frees 100,000 objects in one go.
"""

from __future__ import annotations

import time
from array import array

from . import workers

# sqlite3 lets go of the interpreter lock for each row it steps and takes it back at once: a
# thread waiting for the lock (the GUI's) is woken each time, finds it taken, and waits again
# without ever asking for it. A short sleep between chunks of rows lets it in.
_PAUSE_S = 0.0005
_FREE_CHUNK = 8192  # objects made or freed per step (a step holds the interpreter lock ~1 ms)


class DisplayOrder:
    """(sort key, id) pairs in display order, and the set of their ids."""

    def __init__(self, keys: list | None = None, ids: array | None = None):
        self.keys = keys if keys is not None else []
        self.ids = ids if ids is not None else array("q")
        self.known: set[int] = set()  # made a chunk at a time: in one go it holds the lock ~5-10 ms
        for start in range(0, len(self.ids), _FREE_CHUNK):
            self.known.update(self.ids[start : start + _FREE_CHUNK])

    @classmethod
    def read(cls, store, flt, sort: str, desc: bool, still_wanted=lambda: True) -> DisplayOrder | None:
        """(worker) The order of everything matching ``flt``; None when no longer wanted."""

        def pace() -> bool:
            time.sleep(_PAUSE_S)
            return still_wanted()

        found = store.ordered_columns(flt, sort, desc, keep_going=pace)
        if found is None:
            return None
        return cls(*found)

    def __len__(self) -> int:
        return len(self.ids)

    def id_at(self, row: int) -> int:
        return self.ids[row]

    def row_of(self, article_id: int) -> int:
        if article_id not in self.known:
            return -1
        return self.ids.index(article_id)  # a scan in C: well under 1 ms for 100,000 ids

    def position(self, item: tuple, descending: bool) -> int:
        """Where (key, id) goes in the order (after equal keys)."""
        keys, ids = self.keys, self.ids
        lo, hi = 0, len(ids)
        while lo < hi:
            mid = (lo + hi) // 2
            here = (keys[mid], ids[mid])
            if (here > item) if descending else (here < item):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def insert(self, pos: int, run: list[tuple]) -> None:
        """Put (key, id) pairs in at ``pos``."""
        self.keys[pos:pos] = [k for k, _ in run]
        self.ids[pos:pos] = array("q", [aid for _, aid in run])
        self.known.update(aid for _, aid in run)

    def release(self) -> None:
        """Empty this order in a worker (it is not used any more)."""
        release(self.keys, self.known)
        self.keys, self.ids, self.known = [], array("q"), set()


def release(*containers) -> None:
    """Free big lists and dicts in a worker, a chunk at a time, not on the GUI thread."""
    big = [c for c in containers if c]
    if big:
        workers.run_in_background(_empty, big)


def _empty(containers: list) -> None:
    for c in containers:
        if isinstance(c, list):
            while c:
                del c[-_FREE_CHUNK:]
        elif isinstance(c, dict) and len(c) > _FREE_CHUNK:  # key by key: clear() frees every
            for key in list(c):  # row in one call, holding the lock all along
                del c[key]
        else:
            c.clear()  # a set of ints: ~1 ms for 100,000
    containers.clear()
