"""The reader's private web profile: a local URL scheme, a request guard, JavaScript off.

``xnews://reader/page/<token>``      an article page built by reader_page
``xnews://reader/img/<sha256>.<ext>`` an image from the content-addressed disk cache
``xnews://reader/static/<name>``     resources/reader files (placeholder image)

Every request that is not on this scheme is blocked by RequestGuard, which remembers the
most recent ones, so a test (or a curious user) can see that nothing left the machine.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
from PySide6.QtWebEngineCore import (
    QWebEngineProfile,
    QWebEnginePage,
    QWebEngineSettings,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)

from ..paths import RESOURCES
from ..paths import image_file
from .reader_page import HOST, ORIGIN, SCHEME

_MIME = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
         "svg": "image/svg+xml", "avif": "image/avif", "img": "application/octet-stream"}
_IMG_PATH = re.compile(r"/img/([0-9a-f]{64})\.(png|jpg|gif|webp|svg|avif|img)")
_STATIC = RESOURCES / "reader"


def register_scheme() -> None:
    """Must run before the QApplication exists (Qt's rule); harmless to call twice."""
    if QWebEngineUrlScheme.schemeByName(SCHEME.encode()).name():
        return
    scheme = QWebEngineUrlScheme(SCHEME.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)  # not Local: local pages may not load local URLs
    QWebEngineUrlScheme.registerScheme(scheme)


def image_url(sha256: str, content_type: str) -> str:
    ext = image_file(".", sha256, content_type).suffix.lstrip(".")
    return f"{ORIGIN}/img/{sha256}.{ext}"


def local_image_source(store, urls: list[str]) -> dict[str, str]:
    """Original image URL -> xnews: URL for those present in the store's image cache (one query)."""
    return {rec.url: image_url(rec.sha256, rec.content_type) for rec in store.image_records(urls)}


class OfflineSchemeHandler(QWebEngineUrlSchemeHandler):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.images_root: Path | None = None
        self._pages: dict[str, bytes] = {}
        self._counter = 0

    def put_page(self, html: str) -> QUrl:
        """Keep a page to serve; returns its URL. Only the last few are kept."""
        self._counter += 1
        token = str(self._counter)
        self._pages[token] = html.encode("utf-8")
        for old in list(self._pages)[:-4]:
            del self._pages[old]
        return QUrl(f"{ORIGIN}/page/{token}")

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:  # noqa: N802
        url = job.requestUrl()
        path = url.path()
        if url.host() != HOST or job.requestMethod() != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.UrlInvalid)
            return
        if path.startswith("/page/"):
            body = self._pages.get(path[len("/page/"):])
            return self._reply(job, "text/html; charset=utf-8", body)
        m = _IMG_PATH.fullmatch(path)
        if m and self.images_root is not None:
            sha, ext = m.groups()
            return self._reply(job, _MIME[ext], _read(Path(self.images_root) / sha[:2] / f"{sha}.{ext}"))
        if path.startswith("/static/"):
            name = path[len("/static/"):]
            if re.fullmatch(r"[a-z0-9_-]+\.(svg|css|png)", name):
                ctype = {"svg": "image/svg+xml", "css": "text/css", "png": "image/png"}[name.rsplit(".", 1)[1]]
                return self._reply(job, ctype, _read(_STATIC / name))
        job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)

    @staticmethod
    def _reply(job: QWebEngineUrlRequestJob, ctype: str, body: bytes | None) -> None:
        if body is None:
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        buf = QBuffer(job)  # parented to the job: lives exactly as long as the reply
        buf.setData(QByteArray(body))
        buf.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(ctype.encode(), buf)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


class RequestGuard(QWebEngineUrlRequestInterceptor):
    """Blocks every request that is not for the local scheme.

    It remembers the last ``KEEP`` allowed and blocked URLs (so a test, or a curious user, can see
    that nothing left the machine) and counts them all: never more than that for the page's life."""

    KEEP = 200

    def __init__(self, parent=None):
        super().__init__(parent)
        self._lock = threading.Lock()
        self._allowed: deque[str] = deque(maxlen=self.KEEP)
        self._blocked: deque[str] = deque(maxlen=self.KEEP)
        self.allowed_count = 0
        self.blocked_count = 0

    def interceptRequest(self, info) -> None:  # noqa: N802
        url = info.requestUrl()
        ok = url.scheme() == SCHEME
        with self._lock:
            if ok:
                self._allowed.append(url.toString())
                self.allowed_count += 1
            else:
                self._blocked.append(url.toString())
                self.blocked_count += 1
        if not ok:
            info.block(True)

    @property
    def allowed(self) -> list[str]:
        """The most recent allowed URLs, oldest first."""
        with self._lock:
            return list(self._allowed)

    @property
    def blocked(self) -> list[str]:
        """The most recent blocked URLs, oldest first."""
        with self._lock:
            return list(self._blocked)

    def clear(self) -> None:
        with self._lock:
            self._allowed.clear()
            self._blocked.clear()
            self.allowed_count = self.blocked_count = 0


class ReaderPage(QWebEnginePage):
    """Only local pages load inside; a clicked web link is handed to the system browser."""

    def __init__(self, profile: QWebEngineProfile, parent=None, on_external_link=None):
        super().__init__(profile, parent)
        self._on_external_link = on_external_link

    def acceptNavigationRequest(self, url: QUrl, nav_type, is_main_frame: bool) -> bool:  # noqa: N802
        if url.scheme() == SCHEME:
            return True
        if (nav_type == QWebEnginePage.NavigationType.NavigationTypeLinkClicked
                and url.scheme() in ("http", "https") and self._on_external_link):
            self._on_external_link(url)
        return False

    def createWindow(self, _type):  # noqa: N802  (no pop-ups, ever)
        return None


def lock_down(settings: QWebEngineSettings) -> None:
    a = QWebEngineSettings.WebAttribute
    for attr, value in (
        (a.JavascriptEnabled, False), (a.JavascriptCanOpenWindows, False),
        (a.JavascriptCanAccessClipboard, False), (a.LocalContentCanAccessRemoteUrls, False),
        (a.LocalContentCanAccessFileUrls, False), (a.PluginsEnabled, False),
        (a.AutoLoadImages, True), (a.ErrorPageEnabled, False), (a.WebGLEnabled, False),
        (a.DnsPrefetchEnabled, False), (a.AllowRunningInsecureContent, False),
        (a.NavigateOnDropEnabled, False), (a.PdfViewerEnabled, False),
        (a.XSSAuditingEnabled, True), (a.HyperlinkAuditingEnabled, False),
    ):
        settings.setAttribute(attr, value)


def offline_profile() -> tuple[QWebEngineProfile, OfflineSchemeHandler, RequestGuard]:
    """A new off-the-record reader profile (nothing written to disk) with its scheme handler and guard.

    It has no parent: give it to the one page that uses it (``adopt_profile``), so that it is
    deleted after that page and never before (Qt: "Release of profile requested but
    WebEnginePage still not deleted").
    """
    profile = QWebEngineProfile()  # no storage name: off the record
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
    handler = OfflineSchemeHandler(profile)
    guard = RequestGuard(profile)
    profile.installUrlSchemeHandler(SCHEME.encode(), handler)
    profile.setUrlRequestInterceptor(guard)
    lock_down(profile.settings())
    return profile, handler, guard


def adopt_profile(page: QWebEnginePage) -> None:
    """Make ``page`` own its profile: Qt deletes a page's children after the page itself."""
    page.profile().setParent(page)
