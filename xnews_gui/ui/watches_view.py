"""The Watches panel of the Articles tab: saved searches that tell when a new article matches.

Each watch in the list says how many of its articles are new ("vàng — 3 new · 12"); selecting it shows
its own list (newest first; a click opens the article in the reader) and its Atom feed file, and marks
its articles seen. *New watch…* asks for the words (the search's syntax), a topic, a site and an optional
webhook; *Remove* deletes a watch (its articles stay). The matching itself happens where crawls store
articles (``store/watches.py``); ``refresh`` reads the counts again (the main window calls it when a
crawl reports matches).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QMessageBox, QPushButton, QVBoxLayout, QWidget)

from ..core.text.topics import DISPLAY_NAMES, display_name
from ..services.watches import feed_path, write_feed
from ..store import Store
from ..store.collation import vi_sorted
from ..store.watches import WatchError
from . import store_ops

ID_ROLE = Qt.ItemDataRole.UserRole


class NewWatchDialog(QDialog):
    """Words, a topic, a site, a webhook: the watch is saved when OK is clicked and it is valid."""

    def __init__(self, store: Store, parent=None, words: str = ""):
        super().__init__(parent)
        self.store = store
        self.created = None
        self.setWindowTitle("New watch")
        self.name = QLineEdit(placeholderText="e.g. Giá vàng")
        self.words = QLineEdit(words, placeholderText="words every new article must hold (no accents needed)")
        self.topic = QComboBox()
        self.topic.addItem("Any topic", None)
        # the model's topics too, not only those stored yet: a watch may wait for the first of a topic
        for label in vi_sorted(set(DISPLAY_NAMES) | set(store.distinct_values("category")), key=display_name):
            self.topic.addItem(display_name(label), label)
        self.site = QComboBox()
        self.site.addItem("Any site", None)
        for name in sorted(set(store.profile_names()) | set(store.distinct_values("profile"))):
            self.site.addItem(name, name)
        self.webhook = QLineEdit(placeholderText="optional: an http(s) address that gets each article as JSON")
        self.error = QLabel()
        self.error.setStyleSheet("color: #b3261e;")
        self.error.setWordWrap(True)
        form = QFormLayout()  # the words first: the name follows them unless typed
        form.addRow("Words:", self.words)
        form.addRow("Topic:", self.topic)
        form.addRow("Site:", self.site)
        form.addRow("Name:", self.name)
        form.addRow("Webhook:", self.webhook)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Tell me when a new article matches:"))
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.words.textChanged.connect(self._suggest_name)
        self._suggest_name(self.words.text())  # words given when the dialog opens name it too
        self.words.setFocus()
        self.resize(520, self.sizeHint().height())

    def _suggest_name(self, text: str) -> None:
        """The words, as the name's placeholder: the watch is named so unless a name is typed (a suggestion
        set as text took a name typed after it as more of the same: "bong daBóng đá")."""
        self.name.setPlaceholderText(" ".join(text.split())[:64] or "e.g. Giá vàng")

    def chosen_name(self) -> str:
        return self.name.text().strip() or self.name.placeholderText() if self.words.text().strip() \
            else self.name.text()

    def _save(self) -> None:
        try:
            self.created = self.store.add_watch(self.chosen_name(), words=self.words.text(),
                                                topic=self.topic.currentData(), site=self.site.currentData(),
                                                webhook=self.webhook.text())
        except WatchError as exc:
            self.error.setText(f"{str(exc)[0].upper()}{str(exc)[1:]}.")
            return
        try:
            write_feed(self.store, self.created.name)  # a feed reader can subscribe at once
        except Exception as exc:  # the watch stands; its feed comes with its first match
            self.error.setText(f"Saved; its feed file could not be written yet: {exc}")
        self.accept()


class WatchesPanel(QWidget):
    articleChosen = Signal(int)  # an article of a watch's list, to open in the reader
    seenChanged = Signal()  # a watch's articles were marked seen (the badge follows)

    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.dialog: NewWatchDialog | None = None
        self.confirm_box: QMessageBox | None = None
        title = QLabel("Watches")
        title.setStyleSheet("font-weight: bold;")
        self.new_button = QPushButton("New watch\u2026")
        self.new_button.setToolTip("Be told when a new article has these words, this topic or comes from this site")
        self.new_button.clicked.connect(self.new_watch)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Delete the selected watch (its articles stay)")
        self.remove_button.clicked.connect(self.remove_selected)
        self.list = QListWidget()
        self.list.setToolTip("Your watches: how many of their articles are new, and how many in all")
        self.list.currentItemChanged.connect(lambda *_: self._show_selected())
        self.list.itemClicked.connect(lambda *_: self._show_selected())  # the selected one again: its news are seen
        self.hits = QListWidget()
        self.hits.setWordWrap(True)
        self.hits.setAlternatingRowColors(True)  # one article from the next, each on two lines
        self.hits.itemClicked.connect(self._open)
        self.hits.itemActivated.connect(self._open)
        self.feed = QLabel()
        self.feed.setWordWrap(True)
        self.feed.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.feed.setStyleSheet("color: palette(mid);")
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.addWidget(title)
        layout.addLayout(buttons)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hits, 2)
        layout.addWidget(self.feed)
        self.setMinimumWidth(200)
        self.refresh()

    # --- the list ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the watches and their counts again; the selection and its list stay."""
        current = self.current_name()
        counts, unseen = self.store.watch_hit_counts(), self.store.unseen_watch_hits()
        self.list.blockSignals(True)
        self.list.clear()
        for watch in self.store.watches():
            new = unseen.get(watch.name, 0)
            item = QListWidgetItem(f"{watch.name} \u2014 " + (f"{new} new \u00b7 " if new else "")
                                   + f"{counts.get(watch.name, 0)}")
            item.setData(ID_ROLE, watch.name)
            item.setToolTip(watch.describe() + (f"\nwebhook: {watch.webhook}" if watch.webhook else ""))
            font = item.font()
            font.setBold(bool(new))
            item.setFont(font)
            self.list.addItem(item)
            if watch.name == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self.remove_button.setEnabled(self.list.count() > 0)
        if current and self.current_name() == current:
            self._fill_hits(current)
            if self.isVisible() and not self.window().isMinimized():  # looked at: seen (the badge does not grow)
                self._mark_seen(current)
        elif not self.current_name():
            self.hits.clear()
            self.feed.setText("Select a watch to see its articles." if self.list.count() else
                              "No watch yet: New watch\u2026 tells you when a new article matches your words.")

    def current_name(self) -> str:
        item = self.list.currentItem()
        return item.data(ID_ROLE) if item is not None else ""

    def select(self, name: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(ID_ROLE) == name:
                self.list.setCurrentRow(i)
                return

    def _show_selected(self) -> None:
        name = self.current_name()
        if not name:
            return
        self._fill_hits(name)
        self._mark_seen(name)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """The panel shown (★ Watches, the Articles tab) with a watch selected: its list is looked at."""
        super().showEvent(event)
        self._show_selected()

    def _mark_seen(self, name: str) -> None:
        if self.store.unseen_watch_hits().get(name):
            store_ops.write(self.store.mark_watch_seen, name, owner=self, on_done=lambda _r: self._seen())

    def _seen(self) -> None:
        self.refresh()
        self.seenChanged.emit()

    def _fill_hits(self, name: str) -> None:
        self.hits.clear()
        articles = self.store.watch_articles(name)
        for a in articles:
            item = QListWidgetItem(f"{a['title']}\n{a['profile']} \u00b7 {a['hit_at'][:16]}")
            item.setData(ID_ROLE, a["id"])
            item.setToolTip(a["url"])
            if not a["seen"]:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.hits.addItem(item)
        path = feed_path(self.store.root, name)
        self.feed.setText(f"{len(articles)} article(s). Atom feed for any feed reader: {path}")

    @Slot(QListWidgetItem)
    def _open(self, item: QListWidgetItem) -> None:
        self.articleChosen.emit(int(item.data(ID_ROLE)))

    # --- new and remove -------------------------------------------------------------------------
    def new_watch(self, words: str = "") -> NewWatchDialog:
        self.dialog = NewWatchDialog(self.store, self, words=words if isinstance(words, str) else "")
        self.dialog.accepted.connect(self._created)
        self.dialog.open()
        return self.dialog

    def _created(self) -> None:
        created = self.dialog.created if self.dialog is not None else None
        self.refresh()
        if created is not None:
            self.select(created.name)

    def remove_selected(self) -> None:
        name = self.current_name()
        if not name:
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Remove watch",
                          f"Remove the watch \u201c{name}\u201d? Its articles stay.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.finished.connect(lambda _code, box=box, name=name: self._answered(box, name))
        self.confirm_box = box
        box.open()  # not exec(): the app goes on while the question waits

    def _answered(self, box: QMessageBox, name: str) -> None:
        self.confirm_box = None
        box.deleteLater()
        if box.clickedButton() is not box.button(QMessageBox.StandardButton.Yes):
            return
        self.store.remove_watch(name)
        feed_path(self.store.root, name).unlink(missing_ok=True)
        self.refresh()
        self.seenChanged.emit()
