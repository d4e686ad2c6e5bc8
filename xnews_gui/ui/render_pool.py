"""A small pool of offscreen QtWebEngine pages that render pages needing JavaScript, for the crawler.

    pool = RenderPool(size=2)                       # in the Qt (GUI) thread, with a QApplication
    html = pool.render(url, wait_for="h1", timeout_s=15)   # from any OTHER thread (a crawl worker)

The crawler runs in worker threads and the pages live in the Qt thread: ``render`` queues the job
through a queued signal and waits for its answer. Pages share one off-the-record profile (nothing on
disk); images, fonts, media, plugins and sub-frames are blocked (the DOM is all we want); a page is
recycled after ``recycle_after`` loads (Chromium pages grow); each job has a time limit, after which
the page is stopped and recycled and the job fails. The crawler sees only the ``render`` and
``use_cookies`` methods (``xnews_gui.crawl.render.Renderer``): the core stays Qt-free.

``load_more(url, more, count)`` (any thread): a list page whose "Xem thêm" button is clicked, or which
is scrolled, while new article links come (``load_more_run``).

``use_cookies(jar)`` (any thread): the profile's kept cookies (a login, a consent click) go into the
pages' cookie store before the next load, so rendered pages are fetched logged in, as fetched ones are.
"""

from __future__ import annotations

import threading
from collections import deque

from urllib.parse import unquote, urlsplit

from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtNetwork import QNetworkProxy
from PySide6.QtWebEngineCore import (QWebEnginePage, QWebEngineProfile, QWebEngineSettings,
                                     QWebEngineUrlRequestInfo, QWebEngineUrlRequestInterceptor)

from ..crawl.render import RenderError
from . import qt_cookies
from .load_more_run import READ_DOM, LoadMore, dom_answer

_RT = QWebEngineUrlRequestInfo.ResourceType
BLOCKED_TYPES = frozenset({_RT.ResourceTypeImage, _RT.ResourceTypeFontResource, _RT.ResourceTypeMedia,
                           _RT.ResourceTypeObject, _RT.ResourceTypeFavicon, _RT.ResourceTypePluginResource,
                           _RT.ResourceTypeSubFrame, _RT.ResourceTypePing, _RT.ResourceTypeCspReport})
