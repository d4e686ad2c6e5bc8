"""The Articles table's view: column widths that keep every column readable, and a highlighted row that
stays where it is on screen while a crawl inserts rows above it.

The Title column takes the width the other columns leave, never less than ``title_minimum()``
(about 24 characters): a narrow table scrolls sideways instead of showing "…" for every title. The
widths are the view's own (not kept across restarts: a width that made a column unreadable cannot
come back).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

TITLE = 1
TITLE_CHARS = 24
TITLE_SAMPLE = "Quốc hội yêu cầu đẩy mạnh"  # a headline's letters: measured, not averaged


class ArticleTable(QTableView):
    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSortingEnabled(True)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._fitting = False
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # never measure 100k rows
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(self.fontMetrics().averageCharWidth() * 4)
        self.set_default_widths()
        header.sectionResized.connect(self._section_resized)
        self._anchor: tuple[int, int] | None = None  # (current row, rows inserted above it) during an insert
        model.rowsAboutToBeInserted.connect(self._before_insert)
        model.rowsInserted.connect(self._after_insert)

    def set_default_widths(self) -> None:
        """Site, Topic (fits "Kinh doanh (93%)": a longer topic shows whole in its tooltip), two dates
        (bold: unread rows) and Status, in
        characters of the table's font, so a larger font gets wider columns."""
        bold = QFont(self.font())
        bold.setBold(True)
        metrics = QFontMetrics(bold)
        date = metrics.horizontalAdvance("2026-11-28 14:55") + 14
        widths = {0: metrics.horizontalAdvance("vnexpress") + 10,
                  2: metrics.horizontalAdvance("Kinh doanh (93%)") + 12, 3: date, 4: date,
                  5: metrics.horizontalAdvance("★ new") + 14}
        for column, width in widths.items():
            self.horizontalHeader().resizeSection(column, width)
        self.fit_title()

    def title_minimum(self) -> int:
        """24 characters of a headline in bold (an unread row), not 24 average characters: those showed
        17-19 of a Vietnamese title."""
        bold = QFont(self.font())
        bold.setBold(True)
        return QFontMetrics(bold).horizontalAdvance(TITLE_SAMPLE[:TITLE_CHARS] + "…") + 8

    def others_width(self) -> int:
        header = self.horizontalHeader()
        return sum(header.sectionSize(c) for c in range(header.count()) if c != TITLE and not header.isSectionHidden(c))

    def readable_width(self) -> int:
        """The narrowest the table can be with every column readable and no sideways scrolling."""
        return self.others_width() + self.title_minimum() + self.verticalScrollBar().sizeHint().width() \
            + 2 * self.frameWidth()

    def fit_title(self) -> None:
        """The Title column takes what the others leave, at least ``title_minimum()``."""
        if self._fitting:
            return
        self._fitting = True
        try:
            room = self.viewport().width() - self.others_width()
            self.horizontalHeader().resizeSection(TITLE, max(self.title_minimum(), room))
        finally:
            self._fitting = False

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        if column != TITLE:
            self.fit_title()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit_title()

    # --- the highlighted row stays put while rows arrive -----------------------------------------------
    def _before_insert(self, parent: QModelIndex, first: int, last: int) -> None:
        current = self.currentIndex()
        if parent.isValid() or not current.isValid() or first > current.row():
            self._anchor = None
            return
        shown = self.viewport().rect().intersects(self.visualRect(current))
        self._anchor = (current.row(), last - first + 1) if shown else None

    def _after_insert(self, parent: QModelIndex, first: int, last: int) -> None:
        if self._anchor is None:
            return
        _row, above = self._anchor
        self._anchor = None
        self.updateGeometries()  # the scroll bar's range grows now, not at the next layout
        bar = self.verticalScrollBar()
        if self.verticalScrollMode() == QAbstractItemView.ScrollMode.ScrollPerItem:
            bar.setValue(bar.value() + above)
        else:
            bar.setValue(bar.value() + above * self.verticalHeader().defaultSectionSize())
