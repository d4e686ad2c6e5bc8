"""The reading pane: one stored article, offline, with JavaScript off and no remote loads."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWebEngineCore import QWebEngineLoadingInfo
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolBar, QVBoxLayout, QWidget
from PySide6.QtWebEngineWidgets import QWebEngineView

from ..core.extraction.sanitize import image_urls
from ..core.text.topics import DISPLAY_NAMES, display_name, label_from_text
from ..store import Store
from ..store.collation import vi_sorted
from ..store.repo import article_dict
from . import icons, store_ops, workers
from .offline_web import ReaderPage, adopt_profile, local_image_source, lock_down, offline_profile
from .topic_display import NO_TOPIC, declined, no_topic_reason
from .reader_page import build_page, empty_page, reader_css
from .reader_versions import CURRENT, VersionsButton, version_as_article, version_list


CATEGORY_TIP = "Correct the topic: pick or type a label, then press Enter"
NO_ARTICLE = "the topic of the article opened"


class ReaderView(QWidget):
    articleChanged = Signal(int)  # flags or category of this article were changed here
    statusMessage = Signal(str)  # what a command did, for the status bar (opened the original, copied the link)
    nextRequested = Signal()
    previousRequested = Signal()
    pageReady = Signal(int)  # an article page (its id) or the empty page (0) finished loading
    fetchAgainRequested = Signal(int, str, str)  # article id, its profile, its URL: ask its source again
    RECYCLE_AFTER = 100  # pages shown on one web page before a fresh one takes over (see _new_page)

    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self._css = reader_css()
        self._article: dict | None = None
        self._labels: list[str] = vi_sorted(DISPLAY_NAMES, key=display_name)  # the topic box's choices
        self._box_labels: list[str] = []  # the labels the topic box holds now
        self._request = 0  # bumped by every show or clear: only the newest request's article is shown
        self._next: tuple | None = None  # (request, id, mark read, earlier version or None) waiting for the worker
        self._asked_id: int | None = None  # the article shown or on its way
        self._preparing = False
        self._loading_url = QUrl()  # the newest page asked for
        self._loading_id = 0
        self._loading_html = ""
        self._drawn: tuple[int, str, QUrl] | None = None  # (id, page, its address) the view shows now
        self._navigating = QUrl()  # the load under way (empty: none); a newer page waits for its end
        self._nav_timeout = QTimer(self, singleShot=True, interval=3000)  # ...but never for long
        self._nav_timeout.timeout.connect(lambda: self._load_ended(self._navigating))
        self._closed = False
        self.view = QWebEngineView(self)
        self.page: ReaderPage | None = None
        self._new_page()

        self.toolbar = QToolBar(self)
        self.toolbar.setIconSize(self.toolbar.iconSize() * 0.8)
        self.actions_ = self._make_actions()
        self.versions = VersionsButton(self)  # the article's earlier texts
        self.versions.versionChosen.connect(self.show_version)
        self.toolbar.addWidget(self.versions)
        self.category = QComboBox(self)
        self.category.setEditable(True)
        self.category.setMinimumContentsLength(14)
        self.category.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.category.setToolTip(CATEGORY_TIP)
        self.category.lineEdit().setPlaceholderText(NO_ARTICLE)
        self.category.activated.connect(self._category_chosen)
        self.category.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._letters_to_list = LettersToTheList(self.category.view())
        # the topic is on a row of its own: in the toolbar it went into the overflow menu on a small screen
        self.topic_bar = QWidget(self)
        topic_row = QHBoxLayout(self.topic_bar)
        topic_row.setContentsMargins(6, 2, 6, 2)
        self.topic_label = QLabel("Topic:", self)
        self.topic_label.setBuddy(self.category)
        topic_row.addWidget(self.topic_label)
        topic_row.addWidget(self.category, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.topic_bar)
        layout.addWidget(self.view, 1)
        self.clear()

    def shutdown(self) -> None:
        """Delete the page (and with it its profile) now; the reader shows nothing afterwards."""
        self._closed = True
        if shiboken6.isValid(self.page):
            self.view.stop()
            shiboken6.delete(self.page)

    def _new_page(self) -> None:
        """A fresh page on a fresh off-the-record profile (its own renderer process); the old one goes.

        Every navigation leaves ~150 KB behind in QtWebEngine's renderer process that nothing gives
        back, so after ``RECYCLE_AFTER`` pages the reader starts over with a new renderer: a long
        reading session keeps its memory flat (benchmarks/bench_reader.py)."""
        old = self.page
        profile, self._handler, self.guard = offline_profile()
        self._handler.images_root = self.store.images_root
        page = ReaderPage(profile, self.view, on_external_link=QDesktopServices.openUrl)
        adopt_profile(page)
        lock_down(page.settings())
        page.loadingChanged.connect(self._loading_changed)
        page.renderProcessTerminated.connect(self._forget_drawn)  # a crashed page shows nothing
        self.view.setPage(page)
        self.page = page
        self.loads = 0
        self._drawn = None
        self._navigating = QUrl()  # the new page has no load under way
        if old is not None and shiboken6.isValid(old):
            old.loadingChanged.disconnect(self._loading_changed)
            old.renderProcessTerminated.disconnect(self._forget_drawn)
            old.deleteLater()  # its profile, scheme handler and guard go with it

    # --- actions --------------------------------------------------------------
    def _make_actions(self) -> dict[str, QAction]:
        sp = QStyle.StandardPixmap
        spec = [  # key, text, icon, shortcut, slot
            ("previous", "Previous", icons.std(self, sp.SP_ArrowUp), ["K", "P"], self.previousRequested.emit),
            ("next", "Next", icons.std(self, sp.SP_ArrowDown), ["J", "N"], self.nextRequested.emit),
            ("read", "Mark unread", icons.named("mark-read"), ["M"], self.toggle_read),
            ("star", "Star", icons.named("star"), ["S"], self.toggle_star),
            ("open", "Open original", icons.named("open-external"), ["O", "Ctrl+Return"], self.open_original),
            ("copy", "Copy link", icons.named("copy-link"), ["Ctrl+Shift+C"], self.copy_link),
            ("fetch", "Fetch again", icons.std(self, sp.SP_BrowserReload), ["Ctrl+R"], self.fetch_again),
        ]
        out = {}
        for key, text, icon, keys, slot in spec:
            action = QAction(icon, text, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setToolTip(f"{text} ({keys[0]})")
            action.triggered.connect(lambda _=False, s=slot: s())
            self.toolbar.addAction(action)
            out[key] = action
        return out

    # --- showing ----------------------------------------------------------------
    def clear(self, message: str = "Select an article to read it here.") -> None:
        self._request += 1  # an article still being read is not shown after this
        self._next, self._asked_id = None, None
        self._article = None
        for key in ("read", "star", "open", "copy", "fetch"):
            self.actions_[key].setEnabled(False)
        self.versions.show_versions([], None)
        self.category.setEnabled(False)
        self.category.setCurrentText("")
        self._load(empty_page(message, self._css), 0)

    def show_article(self, article_id: int, mark_read: bool = True, version: int | None = None) -> None:
        """Show a stored article (``version``: one of its earlier versions). It is read and its page built
        in a worker (SQL and HTML parsing on the GUI thread wait for the GIL while a crawl runs);
        pageReady(article_id) says it is shown. Requests made meanwhile are not queued: the newest one
        is shown next."""
        self._request += 1
        self._next = (self._request, article_id, mark_read, version)
        self._asked_id = article_id
        if not self._preparing:
            self._prepare_next()

    @property
    def asked_id(self) -> int | None:
        """The article shown, or asked for and on its way."""
        return self._asked_id

    def _prepare_next(self) -> None:
        if self._next is None or self._closed:
            return
        request, article_id, mark_read, version = self._next
        self._next, self._preparing = None, True
        workers.run_in_background(
            prepare_article, self.store, article_id, self._css, version,
            on_result=lambda prepared: self._prepared(request, article_id, mark_read, prepared),
            on_error=lambda message: self._prepared(request, article_id, mark_read, message))

    def _prepared(self, request: int, article_id: int, mark_read: bool, prepared) -> None:
        self._preparing = False
        if self._closed or not shiboken6.isValid(self):
            return
        if request == self._request:
            if prepared is None:
                self.clear("This article is no longer stored.")
            elif isinstance(prepared, str):
                self.clear(f"This article could not be shown: {prepared}")
            else:
                self._show_prepared(*prepared, mark_read=mark_read)
        self._prepare_next()

    def _show_prepared(self, article: dict, html: str, labels: list[str], *, mark_read: bool) -> None:
        article_id = article["id"]
        if mark_read and not article["read"]:
            article["read"] = True
            store_ops.write(self.store.set_flags, article_id, read=True, owner=self,
                            on_done=lambda _: self.articleChanged.emit(article_id))
        self._article, self._labels = article, labels
        self._load(html, article_id)
        self._sync_actions()

    def _load(self, html: str, article_id: int) -> None:
        if self._closed or not shiboken6.isValid(self.page):
            return  # shut down
        if (article_id and self._drawn == (article_id, html, self.page.url())  # not gone Back from it
                and self._navigating.isEmpty()):
            self.pageReady.emit(article_id)  # the same page again (a crawl re-read the article): the reader
            return  # keeps its place in it, and nothing is drawn twice
        self._drawn = None  # until the new page has loaded
        if self.loads >= self.RECYCLE_AFTER:
            self._new_page()
        self.loads += 1
        self._loading_url = self._handler.put_page(html)
        self._loading_id, self._loading_html = article_id, html
        if self._navigating.isEmpty():
            self._navigate()

    def _navigate(self) -> None:
        """One load at a time: a setUrl made while another load is starting can be dropped by
        QtWebEngine (the older page then shows and pageReady never comes), so the newest page
        asked for is loaded when the current load ends."""
        self._nav_timeout.stop()
        if self._closed or not shiboken6.isValid(self.page):
            return
        self._navigating = self._loading_url
        self._nav_timeout.start()
        self.view.setUrl(self._loading_url)

    def _loading_changed(self, info: QWebEngineLoadingInfo) -> None:
        status = info.status()
        if status == QWebEngineLoadingInfo.LoadStatus.LoadStartedStatus:
            return
        # judged by the URL the finished load was for: loadFinished of a superseded page can arrive
        # after the next page was requested, when page.url() already names the new one
        if status == QWebEngineLoadingInfo.LoadStatus.LoadSucceededStatus and info.url() == self._loading_url:
            self._drawn = (self._loading_id, self._loading_html, info.url())
            self.pageReady.emit(self._loading_id)
        if info.url() == self._navigating:
            self._load_ended(info.url())

    def _forget_drawn(self, *_status) -> None:
        self._drawn = None

    def _load_ended(self, url: QUrl) -> None:
        self._nav_timeout.stop()
        self._navigating = QUrl()
        if self._loading_url != url:  # a newer page was asked for meanwhile
            self._navigate()

    @property
    def article(self) -> dict | None:
        return self._article

    def _sync_actions(self) -> None:
        a = self._article
        for key in ("read", "star", "open", "copy", "fetch"):
            self.actions_[key].setEnabled(a is not None)
        self.versions.show_versions((a or {}).get("version_list", []), ((a or {}).get("earlier_of") or {}).get("number"))
        self.category.setEnabled(a is not None)
        note = (a or {}).get("topic_note")
        self.category.lineEdit().setPlaceholderText(NO_TOPIC if note else NO_ARTICLE if a is None else "no topic yet: "
                                                     "choose or type one")
        self.category.setToolTip(f"{note}. {CATEGORY_TIP}" if note else CATEGORY_TIP)
        if a is None:
            return
        self.actions_["read"].setText("Mark unread" if a["read"] else "Mark read")
        self.actions_["star"].setText("Unstar" if a["starred"] else "Star")
        self.actions_["star"].setIcon(icons.named("star-filled" if a["starred"] else "star"))
        labels = self._labels
        if a["category"] and a["category"] not in labels:
            labels = vi_sorted([*labels, a["category"]], key=display_name)
        self.category.blockSignals(True)
        if labels != self._box_labels:  # refilled only when the labels changed: it costs a few ms per item
            self.category.clear()
            for label in labels:  # shown in Vietnamese, stored as the label
                self.category.addItem(display_name(label), label)
            self._box_labels = list(labels)
        self.category.setCurrentText(display_name(a.get("user_label") or a.get("category") or ""))
        self.category.blockSignals(False)

    # --- user commands --------------------------------------------------------------
    def toggle_read(self) -> None:
        if self._article:
            self._set_flag("read", not self._article["read"])

    def toggle_star(self) -> None:
        if self._article:
            self._set_flag("starred", not self._article["starred"])

    def _set_flag(self, name: str, value: bool) -> None:
        article_id = self._article["id"]
        store_ops.write(self.store.set_flags, article_id, **{name: value}, owner=self,
                        on_done=lambda _: self.articleChanged.emit(article_id))
        self._article[name] = value
        self._sync_actions()

    def open_original(self) -> None:
        if not self._article:
            return
        url = self._article["url"]
        if not url.startswith(("http://", "https://")):
            self.statusMessage.emit(f"This article has no web address to open ({url}).")
        elif QDesktopServices.openUrl(QUrl(url)):
            self.statusMessage.emit(f"Opened the original in your browser: {url}")
        else:
            self.statusMessage.emit(f"No browser could open {url}; the link is on the clipboard.")
            QGuiApplication.clipboard().setText(url)

    def fetch_again(self) -> None:
        """Ask the article's source again now (a crawl of that one page; see the main window)."""
        if self._article:
            self.fetchAgainRequested.emit(self._article["id"], self._article["profile"], self._article["url"])

    def show_version(self, number: int) -> None:
        """An earlier version of the article in view (CURRENT: its current text)."""
        if self._article:
            self.show_article(self._article["id"], mark_read=False, version=None if number == CURRENT else number)

    def copy_link(self) -> None:
        if self._article:
            QGuiApplication.clipboard().setText(self._article["url"])
            self.statusMessage.emit(f"Link copied: {self._article['url']}")

    def chosen_label(self) -> str:
        """The internal label for what the topic box shows (a display name, or text typed by the user)."""
        text = self.category.currentText().strip()
        index = self.category.currentIndex()
        if index >= 0 and self.category.itemText(index) == text and self.category.itemData(index):
            return self.category.itemData(index)
        return label_from_text(text) if text else ""

    def _category_chosen(self, _index: int = -1) -> None:
        label = self.chosen_label()
        if not self._article or not label or label == (self._article.get("user_label") or self._article["category"]):
            return
        article_id = self._article["id"]
        self._article.update(user_label=label, category=label, confidence=1.0)

        def saved(_) -> None:
            self.articleChanged.emit(article_id)
            if self._article and self._article["id"] == article_id:
                self.show_article(article_id, mark_read=False)

        store_ops.write(self.store.set_user_label, article_id, label, owner=self, on_done=saved)


