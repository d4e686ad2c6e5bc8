"""Crawl errors as a table (time, site, kind, URL, message), newest last, capped."""

from __future__ import annotations

import time

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

COLUMNS = ("Time", "Site", "Kind", "URL", "Message")


class ErrorTableModel(QAbstractTableModel):
    def __init__(self, parent=None, cap: int = 5000):
        super().__init__(parent)
        self.cap = cap
        self._rows: list[tuple] = []

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self._rows[index.row()][index.column()]
        return None

    def add(self, profile: str, errors: list[dict]) -> None:
        if not errors:
            return
        rows = [(time.strftime("%H:%M:%S", time.localtime(e.get("at", time.time()))), profile,
                 str(e.get("kind", "")), str(e.get("url", "")), str(e.get("message", ""))) for e in errors]
        rows = rows[-self.cap:]
        overflow = len(self._rows) + len(rows) - self.cap
        if overflow > 0:
            self.beginRemoveRows(QModelIndex(), 0, overflow - 1)
            del self._rows[:overflow]
            self.endRemoveRows()
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self._rows.clear()
        self.endResetModel()


def error_table(model: ErrorTableModel) -> QTableView:
    """The Errors tab's view: whole rows selected, one line each, the message taking the width left."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.verticalHeader().hide()
    view.setWordWrap(False)
    header = view.horizontalHeader()
    for col in range(len(COLUMNS) - 1):
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
    # widths from the font, not from the rows: sized to contents while the tab was hidden, the time, site and
    # kind columns stayed as narrow as their first rows ("21…", "tv…")
    text = view.fontMetrics().horizontalAdvance
    least = [text(sample) + 24 for sample in ("00:00:00", "a-site-profile", "extraction")]
    for col, width in enumerate(least):
        header.resizeSection(col, width)
    header.resizeSection(3, 320)

    def fit(_parent, first: int, last: int) -> None:  # a longer site name or kind widens its column, shown or
        for col in range(len(least)):                     # not (measured on the rows added only)
            widest = max(text(str(model.data(model.index(row, col)) or "")) for row in range(first, last + 1)) + 24
            if widest > header.sectionSize(col):
                header.resizeSection(col, widest)

    model.rowsInserted.connect(fit)
    return view
