"""A Scrapy scheduler over Redis: one frontier and one seen set shared by any number of workers.

Why not scrapy-redis's scheduler: its queue pops destructively (a worker killed with -9 loses
the requests it held), a worker stops only after an idle timeout (not when the frontier is empty
and nobody is busy), and it stores pickles that any writer of the Redis database could make run
code. Here the work is done by Lua scripts (atomic), and a worker's pending pushes and
acknowledgements ride along with its next pop, so a page costs about one round trip:

- push: add the fingerprint to the seen set; if new, add the request to the queue (a sorted
  set: priority first, then discovery order, FIFO or LIFO as the profile's strategy wants);
- pop: move the best request from the queue to this worker's in-flight hash (a lease);
- ack: drop the lease once the page is done (its links pushed, its item exported). Pushes go
  before acks in the same script: a worker killed in between loses nothing, its page is
  simply crawled again; so does each exported item (to ``items``, a list a desktop following the
  crawl drains: ``services/cluster.py``; ``-s XNEWS_LIVE_ITEMS=0`` when nobody follows);
- heartbeat: each worker renews a deadline every second; a worker silent for
  ``XNEWS_WORKER_TIMEOUT`` seconds is dead and its leases go back to the queue;
- status: queue length and leases held by live workers. A worker stops when both are zero.

Requests are stored as JSON, whole: the crawl's own ``Request`` (``crawl/request.py``: URL, kind,
depth, priority, flags, tries, Scrapy's redirect counters...) through its ``to_dict``/``from_dict``,
never pickled. ``enqueue_request`` answers False at once for a request this worker has pushed
before (Scrapy then fires ``request_dropped``); a request another worker had pushed first is known
only at the next round trip, and this frontier fires ``request_dropped`` for it then. An idle worker
asks Redis again every ``IDLE_POLL_S``; a request found that way enters through the engine's public
``crawl()`` (the engine polls its scheduler by itself only every 5 s); when the poll finds the
cluster's crawl over (nothing queued, no worker busy) and this worker idle, it closes the spider then,
not at the engine's next 5-second beat (which made every cluster run 5 s longer). Keys live under
``xnews:<profile>:``; a later crawl of the same profile on the same database continues (seen URLs are
not fetched again).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid
from collections import deque

from scrapy import signals
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import task

from ..crawl.request import Request
from .spider import as_request, page_done

log = logging.getLogger(__name__)

LEASE = "xnews_lease"
_POLLED = "xnews_polled"  # a request popped by the idle poll, handed to the engine with crawl()
IDLE_POLL_S = 0.1
HEARTBEAT_S = 1.0
STATUS_FRESH_S = 0.05

# Lua helpers shared by the scripts. ARGV[1] is always the key prefix.
_NOW = "local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
_REAP = """
local function reap(prefix, now)
  local dead = redis.call('ZRANGEBYSCORE', prefix .. 'workers', '-inf', now)
  for _, w in ipairs(dead) do
    local held = redis.call('HGETALL', prefix .. 'inflight:' .. w)
    for i = 2, #held, 2 do
      local sp = string.find(held[i], ' ', 1, true)
      redis.call('ZADD', prefix .. 'queue', tonumber(string.sub(held[i], 1, sp - 1)), string.sub(held[i], sp + 1))
    end
    redis.call('DEL', prefix .. 'inflight:' .. w)
    redis.call('ZREM', prefix .. 'workers', w)
  end
  return #dead
end
local function status(prefix)
  local busy = 0
  for _, w in ipairs(redis.call('ZRANGE', prefix .. 'workers', 0, -1)) do
    busy = busy + redis.call('HLEN', prefix .. 'inflight:' .. w)
  end
  return {redis.call('ZCARD', prefix .. 'queue'), busy}
