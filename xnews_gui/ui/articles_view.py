"""The Articles tab: filters and search over the results table, the reader beside it, export."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.topics import display_name
from ..store import Store
from ..store.collation import vi_sorted
from ..store.queries import UNCATEGORIZED, ArticleFilter
from . import workers
from .article_model import ID_ROLE, ArticleTableModel
from .reader import ReaderView
from .settings import Preferences

DATE_CHOICES = [("Any date", None), ("Today", 1), ("Past 7 days", 7), ("Past 30 days", 30), ("Past year", 365)]
COLUMN_WIDTHS = [60, 300, 150, 0, 0, 48]  # Category fits "Chính trị Xã hội (93%)"; 0: a date, measured
EXPORT_FOLDER = "export/folder"  # QSettings: where the last export went


class ArticlesView(QWidget):
    statusMessage = Signal(str)

    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.data_dir = store.root
        self.model = ArticleTableModel(store, self)

        self.search = QLineEdit(placeholderText="Search title, summary and text…  (Ctrl+F)", clearButtonEnabled=True)
        self.search.setMinimumWidth(90)  # leaves room for the filters at the window's smallest
        self.site = QComboBox(toolTip="Site")
        self.category = QComboBox(toolTip="Topic")
        self.date = QComboBox(toolTip="Published (or fetched) within")
        for label, days in DATE_CHOICES:
            self.date.addItem(label, days)
        self.unread = QCheckBox("Unread")
        self.starred = QCheckBox("Starred")
        self.one_per_story = QCheckBox("1 per story", toolTip="Hide near-duplicates: only the first stored copy of "
                                       "each story shows (a title's tooltip counts its sources)")
        self.count = QLabel()
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bar = QHBoxLayout()
        bar.addWidget(self.search, 3)
        for w in (self.site, self.category, self.date):
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(9)
            bar.addWidget(w)
        bar.addWidget(self.unread)
        bar.addWidget(self.starred)
        bar.addWidget(self.one_per_story)
        bar.addWidget(self.count, 1)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # never measure 100k rows
        bold = QFont(self.table.font())
        bold.setBold(True)  # unread rows are bold
        date_width = QFontMetrics(bold).horizontalAdvance("2026-11-28 14:55") + 14
        for col, width in enumerate(COLUMN_WIDTHS):
            header.resizeSection(col, width or date_width)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSortIndicator(4, Qt.SortOrder.DescendingOrder)

        self.reader = ReaderView(store, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.reader)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([840, 440])  # the Title column gets ~300 px at the default window size

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.splitter, 1)

        self._search_timer = QTimer(self, singleShot=True, interval=250)
        self._search_timer.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        for combo in (self.site, self.category, self.date):
            combo.currentIndexChanged.connect(self.apply_filter)
        self.unread.toggled.connect(self.apply_filter)
        self.starred.toggled.connect(self.apply_filter)
        self.one_per_story.toggled.connect(self.apply_filter)
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
                             hide_duplicates=self.one_per_story.isChecked())

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
        self.count.setText(f"{n:,} article{'s' if n != 1 else ''}")

    # --- export -----------------------------------------------------------------------------------
    def export(self) -> None:
        from ..export import FORMATS

        ids = self.selected_ids()
        if len(ids) < 2:
            ids = self.model.all_ids()
        if not ids:
            QMessageBox.information(self, "Export", "There are no articles to export with the current filter.")
            return
        filters = ";;".join(FORMATS.values())
        start = str(export_folder() / "xnews-export.epub")
        path, chosen = QFileDialog.getSaveFileName(self, f"Export {len(ids):,} articles", start,
                                                   filters, FORMATS["epub"])
        if not path:
            return
        QSettings().setValue(EXPORT_FOLDER, str(Path(path).parent))
        fmt = next((k for k, v in FORMATS.items() if v == chosen), "jsonl")
        self.export_to(ids, fmt, Path(path))

    def export_to(self, ids: list[int], fmt: str, path: Path) -> workers.Worker:
        from ..export import export_articles

        def job() -> Path:
            return export_articles(self.store.articles_for_export(ids), fmt, path, self.store)

        self.statusMessage.emit(f"Exporting {len(ids):,} articles…")
        return workers.run_in_background(
            job,
            on_result=lambda p: self.statusMessage.emit(f"Exported {len(ids):,} articles to {p}"),
            on_error=lambda msg: QMessageBox.warning(self, "Export failed", msg),
        )


def export_folder() -> Path:
    """Where the export dialog opens: the last export's folder, else Documents, else home (never
    the folder the app happened to be started from)."""
    last = QSettings().value(EXPORT_FOLDER, "")
    if last and Path(str(last)).is_dir():
        return Path(str(last))
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()
