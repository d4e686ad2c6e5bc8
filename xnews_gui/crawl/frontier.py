"""The frontier: one small scheduler interface, one class per crawl strategy.

``push(request) -> bool`` returns False for a URL already seen (Scrapy's
contract); ``pop()`` returns the next request or None. Deduplication is
delegated to a ``claim(request) -> bool`` callable so the engine can make the
seen set persistent; by default it is an in-memory set.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import random
import time
from collections import deque
from typing import Callable

from .pagerank import pagerank
from .relevance import DEFAULT_WEIGHTS, KeywordRelevance, importance
from .request import Request


Claim = Callable[[Request], bool]


class Scheduler:
    """Base: dedup, discovery order and requests held back until their not-before time (``defer``: a
    retry the site asked to wait for); subclasses decide the order of the others (``_pop``)."""

    def __init__(self, claim: Claim | None = None):
        self._claim = claim or _memory_claim()
        self._seq = itertools.count()
        self._later: list = []  # (not_before, n, request), deferred requests
        self._later_n = itertools.count()

    def defer(self, request: Request) -> None:
        """A popped request back for later: popped again once ``request.not_before`` has come."""
        heapq.heappush(self._later, (request.not_before, next(self._later_n), request))

    def waiting(self) -> int:
        """Deferred requests not popped again yet (the crawl is not over while there are some)."""
        return len(self._later)

    def pop(self) -> Request | None:
        if self._later and self._later[0][0] <= time.time():
            return heapq.heappop(self._later)[2]
        return self._pop()

    def _pop(self) -> Request | None:
        raise NotImplementedError

    def push(self, request: Request) -> bool:
        self.observe(request)
        if not self._claim(request):
            return False
        self.restore(request)
        return True

    def restore(self, request: Request) -> None:
        """Queue a request already claimed (a resumed crawl) without the dedup check."""
        request.seq = next(self._seq)
        self._add(request)

    def observe(self, request: Request) -> None:
        """See every link, duplicates included (for in-link counts)."""

    def page_done(self, url: str) -> None:
        """A page was fetched (PageRank uses it to refresh the ranks)."""

    def settled(self, url: str) -> None:
        """A popped request is over without a fetched page (failed or skipped)."""

    def _add(self, request: Request) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


def _memory_claim() -> Claim:
    seen: set[str] = set()

    def claim(request: Request) -> bool:
        if request.url in seen:
            return False
        seen.add(request.url)
        return True

    return claim


class BreadthFirst(Scheduler):
    def __init__(self, claim: Claim | None = None):
        super().__init__(claim)
        self._queue: deque[Request] = deque()

    def _add(self, request: Request) -> None:
        self._queue.append(request)

    def _pop(self) -> Request | None:
        return self._queue.popleft() if self._queue else None

    def __len__(self) -> int:
        return len(self._queue)


class _Heap(Scheduler):
    """Pops the smallest ``key(request)``; ties in discovery order."""

    def __init__(self, claim: Claim | None = None):
        super().__init__(claim)
        self._heap: list = []

    def key(self, request: Request):
        raise NotImplementedError

    def _add(self, request: Request) -> None:
        heapq.heappush(self._heap, (self.key(request), request.seq, request))

    def _pop(self) -> Request | None:
        return heapq.heappop(self._heap)[2] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)


class DepthFirst(_Heap):
    """Deepest first, and among equals the first discovered: a depth-first preorder."""

    def key(self, request: Request):
        return -request.depth


class RandomOrder(Scheduler):
    def __init__(self, claim: Claim | None = None, seed: int | None = None):
        super().__init__(claim)
        self._items: list[Request] = []
        self._rng = random.Random(seed)

    def _add(self, request: Request) -> None:
        self._items.append(request)

    def _pop(self) -> Request | None:
        if not self._items:
            return None
        i = self._rng.randrange(len(self._items))
        self._items[i], self._items[-1] = self._items[-1], self._items[i]
        return self._items.pop()

    def __len__(self) -> int:
        return len(self._items)


class BestFirst(_Heap):
    """Naive best-first: highest ``request.priority`` (the engine sets it to the
    relevance of the page the link was found on)."""

    def key(self, request: Request):
        return -request.priority


class _Rescoring(Scheduler):
    """A heap whose scores change while URLs wait: stale entries are skipped on pop."""

    def __init__(self, claim: Claim | None = None):
        super().__init__(claim)
        self._heap: list = []
        self._queued: dict[str, Request] = {}

    def _add(self, request: Request) -> None:
        self._queued[request.url] = request
        request.priority = self.score(request)
        heapq.heappush(self._heap, (-request.priority, request.seq, request.url))

    def _rescore(self, url: str) -> None:
        request = self._queued.get(url)
        if request is not None:
            new = self.score(request)
            if new != request.priority:
                request.priority = new
                heapq.heappush(self._heap, (-new, request.seq, url))

    def score(self, request: Request) -> float:
        raise NotImplementedError

    def _pop(self) -> Request | None:
        while self._heap:
            neg, _, url = heapq.heappop(self._heap)
            request = self._queued.get(url)
            if request is not None and -neg == request.priority:
                del self._queued[url]
                return request
        return None

    def __len__(self) -> int:
        return len(self._queued)


class ByImportance(_Rescoring):
    """Best-first by I(p) = x*IB + y*IL + z*ID (see ``relevance.importance``).

    An in-link counts 1 / (1 + depth of the linking page): links from pages near
    the seeds weigh more.
    """

    def __init__(self, claim: Claim | None = None, keywords: dict | None = None,
                 weights: tuple[float, float, float] = DEFAULT_WEIGHTS):
        super().__init__(claim)
        self._relevance = KeywordRelevance(keywords)
        self._weights = weights
        self._inlinks: dict[str, float] = {}
        self._link_relevance: dict[str, float] = {}

    def observe(self, request: Request) -> None:
        if request.referrer:
            parent_depth = max(0, request.depth - 1)
            self._inlinks[request.url] = self._inlinks.get(request.url, 0.0) + 1.0 / (1 + parent_depth)
        if self._relevance:
            il = self._relevance(request.url + " " + request.anchor)
            if il > self._link_relevance.get(request.url, 0.0):
                self._link_relevance[request.url] = il
        self._rescore(request.url)

    def score(self, request: Request) -> float:
        return importance(self._inlinks.get(request.url, 0.0), self._link_relevance.get(request.url, 0.0),
                          request.depth, self._weights)

    def _pop(self) -> Request | None:
        request = super()._pop()
        if request is not None:  # its counters are no longer needed
            self._inlinks.pop(request.url, None)
            self._link_relevance.pop(request.url, None)
        return request


class ByPageRank(_Rescoring):
    """Partial-PageRank order: PageRank over the pages fetched so far plus the
    queued URLs, recomputed after every ``max(1, nodes // 20)`` fetched pages."""

    def __init__(self, claim: Claim | None = None):
        super().__init__(claim)
        self._out: dict[str, set[str]] = {}
        self._rank: dict[str, float] = {}
        self._since = 0

    def observe(self, request: Request) -> None:
        if request.referrer:
            self._out.setdefault(request.referrer, set()).add(request.url)

    def score(self, request: Request) -> float:
        return self._rank.get(request.url, 0.0)

    def page_done(self, url: str) -> None:
        self._out.setdefault(url, set())
        self._since += 1

    def recompute(self) -> None:
        self._since = 0
        self._rank = pagerank(self._out, set(self._queued))
        self._heap = [(-self._rescored(r), r.seq, u) for u, r in self._queued.items()]
        heapq.heapify(self._heap)

    def _rescored(self, request: Request) -> float:
        request.priority = self.score(request)
        return request.priority

    def _pop(self) -> Request | None:
        if self._queued and self._since >= max(1, len(self._rank) // 20):
            self.recompute()
        return super()._pop()


DISK_ORDERS = ("bfs", "dfs", "random", "best_first", "focused")


class DiskQueue(Scheduler):
    """The frontier kept on disk (the crawl state's ``url`` table), with only a window of the
    next requests in memory, so memory stays flat however far the queue grows.

    For the orders a fixed key gives: bfs (discovery order), dfs (deepest first), random (a
    seeded random key) and best-first (highest score); ties in discovery order, as the
    in-memory schedulers. ``store`` is the crawl state: ``claim(request, key) -> bool`` writes
    the row with its key, ``queued(limit) -> [(key, seq, request)]`` reads the queued rows in
    key order, ``queued_count()``, ``queued_among(urls)`` and ``max_seq()``. Invariant: every
    queued request is in the window, in flight (popped, not yet settled) or on disk only, and
    every key in the window sorts before every key on disk only.
    """

    def __init__(self, store, order: str = "bfs", claim=None, *, window: int = 256, seed: int | None = None):
        if order not in DISK_ORDERS:
            raise ValueError(f"no disk queue for the {order!r} order")
        self._store = store
        self._order = "best_first" if order == "focused" else order
        self._claim_key = claim or store.claim
        super().__init__(lambda request: True)
        self._window = max(4, window)
        self._rng = random.Random(seed)
        self._mem: list = []  # sorted (key, seq, tie, request)
        self._tie = itertools.count()
        self._in_flight: set[str] = set()
        self._seq = itertools.count(store.max_seq() + 1)
        self._disk_only = store.queued_count()  # a resumed crawl starts with everything on disk
        # keys at or after the bound may be on disk only (a resumed queue: everything)
        self._bound: tuple | None = (float("-inf"), -1) if self._disk_only else None

    def key(self, request: Request) -> float:
        if self._order == "bfs":
            return 0.0
        if self._order == "dfs":
            return -float(request.depth)
        if self._order == "random":
            return self._rng.random()
        return -float(request.priority)

    def push(self, request: Request) -> bool:
        request.seq = next(self._seq)
        key = self.key(request)
        if not self._claim_key(request, key):
            return False
        self._place(key, request)
        return True

    def restore(self, request: Request) -> None:
        """A popped request back in the queue (its fetch was cut by a pause)."""
        self._in_flight.discard(request.url)
        self._place(self.key(request), request)

    def _place(self, key: float, request: Request) -> None:
        entry = (key, request.seq, next(self._tie), request)
        if self._disk_only and self._bound is not None and entry[:2] >= self._bound:
            self._disk_only += 1  # it sorts after rows still on disk: read back in its turn
            return
        bisect.insort(self._mem, entry)
        if len(self._mem) > self._window:
            last = self._mem.pop()  # its row stays queued on disk
            self._disk_only += 1
            bound = last[:2]
            self._bound = bound if self._bound is None or bound < self._bound else self._bound

    def _pop(self) -> Request | None:
        if not self._mem and self._disk_only:
            self._refill()
        if not self._mem:
            return None
        request = self._mem.pop(0)[3]
        self._in_flight.add(request.url)
        return request

    def _refill(self) -> None:
        rows = self._store.queued(self._window + len(self._in_flight))
        loaded = [(k, q, next(self._tie), r) for k, q, r in rows if r.url not in self._in_flight][:self._window]
        self._mem = loaded
        # a page is marked done in the store before the scheduler hears of it (page_done): count only
        # the requests in flight whose rows are still queued, or a row left on disk is never popped
        in_flight = self._store.queued_among(self._in_flight) if self._in_flight else 0
        self._disk_only = max(0, self._store.queued_count() - in_flight - len(loaded))
        self._bound = loaded[-1][:2] if loaded and self._disk_only else None

    def page_done(self, url: str) -> None:
        self._in_flight.discard(url)

    def settled(self, url: str) -> None:
        self._in_flight.discard(url)

    def __len__(self) -> int:
        return len(self._mem) + self._disk_only


def make_scheduler(strategy: str, claim: Claim | None = None, *, keywords: dict | None = None,
                   seed: int | None = None, store=None, window: int = 256) -> Scheduler:
    """The scheduler for a profile's ``crawl.strategy``. With ``store`` (the crawl state), the
    orders in ``DISK_ORDERS`` keep their queue on disk (``claim`` is then ``claim(request, key)``)."""
    if store is not None and strategy in DISK_ORDERS:
        return DiskQueue(store, strategy, claim, window=window, seed=seed)
    if strategy == "bfs":
        return BreadthFirst(claim)
    if strategy == "dfs":
        return DepthFirst(claim)
    if strategy == "random":
        return RandomOrder(claim, seed=seed)
    if strategy in ("best_first", "focused"):
        return BestFirst(claim)
    if strategy == "importance":
        return ByImportance(claim, keywords=keywords)
    if strategy == "pagerank":
        return ByPageRank(claim)
    raise ValueError(f"unknown crawl strategy {strategy!r}")
