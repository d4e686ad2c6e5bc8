"""Per-host politeness: a minimum delay between requests and a bounded number of
simultaneous connections per host. Waiting is interruptible by stop.

The delay is kept between the moments requests really go out: ``slot()`` yields a
``sent()`` callback the fetcher calls when the request is written to the socket, so a
request that leaves late (a busy machine, a garbage collection) pushes the next one back.
"""

from __future__ import annotations

import threading
import time

from .fetcher import FetchError


class _Host:
    __slots__ = ("active", "waiting", "next_start", "last_sent", "delay", "_lock")

    def __init__(self, delay: float, lock: threading.Lock):
        self.active = 0  # requests to the host between their turn and their end
        self.waiting = 0  # threads waiting for a free connection to it
        self.next_start = 0.0
        self.last_sent = float("-inf")
        self.delay = delay
        self._lock = lock

    def sent(self) -> None:
        with self._lock:
            self.last_sent = max(self.last_sent, time.monotonic())


class HostGate:
    def __init__(self, delay_s: float = 0.0, per_host: int = 2, stop: threading.Event | None = None):
        self.delay_s = max(0.0, delay_s)
        self.per_host = max(1, per_host)
        self.stop = stop or threading.Event()
        self._hosts: dict[str, _Host] = {}
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)  # a connection to some host is free again

    def _host(self, host: str) -> _Host:
        h = self._hosts.get(host)
        if h is None:
            with self._lock:
                h = self._hosts.get(host)
                if h is None:
                    h = self._hosts[host] = _Host(self.delay_s, self._lock)
        return h

    def set_delay(self, host: str, delay_s: float) -> None:
        """Raise a host's delay (robots.txt Crawl-delay); never below the crawl's own."""
        h = self._host(host)
        with self._lock:
            h.delay = max(self.delay_s, delay_s)

    def delay(self, host: str) -> float:
        return self._host(host).delay

    def slot(self, host: str) -> "_Slot":
        """Wait for the host's turn (``with gate.slot(host) as sent:``); ``sent()`` is to be called
        when the request goes out."""
        return _Slot(self, self._host(host))

    def _take(self, h: _Host) -> None:
        with self._lock:
            while h.active >= self.per_host:
                if self.stop.is_set():
                    raise FetchError("stopped", "crawl stopped")
                h.waiting += 1
                try:
                    self._freed.wait(0.2)
                finally:
                    h.waiting -= 1
            h.active += 1

    def _give(self, h: _Host) -> None:
        with self._lock:
            h.active -= 1
            if h.waiting:
                self._freed.notify_all()  # (the waiters of other hosts wait again)

    def _wait_turn(self, h: _Host) -> None:
        """The host's delay since the request before it went out (and since the last turn given)."""
        with self._lock:
            now = time.monotonic()
            start = max(now, h.next_start)
            h.next_start = start + h.delay
        if start > now and self.stop.wait(start - now):
            raise FetchError("stopped", "crawl stopped")
        while True:  # the request before may have gone out late: the gap counts from then
            with self._lock:
                now = time.monotonic()
                ready = h.last_sent + h.delay
                if now >= ready:
                    h.next_start = max(h.next_start, now + h.delay)
                    return
            if self.stop.wait(ready - now):
                raise FetchError("stopped", "crawl stopped")


class _Slot:
    """One request's turn at a host (a plain class: a generator-based context manager cost more
    than the rest of the gate on a crawl without delay)."""

    __slots__ = ("_gate", "_host")

    def __init__(self, gate: HostGate, host: _Host):
        self._gate = gate
        self._host = host

    def __enter__(self):
        gate, h = self._gate, self._host
        gate._take(h)
        if h.delay > 0:
            try:
                gate._wait_turn(h)
            except BaseException:
                gate._give(h)
                raise
        return h.sent if h.delay > 0 else None  # without a delay, when a request went out does not matter

    def __exit__(self, *exc) -> None:
        self._gate._give(self._host)
