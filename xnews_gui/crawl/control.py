"""Run control of a crawl: what its stages share to run, pause and stop.

One lock (``cond``, with its condition) that the fetch threads, the parse thread, the
queuer and the engine take for the crawl's shared counts; the ``stop_event`` every wait
watches; the pause; how the run ended (``status``). ``pause()``, ``resume()`` and ``stop()``
work from any thread. A pause takes effect within about a second even when a request hangs:
the requests still in flight ``PAUSE_GRACE_S`` after the pause are cut (``interrupt``) and go
back to the frontier (fetched again on resume); the engine's run loop calls ``cut_paused_requests``.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

PAUSE_GRACE_S = 0.5  # after a pause, requests still waiting this long are cut (and fetched again on resume)


class RunControl:
    def __init__(self, on_log: Callable[[str], None] = lambda message: None):
        self.cond = threading.Condition()
        self.stop_event = threading.Event()
        self.paused = False
        self.status = "finished"  # how the run ended: finished | stopped | limit
        self.halted = False  # a stop or a limit was reached (the status says which came first)
        self.interrupt: Callable[[], None] = lambda: None  # cuts the requests in flight (the downloader's)
        self.on_log = on_log
        self._paused_at = 0.0
        self._pause_cut = False

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    def pause(self) -> None:
        with self.cond:
            if not self.paused:
                self._paused_at = time.monotonic()
                self._pause_cut = False
            self.paused = True
        self.on_log("paused")

    def resume(self) -> None:
        with self.cond:
            self.paused = False
            self.cond.notify_all()
        self.on_log("resumed")

    def stop(self) -> None:
        self.halt("stopped")

    def halt(self, status: str) -> None:
        """End the run (the first reason given is its status) and cut the requests in flight."""
        with self.cond:
            if not self.halted:
                self.halted = True
                self.status = status
            self.stop_event.set()
            self.cond.notify_all()
        self.interrupt()  # requests waiting to connect or for an answer fail now

    def reached_limit(self) -> None:
        """Under ``cond``: a page limit is reached (no stop: the pages in flight are finished)."""
        if not self.halted:
            self.halted, self.status = True, "limit"

    def wait_unpaused(self) -> bool:
        """Until resumed or stopped; False when stopped."""
        with self.cond:
            while self.paused and not self.stop_event.is_set():
                self.cond.wait(0.25)
            return not self.stop_event.is_set()

    def cut_paused_requests(self, now: float) -> None:
        """A pause takes effect within about a second even when a request hangs: the ones still
        in flight after the grace time are cut and go back to the frontier."""
        with self.cond:
            due = self.paused and not self._pause_cut and now - self._paused_at >= PAUSE_GRACE_S
            if due:
                self._pause_cut = True
        if due:
            self.interrupt()


def how_it_ended(status: str, stats, dead_starts: list[str], first_error: str) -> tuple[str, str]:
    """(status, reason) of a run: "refused" when it read nothing but start pages that lead nowhere, "failed"
    when no page answered (the site down, its robots.txt unreadable) or no article page read could be
    extracted (the profile's rules no longer fit the site), never "finished" for any of them."""
    read = stats.get("extracted")  # at least 3: one or two odd pages (a video, a gallery) say less
    if status in ("finished", "limit") and read >= 3 and not stats.get("extracted_ok"):
        return "failed", (f"no article could be extracted: all {read} article pages read failed, the first with "
                          f"\"{stats.first_failure}\"; the profile's rules may no longer fit the site")
    if status != "finished":
        return status, ""
    if dead_starts and not stats.get("articles") and stats.get("pages") <= len(dead_starts):
        return "refused", dead_starts[0]
    if first_error and not stats.get("pages") and not stats.get("revisited"):
        return "failed", f"nothing could be fetched: {first_error}"
    return status, ""
