"""The confidence floor: what each floor trades (share of articles labelled vs their accuracy, from the
model's card when it has that table) and the floor the user chooses for every model.

An article the model is less sure of than the floor gets no topic ("—"). The choice is kept with the
data folder's models (``Registry.set_floor``): crawls use it from then on, a re-classification
applies it to the stored articles.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QDoubleSpinBox, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget,
    QStyle, QTableWidgetItem, QVBoxLayout,
)

OWN = -0.05  # the spin box's special value: each model's own floor


def floor_rows(card: dict) -> list[tuple[float, float, float | None]]:
    """(floor, coverage, accuracy of the labelled) rows of the card's ``confidence_floor.table`` (measured
    on held-out documents at training), by floor; [] when the card has none (a model trained before)."""
    entry = card.get("confidence_floor")
    table = entry.get("table") if isinstance(entry, dict) else None
    rows = []
    for row in table if isinstance(table, list) else []:
        if not isinstance(row, dict):
            continue
        floor, coverage, accuracy = row.get("floor"), row.get("coverage"), row.get("accuracy")
        if isinstance(floor, (int, float)) and isinstance(coverage, (int, float)):
            rows.append((float(floor), float(coverage), float(accuracy) if isinstance(accuracy, (int, float))
                         else None))
    return sorted(rows)


class FloorBox(QGroupBox):
    floorChosen = Signal(object)  # a float, or None for each model's own floor

    def __init__(self, parent=None):
        super().__init__("Confidence floor", parent)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(("Floor", "Articles labelled", "Accuracy of those"))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setToolTip("Click a row to choose its floor")
        self.table.cellClicked.connect(lambda row, _col: self.spin.setValue(float(self.table.item(row, 0).text())))
        self.spin = QDoubleSpinBox(self, minimum=OWN, maximum=0.95, singleStep=0.05, decimals=2)
        self.spin.setToolTip("Articles the model is less sure of get no topic")
        self.apply_button = QPushButton("Apply", self)
        self.apply_button.clicked.connect(self._apply)
        row = QHBoxLayout()
        row.addWidget(QLabel("Floor for every model:", self))
        row.addWidget(self.spin)
        row.addWidget(self.apply_button)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.addWidget(self.note)
        box.addWidget(self.table, 1)
        box.addLayout(row)
        self.show_for({}, None)

    def show_for(self, card: dict, chosen: float | None) -> None:
        """The model in use's card (its own floor, its table) and the user's floor (None: the model's)."""
        own = card.get("confidence_floor") if isinstance(card.get("confidence_floor"), dict) else {}
        own_value = own.get("value")
        self.spin.setSpecialValueText(f"the model's own ({own_value:.2f})" if isinstance(own_value, (int, float))
                                      else "the model's own")
        # the box is sized before its special text is known: wide enough for it and its arrows
        self.spin.setMinimumWidth(self.spin.fontMetrics().horizontalAdvance(self.spin.specialValueText() + "  ")
                                  + self.spin.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent) + 16)
        self.spin.setValue(OWN if chosen is None else chosen)
        rows = floor_rows(card)
        self.table.setRowCount(len(rows))
        for r, (floor, coverage, accuracy) in enumerate(rows):
            for c, text in enumerate((f"{floor:.2f}", f"{coverage:.1%}", "–" if accuracy is None else f"{accuracy:.1%}")):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self.table.setVisible(bool(rows))
        using = "the model's own floor" if chosen is None else f"{chosen:.2f}, chosen by you"
        self.note.setText(f"In use: {using}. Articles the model is less sure of get no topic (—). "
                          + (f"Each floor below, on {own.get('on') or 'held-out documents'}: the share of them "
                             "that get a topic, and how many of those are right." if rows else
                             "This model's card has no table of what each floor trades."))

    def value(self) -> float | None:
        return None if self.spin.value() <= OWN + 1e-9 else round(self.spin.value(), 2)

    def _apply(self) -> None:
        self.floorChosen.emit(self.value())
