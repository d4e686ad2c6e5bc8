"""A one-line label that never widens its row and, when its text is longer than its room, ends it with "…"
(the whole text in its tooltip; right-click › Copy copies it), instead of cutting a word in the middle at the
window's edge."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QGuiApplication, QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyle, QStyleOption


class ElidedLabel(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.copy_action = QAction("Copy", self)
        self.copy_action.triggered.connect(lambda: QGuiApplication.clipboard().setText(self.text()))
        self.addAction(self.copy_action)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        super().setText(text)
        self.setToolTip(text)

    def paintEvent(self, _event) -> None:  # noqa: N802
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_Widget, option, painter, self)  # the style sheet's
        self.style().drawItemText(painter, self.contentsRect(), int(self.alignment() | Qt.AlignmentFlag.AlignVCenter),
                                  self.palette(), self.isEnabled(), self.shown(), self.foregroundRole())

    def shown(self) -> str:
        """The text as painted: all of it on one line, or its start and "…"."""
        return self.fontMetrics().elidedText(" ".join(self.text().split()), Qt.TextElideMode.ElideRight,
                                             self.contentsRect().width())
