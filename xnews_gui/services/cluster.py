"""Following a cluster crawl from the desktop: the workers' items drained from Redis into the store as
they come, with the crawl's events, as a desktop crawl sends them.

    follower = ClusterFollower("newsim", "redis://127.0.0.1:6379/0", store, on_event)
    summary = follower.run()        # blocks until the cluster's crawl is over; stop() from anywhere

The workers (``scale``) push each item to ``xnews:<profile>:items`` in the same script that acknowledges
its page (``frontier.RedisFrontier``) and count their pages in ``xnews:<profile>:stats``. The follower
reads up to ``BATCH`` items, stores them through the importer (``store.importer``: each line checked, the body
sanitised again, one transaction) and only then removes them from the list: killed in between, the
next follower stores them again and the store's uniqueness makes that a no-op. The crawl is over when
workers were seen, none is left, the frontier is empty and every item is drained; when the workers
left with requests still queued (stopped, killed, at their page limit), the follower waits ``ABANDONED_S``
for another worker, then ends "stopped", its ``stopped_reason`` saying what is left. Events: "article"
for each new article, "stats" every ``stats_interval`` seconds (pages, articles, queue, workers),
"error" for an item not stored, "watch" for a new article that matches a watch (its feed and webhook
follow, as in a desktop crawl), "finished" with the summary. One follower per profile at a time.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from ..crawl.options import CrawlEvent
from ..store.importer import ImportReport, parse_item, store_items
from ..store.sink import StoreSink
from .watches import END_WAIT_S, WatchOutlet

BATCH = 200
POLL_S = 0.25
# the last worker gone, requests still queued and every item stored: the time left for another worker to
# start before the follower ends, "stopped" with what is left (the workers' own timeout is 10 s)
ABANDONED_S = 30.0


REDIS_SCHEMES = ("redis", "rediss", "unix")


def redis_url_problem(url: str) -> str:
    """Why ``url`` cannot name the workers' Redis ('' when it can): checked before anything connects."""
    from urllib.parse import urlsplit

    url = url.strip()
    if not url:
        return "give the Redis URL the workers use (their XNEWS_REDIS_URL), e.g. redis://127.0.0.1:6379/0"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        return f"not a Redis URL ({exc})"
    if parts.scheme not in REDIS_SCHEMES:
        return f"a Redis URL starts with redis://, rediss:// or unix:// (not {parts.scheme or url[:20]!r})"
    if parts.scheme != "unix" and not parts.hostname:
        return "the Redis URL names no host (e.g. redis://127.0.0.1:6379/0)"
    if parts.scheme == "unix" and not parts.path:
        return "the Redis URL names no socket (e.g. unix:///run/redis/redis.sock)"
    import importlib.util

    if importlib.util.find_spec("redis") is None:
        return "following a cluster needs the Redis client: python3 -m pip install -e '.[scale]'"
    return ""


