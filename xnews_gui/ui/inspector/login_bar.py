"""The login bar: keep the login (or the accepted consent banner) made in the inspector's browser for
the profile's crawls.

The browser's cookie store reports every cookie a page sets (``cookieAdded``); this bar remembers
them. *Keep this login for crawls* writes the cookies of the profile's sites to
``<data>/cookies/<profile>.json`` (``crawl.cookies.CookieFile``: readable by the user only), which
every crawl of the profile sends; the bar then shows how many were kept and when they expire.
*Forget* deletes the file. Opening a profile puts its kept cookies back in the browser, so its
members' pages show logged in while the rules are built (the browser itself forgets everything on exit).
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlsplit

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtNetwork import QNetworkCookie
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from ...core.profile.profile import Profile
from ...crawl.cookies import MAX_COOKIES, Cookie, CookieError, CookieFile, cookies_path
from .. import qt_cookies


def profile_hosts(profile: Profile | None, page_url: str = "") -> set[str]:
    """The hosts a profile's crawl visits: its start pages', its allowed domains, the page in view."""
    hosts = set()
    if profile is not None:
        hosts |= {urlsplit(u).hostname or "" for u in profile.start_urls}
        hosts |= {d.lower().lstrip(".") for d in profile.allowed_domains}
    if page_url.startswith(("http://", "https://")):
        hosts.add(urlsplit(page_url).hostname or "")
    return {h.lower() for h in hosts if h}


def for_hosts(cookies, hosts: set[str]) -> list[Cookie]:
    """The cookies a request to one of ``hosts`` (or to one of their subdomains) would carry."""
    def wanted(c: Cookie) -> bool:
        d = c.domain.lower().lstrip(".")
        return any(h == d or h.endswith("." + d) or d.endswith("." + h) for h in hosts)
    return [c for c in cookies if wanted(c)]


class LoginBar(QWidget):
    kept = Signal(str)  # the kept cookies' summary
    forgotten = Signal()
    cookiesChanged = Signal(object)  # CookieFile: the browser's cookies for the profile's sites changed

    def __init__(self, cookie_store, page_url, parent=None):
        """``cookie_store``: the browser's QWebEngineCookieStore; ``page_url()``: the page in view."""
        super().__init__(parent)
        self.page_url = page_url
        self.cookie_store = cookie_store
        self._restored = ""  # the profile whose kept cookies are in the browser
        self.data_dir: Path | None = None
        self._profile: Profile | None = None
        self._seen: dict[tuple[str, str, str], Cookie] = {}
        self._last_sent: list[Cookie] = []
        self._changes = QTimer(self, singleShot=True, interval=200)  # a page sets its cookies in a burst
        self._changes.timeout.connect(self._announce)
        cookie_store.cookieAdded.connect(self._added)
        cookie_store.cookieRemoved.connect(self._removed)
        title = QLabel("Login:", self)
        title.setToolTip("Sites that need a login or a consent click: do it once in the page below, then keep it")
        self.status = QLabel(self)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)  # never grows the bar
        self.keep_button = QPushButton("Keep this login for crawls", self)
        self.keep_button.setToolTip("Save the cookies this site set in the browser (your login, an accepted consent "
                                    "banner) for this profile; its crawls send them. Readable by you only.")
        self.keep_button.clicked.connect(self.keep)
        self.forget_button = QPushButton("Forget", self)
        self.forget_button.setToolTip("Delete the cookies kept for this profile")
        self.forget_button.clicked.connect(self.forget)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(title)
        layout.addWidget(self.status, 1)
        layout.addWidget(self.keep_button)
        layout.addWidget(self.forget_button)
        self._update()

    # --- what is shown ---------------------------------------------------------------
    def set_data_dir(self, data_dir: Path | None) -> None:
        self.data_dir = Path(data_dir) if data_dir else None
        self._update()

    def show_profile(self, profile: Profile | None) -> None:
        self._profile = profile
        if profile is not None and profile.name != self._restored:
            self._restored = profile.name
            kept = self.kept_file()
            if kept:
                qt_cookies.set_all(self.cookie_store, kept.cookies)
        self._update()

    def site_cookies(self) -> list[Cookie]:
        """The browser's cookies for the profile's sites (what *Keep* would save)."""
        return for_hosts(self._seen.values(), profile_hosts(self._profile, self.page_url()))[:MAX_COOKIES]

    def kept_file(self) -> CookieFile | None:
        path = self._path()
        if path is None:
            return None
        try:
            return CookieFile.load(path)
        except (CookieError, OSError):
            return CookieFile(path=path)

    # --- actions -------------------------------------------------------------------------
    @Slot()
    def keep(self) -> Path | None:
        path = self._path()
        cookies = self.site_cookies()
        if path is None or not cookies:
            self._update()
            return None
        try:
            CookieFile(cookies).save(path)
        except OSError as exc:
            self._say(f"Could not keep the login: {exc.strerror or exc}", warn=True)
            return None
        self._update()
        self.kept.emit(self.status.text())
        return path

    @Slot()
    def forget(self) -> None:
        path = self._path()
        if path is not None:
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                self._say(f"Could not forget the login: {exc.strerror or exc}", warn=True)
                return
        self._update()
        self.forgotten.emit()

    # --- the browser's cookies -------------------------------------------------------------
    @Slot(QNetworkCookie)
    def _added(self, cookie: QNetworkCookie) -> None:
        c = qt_cookies.from_qt(cookie, urlsplit(self.page_url()).hostname or "")
        if len(self._seen) < 4 * MAX_COOKIES or (c.domain, c.path, c.name) in self._seen:
            self._seen[(c.domain, c.path, c.name)] = c
        self._update()

    @Slot(QNetworkCookie)
    def _removed(self, cookie: QNetworkCookie) -> None:
        c = qt_cookies.from_qt(cookie, urlsplit(self.page_url()).hostname or "")
        self._seen.pop((c.domain, c.path, c.name), None)
        self._update()

    def _path(self) -> Path | None:
        if self.data_dir is None or self._profile is None:
            return None
        try:
            return cookies_path(self.data_dir, self._profile.name)
        except CookieError:
            return None

    @Slot()
    def refresh(self, *_args) -> None:
        self._update()

    def _announce(self) -> None:
        cookies = self.site_cookies()
        if cookies != self._last_sent:
            self._last_sent = cookies
            self.cookiesChanged.emit(CookieFile(cookies))

    def _update(self) -> None:
        self._changes.start()
        kept = self.kept_file()
        fresh = len(self.site_cookies()) if self._profile is not None else 0
        self.keep_button.setEnabled(fresh > 0 and self._path() is not None)
        self.forget_button.setEnabled(bool(kept))
        if self._profile is None or self.data_dir is None:
            self._say("open or start a profile to keep a login for its crawls")
        elif kept and all(c.expires and c.expires < time.time() for c in kept.cookies):
            self._say(f"the login kept for {self._profile.name} has expired ({kept.summary()}): log in again in "
                      "the page below, then keep it", warn=True)
        elif kept:
            self._say(f"kept for {self._profile.name}: {kept.summary()}", ok=True)
        elif fresh:
            self._say(f"{fresh} cookie{'s' if fresh != 1 else ''} from this site in the browser: "
                      "keep them if you logged in or accepted a consent banner")
        else:
            self._say("none kept; if the site needs a login or a consent click, do it in the page below, then keep it")

    def _say(self, text: str, warn: bool = False, ok: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setStyleSheet("color: #b06000;" if warn else "color: #1e8e3e;" if ok else "color: palette(mid);")
