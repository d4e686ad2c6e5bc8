"""The Classifier screen's list of models: every model kept, the one in use marked, Use and Remove."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from ..services.model_registry import SHIPPED, ModelVersion
from .classifier_tables import local_time

COLUMNS = ("Model", "Trained", "Held-out accuracy", "Beside the model in use, at training", "Training data")
ID_ROLE = Qt.ItemDataRole.UserRole


def comparison_text(card: dict) -> str:
    c = card.get("comparison") or {}
    new, old = c.get("new"), c.get("in_use_scores")
    if not new or not old:
        return c.get("note", "–") if c else "–"
    who = "shipped" if c.get("in_use") == SHIPPED else f"model {c.get('in_use')}"
    return f"{new['accuracy']:.3f} vs {old['accuracy']:.3f} ({who}) on {c['documents']:,} documents"


def training_text(card: dict) -> str:
    ts = card.get("training_set") or {}
    if not ts:
        return "–"
    return f"{ts.get('train_docs', 0):,} documents: {ts.get('source') or 'unknown'}"


class ModelList(QWidget):
    chosen = Signal(str)  # the selected model's id
    useRequested = Signal(str)
    removeRequested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.active_id = SHIPPED
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.itemSelectionChanged.connect(self._selected)
        self.use_button = QPushButton("Use this model", self)
        self.use_button.setToolTip("Crawls label new articles with the selected model from now on")
        self.use_button.clicked.connect(lambda: self.useRequested.emit(self.selected_id()))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setToolTip("Delete the selected model (not the one in use, not the shipped one)")
        self.remove_button.clicked.connect(lambda: self.removeRequested.emit(self.selected_id()))
        buttons = QHBoxLayout()
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.table, 1)
        box.addLayout(buttons)
        self._sync_buttons()

    def show_versions(self, versions: list[ModelVersion], active_id: str, select: str | None = None) -> None:
        keep = select or self.selected_id() or active_id
        self.active_id = active_id
        self.table.blockSignals(True)
        self.table.setRowCount(len(versions))
        for row, v in enumerate(reversed(versions)):  # newest first; the shipped model last
            accuracy = f"{v.accuracy:.3f}" if v.accuracy is not None else "–"
            name = v.title + ("  ● in use" if v.id == active_id else "")
            for col, text in enumerate((name, local_time(v.created) if v.created else "–", accuracy,
                                        comparison_text(v.card), training_text(v.card))):
                item = QTableWidgetItem(text)
                item.setData(ID_ROLE, v.id)
                if v.id == active_id:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                if col == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    item.setToolTip(((v.card.get("metrics") or {}).get("on") or "held-out documents")
                                    if v.card else "")
                if col == 3:
                    item.setToolTip("Both models scored on the same held-out documents, none of which either "
                                    "was trained on")
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)
        self.select(keep)
        self._sync_buttons()  # the selected row may be the same as before, with another model in use

    def select(self, version_id: str) -> None:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(ID_ROLE) == version_id:
                self.table.selectRow(row)
                return
        if self.table.rowCount():
            self.table.selectRow(0)

    def selected_id(self) -> str:
        rows = self.table.selectionModel().selectedRows()
        return self.table.item(rows[0].row(), 0).data(ID_ROLE) if rows else ""

    def row_of(self, version_id: str) -> int:
        return next((r for r in range(self.table.rowCount()) if self.table.item(r, 0).data(ID_ROLE) == version_id), -1)

    def _selected(self) -> None:
        self._sync_buttons()
        if self.selected_id():
            self.chosen.emit(self.selected_id())

    def _sync_buttons(self) -> None:
        chosen = self.selected_id()
        self.use_button.setEnabled(bool(chosen) and chosen != self.active_id)
        self.remove_button.setEnabled(bool(chosen) and chosen not in (self.active_id, SHIPPED))
