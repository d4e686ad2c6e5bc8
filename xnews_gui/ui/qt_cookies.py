"""Our cookies (``crawl.cookies.Cookie``) to and from QtWebEngine's (``QNetworkCookie``)."""

from __future__ import annotations

from PySide6.QtCore import QDateTime, QUrl
from PySide6.QtNetwork import QNetworkCookie

from ..crawl.cookies import Cookie


def from_qt(cookie: QNetworkCookie, page_host: str = "") -> Cookie:
    """A cookie without a domain belongs to the page's host only."""
    expires = 0.0
    if not cookie.isSessionCookie() and cookie.expirationDate().isValid():
        expires = float(cookie.expirationDate().toSecsSinceEpoch())
    return Cookie(bytes(cookie.name().data()).decode("utf-8", "replace"),
                  bytes(cookie.value().data()).decode("utf-8", "replace"),
                  cookie.domain() or page_host, cookie.path() or "/", expires, cookie.isSecure())


def to_qt(c: Cookie) -> tuple[QNetworkCookie, QUrl]:
    """The cookie and the origin to set it for (``QWebEngineCookieStore.setCookie(cookie, origin)``)."""
    cookie = QNetworkCookie(c.name.encode("utf-8"), c.value.encode("utf-8"))
    cookie.setPath(c.path or "/")
    cookie.setSecure(c.secure)
    if c.expires:
        cookie.setExpirationDate(QDateTime.fromSecsSinceEpoch(int(c.expires)))
    if c.domain.startswith("."):
        cookie.setDomain(c.domain)  # the domain and its subdomains; host-only otherwise
    return cookie, QUrl(f"{'https' if c.secure else 'http'}://{c.domain.lstrip('.')}/")


def set_all(cookie_store, cookies) -> int:
    """Put these cookies in a web engine profile's cookie store (before the loads that need them)."""
    n = 0
    for c in cookies:
        cookie, origin = to_qt(c)
        cookie_store.setCookie(cookie, origin)
        n += 1
    return n