end
"""
# ARGV: prefix, worker, lifo (0/1), pop (0/1), n pushes, n x (fingerprint ('' = don't filter),
# priority, request JSON), m items, m x item JSON (for a desktop following the crawl), leases to
# acknowledge... Returns {taken, 1, member} after a pop, else
# {taken, 0, queued, busy}; taken: one character per push, '1' queued, '0' seen before.
STEP = _NOW + _REAP + """
local prefix, worker = ARGV[1], ARGV[2]
local npush = tonumber(ARGV[5])
local added = {}
for k = 0, npush - 1 do
  local fp, prio, data = ARGV[6 + 3 * k], ARGV[7 + 3 * k], ARGV[8 + 3 * k]
  local new = 1
  if fp ~= '' then new = redis.call('SADD', prefix .. 'seen', fp) end
  if new == 1 then
    local seq = redis.call('INCR', prefix .. 'seq')
    local order = seq
    if ARGV[3] == '1' then order = -seq end
    redis.call('ZADD', prefix .. 'queue', -tonumber(prio) * 1e10 + order, seq .. ' ' .. data)
  end
  added[k + 1] = tostring(new)
end
added = table.concat(added)
local nitems = tonumber(ARGV[6 + 3 * npush])
for j = 1, nitems do redis.call('RPUSH', prefix .. 'items', ARGV[6 + 3 * npush + j]) end
for i = 7 + 3 * npush + nitems, #ARGV do redis.call('HDEL', prefix .. 'inflight:' .. worker, ARGV[i]) end
if ARGV[4] == '1' then
  local r = redis.call('ZPOPMIN', prefix .. 'queue')
  if r[1] then
    local lease = string.sub(r[1], 1, string.find(r[1], ' ', 1, true) - 1)
    redis.call('HSET', prefix .. 'inflight:' .. worker, lease, r[2] .. ' ' .. r[1])
    return {added, 1, r[1]}
  end
