"""Per-host politeness: a minimum delay between requests and a bounded number of
simultaneous connections per host. Waiting is interruptible by stop.

The delay is kept between the moments requests really go out: ``slot()`` yields a
``sent()`` callback the fetcher calls when the request is written to the socket, so a
request that leaves late (a busy machine, a garbage collection) pushes the next one back.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from .fetcher import FetchError


class _Host:
    __slots__ = ("slots", "next_start", "last_sent", "delay")

    def __init__(self, per_host: int, delay: float):
        self.slots = threading.BoundedSemaphore(per_host)
        self.next_start = 0.0
        self.last_sent = float("-inf")
        self.delay = delay


class HostGate:
    def __init__(self, delay_s: float = 0.0, per_host: int = 2, stop: threading.Event | None = None):
        self.delay_s = max(0.0, delay_s)
        self.per_host = max(1, per_host)
        self.stop = stop or threading.Event()
        self._hosts: dict[str, _Host] = {}
        self._lock = threading.Lock()

    def _host(self, host: str) -> _Host:
        with self._lock:
            h = self._hosts.get(host)
            if h is None:
                h = self._hosts[host] = _Host(self.per_host, self.delay_s)
            return h

    def set_delay(self, host: str, delay_s: float) -> None:
        """Raise a host's delay (robots.txt Crawl-delay); never below the crawl's own."""
        h = self._host(host)
        with self._lock:
            h.delay = max(self.delay_s, delay_s)

    def delay(self, host: str) -> float:
        return self._host(host).delay

    @contextmanager
    def slot(self, host: str):
        """Wait for the host's turn; yields ``sent()``, to call when the request goes out."""
        h = self._host(host)
        while not h.slots.acquire(timeout=0.2):
            if self.stop.is_set():
                raise FetchError("stopped", "crawl stopped")
        try:
            if h.delay > 0:
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
                            break
                    if self.stop.wait(ready - now):
                        raise FetchError("stopped", "crawl stopped")
            yield lambda: self._sent(h)
        finally:
            h.slots.release()

    def _sent(self, h: _Host) -> None:
        with self._lock:
            h.last_sent = max(h.last_sent, time.monotonic())
