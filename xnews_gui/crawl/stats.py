"""Crawl statistics: counters updated by workers, snapshots for events and the summary."""

from __future__ import annotations

import threading
import time
from collections import Counter

from ..core.profile.verify import Verifier

BROKEN_FILL = 0.5  # a field empty on more than half the article pages...
BROKEN_MIN_PAGES = 5  # ...out of at least this many is "rule probably broken"


class CrawlStats:
    def __init__(self, fields=()):
        self._lock = threading.Lock()
        self.started = time.monotonic()
        self.fields = tuple(fields)
        self.c: Counter = Counter()  # pages, list_pages, article_pages, articles, duplicates, ...
        self.errors_by_kind: Counter = Counter()
        self.first_failure = ""  # why the first article page that could not be extracted failed
        self.filled: Counter = Counter()
        self.verifier = Verifier()  # per-field verification window (core.profile.verify): "degraded" fields

    def add(self, **counts: int) -> None:
        with self._lock:
            self.c.update(counts)

    def error(self, kind: str) -> None:
        with self._lock:
            self.errors_by_kind[kind] += 1

    def extracted(self, article) -> None:
        with self._lock:
            self.c["extracted"] += 1
            if article.ok:
                self.c["extracted_ok"] += 1
            elif not self.first_failure:
                self.first_failure = "; ".join(article.errors)
            for name in self.fields:
                if article.value(name):
                    self.filled[name] += 1
            self.verifier.add(article)
            if getattr(article, "fallbacks", None):
                self.c["fallbacks"] += 1

    def get(self, name: str) -> int:
        with self._lock:
            return self.c[name]

    def snapshot(self, **extra) -> dict:
        with self._lock:
            c = dict(self.c)
            errors = dict(self.errors_by_kind)
            filled = dict(self.filled)
            degraded = self.verifier.degraded()
            why = self.verifier.why()
            checked = {f: len(h.recent) for f, h in self.verifier.fields.items() if f in degraded}
        elapsed = max(1e-9, time.monotonic() - self.started)
        pages = c.get("pages", 0)
        extracted = c.get("extracted", 0)
        fill = {f: (filled.get(f, 0) / extracted if extracted else None) for f in self.fields}
        snap = {
            "pages": pages,
            "list_pages": c.get("list_pages", 0),
            "article_pages": c.get("article_pages", 0),
            "articles": c.get("articles", 0),
            "duplicates": c.get("duplicates", 0),
            "skipped_topic": c.get("skipped_topic", 0),
            "known_skipped": c.get("known_skipped", 0),
            "errors": sum(errors.values()),
            "errors_by_kind": errors,
            "images": c.get("images", 0),
            "image_errors": c.get("image_errors", 0),
            "bytes": c.get("bytes", 0),
            "dropped_by_depth": c.get("dropped_by_depth", 0),
            "not_expanded": c.get("not_expanded", 0),
            "discovered": c.get("discovered", 0),  # article URLs from sitemaps and feeds
            "discovered_skipped": c.get("discovered_skipped", 0),  # out of scope or not article-shaped
            "login_pages": c.get("login_pages", 0),  # article pages that asked for a password
            "rendered": c.get("rendered", 0),  # article pages rendered by the render pool
            "from_embedded_json": c.get("from_embedded_json", 0),  # articles read from JSON-LD / __NEXT_DATA__
            "loaded_more_pages": c.get("loaded_more_pages", 0),  # list pages opened to load more (profile's "more")
            "loaded_more": c.get("loaded_more", 0),  # clicks or scrolls that brought new links
            "more_at_limit": c.get("more_at_limit", 0),  # list pages still loading more at their limit
            # stored articles asked again (crawl/revisits.py): answered, 304, changed, same, gone; why asked
            "revisited": c.get("revisited", 0), "not_modified": c.get("not_modified", 0),
            "updated": c.get("updated", 0), "unchanged": c.get("unchanged", 0), "gone": c.get("gone", 0),
            "still_gone": c.get("still_gone", 0),  # marked gone before, and still 404/410
            "revisits_newer": c.get("revisits_newer", 0), "revisits_due": c.get("revisits_due", 0),
            "revisits_deferred": c.get("revisits_deferred", 0),  # newer in a sitemap, over the budget: next pass
            "elapsed_s": round(elapsed, 3),
            "pages_per_s": round(pages / elapsed, 2),
            "harvest_rate": round(c.get("extracted_ok", 0) / pages, 4) if pages else 0.0,
            "fill_rate": {f: (round(v, 4) if v is not None else None) for f, v in fill.items()},
            "fallbacks": c.get("fallbacks", 0),  # articles with a field from outside its rules ("body: fallback")
            "degraded_fields": degraded,  # field -> its failing URLs in the window (at most core.profile.verify.WINDOW)
            "degraded_counts": {f: [len(urls), checked[f]] for f, urls in degraded.items()},  # [failed, of the last N]
            "degraded_why": why,  # field -> what its failing values most often have wrong
        }
        snap.update(extra)
        return snap


def broken_fields(fill_rate: dict, extracted: int, previous: dict | None = None) -> list[dict]:
    """Fields whose rule probably broke: empty on most article pages (and, when an
    earlier pass is known, clearly worse than then)."""
    if extracted < BROKEN_MIN_PAGES:
        return []
    out = []
    for name, rate in fill_rate.items():
        if rate is None or rate >= BROKEN_FILL:
            continue
        before = (previous or {}).get(name)
        if before is not None and before < BROKEN_FILL:
            continue  # always sparse on this site: not a sudden break
        out.append({"field": name, "fill_rate": rate, "previous": before})
    return out
