"""Before a retrain learns from them: the user's corrections that contradict the model in use.

A few corrections can move the topic of many similar articles (three were enough to label most
of a crawl "Kinh doanh"), so each is shown with what the model in use says, ticked; the user
unticks those it must not learn from. ``excluded()`` gives their article ids.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout,
)

from ..core.text.topics import display_name

COLUMNS = ("Learn", "Article", "The model in use says", "You said")


class CorrectionsDialog(QDialog):
    def __init__(self, corrections: list[dict], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Your corrections")
        self.corrections = corrections
        groups = Counter(c["user_label"] for c in corrections)
        biggest, n = groups.most_common(1)[0]
        intro = QLabel(
            f"<b>{len(corrections)} of your corrections contradict the model in use.</b> The new model will learn "
            f"from the ticked ones; a few corrections can move the topic of many similar articles"
            + (f" ({n} of them say {display_name(biggest)})" if n > 1 else "")
            + ". Untick those it should not learn from.", self)
        intro.setWordWrap(True)
        self.table = QTableWidget(len(corrections), len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for row, c in enumerate(corrections):
            tick = QTableWidgetItem()
            tick.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            tick.setCheckState(Qt.CheckState.Checked)
            tick.setData(Qt.ItemDataRole.UserRole, c["id"])
            self.table.setItem(row, 0, tick)
            title = QTableWidgetItem(" ".join(c["title"].split()))
            title.setToolTip(c["title"])
            self.table.setItem(row, 1, title)
            said = (f"{display_name(c['model_label'])} ({c['confidence']:.0%})" if c.get("model_label")
                    else f"no topic: {c.get('no_topic') or 'not sure enough'}")  # as the Articles list says
            self.table.setItem(row, 2, QTableWidgetItem(said))
            self.table.setItem(row, 3, QTableWidgetItem(display_name(c["user_label"])))
        self.buttons = QDialogButtonBox(self)
        self.train_button = self.buttons.addButton("Train", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addWidget(intro)
        box.addWidget(self.table, 1)
        box.addWidget(self.buttons)
        self.resize(760, 420)

    def excluded(self) -> list[int]:
        t = self.table
        return [t.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(t.rowCount())
                if t.item(r, 0).checkState() != Qt.CheckState.Checked]
