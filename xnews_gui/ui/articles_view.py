"""The Articles tab: filters and search over the results table, the reader beside it, export."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, QUrl, Qt, QTimer, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QSplitter, QVBoxLayout,
    QWidget,
)

from ..core.text.topics import display_name
from ..store import Store
from ..store.collation import vi_sorted
from ..store.queries import UNCATEGORIZED, ArticleFilter
from ..store.repo import search_terms
from . import workers
from .article_export import ArticleExport
from .article_menu import ArticleMenu
from .article_model import COLUMNS, ID_ROLE, ArticleTableModel
from .article_table import ArticleTable
from .reader import ReaderView
from .settings import Preferences
from .watches_view import WatchesPanel

DATE_CHOICES = [("Any date", None), ("Today", 1), ("Past 7 days", 7), ("Past 30 days", 30), ("Past year", 365)]
SORT_SETTING = "articles/sort"  # QSettings: "column order" of the table's sort, kept across restarts
READER_MIN_CHARS = 36  # the reader's narrowest: its toolbar and the topic box stay whole
DEFAULT_SPLIT = [840, 440]  # table and reader (in proportion on a smaller window)


class ArticlesView(QWidget):
    statusMessage = Signal(str)

    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.data_dir = store.root
        self.model = ArticleTableModel(store, self)
        self.exporter = ArticleExport(self)

        self.search = QLineEdit(placeholderText="Search title, summary and text…  (Ctrl+F)", clearButtonEnabled=True,
                                toolTip="Every word must occur (with or without accents)\n\"a phrase\": these words "
                                        "in this order\n-word or -\"a phrase\": without it\ntitle:word, "
                                        "summary:word, text:word: in that part")
        self.search.setMinimumWidth(60)  # leaves room for the filters at the window's smallest
        self.site = QComboBox(toolTip="Site")
        self.category = QComboBox(toolTip="Topic")
        self.date = QComboBox(toolTip="Published (or fetched) within")
        for label, days in DATE_CHOICES:
            self.date.addItem(label, days)
        self.unread = QCheckBox("Unread")
        self.starred = QCheckBox("Starred")
        self.one_per_story = QCheckBox("1 per story", toolTip="Hide near-duplicates: only the first stored copy of "
                                       "each story shows (a title's tooltip counts its sources)")
        # a box like the other filters (a lone ✕ read as "clear the filters" and emptied the list unexplained)
        self.removed = QCheckBox("Removed", toolTip="Only the articles their source removed (kept here, readable; "
                                 "marked ✕ in the Status column)")
        self.count = QLabel()
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # the count may be cut on a small screen (the tab's title says it too); the filters may not
        self.count.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar = QHBoxLayout()
        bar.addWidget(self.search, 3)
        for w in (self.site, self.category, self.date):
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(7)
            bar.addWidget(w)
        bar.addWidget(self.unread)
        bar.addWidget(self.starred)
        bar.addWidget(self.one_per_story)
        bar.addWidget(self.removed)
        bar.addWidget(self.count, 1)

        self.table = ArticleTable(self.model)
        self.table.customContextMenuRequested.connect(self._row_menu)
        self._restore_sort()

        self.reader = ReaderView(store, self)
        self.reader.setMinimumWidth(self.fontMetrics().averageCharWidth() * READER_MIN_CHARS)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.reader)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        for i in range(2):
            self.splitter.setCollapsible(i, False)
        self.splitter.setSizes(DEFAULT_SPLIT)  # the Title column gets ~300 px at the default window size
        self.table.setMinimumWidth(self.table.horizontalHeader().sectionSize(0) + self.table.title_minimum()
                                   + self.table.verticalScrollBar().sizeHint().width())

        self.watches = WatchesPanel(store)  # saved searches and their own lists (ui/watches_view.py)
        self.watches.hide()  # shown by the window's ★ Watches button
        self.watches.articleChosen.connect(self.reader.show_article)
        self.watch_split = QSplitter(Qt.Orientation.Horizontal)
        self.watch_split.addWidget(self.watches)
        self.watch_split.addWidget(self.splitter)
        self.watch_split.setStretchFactor(1, 1)
        self.watch_split.setCollapsible(1, False)

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.watch_split, 1)

        self._search_timer = QTimer(self, singleShot=True, interval=250)
        self._search_timer.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        for combo in (self.site, self.category, self.date):
            combo.currentIndexChanged.connect(self.apply_filter)
        self.unread.toggled.connect(self.apply_filter)
        self.starred.toggled.connect(self.apply_filter)
        self.one_per_story.toggled.connect(self.apply_filter)
        self.removed.toggled.connect(self.apply_filter)
        self._to_open: int | None = None  # an article asked for from elsewhere, selected once the list has it
        # A mouse press makes the row current *before* it selects it: act once both have happened.
        self._open_timer = QTimer(self, singleShot=True, interval=0)
        self._open_timer.timeout.connect(self.show_current)
        selection = self.table.selectionModel()
        selection.currentRowChanged.connect(lambda *_: self._open_timer.start())
        selection.selectionChanged.connect(lambda *_: self._open_timer.start())
        self.table.activated.connect(self.open_row)  # Enter, double-click
        self.table.clicked.connect(self.open_row)  # also a click on the row that is already current
        self.model.loaded.connect(self._loaded)
        self.model.rowsArrived.connect(lambda _n: self._show_count())
        self.reader.articleChanged.connect(self._article_changed)
        self.reader.statusMessage.connect(self.statusMessage)
        self.table.horizontalHeader().sortIndicatorChanged.connect(self._save_sort)
        self.reader.nextRequested.connect(lambda: self.step(1))
        self.reader.previousRequested.connect(lambda: self.step(-1))

        self.refresh_choices()
        self.model.reload()

    # --- filters -----------------------------------------------------------------------
    def refresh_choices(self) -> None:
        """Re-read the site and category lists (after a crawl or a profile change)."""
        self._fill(self.site, "All sites", [(p, p) for p in self.store.distinct_values("profile")])
        cats = vi_sorted(((display_name(c), c) for c in self.store.distinct_values("category")), key=lambda p: p[0])
        cats.append(("(no topic)", UNCATEGORIZED))
        self._fill(self.category, "All topics", cats)

    @staticmethod
    def _fill(combo: QComboBox, all_label: str, items) -> None:
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem(all_label, None)
        for label, value in items:
            combo.addItem(label, value)
        index = combo.findData(current)
        combo.setCurrentIndex(max(0, index))
        combo.blockSignals(False)

    def current_filter(self) -> ArticleFilter:
        return ArticleFilter(profile=self.site.currentData(), category=self.category.currentData(),
                             since_days=self.date.currentData(), unread_only=self.unread.isChecked(),
                             starred_only=self.starred.isChecked(), text=self.search.text().strip(),
                             hide_duplicates=self.one_per_story.isChecked(), gone_only=self.removed.isChecked())

    def apply_filter(self) -> None:
        self.model.set_filter(self.current_filter())
        self.count.setText("searching…")

    def add_articles(self, ids: list[int]) -> None:
        self.model.add_articles(ids)

    # --- selection and navigation ---------------------------------------------------------
    def show_current(self) -> None:
        """Show the current row in the reader when it is selected.

        Focusing the table makes its first row current without selecting it: that opens (and marks
        read) nothing; a click, Enter, the arrow keys or J / K select the row they make current."""
        current = self.table.currentIndex()
        if current.isValid() and self.table.selectionModel().isRowSelected(current.row(), QModelIndex()):
            self._open(current.data(ID_ROLE))

    def open_row(self, index: QModelIndex) -> None:
        """Open this row whatever the selection says (a click, a double-click, Enter)."""
        if not index.isValid():
            return
        selection = self.table.selectionModel()
        if not selection.isRowSelected(index.row(), QModelIndex()):
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                      | QItemSelectionModel.SelectionFlag.Rows)
        self._open(index.data(ID_ROLE))

    def _open(self, article_id: int | None) -> None:
        if article_id is not None and article_id != self.reader.asked_id:
            self.reader.show_article(article_id, mark_read=Preferences.load().mark_read_on_open)

    def open_article(self, article_id: int) -> None:
        """Show an article asked for from elsewhere (a crawl card's "Open in reader"): its row is selected
        and the reader follows it, so J / K go on from there. A filter or search that leaves it out is
        cleared first (the status line says so)."""
        row = self.model.row_of(article_id)
        if row >= 0 and not self.model.is_loading():
            self._select_row(row)
            return
        self._to_open = article_id
        if self.current_filter() != ArticleFilter() or row < 0:
            if self.current_filter() != ArticleFilter():
                self.statusMessage.emit("Filters cleared to show the article asked for.")
            self._clear_filters()
            self.model.reload()

    def _clear_filters(self) -> None:
        widgets = (self.search, self.site, self.category, self.date, self.unread, self.starred, self.one_per_story,
                   self.removed)
        for w in widgets:
            w.blockSignals(True)
        self._search_timer.stop()
        self.search.clear()
        for combo in (self.site, self.category, self.date):
            combo.setCurrentIndex(0)
        for box in (self.unread, self.starred, self.one_per_story, self.removed):
            box.setChecked(False)
        for w in widgets:
            w.blockSignals(False)
        self.model.set_filter(self.current_filter())

    def _select_row(self, row: int) -> None:
        self.model.show_through(row)
        index = self.model.index(row, 1)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)
        self._open(self.model.article_id(row))

    def step(self, delta: int) -> None:
        """Next (+1) or previous (-1) article."""
        current = self.table.currentIndex()
        row = current.row()
        if row < 0:
            target = 0
        elif not self.table.selectionModel().isRowSelected(row, QModelIndex()):
            target = row  # current only because the table got the focus: show that one first
        else:
            target = row + delta
        if target >= 0 and self.model.show_through(target):
            index = self.model.index(target, 1)
            self.table.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            self.table.scrollTo(index)
            self.show_current()

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.model.article_id(r) for r in rows if self.model.article_id(r) is not None]

    def _article_changed(self, article_id: int) -> None:
        self.model.refresh_article(article_id)

    def _loaded(self, total: int) -> None:
        self._show_count()
        if self._to_open is not None:
            wanted, self._to_open = self._to_open, None
            row = self.model.row_of(wanted)
            if row >= 0:
                self._select_row(row)
                return
            self.reader.show_article(wanted)  # not in any list (a hidden topic): shown alone
            self.statusMessage.emit("That article's topic is hidden (Classifier tab): it is shown, not listed.")
            return
        shown = self.reader.article
        if shown is None:
            if self.model.rowCount() and not self.table.currentIndex().isValid():
                self.reader.clear("Select an article to read it here.  J / K: next / previous")
            return
        row = self.model.row_of(shown["id"])
        if row < 0:  # the new search or filter excludes it: the reader follows the list
            self.reader.clear("The article you were reading is not in the list now.  J / K: next / previous")
            return
        self.model.show_through(row)
        index = self.model.index(row, 1)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def _show_count(self) -> None:
        n = self.model.total()
        text = f"{n:,} article{'s' if n != 1 else ''}"
        typed = self.search.text().strip()
        if typed and not any(search_terms(typed)):  # "(" or a bare "title:": nothing to look for, said so
            why = f"“{typed[:40]}” has no word to search for: type a word (after title:, summary: or text: too)"
            self.count.setText("no word")
            self.count.setToolTip(why)
            self.reader.clear(why)
            return
        fits = self.count.fontMetrics().horizontalAdvance(text) <= self.count.width()
        self.count.setText(text if fits else f"{n:,}")  # a small screen: the number alone
        self.count.setToolTip(text)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if not self.model.is_loading():
            self._show_count()

    # --- layout kept across restarts -----------------------------------------------------------------
    def layout_state(self):
        """The splitter's state to keep, or None when the table is too narrow to show every column
        readable (such a state is not kept: the next start has the default split)."""
        return self.splitter.saveState() if self.splitter.sizes()[0] >= self.table.readable_width() else None

    def restore_layout(self, state) -> None:
        if state is None or not self.splitter.restoreState(state) \
                or self.splitter.sizes()[0] < self.table.readable_width():
            self.splitter.setSizes(DEFAULT_SPLIT)

    # --- row menu, sort ----------------------------------------------------------------------------
    def _row_menu(self, pos) -> None:
        index = self.table.indexAt(pos)
        if not index.isValid():
            return
        selection = self.table.selectionModel()
        if not selection.isRowSelected(index.row(), QModelIndex()):  # a right click on another row: that one,
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                      | QItemSelectionModel.SelectionFlag.Rows)
            self._open_timer.stop()  # selected, not opened (nor marked read)
        rows = [r for r in (self.model.article_row(i.row()) for i in selection.selectedRows()) if r]
        if not rows:
            return
        labels = [self.category.itemData(i) for i in range(self.category.count())
                  if self.category.itemData(i) not in (None, UNCATEGORIZED)]
        self.row_menu = ArticleMenu(self, [r["id"] for r in rows], rows, labels)
        self.row_menu.popup(self.table.viewport().mapToGlobal(pos))

    def open_id(self, article_id: int) -> None:
        self._open(article_id)

    def open_original(self, url: str) -> None:
        if self.reader.article is not None and self.reader.article["url"] == url:
            self.reader.open_original()
        elif url.startswith(("http://", "https://")) and QDesktopServices.openUrl(QUrl(url)):
            self.statusMessage.emit(f"Opened the original in your browser: {url}")
        else:
            self.statusMessage.emit(f"Could not open {url}")

    def _restore_sort(self) -> None:
        """The sort the user chose last time (the newest fetched first, the first time)."""
        column, order = 4, Qt.SortOrder.DescendingOrder
        try:
            saved_column, saved_order = (int(x) for x in str(QSettings().value(SORT_SETTING, "")).split())
            if 0 <= saved_column < len(COLUMNS) and saved_order in (0, 1):
                column, order = saved_column, Qt.SortOrder(saved_order)
        except ValueError:
            pass
        self.table.horizontalHeader().setSortIndicator(column, order)
        self.model.sort(column, order)

    def _save_sort(self, column: int, order) -> None:
        QSettings().setValue(SORT_SETTING, f"{column} {Qt.SortOrder(order).value}")

    # --- export (ui/article_export.py) -------------------------------------------------------------
    def export(self) -> None:
        """Export (Ctrl+E): the selected articles or all the listed ones, as the user says."""
        self.exporter.ask()

    def export_ids(self, ids: list[int]) -> None:
        """Export these articles: the file dialog, then the export in a worker."""
        self.exporter.choose_file(ids)

    def export_to(self, ids: list[int], fmt: str, path: Path) -> workers.Worker:
        return self.exporter.run(ids, fmt, path)
