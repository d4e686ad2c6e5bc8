"""The selected model beside the model that was in use when it was trained, on the same held-out
documents, and what using it would change in the stored articles."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView, QGroupBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout,
)

from ..services.model_registry import SHIPPED
from ..core.text.topics import display_name
from ..store.collation import topic_key

BETTER, WORSE, WARN = QColor("#1e7e34"), QColor("#b3261e"), "#b9770e"
MANY_CHANGES = 0.2  # a share of the stored articles whose topic a model would change: worth a warning


def model_name(version_id: str | None) -> str:
    return "the shipped model" if version_id in (None, "", SHIPPED) else f"model {version_id}"


def changes_text(changes: dict | None) -> tuple[str, bool]:
    """('Using it would change the topic of 262 of 434 stored articles: 240 to Kinh doanh, ...', many?)"""
    if not changes or not changes.get("articles"):
        return "", False
    changed, total = changes["changed"], changes["articles"]
    where = ", ".join(f"{n:,} to {display_name(label) or 'no topic'}" for label, n in list(changes["to"].items())[:3])
    text = (f"Using it would change the topic of {changed:,} of {total:,} stored articles"
            + (f": {where}" if where else "") + " (your corrections stay).")
    return text, changed > MANY_CHANGES * total


class ComparisonBox(QGroupBox):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 3, self)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.changes = QLabel(self)
        self.changes.setWordWrap(True)
        box = QVBoxLayout(self)
        box.addWidget(self.caption)
        box.addWidget(self.table, 1)
        box.addWidget(self.changes)
        self.show_for("", {})

    def show_for(self, title: str, card: dict) -> None:
        c = card.get("comparison") or {}
        other = model_name(c.get("in_use"))
        new, old = c.get("new"), c.get("in_use_scores")
        if not c:
            self.caption.setText(f"{title or 'This model'} was not compared with another model when it was made.")
        elif not (new and old):
            self.caption.setText(f"{title}: {c.get('note', 'no comparison')}.")
        else:
            left = (c.get("left_out") or {}).get("trained_on_by_in_use", 0)
            self.caption.setText(
                f"{title} and {other} (in use when it was trained), scored on the same {c['documents']:,} "
                f"held-out documents, none of which either was trained on: {c.get('held_out', '')}"
                + (f"; {left:,} that {other} was trained on are left out" if left else "") + ".")
        self.table.setHorizontalHeaderLabels(["", title or "This model", other.capitalize()])
        rows = []
        if new and old:
            rows = [("Accuracy", new["accuracy"], old["accuracy"]), ("Macro-F1", new["macro_f1"], old["macro_f1"])]
            for label in sorted(set(new.get("f1", {})) | set(old.get("f1", {})), key=topic_key):
                rows.append((f"F1 {display_name(label)}", new.get("f1", {}).get(label), old.get("f1", {}).get(label)))
        self.table.setRowCount(len(rows))
        for r, (name, a, b) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            for col, value, rival in ((1, a, b), (2, b, a)):
                item = QTableWidgetItem("–" if value is None else f"{value:.3f}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if value is not None and rival is not None and value != rival:
                    item.setForeground(QBrush(BETTER if value > rival else WORSE))
                    if r < 2:
                        font = QFont(item.font())
                        font.setBold(True)
                        item.setFont(font)
                self.table.setItem(r, col, item)
        self.table.setVisible(bool(rows))
        text, many = changes_text(card.get("store_changes"))
        self.changes.setText(text)
        self.changes.setStyleSheet(f"color: {WARN}; font-weight: 600;" if many else "")
        self.changes.setVisible(bool(text))

    def values(self) -> list[tuple[str, str, str]]:
        t = self.table
        return [tuple(t.item(r, c).text() for c in range(3)) for r in range(t.rowCount())]
