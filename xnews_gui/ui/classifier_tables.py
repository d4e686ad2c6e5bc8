"""The Classifier screen's tables: per-class scores, the confusion heat map, stored topics; the model card."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ..core.text.topics import display_name
from ..store.collation import topic_key

SCORE_COLUMNS = ("Topic", "Precision", "Recall", "F1", "Support")


def short_name(label: str) -> str:
    """Column header for the heat map: initials of a multi-word topic ("Thể thao" -> "TT")."""
    words = display_name(label).split()
    return "".join(w[0] for w in words).upper() if len(words) > 1 else label[:4]


def local_time(stamp: str) -> str:
    """'2026-11-29T20:10:33+00:00' -> '2026-11-29 21:10' in the local time zone; other text as it is."""
    try:
        return datetime.fromisoformat(str(stamp)).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return str(stamp)


class ConfusionHeatMap(QTableWidget):
    """Rows: true topic; columns: predicted. Shade = share of the row (recall view), text = count."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(28)
        self.verticalHeader().setMinimumSectionSize(18)
        self.setShowGrid(False)

    def set_matrix(self, labels: list[str], matrix: list[list[int]]) -> None:
        labels = [display_name(x) for x in labels]
        self.clear()
        self.setRowCount(len(labels))
        self.setColumnCount(len(labels))
        self.setVerticalHeaderLabels(labels)
        self.setHorizontalHeaderLabels([short_name(x) for x in labels])
        for j, label in enumerate(labels):
            self.horizontalHeaderItem(j).setToolTip(f"predicted: {label}")
        for i, row in enumerate(matrix):
            total = sum(row) or 1
            for j, n in enumerate(row):
                share = n / total
                item = QTableWidgetItem(str(n) if n else "")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(f"true {labels[i]}, predicted {labels[j]}: {n} ({share:.1%} of {labels[i]})")
                base = QColor(46, 125, 50) if i == j else QColor(198, 40, 40)
                strength = share if i == j else min(1.0, share * 4)  # make small confusions visible
                color = QColor(255 - int((255 - base.red()) * strength), 255 - int((255 - base.green()) * strength),
                               255 - int((255 - base.blue()) * strength))
                item.setBackground(QBrush(color))
                item.setForeground(QBrush(QColor("white") if strength > 0.55 else QColor("black")))
                self.setItem(i, j, item)


class ScoresTable(QTableWidget):
    """Precision, recall, F1 and support per topic, then the micro and macro averages in bold."""

    def __init__(self, parent=None):
        super().__init__(0, len(SCORE_COLUMNS), parent)
        self.setHorizontalHeaderLabels(SCORE_COLUMNS)
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(SCORE_COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

    def show_scores(self, m: dict) -> None:
        """``m``: a model card's metrics (per_class, micro, macro)."""
        rows = list(m.get("per_class", []))
        averages = [("micro avg", m.get("micro")), ("macro avg", m.get("macro"))]
        self.setRowCount(len(rows) + sum(1 for _, a in averages if a))
        r = 0
        for row in rows:
            self._row(r, display_name(row["label"]), row["precision"], row["recall"], row["f1"], row["support"])
            r += 1
        total = sum(row["support"] for row in rows)
        for name, avg in averages:
            if avg:
                self._row(r, name, avg["precision"], avg["recall"], avg["f1"], total, bold=True)
                r += 1
        self._fit()

    def _fit(self) -> None:
        """Never clip a row or the topic names: the table asks for the room its rows need."""
        frame = 2 * self.frameWidth()
        rows = sum(self.rowHeight(r) for r in range(self.rowCount()))
        self.setMinimumHeight(self.horizontalHeader().sizeHint().height() + rows + frame)
        others = sum(self.horizontalHeader().sectionSizeHint(c) for c in range(1, self.columnCount()))
        others = max(others, sum(self.sizeHintForColumn(c) for c in range(1, self.columnCount())))
        self.setMinimumWidth(max(self.sizeHintForColumn(0), 120) + others + frame + 4)

    def _row(self, r, label, p, rec, f1, support, bold=False) -> None:
        values = [label, f"{p:.3f}", f"{rec:.3f}", f"{f1:.3f}", str(support)]
        for c, text in enumerate(values):
            item = QTableWidgetItem(text)
            if c:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.setItem(r, c, item)


def fill_counts(table: QTableWidget, counts: list[tuple[str, int]], model_labels, hidden: set[str]) -> None:
    """Stored articles per topic (the model's topics and hidden ones included at 0), most first,
    with a "hide" check box each; the rows carry the internal label in UserRole."""
    merged = {label: 0 for label in model_labels}
    for label, n in counts:
        merged[label] = merged.get(label, 0) + int(n)
    for name in hidden:
        merged.setdefault(name, 0)
    table.setRowCount(len(merged))
    for r, (label, n) in enumerate(sorted(merged.items(), key=lambda kv: (-kv[1], topic_key(kv[0])))):
        name = QTableWidgetItem(display_name(label))
        name.setData(Qt.ItemDataRole.UserRole, label)
        if display_name(label) != label:
            name.setToolTip(f"label: {label}")
        table.setItem(r, 0, name)
        count = QTableWidgetItem(str(n))
        count.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        table.setItem(r, 1, count)
        check = QTableWidgetItem("hide")
        check.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        check.setCheckState(Qt.CheckState.Checked if label in hidden else Qt.CheckState.Unchecked)
        check.setData(Qt.ItemDataRole.UserRole, label)
        check.setToolTip(f"Hide articles about {display_name(label)} (not interested)")
        table.setItem(r, 2, check)