def shown_url(url: str) -> str:
    """``url`` as it may be shown and logged: a password replaced by ***."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return url


def redis_client(url: str):
    import redis  # the scale extra: only a follower imports it

    return redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10)


class ClusterFollower:
    def __init__(self, profile: str, redis_url: str, store, on_event: Callable[[CrawlEvent], None] | None = None,
                 *, stats_interval: float = 0.5):
        self.profile = profile
        self.redis_url = redis_url
        self.store = store
        self.on_event = on_event
        self.stats_interval = stats_interval
        self.prefix = f"xnews:{profile}:"
        self.report = ImportReport()
        self._stop = threading.Event()
        self._paused = False
        self._started = time.monotonic()
        self._counts = {"pages": 0, "queue": 0, "workers": 0}
        self._seen_workers = False
        self._abandoned_since: float | None = None
        self.outlet: WatchOutlet | None = None
        self.abandoned_s = ABANDONED_S

    # --- control (any thread) ----------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def pause(self) -> None:
        self._paused = True  # the workers go on; their items wait in Redis

    def resume(self) -> None:
        self._paused = False

    @property
    def stats(self) -> dict:
        elapsed = max(1e-9, time.monotonic() - self._started)
        pages = self._counts["pages"]
        return {"pages": pages, "articles": self.report.created, "duplicates": self.report.duplicates,
                "errors": len(self.report.problems), "queue": self._counts["queue"],
                "workers": self._counts["workers"], "paused": self._paused, "elapsed_s": round(elapsed, 3),
                "pages_per_s": round(pages / elapsed, 2)}

    # --- the run ---------------------------------------------------------------------------
    def run(self) -> dict:
        client = redis_client(self.redis_url)
        # the watches' events, feeds and webhooks; kept, so that a run ended by Ctrl+C can say what they did
        outlet = self.outlet = WatchOutlet(self.store, self.on_event)
        sinks: dict = {self.profile: StoreSink(self.store, self.profile, on_watch=outlet)}
        next_stats = 0.0
        status = "stopped"
        outlet.start()
        try:
            client.ping()
            while not self._stop.is_set():
                drained = 0 if self._paused else self._drain(client, sinks)
                over = self._look(client)
                now = time.monotonic()
                if now >= next_stats:
                    next_stats = now + self.stats_interval
                    self._emit("stats", self.stats)
                if over and not drained:
                    status = "finished"
                    break
                if self._abandoned_since is not None and now - self._abandoned_since >= self.abandoned_s:
                    status = "stopped"
                    break
                if drained < BATCH:
                    self._stop.wait(POLL_S)
        finally:
            for sink in sinks.values():
                sink.release()
            client.close()
            outlet.close(END_WAIT_S)
        summary = dict(self.stats, status=status)
        if status == "stopped" and self._abandoned_since is not None:
            summary["stopped_reason"] = (f"the workers left with {self._counts['queue']} request(s) still queued; "
                                         f"start workers to go on (the queue is kept in Redis)")
        outlet.add_to(summary)
        self._emit("finished", summary)
        return summary

    def _drain(self, client, sinks: dict) -> int:
        lines = client.lrange(self.prefix + "items", 0, BATCH - 1)
        if not lines:
            return 0
        rows: list = []
        for n, raw in enumerate(lines):
            where = f"{self.prefix}items[{n}]"
            try:
                profile, *row = parse_item(raw, self.profile)
            except ValueError as exc:
                self._problem(where, str(exc))
                continue
            rows.append((where, tuple(row)))
        before = len(self.report.problems)
        outcomes = store_items(sinks, self.store, self.profile, rows, self.report) if rows else []
        client.ltrim(self.prefix + "items", len(lines), -1)  # only once stored
        for problem in self.report.problems[before:]:
            self._emit("error", {"url": "", "kind": "store", "message": problem})
        for (_, (article, topic, confidence, _section)), outcome in zip(rows, outcomes):
            if not isinstance(outcome, Exception) and outcome[1]:
                self._emit("article", {"id": outcome[0], "url": article.url, "title": article.title,
                                       "category": topic, "confidence": confidence})
        return len(lines)

    def _look(self, client) -> bool:
        """Read the cluster's counts; True when its crawl is over (workers seen, none left, nothing queued)."""
        seconds, micros = client.time()  # the workers' deadlines are on the server's clock
        pipe = client.pipeline()
        pipe.hget(self.prefix + "stats", "pages")
        pipe.zcard(self.prefix + "queue")
        pipe.zcount(self.prefix + "workers", f"({seconds * 1000 + micros // 1000}", "+inf")
        pipe.llen(self.prefix + "items")
        pages, queued, workers, items = pipe.execute()
        self._counts = {"pages": int(pages or 0), "queue": int(queued), "workers": int(workers)}
        self._seen_workers = self._seen_workers or workers > 0
        if self._seen_workers and not workers and queued and not items:
            self._abandoned_since = self._abandoned_since or time.monotonic()
        else:
            self._abandoned_since = None
        return self._seen_workers and not workers and not queued and not items

    def _problem(self, where: str, message: str) -> None:
        self.report.problems.append(f"{where}: {message}")
        self._emit("error", {"url": "", "kind": "item", "message": f"{where}: {message}"})

    def _emit(self, kind: str, data: dict) -> None:
        if self.on_event is not None:
            self.on_event(CrawlEvent(kind, data))
