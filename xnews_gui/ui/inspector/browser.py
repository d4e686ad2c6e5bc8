"""The embedded browser: address bar, back / forward / reload, load progress, and the view."""

from __future__ import annotations

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWebEngineCore import QWebEngineLoadingInfo, QWebEnginePage, QWebEngineProfile
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from . import start_page


def normalise_address(text: str) -> str:
    text = text.strip()
    if text and "://" not in text:
        text = "http://" + text
    return text


class InspectorPage(QWebEnginePage):
    """A page that turns clicks on the start page's ``xnews-start:`` links into ``startAction``."""

    startAction = Signal(str, str)  # action ("demo", "profile"), argument

    def acceptNavigationRequest(self, url: QUrl, nav_type, is_main_frame: bool) -> bool:
        if url.scheme() == start_page.SCHEME:
            action = start_page.parse_action(url.toString())
            if action is not None:
                self.startAction.emit(*action)
            return False
        return super().acceptNavigationRequest(url, nav_type, is_main_frame)


class BrowserPane(QWidget):
    urlChanged = Signal(str)
    startAction = Signal(str, str)  # a link on the start page was clicked

    def __init__(self, parent=None):
        super().__init__(parent)
        # an off-the-record profile of our own: no cookies or cache left behind, and closing it
        # closes its connections (see close_page()). The page owns it: Qt deletes a page's
        # children after the page itself, so the profile can never go before its page (which
        # Qt reports as "Release of profile requested but WebEnginePage still not deleted").
        self.web_profile = QWebEngineProfile()
        self._closed = False
        self.view = QWebEngineView(self)
        page = InspectorPage(self.web_profile, self.view)
        self.web_profile.setParent(page)
        self.view.setPage(page)
        page.startAction.connect(self.startAction)
        page.loadingChanged.connect(self._loading_changed)
        style = self.style()
        self.back = self._button(style.standardIcon(QStyle.StandardPixmap.SP_ArrowBack), "Back (Alt+Left)")
        self.forward = self._button(style.standardIcon(QStyle.StandardPixmap.SP_ArrowForward), "Forward (Alt+Right)")
        self.reload = self._button(style.standardIcon(QStyle.StandardPixmap.SP_BrowserReload), "Reload (F5)")
        self.back.setShortcut(QKeySequence.StandardKey.Back)
        self.forward.setShortcut(QKeySequence.StandardKey.Forward)
        self.reload.setShortcut(QKeySequence.StandardKey.Refresh)
        self.address = QLineEdit(self)
        self.address.setPlaceholderText("Address of a news site: a list page first, then an article")
        self.address.setClearButtonEnabled(True)
        self.progress = QProgressBar(self)
        self.progress.setFixedHeight(3)  # always there, empty when idle: the page never moves under the mouse
        self.progress.setTextVisible(False)
        self.progress.setRange(0, 100)
        self.progress.setValue(0)

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.setSpacing(2)
        for w in (self.back, self.forward, self.reload):
            bar.addWidget(w)
        bar.addWidget(self.address, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.progress)
        layout.addWidget(self.view, 1)

        self.back.clicked.connect(self.view.back)
        self.forward.clicked.connect(self.view.forward)
        self.reload.clicked.connect(self.view.reload)
        self.address.returnPressed.connect(lambda: self.load(self.address.text()))
        self.view.urlChanged.connect(self._url_changed)
        self.view.loadStarted.connect(self._started)
        self.view.loadProgress.connect(self.progress.setValue)
        self.view.loadFinished.connect(self._finished)
        self.load_failed = False
        self._update_buttons()

    def _button(self, icon, tip: str) -> QToolButton:
        b = QToolButton(self)
        b.setIcon(icon)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        return b

    def load(self, text: str) -> None:
        url = normalise_address(text)
        if url:
            self.address.setText(url)
            self.view.load(QUrl(url))

    @property
    def closed(self) -> bool:
        """The page was closed (``close_page``): the view must not be asked for its page again."""
        return self._closed

    def url(self) -> str:
        return "" if self._closed else self.view.url().toString()  # view.url() of a closed view makes a page

    def show_start(self, html: str) -> None:
        """Show the local start page (no network); the address bar stays empty for an address."""
        self.view.setHtml(html, QUrl(start_page.START_URL))
        self.address.clear()

    def on_start_page(self) -> bool:
        """True while no site is shown: the start page, or nothing at all."""
        url = self.url()
        return not url or url == "about:blank" or start_page.is_start_url(url)

    def close_page(self) -> None:
        """Stop loading and drop the page and its profile (and with them, open connections)."""
        import shiboken6

        if self._closed:
            return  # view.page() would make a new page on the default profile
        self._closed = True
        self.view.stop()
        for signal in (self.view.urlChanged, self.view.loadStarted, self.view.loadProgress, self.view.loadFinished):
            try:
                signal.disconnect()  # a handler that asks the view (url, history) would make a new page
            except (RuntimeError, TypeError):
                pass  # nothing connected
        page = self.view.page()
        if page is not None and shiboken6.isValid(page):
            shiboken6.delete(page)  # deletes its profile after itself
        if shiboken6.isValid(self.web_profile):
            shiboken6.delete(self.web_profile)

    def _url_changed(self, url: QUrl) -> None:
        self.address.setText("" if start_page.is_start_url(url.toString()) else url.toString())
        self._update_buttons()
        self.urlChanged.emit(url.toString())

    def _started(self) -> None:
        self.progress.setValue(0)

    def _finished(self, ok: bool) -> None:
        self.progress.setValue(0)
        self._update_buttons()

    def _loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        status, states = info.status(), QWebEngineLoadingInfo.LoadStatus
        if status != states.LoadStoppedStatus:  # Stop leaves the page shown as it was
            self.load_failed = status == states.LoadFailedStatus  # the "This site can't be reached" page

    def _update_buttons(self) -> None:
        history = self.view.history()
        self.back.setEnabled(history.canGoBack())
        self.forward.setEnabled(history.canGoForward())