def prepare_article(store: Store, article_id: int, css: str,
                    version: int | None = None) -> tuple[dict, str, list[str]] | None:
    """(worker) The article (``version``: one of its earlier versions), its reader page and the topic
    box's labels; None if it is not stored (or that version is not kept)."""
    row = store.get_article(article_id)
    if row is None:
        return None
    article = article_dict(row) if version is None else version_as_article(store, article_id, version)
    if article is None:
        return None
    article["version_list"] = version_list(store, article_id)
    article["versions"] = len(article["version_list"])
    if version is None:
        article["user_label"] = row.user_label
    if declined(article["category"], article.get("confidence"), row.user_label):
        text = "\n".join(filter(None, (article["title"], article["summary"], row.body_text)))
        article["topic_note"] = no_topic_reason(text, article.get("confidence"))
    sources = image_urls(article["body_html"]) + ([article["image"]] if article["image"] else [])
    html = build_page(article, local_image_source(store, sources).get, css)
    labels = set(store.distinct_values("category")) | set(DISPLAY_NAMES)
    labels |= {article["category"]} if article["category"] else set()
    return article, html, vi_sorted(labels, key=display_name)


class LettersToTheList(QObject):
    """While the topic list is open, a letter typed chooses a topic (the list's own keyboard search) instead
    of running the reader's one-letter shortcuts: S starred the article, O opened it in a browser."""

    def __init__(self, view):
        super().__init__(view)
        view.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.ShortcutOverride and event.text().isprintable() and event.text() \
                and not event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            event.accept()  # the key goes to the list as a key press, not to a shortcut
            return True
        return False
