"""Revisits of stored articles: which to ask again, how, and what the answers mean.

A revisit is a ``Request`` of the article kind with the "revisit" flag and the stored copy's
validators as conditional headers (If-None-Match from its ETag, If-Modified-Since from its
Last-Modified). It comes from one of:

- a sitemap or feed entry whose date (``lastmod``) is newer than the stored copy's own date at the
  source (its Last-Modified, else the lastmod it was found with; else when it was fetched);
- the article's own schedule: each newly stored article is watched (``CrawlState.watch``), first
  after ``article_revisit_min``, then at intervals adapted by its observed changes (``revisit``:
  λ̂ = changes / time watched), for ``watch_days`` after it was first stored;
- ``revisit`` (every stored article of the profile now) and ``revisit_urls`` ("Fetch again").

Scheduled and lastmod-triggered revisits share a budget per crawl pass (``revisit_budget``), so a
store of 100,000 articles never re-downloads itself; asked-for ones have none. The answers: a 304
costs no parse (the copy is unchanged); a 200 is extracted and stored as a new version when its
fields changed (the sink answers UPDATED or UNCHANGED); a 404 or 410 is asked again after
``gone_confirm_s`` (or found again by a later pass), and the second one marks the article gone
(never deleted; asked again at the slowest rate while it is watched: an answer brings it back). Any other
failure is a passing error and changes nothing.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Callable

from ..core.text.dates import as_utc
from ..core.text.urls import UrlError, canonical
from .request import Request

GONE_STATUSES = (404, 410)
CLOCK_SLACK = timedelta(hours=1)  # a source's date against our clock (when no date of the source is known)
SAME_DATE = timedelta(seconds=1)  # dates of the same source: a newer one changed (HTTP dates have whole seconds)


class Revisits:
    def __init__(self, profile, options, state, sink, stats, emit: Callable[[str, dict], None]):
        self.options, self.state, self.sink, self.stats, self.emit = options, state, sink, stats, emit
        settings = profile.crawl
        self.min_s = settings.article_revisit_min * 60
        self.max_s = max(self.min_s, settings.article_revisit_max_min * 60)
        self.watch_s = settings.watch_days * 86400
        self.asked = bool(options.revisit or options.revisit_urls)  # asked for now: no budget
        self.budget = settings.revisit_budget
        self.enabled = hasattr(sink, "stored_copies")  # a sink that knows its stored copies
        self._spent = 0
        self._lock = threading.Lock()

    # --- which and how -------------------------------------------------------------
    def copies(self, urls) -> dict[str, dict]:
        return self.sink.stored_copies(list(urls)) if self.enabled and urls else {}

    def request(self, url: str, copy: dict | None, *, depth: int = 1, referrer: str = "",
                lastmod: datetime | None = None, now: bool = False) -> Request:
        gone = bool(copy and copy.get("gone"))
        headers = {}
        if copy and not gone:  # a gone one is asked plainly: a 304 would leave it gone, the page itself tells
            if copy.get("etag"):
                headers["If-None-Match"] = copy["etag"]
            if copy.get("last_modified"):
                headers["If-Modified-Since"] = copy["last_modified"]
        extra = {"lastmod": lastmod.isoformat()} if lastmod is not None else {}
        if gone:
            extra["was_gone"] = True  # one 404/410 is enough: it stays gone
        flags = frozenset({"revisit", "now"} if now else {"revisit"})  # now: "Fetch again", queued or not
        return Request(url, "article", depth, referrer, "", 1.0, flags=flags, headers=headers, extra=extra)

    def newer(self, copy: dict, modified: datetime | None) -> bool:
        """Whether the source's date says the page changed after the stored copy was made."""
        if modified is None:
            return False
        stored = _parse(copy.get("modified_at", ""))
        if stored is not None:
            return modified > stored + SAME_DATE
        fetched = _parse(copy.get("fetched_at", ""))
        return fetched is None or modified > fetched + CLOCK_SLACK

    def spend(self) -> bool:
        """One revisit of the pass's budget (always granted when revisits were asked for)."""
        if self.asked:
            return True
        with self._lock:
            if self._spent >= self.budget:
                return False
            self._spent += 1
            return True

    def seed(self) -> list[Request]:
        """The revisits a pass starts with: those asked for, else the articles whose revisit is due."""
        if not self.enabled:
            return []
        if self.options.revisit_urls:
            urls = []
            for url in self.options.revisit_urls:
                try:
                    urls.append(canonical(url))
                except UrlError:
                    self.emit("error", {"url": url, "kind": "bad_url", "message": "not a URL to fetch again"})
        elif self.options.revisit:  # every one, those the source removed too: a page that came back is news
            urls = self.sink.stored_article_urls(include_gone=True)
        else:
            room = max(0, self.budget - self._spent)
            urls = self.state.due_articles(room, time.time() - self.watch_s) if room else []
            with self._lock:
                self._spent += len(urls)
        copies = self.copies(urls)
        self.stats.add(revisits_due=0 if self.asked else len(urls))
        now = bool(self.options.revisit_urls)
        return [self.request(url, copies.get(url), now=now) for url in urls]

    # --- the answers -------------------------------------------------------------------
    def not_modified(self, req: Request) -> None:
        self.state.article_checked(req.url, False, self.min_s, self.max_s)
        self.stats.add(revisited=1, not_modified=1)

    def missing(self, req: Request, status: int) -> str:
        """A 404/410 of a revisit: "gone" (the second in a row, marked; or one for an article gone already)
        or "again" (ask later)."""
        # a gone article is asked again at the slowest rate while it is watched: a site that answered 404 for a
        # while (a move, an outage) gets its articles back, not "removed at the source" for ever
        later = time.time() + self.max_s
        if req.extra.get("was_gone"):
            self.state.article_gone(req.url, later)
            self.stats.add(revisited=1, still_gone=1)
            return "gone"
        misses, before = self.state.article_missed(req.url)
        if misses >= 2 and before is not None and time.time() - before >= 0.9 * self.options.gone_confirm_s:
            self.state.article_gone(req.url, later)
            self.stats.add(revisited=1, gone=1)
            self.emit("log", {"message": f"removed at the source (HTTP {status} twice): {req.url}"})
            return "gone"
        self.stats.add(gone_asked_again=1)
        return "again"

    def stored(self, url: str, changed: bool) -> None:
        self.state.article_checked(url, changed, self.min_s, self.max_s)
        self.stats.add(revisited=1, **({"updated": 1} if changed else {"unchanged": 1}))

    def watch(self, url: str) -> None:
        """A newly stored article: watched for changes from now on."""
        self.state.watch(url, self.min_s)


def source_date(last_modified: str, lastmod: str = "") -> str:
    """The copy's date at its source (ISO 8601, UTC): the later of its Last-Modified header and the
    sitemap's or feed's date it was found with; "" when neither is known."""
    dates = [d for d in (_http_date(last_modified), _parse(lastmod)) if d is not None]
    return max(dates).isoformat(timespec="seconds") if dates else ""


def _http_date(value: str) -> datetime | None:
    try:
        when = parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError, IndexError):
        return None
    return as_utc(when) if when is not None else None


def _parse(value: str) -> datetime | None:
    """An ISO 8601 time (naive: UTC), None when empty or unreadable."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return as_utc(when)
