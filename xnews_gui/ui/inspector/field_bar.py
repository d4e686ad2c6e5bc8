"""The field toolbar: one checkable button per thing to pick (links, fields, parts to remove)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QToolBar

from .draft import PICK_FIELDS

_TIPS = {
    "articles": "the links to article pages on a list page",
    "sections": "the menu links to the site's sections (list pages the crawl reads too)",
    "next": "the link to the next page of a list",
    "remove": "parts of the body to leave out (ads, related links)",
}


class FieldBar(QToolBar):
    """``actions_by_key[key]`` is the button's action; ``group`` allows one checked at a time (or none)."""

    def __init__(self, parent=None):
        super().__init__("Fields", parent)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        pick_label = QLabel(" Pick: ", self)
        pick_label.setStyleSheet("font-weight: bold;")
        self.addWidget(pick_label)
        self.group = QActionGroup(self)
        self.group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self.actions_by_key: dict[str, QAction] = {}
        for key, label in PICK_FIELDS:
            action = QAction(label, self)
            action.setCheckable(True)
            action.setData(key)
            what = _TIPS.get(key, f"the article's {label.lower()}")
            action.setToolTip(f"Pick mode for {label}: click {what} on the page "
                              "(\u2191/\u2193 widen/narrow, click a tinted match to reject it, Esc to stop)")
            self.group.addAction(action)
            self.addAction(action)
            self.actions_by_key[key] = action
            if key in ("next", "date"):
                self.addSeparator()
