"""The blue bar offering the page's own metadata (og:title, JSON-LD...) as rules, in one click.

It sits under the rule list, not above the page: appearing must not move the address bar or the page
under the mouse.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from .draft import label_for


class SuggestBar(QWidget):
    useClicked = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.button = QPushButton("Use page metadata", self)
        self.button.clicked.connect(self.useClicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.setStyleSheet("QWidget { background: #e8f0fe; } QLabel { color: #174ea6; }")
        self.hide()

    def offer(self, suggestions: dict, have: set) -> None:
        """Show the suggestions for fields without a rule yet; hide when there is none."""
        offer = {k: r for k, r in suggestions.items() if k not in have}
        self.setVisible(bool(offer))
        if offer:
            self.label.setText(f"This page carries metadata for: {', '.join(label_for(k) for k in offer)}.")
            self.button.setToolTip("\n".join(f"{label_for(k)}: {r.selector}" for k, r in offer.items()))