end
reap(prefix, now)
local s = status(prefix)
return {added, 0, s[1], s[2]}
"""
# ARGV: prefix, worker, timeout ms. Returns {queued, busy}.
HEARTBEAT = _NOW + _REAP + """
local prefix = ARGV[1]
redis.call('ZADD', prefix .. 'workers', now + tonumber(ARGV[3]), ARGV[2])
reap(prefix, now)
return status(prefix)
"""
# ARGV: prefix, worker: its leases back to the queue, the worker leaves
LEAVE = _NOW + _REAP + """
local prefix = ARGV[1]
redis.call('ZADD', prefix .. 'workers', 0, ARGV[2])
return reap(prefix, now)
"""


def redis_client(url: str):
    import redis

    return redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10, health_check_interval=30)


class RedisFrontier:
    """Scrapy's scheduler interface over the shared frontier (``SCHEDULER`` in cluster mode)."""

    def __init__(self, crawler):
        settings = crawler.settings
        self.crawler = crawler
        self.stats = crawler.stats
        self.url = settings.get("XNEWS_REDIS_URL")
        self.lifo = settings.getbool("XNEWS_LIFO")
        self.timeout_ms = int(settings.getfloat("XNEWS_WORKER_TIMEOUT", 10.0) * 1000)
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.redis = redis_client(self.url)
        self.scripts = {name: self.redis.register_script(src) for name, src in
                        (("step", STEP), ("heartbeat", HEARTBEAT), ("leave", LEAVE))}
        self.leases: set[str] = set()
        self.pushed: set[str] = set()  # fingerprints this worker pushed: known at once the next time
        self._pushes: list = []  # (fingerprint, priority, JSON, request) waiting for the next round trip
        self._acks: list[str] = []  # leases of finished pages, idem
        self._items: list[str] = []  # exported items (JSON) for a desktop following the crawl, idem
        self.live_items = settings.getbool("XNEWS_LIVE_ITEMS", True)
        self._polled: deque = deque()  # requests the idle poll popped, on their way through crawl()
        self.round_trips = 0
        self._status = (0, 0)
        self._status_at = 0.0
        self._pages = 0  # pages fetched since the last heartbeat (added to the cluster's count)
        self._idle = False
        self._loops: list = []

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    # --- Scrapy's scheduler interface ----------------------------------------------------
    def open(self, spider):
        self.spider = spider
        self.prefix = f"xnews:{spider.profile.name}:"
        self.redis.ping()
        self._heartbeat()
        # connected after the feed exporter's own handler: an item is written, then acknowledged
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            self.crawler.signals.connect(self._item_finished, signal=signal)
        self.crawler.signals.connect(self._page_done, signal=page_done)
        self.crawler.signals.connect(self._spider_error, signal=signals.spider_error)
        self.crawler.signals.connect(self._response, signal=signals.response_received)
        self._loops = [task.LoopingCall(self._heartbeat), task.LoopingCall(self._poll)]
        self._loops[0].start(HEARTBEAT_S, now=False)
        self._loops[1].start(IDLE_POLL_S, now=False)
        spider.logger.info("shared frontier %s as worker %s (%d queued, %d in flight elsewhere)",
                           self.prefix, self.worker, *self._status)

    def close(self, reason):
        for loop in self._loops:
            if loop.running:
                loop.stop()
        try:
            self._heartbeat()  # the last pages counted
            self._step(pop=False)
            held = len(self.leases)
            self._run("leave", self.worker)  # anything still leased goes back to the queue
            self.stats.set_value("xnews/redis_round_trips", self.round_trips)
            log.info("left the shared frontier (%s); %d request(s) handed back", reason, held)
        finally:
            self.redis.close()

    def has_pending_requests(self) -> bool:
        # Scrapy asks only when this worker is idle: nothing downloading, nothing being parsed,
        # so any lease still held is finished work whose page had no callback to say so
        orphans = self.leases - {r.meta[LEASE] for r in self._polled}
        if orphans:
            self.stats.inc_value("xnews/orphan_acks", len(orphans))
            for lease in orphans:
                self._ack_lease(lease)
        if self._polled:
            return True
        if self._pushes or self._acks or self._items or time.monotonic() - self._status_at > STATUS_FRESH_S:
            self._step(pop=False)
        queued, busy = self._status
        return queued > 0 or busy > 0

    def enqueue_request(self, request) -> bool:
        """True: queued (with the next round trip); False: this worker pushed it before (Scrapy fires
        ``request_dropped``). One seen first by another worker is dropped at the round trip."""
        if request.meta.get(_POLLED):  # popped by the idle poll, coming back through crawl()
            self._polled.append(request)
            return True
        fingerprint = "" if request.dont_filter else self.crawler.request_fingerprinter.fingerprint(request).hex()
        old = request.meta.get(LEASE)  # a redirect or retry replaces the request it came from
        if old:
            self._ack_lease(old)
        if fingerprint and fingerprint in self.pushed:
            self.stats.inc_value("dupefilter/filtered")
            return False
        if fingerprint:
            self.pushed.add(fingerprint)
        self._pushes.append((fingerprint, request.priority, encode(request), request))
        return True

    def next_request(self):
        if self._polled:
            request = self._polled.popleft()
            del request.meta[_POLLED]
            return request
        request = self._pop()
        self._idle = request is None
        return request

    def _pop(self):
        found = self._step(pop=True)
        if found[1] != 1:
            return None
        member = found[2].decode("utf-8") if isinstance(found[2], bytes) else found[2]
        lease, _, data = member.partition(" ")
        self.leases.add(lease)
        self.stats.inc_value("scheduler/dequeued/redis")
        return decode(data, lease, self.spider)

    def _step(self, pop: bool):
        """One round trip: the pending pushes, then the pending acks, then a pop if asked."""
        pushes, acks, items = self._pushes, self._acks, self._items
        self._pushes, self._acks, self._items = [], [], []
        args = [self.worker, int(self.lifo), int(pop), len(pushes)]
        for push in pushes:
            args.extend(push[:3])
        args.append(len(items))
        args.extend(items)  # in the same script as their pages' acks: both reach Redis or neither
        args.extend(acks)
        found = self._run("step", *args)
        taken = found[0].decode() if isinstance(found[0], bytes) else str(found[0])
        added = taken.count("1")
        if added:
            self.stats.inc_value("scheduler/enqueued/redis", added)
        for push, new in zip(pushes, taken):
            if new != "1":  # another worker had it first
                self.stats.inc_value("dupefilter/filtered")
                self.crawler.signals.send_catch_log(signals.request_dropped, request=push[3], spider=self.spider)
        if found[1] == 0:
            self._status, self._status_at = (int(found[2]), int(found[3])), time.monotonic()
        return found

    def __len__(self) -> int:
        return self._status[0] + len(self._polled)

    # --- acknowledgements ----------------------------------------------------------------------
    def ack(self, request) -> None:
        """The page is done; Redis hears it with the next round trip (after the pushes queued before)."""
        lease = request.meta.get(LEASE)
        if lease and lease in self.leases:
            self._ack_lease(lease)

    def _ack_lease(self, lease: str) -> None:
        self.leases.discard(lease)
        self._acks.append(lease)

    def _item_finished(self, item, response=None, spider=None, **kwargs):
        if self.live_items and kwargs.get("exception") is None and kwargs.get("failure") is None:
            self._items.append(json.dumps(dict(item), ensure_ascii=False, separators=(",", ":")))
        request = getattr(response, "request", None)
        if request is not None:
            self.ack(request)

    def _page_done(self, request, spider=None, **kwargs):
        self.ack(request)

    def _spider_error(self, failure, response, spider=None, **kwargs):
        # the callback raised: its page is over all the same
        request = getattr(response, "request", None)
        if request is not None:
            self.ack(request)

    # --- the loops ---------------------------------------------------------------------------
    def _response(self, response=None, request=None, spider=None, **kwargs):
        self._pages += 1

    def _heartbeat(self) -> None:
        try:
            pages, self._pages = self._pages, 0
            if pages:  # the cluster's page count, for a desktop following the crawl
                self.redis.hincrby(self.prefix + "stats", "pages", pages)
            queued, busy = self._run("heartbeat", self.worker, self.timeout_ms)
        except Exception as exc:  # Redis away for a moment: the next beat tries again
            log.warning("heartbeat failed: %s", exc)
            return
        self._status, self._status_at = (int(queued), int(busy)), time.monotonic()

    def _poll(self) -> None:
        """An idle worker asks Redis again soon; what it finds enters through the engine's crawl()."""
        if not self._idle or self._polled:
            return
        try:
            request = self._pop()
        except Exception as exc:  # Redis away for a moment: the next poll tries again
            log.warning("poll failed: %s", exc)
            return
        if request is None:
            self._close_if_over()
            return
        self._idle = False
        request.meta[_POLLED] = True
        self.crawler.engine.crawl(request)

    def _close_if_over(self) -> None:
        """The pop just read the cluster's state: nothing queued and no worker busy, with this worker
        idle too (Scrapy's own test), is the end of the crawl: close now."""
        engine = self.crawler.engine
        if self._status != (0, 0) or self._pushes or self._acks or not engine.spider_is_idle():
            return
        close = getattr(engine, "close_spider_async", None)  # Scrapy 2.14+; close_spider before
        if close is not None:
            deferred_from_coro(close(reason="finished"))  # a second call waits for the first close
        else:
            engine.close_spider(self.spider, "finished")

    def _run(self, name: str, *args):
        self.round_trips += 1
        return self.scripts[name](args=[self.prefix, *args])


def encode(request) -> str:
    """A Scrapy request as the crawl's whole Request, in JSON."""
    return json.dumps(as_request(request).to_dict(), separators=(",", ":"), ensure_ascii=False)


def decode(data: str, lease: str, spider):
    """A request of the spider from its JSON; anything unexpected is refused, never run."""
    try:
        req = Request.from_dict(json.loads(data))
    except ValueError as exc:
        raise ValueError(f"not a request in the shared frontier ({exc}): {data[:80]!r}") from None
    request = spider.scrapy_request(req)
    request.meta[LEASE] = lease
    return request
