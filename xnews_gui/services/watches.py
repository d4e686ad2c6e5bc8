"""What a crawl does when new articles match watches: tell (a "watch" event per article: the app's
notification and badge, the command line's line), keep each watch's Atom feed file up to date, and POST
the article's JSON to the watch's webhook, retried with backoff. The feeds and the webhooks are written by
a thread of their own: the crawl's writing thread only hands the hits over.

    outlet = WatchOutlet(store, emit)      # emit(CrawlEvent)
    sink.on_watch = outlet                 # StoreSink calls it after each commit with the batch's hits
    outlet.close(wait_s=10)                # at the end: what could not be sent stays pending for the next crawl

Feeds: ``<data folder>/watches/<name>.atom`` (the watch's last ``FEED_ENTRIES`` articles, written through
``<name>.atom.part`` and a rename). A webhook gets ``POST`` with the article (the one article shape, as
``articles show`` prints it, plus "watch") as JSON; an answer other than 2xx, or none within
``POST_TIMEOUT_S``, is tried again after 1, 2, 4, 8 s, then the hit is marked failed (with why) and the
crawl's log says so. A hit not sent when the crawl ends stays pending and goes with the next crawl.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from ..crawl.options import CrawlEvent, DEFAULT_USER_AGENT
from ..export import ExportError, export_articles

log = logging.getLogger(__name__)

FEED_ENTRIES = 50
FEED_EVERY_S = 5.0  # a watch's feed is written at most this often during a crawl (and at its end)
POST_TIMEOUT_S = 10.0
END_WAIT_S = 15.0  # at a crawl's end, for the webhooks still being sent (the rest go with the next crawl)
BACKOFF_S = (0.0, 1.0, 2.0, 4.0, 8.0)  # before each try of a POST: five tries in all
_QUEUE_CAP = 10_000


def feeds_dir(root: Path) -> Path:
    return Path(root) / "watches"


def feed_path(root: Path, name: str) -> Path:
    """The watch's Atom file: its name made safe for a file name (a digest keeps two names apart)."""
    safe = re.sub(r"[^\w.-]+", "-", name, flags=re.UNICODE).strip("-.")[:60] or "watch"
    if safe != name:
        safe += "-" + hashlib.sha1(name.encode()).hexdigest()[:6]
    return feeds_dir(root) / f"{safe}.atom"


