"""The frontier: one small scheduler interface, one class per crawl strategy.

``push(request) -> bool`` returns False for a URL already seen (Scrapy's
contract); ``pop()`` returns the next request or None. Deduplication is
delegated to a ``claim(request) -> bool`` callable so the engine can make the
seen set persistent; by default it is an in-memory set.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from dataclasses import dataclass
from typing import Callable

from .pagerank import pagerank
from .relevance import DEFAULT_WEIGHTS, KeywordRelevance, importance


@dataclass(slots=True)
class Request:
    url: str  # canonical
    kind: str = "list"  # list | article
    depth: int = 0
    parent: str = ""
    anchor: str = ""
    score: float = 0.0  # priority for best-first (higher first); set by the engine or the scheduler
    seq: int = 0  # discovery order, for stable ties


Claim = Callable[[Request], bool]


class Scheduler:
    """Base: dedup and discovery order; subclasses decide the order of ``pop``."""

    def __init__(self, claim: Claim | None = None):
        self._claim = claim or _memory_claim()
        self._seq = itertools.count()

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

    def pop(self) -> Request | None:
        raise NotImplementedError

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

    def pop(self) -> Request | None:
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

    def pop(self) -> Request | None:
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

    def pop(self) -> Request | None:
        if not self._items:
            return None
        i = self._rng.randrange(len(self._items))
        self._items[i], self._items[-1] = self._items[-1], self._items[i]
        return self._items.pop()

    def __len__(self) -> int:
        return len(self._items)


class BestFirst(_Heap):
    """Naive best-first: highest ``request.score`` (the engine sets it to the
    relevance of the page the link was found on)."""

    def key(self, request: Request):
        return -request.score


class _Rescoring(Scheduler):
    """A heap whose scores change while URLs wait: stale entries are skipped on pop."""

    def __init__(self, claim: Claim | None = None):
        super().__init__(claim)
        self._heap: list = []
        self._queued: dict[str, Request] = {}

    def _add(self, request: Request) -> None:
        self._queued[request.url] = request
        request.score = self.score(request)
        heapq.heappush(self._heap, (-request.score, request.seq, request.url))

    def _rescore(self, url: str) -> None:
        request = self._queued.get(url)
        if request is not None:
            new = self.score(request)
            if new != request.score:
                request.score = new
                heapq.heappush(self._heap, (-new, request.seq, url))

    def score(self, request: Request) -> float:
        raise NotImplementedError

    def pop(self) -> Request | None:
        while self._heap:
            neg, _, url = heapq.heappop(self._heap)
            request = self._queued.get(url)
            if request is not None and -neg == request.score:
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
        if request.parent:
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

    def pop(self) -> Request | None:
        request = super().pop()
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
        if request.parent:
            self._out.setdefault(request.parent, set()).add(request.url)

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
        request.score = self.score(request)
        return request.score

    def pop(self) -> Request | None:
        if self._queued and self._since >= max(1, len(self._rank) // 20):
            self.recompute()
        return super().pop()


def make_scheduler(strategy: str, claim: Claim | None = None, *, keywords: dict | None = None,
                   seed: int | None = None) -> Scheduler:
    """The scheduler for a profile's ``crawl.strategy``."""
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