_POLL_MS = 50
PROXY_SETTLE_MS = 2000  # after Qt's application proxy changes mid-crawl: Chromium cuts the loads in flight
# Chromium slows the timers of pages nobody looks at to one a second: a rendering page is looked at
UNTHROTTLED_FLAGS = ("--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                     "--disable-backgrounding-occluded-windows")


def unthrottle(environ) -> None:
    """Before the web engine starts (before the application object): full-speed timers in offscreen pages."""
    flags = environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    missing = [f for f in UNTHROTTLED_FLAGS if f not in flags]
    if missing:
        environ["QTWEBENGINE_CHROMIUM_FLAGS"] = " ".join([flags, *missing]).strip()


class _Blocker(QWebEngineUrlRequestInterceptor):
    """No images, fonts, media, frames or pings; http(s) only. Counts what it blocked."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.blocked = 0

    def interceptRequest(self, info) -> None:  # noqa: N802
        if info.resourceType() in BLOCKED_TYPES or info.requestUrl().scheme() not in ("http", "https"):
            self.blocked += 1
            info.block(True)


class _Job:
    def __init__(self, url: str, wait_for: str, timeout_s: float, more=None, count: str = ""):
        self.url, self.wait_for, self.timeout_s = url, wait_for, timeout_s
        self.more, self.count = more, count  # a list page that loads more (core.profile.profile_settings.MoreSettings)
        self.html = ""
        self.error = ""
        self.result = None  # core.extraction.load_more.MoreResult of a load-more job
        self.done = threading.Event()


class _RenderPage(QWebEnginePage):
    def createWindow(self, _type):  # noqa: N802  (no pop-ups)
        return None

    def javaScriptAlert(self, *_):  # noqa: N802  (never block on a dialog)
        pass

    def javaScriptConfirm(self, *_):  # noqa: N802
        return False

    def javaScriptPrompt(self, *_):  # noqa: N802
        return False, ""


class _Slot(QObject):
    """One page and the job it is on."""

    def __init__(self, pool: "RenderPool"):
        super().__init__(pool)
        self.pool = pool
        self.loads = 0
        self.job: _Job | None = None
        self.page = self._new_page()
        self.deadline = QTimer(self, singleShot=True)
        self.deadline.timeout.connect(self._too_slow)
        self.poll = QTimer(self, interval=_POLL_MS, singleShot=True)
        self.poll.timeout.connect(self._check_ready)
        self.waited = 0
        self.loading = False
        self.loader: LoadMore | None = None

    def _new_page(self) -> QWebEnginePage:
        page = _RenderPage(self.pool.profile, self)
        page.loadFinished.connect(self._loaded)
        page.proxyAuthenticationRequired.connect(self.pool._proxy_login)
        page.setVisible(True)  # a hidden page's timers are throttled to one a second by Chromium
        return page

    def start(self, job: _Job) -> None:
        self.job = job
        self.loading = False  # until its load is asked for: a signal of nothing we asked is not its answer
        self.waited = 0
        self.loads += 1
        self.pool._set_cookies()  # queued in the store before the load, so the load carries them
        changed = self.pool._set_proxy()
        if self.pool.proxy_error:
            self._finish(error=self.pool.proxy_error)
            return
        self.deadline.start(int(job.timeout_s * 1000))
        if changed:  # the web engine takes a new proxy in a while, not for a load asked at once
            QTimer.singleShot(PROXY_SETTLE_MS, self, lambda job=job: self._load(job))
        else:
            self._load(job)

    def _load(self, job: _Job) -> None:
        if job is self.job:
            self.loading = True
            self.page.load(QUrl(job.url))

    def _loaded(self, ok: bool) -> None:
        job = self.job
        if job is None or not self.loading or self.poll.isActive() or self.waited:
            return  # a late signal of an earlier load
        if not ok:
            self._finish(error=f"the page did not load: {job.url}")
            return
        self._check_ready()

    def _check_ready(self) -> None:
        """Ask the page whether ``wait_for`` matches yet; answers are tied to their job, so a late
        answer about the previous page is never taken for this one."""
        job = self.job
        if job is None:
            return
        self.waited += 1
        script = f"!!document.querySelector({_js_string(job.wait_for or 'body')})"
        self.page.runJavaScript(script, 0, lambda found, job=job: self._ready_answer(job, found))

    def _ready_answer(self, job: _Job, found) -> None:
        if job is not self.job:
            return
        if not found:
            self.poll.start()  # single shot: one question in flight at a time
            return
        if job.more is not None:
            self.loader = LoadMore(self.page, job, lambda html, error, result, job=job: self._loaded_more(job, html,
                                                                                                          error, result))
            self.loader.start()
            return
        self.page.runJavaScript(READ_DOM, 0, lambda answer, job=job: self._html(job, answer))

    def _html(self, job: _Job, answer) -> None:
        if job is not self.job:
            return
        html, error = dom_answer(answer)
        self._finish(html=html, error=error)

    def _loaded_more(self, job: _Job, html: str, error: str, result) -> None:
        if job is not self.job:
            return
        job.result = result
        self._finish(html=html, error=error)

    def _too_slow(self) -> None:
        if self.job is None:
            return
        waited = f" for {self.job.wait_for!r}" if self.job.wait_for else ""
        self.page.triggerAction(QWebEnginePage.WebAction.Stop)
        self.loads = self.pool.recycle_after  # a stuck page is not reused
        self._finish(error=f"not rendered within {self.job.timeout_s:g} s{waited}")

    def _finish(self, html: str = "", error: str = "") -> None:
        job, self.job = self.job, None
        if self.loader is not None:
            self.loader.stop()
            self.loader.deleteLater()
            self.loader = None
        self.poll.stop()
        self.deadline.stop()
        if job is not None:
            job.html, job.error = html, error
            job.done.set()
        if self.loads >= self.pool.recycle_after:
            old = self.page
            self.page = self._new_page()
            old.loadFinished.disconnect(self._loaded)
            old.deleteLater()
            self.loads = 0
            self.pool.recycled += 1
        self.pool._idle(self)


class RenderPool(QObject):
    """``size`` offscreen pages (2-4 is the useful range on a laptop) serving ``render`` calls."""

    _submit = Signal(object)

    def __init__(self, size: int = 2, recycle_after: int = 50, timeout_s: float = 15.0,
                 user_agent: str = "", parent=None):
        super().__init__(parent)
        if not 1 <= size <= 8:
            raise ValueError("a render pool has 1 to 8 pages")
        self.recycle_after = max(1, recycle_after)
        self.timeout_s = timeout_s
        self.recycled = 0
        self.rendered = 0
        self.profile = QWebEngineProfile(self)  # no storage name: off the record
        self.profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
        self.profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
        if user_agent:
            self.profile.setHttpUserAgent(user_agent)
        self.blocker = _Blocker(self.profile)
        self.profile.setUrlRequestInterceptor(self.blocker)
        a = QWebEngineSettings.WebAttribute
        s = self.profile.settings()
        for attr, value in ((a.AutoLoadImages, False), (a.PluginsEnabled, False), (a.WebGLEnabled, False),
                            (a.JavascriptCanOpenWindows, False), (a.JavascriptCanAccessClipboard, False),
                            (a.LocalContentCanAccessFileUrls, False), (a.ErrorPageEnabled, False),
                            (a.PdfViewerEnabled, False), (a.Accelerated2dCanvasEnabled, False)):
            s.setAttribute(attr, value)
        self._free: list[_Slot] = []
        self._slots = [_Slot(self) for _ in range(size)]
        self._free = list(self._slots)
        self._jobs: deque[_Job] = deque()
        self._closed = False
        self._cookie_lock = threading.Lock()
        self._pending_cookies = None  # a CookieFile not yet in the cookie store
        self.cookies_set = 0
        self.proxy_error = ""  # why pages cannot be rendered through the proxy the crawl uses
        self._proxy_url = ""
        self._pending_proxy: str | None = None
        self._submit.connect(self._enqueue, Qt.ConnectionType.QueuedConnection)

    @property
    def size(self) -> int:
        return len(self._slots)

    def render(self, url: str, wait_for: str = "", timeout_s: float | None = None) -> str:
        """The page's DOM as HTML once ``wait_for`` (a CSS selector) matches; RenderError otherwise.
        Blocks: call it from a worker thread, never from the Qt thread."""
        if threading.current_thread() is threading.main_thread() and self.thread().isCurrentThread():
            raise RuntimeError("RenderPool.render blocks: call it from a worker thread")
        if self._closed:
            raise RenderError("the render pool is closed")
        job = _Job(url, wait_for, timeout_s or self.timeout_s)
        self._submit.emit(job)
        if not job.done.wait(job.timeout_s + 30):  # the page's own limit fires first; this is a safety net
            raise RenderError(f"no answer from the render pool for {url}")
        if job.error:
            raise RenderError(job.error)
        return job.html

    def load_more(self, url: str, more, count: str, timeout_s: float | None = None):
        """The list page at ``url`` after loading more (``core.extraction.load_more.MoreResult``): its "Xem thêm"
        button clicked or the page scrolled while new ``count`` matches (article links) come, within
        ``more``'s limits. Blocks, as ``render`` does; RenderError when the page cannot be had."""
        if threading.current_thread() is threading.main_thread() and self.thread().isCurrentThread():
            raise RuntimeError("RenderPool.load_more blocks: call it from a worker thread")
        if self._closed:
            raise RenderError("the render pool is closed")
        job = _Job(url, "body", (timeout_s or self.timeout_s) + more.max_seconds + more.settle_s, more, count)
        self._submit.emit(job)
        if not job.done.wait(job.timeout_s + 30):
            raise RenderError(f"no answer from the render pool for {url}")
        if job.error or job.result is None:
            raise RenderError(job.error or f"{url}: nothing came back from loading more")
        return job.result

    def use_proxy(self, url: str) -> None:
        """Load the pages from now on through this proxy (http(s) or SOCKS5; "" for none): Qt's application
        proxy, which the web engine reads for each new request; an HTTP proxy's password is given when it
        asks. Chromium cannot log in to a SOCKS5 proxy: with one that has a password, pages are not
        rendered (RenderError says why) rather than loaded around the proxy."""
        self.proxy_error = proxy_problem(url)
        with self._cookie_lock:
            self._pending_proxy = url  # set in the Qt thread before the next load (the web engine reads it there)
        if self.thread().isCurrentThread():
            self._set_proxy()  # before the first load (a crawl's set-up): nothing in flight, nothing to wait for

    def _set_proxy(self) -> bool:
        """Whether the proxy changed (the next load waits for the web engine to take it)."""
        with self._cookie_lock:
            url, self._pending_proxy = self._pending_proxy, None
        if url is None or url == self._proxy_url:
            return False
        self._proxy_url = url
        QNetworkProxy.setApplicationProxy(qt_proxy(url) if url and not self.proxy_error else
                                          QNetworkProxy(QNetworkProxy.ProxyType.NoProxy))
        return True

    def _proxy_login(self, _url, authenticator, _host) -> None:
        parts = urlsplit(self._proxy_url)
        if parts.username:
            authenticator.setUser(unquote(parts.username))
            authenticator.setPassword(unquote(parts.password or ""))

    def use_cookies(self, jar) -> None:
        """Send these cookies (``crawl.cookies.CookieFile``) with the pages rendered from now on."""
        with self._cookie_lock:
            self._pending_cookies = jar

    def _set_cookies(self) -> None:
        with self._cookie_lock:
            jar, self._pending_cookies = self._pending_cookies, None
        if jar is None:
            return
        self.cookies_set += qt_cookies.set_all(self.profile.cookieStore(), jar.cookies)

    def close(self) -> None:
        """Fail the waiting jobs and delete the pages (before the profile, as Qt requires)."""
        self._closed = True
        while self._jobs:
            job = self._jobs.popleft()
            job.error = "the render pool closed"
            job.done.set()
        for slot in self._slots:
            if slot.job is not None:
                slot.job.error = "the render pool closed"
                slot.job.done.set()
                slot.job = None
            if slot.loader is not None:
                slot.loader.stop()
            slot.poll.stop()
            slot.deadline.stop()
            slot.page.deleteLater()
        self._slots.clear()
        self._free.clear()

    # --- Qt thread -----------------------------------------------------------------
    def _enqueue(self, job: _Job) -> None:
        if self._closed:
            job.error = "the render pool closed"
            job.done.set()
            return
        self._jobs.append(job)
        self._pump()

    def _idle(self, slot: _Slot) -> None:
        self.rendered += 1
        if not self._closed:
            self._free.append(slot)
            self._pump()

    def _pump(self) -> None:
        while self._free and self._jobs:
            self._free.pop().start(self._jobs.popleft())


def proxy_problem(url: str) -> str:
    """"" when the web engine can go through this proxy, else why not."""
    parts = urlsplit(url) if url else None
    if parts is not None and parts.scheme.startswith("socks") and parts.username:
        return ("the render pool cannot go through a SOCKS5 proxy with a password (the web engine has no SOCKS "
                "log-in): use an HTTP proxy or a SOCKS5 proxy without one for pages that need JavaScript")
    return ""


def qt_proxy(url: str) -> QNetworkProxy:
    parts = urlsplit(url)
    kind = QNetworkProxy.ProxyType.Socks5Proxy if parts.scheme.startswith("socks") else \
        QNetworkProxy.ProxyType.HttpProxy
    return QNetworkProxy(kind, parts.hostname or "", parts.port or 0, unquote(parts.username or ""),
                         unquote(parts.password or ""))


def _js_string(text: str) -> str:
    import json

    return json.dumps(text)