def write_feed(store, name: str) -> Path:
    """Write the watch's Atom feed now (also for a watch without articles yet)."""
    path = feed_path(store.root, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    articles = store.watch_articles(name, limit=FEED_ENTRIES)
    feed_id = "urn:xnews:watch:" + hashlib.sha1(f"{store.root.resolve()}\n{name}".encode()).hexdigest()
    return export_articles(articles, "atom", path, store, title=f"XNews: {name}", feed_id=feed_id)


def webhooks_line(summary: dict) -> str | None:
    """The summary's webhook line for people, a WARNING when one failed or is not sent yet."""
    sent, failed, unsent = (summary.get(f"webhooks_{k}", 0) for k in ("sent", "failed", "unsent"))
    if not (sent or failed or unsent):
        return None
    why = "; ".join(f"watch {name!r}: {error}" for name, error in (summary.get("webhooks_failures") or {}).items())
    parts = [f"{sent} sent"] + [f"{failed} failed ({why})"] * bool(failed) + \
        [f"{unsent} not sent yet (the next crawl or import sends them)"] * bool(unsent)
    return ("WARNING: " if failed or unsent else "") + "watch webhooks: " + ", ".join(parts)


class WatchOutlet:
    """Called with the hits of each stored batch (``store.watches.Hit``); one thread does the slow part."""

    def __init__(self, store, emit: Callable[[CrawlEvent], None] | None = None, *, user_agent: str = DEFAULT_USER_AGENT,
                 backoff_s: tuple = BACKOFF_S, post_timeout_s: float = POST_TIMEOUT_S):
        self.store = store
        self.emit = emit or (lambda event: None)
        self.user_agent = user_agent
        self.backoff_s = backoff_s
        self.post_timeout_s = post_timeout_s
        self.sent = self.failed = self.unsent = 0  # unsent: still pending when closed (the next run sends them)
        self.failures: dict[str, str] = {}  # watch -> the error of its first webhook that failed
        self._cond = threading.Condition()
        self._feeds: dict[str, float] = {}  # watches whose feed is to be written again -> when
        self._written: dict[str, float] = {}  # watch -> when its feed was last written
        self._posts: list[tuple[float, int, int, str]] = []  # heap of (due, hit id, tries so far, url)
        self._queued: set[int] = set()
        self._closing = False
        self._deadline = 0.0
        self._thread: threading.Thread | None = None  # started with the first work: most crawls match nothing

    def start(self) -> None:
        """When the crawl starts: the webhooks an earlier crawl left unsent (stopped, killed) go now."""
        for hit_id, url, tries in self.store.pending_webhooks():
            self._post_later(hit_id, tries, url)

    def __call__(self, hits) -> None:
        """The hits of one committed batch (the crawl's writing thread): events now, the rest later."""
        urls = {}
        for hit in hits:
            self.emit(CrawlEvent("watch", hit.to_dict()))
        with self._cond:
            now = time.monotonic()
            for hit in hits:
                if hit.watch not in self._feeds:  # many batches' matches, one write of the feed
                    self._feeds[hit.watch] = max(now, self._written.get(hit.watch, -FEED_EVERY_S) + FEED_EVERY_S)
            self._working()
        for hit in hits:
            if hit.webhook:
                url = urls.get(hit.watch)
                if url is None:
                    row = self.store.watch(hit.watch)
                    url = urls[hit.watch] = row.webhook if row is not None else ""
                if url:
                    self._post_later(hit.hit_id, 0, url)

    def close(self, wait_s: float = 10.0) -> None:
        """Write the feeds, send what can be sent within ``wait_s``, then end (what is left stays pending)."""
        with self._cond:
            self._closing = True
            self._deadline = time.monotonic() + wait_s
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(wait_s + self.post_timeout_s + 5)
        with self._cond:
            self.unsent = len(self._posts)

    def add_to(self, summary: dict) -> dict:
        """After ``close``: what the webhooks did, in the run's summary (``webhooks_sent``, ``_failed``,
        ``_unsent``), when there was anything to send."""
        if self.sent or self.failed or self.unsent:
            summary.update(webhooks_sent=self.sent, webhooks_failed=self.failed, webhooks_unsent=self.unsent,
                           webhooks_failures=dict(self.failures))
        return summary

    # --- the outlet's thread ------------------------------------------------------------------------
    def _post_later(self, hit_id: int, tries: int, url: str) -> None:
        with self._cond:
            if hit_id in self._queued or len(self._queued) >= _QUEUE_CAP:
                return
            self._queued.add(hit_id)
            heapq.heappush(self._posts, (time.monotonic() + self._backoff(tries), hit_id, tries, url))
            self._working()

    def _working(self) -> None:
        """Under the lock: wake the outlet's thread, or start it."""
        if self._thread is None and not self._closing:
            self._thread = threading.Thread(target=self._run, name="xnews-watch-outlet", daemon=True)
            self._thread.start()
        self._cond.notify()

    def _backoff(self, tries: int) -> float:
        return self.backoff_s[min(tries, len(self.backoff_s) - 1)]

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    job = self._next_job()
                    if job is None:
                        return
                kind, value = job
                try:
                    if kind == "feed":
                        write_feed(self.store, value)
                    else:
                        self._post(*value)
                except (ExportError, OSError) as exc:
                    self.emit(CrawlEvent("log", {"message": f"WARNING: watch feed {value!r} not written: {exc}",
                                                 "warning": True}))
                except Exception:  # a bug here must not end the outlet
                    log.exception("watch outlet: %s failed", kind)
        finally:
            self.store.close()  # this thread's connection

    def _next_job(self):
        """Under the lock: ("feed", name), ("post", (hit id, tries, url)), or None when it is over."""
        while True:
            now = time.monotonic()
            due = [name for name, when in self._feeds.items() if when <= now or self._closing]
            if due:
                del self._feeds[due[0]]
                self._written[due[0]] = now
                return "feed", due[0]
            if self._posts and self._posts[0][0] <= now:
                _, hit_id, tries, url = heapq.heappop(self._posts)
                self._queued.discard(hit_id)
                return "post", (hit_id, tries, url)
            if self._closing and (not self._posts or now >= self._deadline):
                return None
            times = [self._posts[0][0]] if self._posts else []
            times += self._feeds.values()
            wait = min(times) - now if times else None
            if self._closing:
                wait = self._deadline - now if wait is None else min(wait, self._deadline - now)
            self._cond.wait(wait)

    def _post(self, hit_id: int, tries: int, url: str) -> None:
        payload = self.store.webhook_payload(hit_id)
        if payload is None:
            return  # the watch or the article was deleted meanwhile
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(url, data=body, method="POST", headers={
            "Content-Type": "application/json; charset=utf-8", "User-Agent": self.user_agent})
        try:
            with urllib.request.urlopen(request, timeout=self.post_timeout_s) as answer:  # noqa: S310 (http(s) only)
                answer.read(65536)
            error = ""
        except urllib.error.HTTPError as exc:
            error = f"HTTP {exc.code}"
        except (urllib.error.URLError, OSError, ValueError) as exc:
            error = str(getattr(exc, "reason", exc))[:200]
        if not error:
            self.sent += 1
            self.store.webhook_tried(hit_id, "sent")
            return
        tries += 1
        if tries < len(self.backoff_s):
            self.store.webhook_tried(hit_id, "pending", error)
            self._post_later(hit_id, tries, url)
            return
        self.failed += 1
        self.failures.setdefault(payload["watch"], error)
        self.store.webhook_tried(hit_id, "failed", error)
        self.emit(CrawlEvent("log", {"message": f"WARNING: the webhook of watch {payload['watch']!r} failed "
                                                f"{tries} times for {payload['url']} ({error})", "warning": True}))
