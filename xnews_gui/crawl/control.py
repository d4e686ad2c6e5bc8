"""Run control of a crawl, from any thread: pause, resume, stop.

A pause takes effect within about a second even when a request hangs: the requests
still in flight ``PAUSE_GRACE_S`` after the pause are cut and go back to the frontier
(fetched again on resume). Mixed into ``engine.Crawler``, whose run loop calls
``_cut_paused_requests`` and whose workers wait on ``_cond`` while ``_paused``.
"""

from __future__ import annotations

import time

PAUSE_GRACE_S = 0.5  # after a pause, requests still waiting this long are cut (and fetched again on resume)


class RunControl:
    """Needs ``_cond``, ``_stop``, ``_paused``, ``_paused_at``, ``_pause_cut``, ``_halted``, ``_status``,
    ``downloader`` and ``_emit`` from the class it is mixed into."""

    def pause(self) -> None:
        with self._cond:
            if not self._paused:
                self._paused_at = time.monotonic()
                self._pause_cut = False
            self._paused = True
        self._emit("log", {"message": "paused"})

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._cond.notify_all()
        self._emit("log", {"message": "resumed"})

    def stop(self) -> None:
        self._halt("stopped")

    @property
    def paused(self) -> bool:
        return self._paused

    def _halt(self, status: str) -> None:
        with self._cond:
            if not self._halted:
                self._halted = True
                self._status = status
            self._stop.set()
            self._cond.notify_all()
        if self.downloader is not None:
            self.downloader.interrupt()  # requests waiting to connect or for an answer fail now

    def _cut_paused_requests(self, now: float) -> None:
        """A pause takes effect within about a second even when a request hangs: the ones still
        in flight after the grace time are cut and go back to the frontier."""
        with self._cond:
            due = self._paused and not self._pause_cut and now - self._paused_at >= PAUSE_GRACE_S
            if due:
                self._pause_cut = True
        if due:
            self.downloader.interrupt()
