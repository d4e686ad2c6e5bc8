"""Loading more on a rendered list page, in the Qt thread: click the page's "Xem thêm" button (or scroll
to the bottom) again and again while new article links come, up to the profile's limits.

    LoadMore(page, job, on_done).start()     # job: url, more (MoreSettings), count (CSS of article links)

Each round: act (click or scroll), then count the article links every ``POLL_MS``; new ones start the
next round at once; none within ``more.settle_s`` ends it ("done"), and so does the button going away
("no_button": everything is loaded). The limits (loads, links, seconds) end it too, with the page as it
is then (``core.extraction.load_more.MoreResult.at_limit``: the crawl warns). The page's DOM goes to ``on_done``.
"""

from __future__ import annotations

import json
import time

from PySide6.QtCore import QObject, QTimer

from ..core.extraction.load_more import MoreResult
from ..crawl.fetcher import FetchLimits

POLL_MS = 100
_RESCROLL_S = 1.0  # a page that missed a scroll event (it was busy loading) gets another

_COUNT = """(function (sel) {
  try { return document.querySelectorAll(sel).length; } catch (e) { return document.querySelectorAll('a[href]').length; }
})(%s)"""
# "clicked", "busy" (disabled: its last load is still coming) or "gone" (no such visible button)
_CLICK = """(function (sel) {
  var b = null;
  try { b = document.querySelector(sel); } catch (e) { return 'gone'; }
  if (!b) return 'gone';
  var style = window.getComputedStyle(b), box = b.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || (box.width === 0 && box.height === 0)) return 'gone';
  if (b.disabled || b.getAttribute('aria-disabled') === 'true') return 'busy';
  b.scrollIntoView();
  b.click();
  return 'clicked';
})(%s)"""
# the rendered DOM, or its length when it is larger than a fetched page may be (a page's script can grow
# it without end: it is not carried into this process then)
MAX_RENDERED_CHARS = FetchLimits().max_bytes
READ_DOM = f"""(function () {{
  var html = document.documentElement.outerHTML;
  return html.length > {MAX_RENDERED_CHARS} ? html.length : '<!DOCTYPE html>' + html;
}})()"""


def dom_answer(answer) -> tuple[str, str]:
    """READ_DOM's answer as (html, error)."""
    if isinstance(answer, str):
        return answer, ""
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        return "", (f"the page holds {answer / 1e6:.0f} million characters once rendered, more than the "
                    f"{MAX_RENDERED_CHARS / 1e6:.0f} million a page may hold: not read")
    return "", "the rendered page could not be read"


# the render page has no window: scroll events are sent as well as the scroll itself
_SCROLL = """(function () {
  var doc = document.documentElement;
  window.scrollTo(0, doc.scrollHeight);
  window.dispatchEvent(new Event('scroll'));
  document.dispatchEvent(new Event('scroll'));
  return 'scrolled';
})()"""


class LoadMore(QObject):
    def __init__(self, page, job, on_done, parent=None):
        super().__init__(parent)
        self.page, self.job, self.on_done = page, job, on_done
        self.more = job.more
        self.loads = 0
        self.links = -1
        self.started = 0.0
        self.waiting_since = 0.0  # the last action or the last new link
        self.scrolled_at = 0.0
        self.acted = False  # this round's click or scroll is done (a busy button is tried again)
        self.over = False
        self.timer = QTimer(self, singleShot=True, interval=POLL_MS)
        self.timer.timeout.connect(self._poll)

    def start(self) -> None:
        self.started = self.waiting_since = time.monotonic()
        self._count(self._first)

    def stop(self) -> None:
        """The job is over (a time limit, the pool closing): nothing more is asked of the page."""
        self.over = True
        self.timer.stop()

    # --- rounds --------------------------------------------------------------------------
    def _first(self, count) -> None:
        self.links = _int(count)
        self._act()

    def _act(self) -> None:
        if self.over:
            return
        limit = self._limit()
        if limit:
            self._end(limit)
            return
        self.acted = False
        if self.more.scroll:
            self.scrolled_at = time.monotonic()
            self._js(_SCROLL, self._acted)
        else:
            self._js(_CLICK % json.dumps(self.more.click), self._acted)

    def _acted(self, answer) -> None:
        if self.over:
            return
        if answer == "gone":  # the button went (everything is loaded), or the page never had one
            self._end("no_button")
            return
        if answer in ("clicked", "scrolled"):
            self.acted = True
            self.waiting_since = time.monotonic()
        self.timer.start()  # "busy": its last load is still coming; look again shortly

    def _poll(self) -> None:
        if not self.over:
            self._count(self._counted)

    def _counted(self, count) -> None:
        if self.over:
            return
        count, now = _int(count), time.monotonic()
        if count > self.links:
            self.links = count
            self.loads += 1
            self.waiting_since = now
            self._act()
            return
        limit = self._limit()
        if limit:
            self._end(limit)
        elif now - self.waiting_since >= self.more.settle_s:
            self._end("done")
        elif not self.more.scroll and not self.acted:
            self._js(_CLICK % json.dumps(self.more.click), self._acted)  # the busy button, once it is free
        elif self.more.scroll:
            if now - self.scrolled_at >= _RESCROLL_S:
                self.scrolled_at = now
                self.page.runJavaScript(_SCROLL, 0)
            self.timer.start()
        else:
            self.timer.start()

    def _limit(self) -> str:
        more = self.more
        if self.links >= more.max_links:
            return "links"
        if self.loads >= more.max_loads:
            return "loads"
        if time.monotonic() - self.started >= more.max_seconds:
            return "seconds"
        return ""

    def _end(self, why: str) -> None:
        self.stop()
        seconds = time.monotonic() - self.started
        self.page.runJavaScript(READ_DOM, 0, lambda answer: self._read(answer, why, seconds))

    def _read(self, answer, why: str, seconds: float) -> None:
        html, error = dom_answer(answer)
        if error:
            self.on_done("", f"{error} (after loading more)", None)
            return
        self.on_done(html, "", MoreResult(html, self.loads, max(self.links, 0), why, seconds))

    # --- the page ------------------------------------------------------------------------------
    def _count(self, then) -> None:
        self._js(_COUNT % json.dumps(self.job.count or "a[href]"), then)

    def _js(self, script: str, then) -> None:
        self.page.runJavaScript(script, 0, then)


def _int(value) -> int:
    return int(value) if isinstance(value, (int, float)) else 0
