"""On a crawl card: the fields whose values stopped looking right, and the pages where they failed.

"⚠ body degraded on 7 of the last 30 pages" (a warning, amber); a click on it shows the failing
URLs; a URL row opens in the reader (double-click or "Open in reader"), "Open in Sites" shows the
page in the inspector to repair the rule, "Copy URLs" puts the selected (else all) URLs on the
clipboard. The numbers come from the crawl summary: ``degraded_fields`` {field: [urls]},
``degraded_counts`` {field: [failed, checked]} and ``fallbacks`` (core/profile/verify.py, crawl/stats.py).
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QLabel, QListWidget, QPushButton, QStyle, QToolButton, QVBoxLayout, QWidget,
)

WARN = "#b9770e"


def degraded_lines(summary: dict) -> dict[str, str]:
    """field -> "body degraded on 7 of the last 30 pages" (the words the card and the Sites list use)."""
    counts = summary.get("degraded_counts") or {}
    out = {}
    for name, urls in (summary.get("degraded_fields") or {}).items():
        failed, checked = (counts.get(name) or [len(urls), 0])[:2]
        out[name] = (f"{name} degraded on {failed} of the last {checked} pages" if checked
                     else f"{name} degraded on {failed} recent page{'s' if failed != 1 else ''}")
    return out


def last_crawl_notes(store) -> dict[str, str]:
    """profile -> "Last crawl (2026-12-01 09:10): body degraded on 7 of the last 30 pages", for the
    profiles whose latest crawl found degraded fields (the Sites tab marks them)."""
    from .run_history import local_time

    notes = {}
    for name, run in store.last_runs().items():
        try:
            summary = json.loads(run.stats_json or "{}")
        except ValueError:
            continue
        lines = degraded_lines(summary) if isinstance(summary, dict) else {}
        if lines:
            notes[name] = f"Last crawl ({local_time(run.started)}): " + "; ".join(lines.values())
    return notes


def mark_degraded_items(profiles: QListWidget, notes: dict[str, str]) -> None:
    """In a list of profile names: a warning icon, amber text and the note as tooltip where there is a note."""
    warn = profiles.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
    for row in range(profiles.count()):
        item = profiles.item(row)
        if notes.get(item.text()):
            item.setIcon(warn)
            item.setForeground(QColor(WARN))
            item.setToolTip(notes[item.text()])


class ProfileHealth(QLabel):
    """Under the Sites list: the selected profile's last crawl, when fields degraded in it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.notes: dict[str, str] = {}  # profile -> last_crawl_notes' line
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {WARN};")
        self.hide()

    def reload(self, store, profiles: QListWidget) -> None:
        """Re-read the last crawls and mark the list's degraded profiles."""
        self.notes = last_crawl_notes(store)
        mark_degraded_items(profiles, self.notes)

    def show_for(self, item) -> None:
        note = self.notes.get(item.text()) if item is not None else None
        self.setText(f"\u26a0 {note}" if note else "")
        self.setVisible(bool(note))


class FieldWarning(QWidget):
    """One degraded field: the warning line (a toggle) and, open, its failing URLs with actions."""

    openInReader = Signal(str)
    openInSites = Signal(str)

    def __init__(self, field: str, parent=None):
        super().__init__(parent)
        self.field = field
        self.header = QToolButton(self)
        self.header.setCheckable(True)
        self.header.setAutoRaise(True)
        self.header.setArrowType(self._arrow(False))
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setStyleSheet(f"QToolButton {{ color: {WARN}; font-weight: 600; border: none; }}")
        self.header.toggled.connect(self._toggled)
        self.urls = QListWidget(self)
        self.urls.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.urls.setMaximumHeight(110)
        self.urls.setToolTip("Pages where this field's value failed verification; double-click opens it in the reader")
        self.urls.itemDoubleClicked.connect(lambda item: self.openInReader.emit(item.text()))
        self.reader_button = QPushButton("Open in reader", self)
        self.reader_button.clicked.connect(lambda: self._emit(self.openInReader))
        self.sites_button = QPushButton("Open in Sites", self)
        self.sites_button.setToolTip("Show the page in the Sites tab's inspector, to fix the rule")
        self.sites_button.clicked.connect(lambda: self._emit(self.openInSites))
        self.copy_button = QPushButton("Copy URLs", self)
        self.copy_button.setToolTip("Copy the selected URLs (all when none is selected)")
        self.copy_button.clicked.connect(self.copy_urls)
        self.actions_row = QWidget(self)
        row = QHBoxLayout(self.actions_row)
        row.setContentsMargins(0, 0, 0, 0)
        for button in (self.reader_button, self.sites_button, self.copy_button):
            row.addWidget(button)
        row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.header)
        box.addWidget(self.urls)
        box.addWidget(self.actions_row)
        self._toggled(False)

    @staticmethod
    def _arrow(open_: bool):
        return Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow

    def set_data(self, text: str, urls: list[str]) -> None:
        self.header.setText(f"\u26a0 {text}")
        self.header.setToolTip("Its values fail verification (core/profile/verify.py): a changed page layout? "
                               "Click to see the pages.\n" + "\n".join(urls[:10]))
        if [self.urls.item(i).text() for i in range(self.urls.count())] != urls:
            self.urls.clear()
            self.urls.addItems(urls)
            if self.urls.count():
                self.urls.setCurrentRow(0)

    def selected_urls(self) -> list[str]:
        return [item.text() for item in self.urls.selectedItems()]

    def copy_urls(self) -> None:
        urls = self.selected_urls() or [self.urls.item(i).text() for i in range(self.urls.count())]
        QGuiApplication.clipboard().setText("\n".join(urls))

    def _emit(self, signal) -> None:
        urls = self.selected_urls()
        if urls:
            signal.emit(urls[0])

    def _toggled(self, open_: bool) -> None:
        self.header.setArrowType(self._arrow(open_))
        self.urls.setVisible(open_)
        self.actions_row.setVisible(open_)


class DegradedBox(QWidget):
    """All degraded fields of one crawl (hidden when there are none) and the fallback count."""

    openInReader = Signal(str)
    openInSites = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.fields: dict[str, FieldWarning] = {}
        self.fallbacks = QLabel(self)
        self.fallbacks.setStyleSheet(f"color: {WARN};")
        self.fallbacks.setWordWrap(True)
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(2)
        self._box.addWidget(self.fallbacks)
        self.clear()

    def clear(self) -> None:
        for warning in self.fields.values():
            warning.setParent(None)
            warning.deleteLater()
        self.fields.clear()
        self.fallbacks.clear()
        self.fallbacks.hide()
        self.hide()

    def set_summary(self, summary: dict) -> None:
        """Show the summary's (or a live snapshot's) degraded fields; unchanged ones keep their state."""
        lines = degraded_lines(summary)
        for name in [n for n in self.fields if n not in lines]:
            self.fields.pop(name).deleteLater()
        for name, text in lines.items():
            warning = self.fields.get(name)
            if warning is None:
                warning = self.fields[name] = FieldWarning(name, self)
                warning.openInReader.connect(self.openInReader)
                warning.openInSites.connect(self.openInSites)
                self._box.insertWidget(self._box.count() - 1, warning)
            warning.set_data(text, list(summary["degraded_fields"][name]))
        fallbacks = int(summary.get("fallbacks") or 0)
        self.fallbacks.setText(f"body: fallback on {fallbacks:,} article(s): the main-text extractor filled "
                               "what the rules missed" if fallbacks else "")
        self.fallbacks.setVisible(bool(fallbacks))
        self.setVisible(bool(lines or fallbacks))
