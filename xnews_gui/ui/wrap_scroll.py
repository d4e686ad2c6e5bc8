"""A scroll area whose content wraps its text to the area's width and is as tall as that needs.

QScrollArea lays its widget out at the widget's own minimum height, ignoring that wrapped labels
(a model card's long values) need more height when the area is narrow: rows then overlap or are cut.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QScrollArea


class WrapScroll(QScrollArea):
    def __init__(self, widget, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(widget)

    def fit(self) -> None:
        """Give the content the height its wrapped text needs at the width shown."""
        layout = self.widget().layout() if self.widget() is not None else None
        if layout is not None and layout.hasHeightForWidth():
            width = self.viewport().width()
            if self.verticalScrollBar().isHidden():  # it may show once the content is taller
                width -= self.verticalScrollBar().sizeHint().width()
            self.widget().setMinimumHeight(layout.totalHeightForWidth(max(1, width)))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.fit()
