"""One line saying when a profile's stored articles are next revisited (the Sites and Crawl tabs)."""

from __future__ import annotations

from datetime import datetime

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

from ..services.crawl import revisit_outlook
from ..store import Store
from . import workers


def outlook_text(outlook: dict | None, now: datetime | None = None) -> str:
    """'Next revisit due 15:04 (12 articles watched)' and the like."""
    if not outlook:
        return "Revisits: none yet (the first crawl starts watching its articles)"
    if not outlook["watched"] or outlook["next_at"] is None:
        return "Revisits: no article watched now (Revisit all asks every stored one)"
    now = now or datetime.now()
    when = datetime.fromtimestamp(outlook["next_at"])
    if outlook["due"]:
        return f"Revisit due now: {outlook['due']:,} of {outlook['watched']:,} watched articles"
    shown = f"{when:%H:%M}" if when.date() == now.date() else f"{when:%Y-%m-%d %H:%M}"
    return f"Next revisit due {shown} ({outlook['watched']:,} articles watched)"


class RevisitLine(QLabel):
    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.setWordWrap(True)
        self.setStyleSheet("color: palette(placeholder-text);")
        self.setToolTip("Stored articles are asked again (conditional requests) at intervals that follow how "
                        "often each one changed; a crawl revisits those due, within the profile's budget")
        self._asked = ""

    def show_for(self, name: str | None) -> None:
        """The line for profile ``name`` (read in the background); empty for none."""
        self._asked = name or ""
        if not name:
            self.clear()
            return
        profile = self.store.load_profile(name)
        if profile is None:
            self.clear()
            return
        workers.run_in_background(revisit_outlook, self.store, profile,
                                  on_result=lambda outlook, n=name: self._show(n, outlook))

    def _show(self, name: str, outlook: dict | None) -> None:
        if shiboken6.isValid(self) and name == self._asked:
            self.setText(outlook_text(outlook))


class RevisitBox(QWidget):
    """The line and a "Revisit all" button for one profile at a time."""

    revisitRequested = Signal(str)  # ask every stored article of the profile again, now

    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.line = RevisitLine(store, self)
        self.button = QPushButton("Revisit all", self)
        self.button.setToolTip("Ask the site again for every stored article of this profile now (conditional "
                               "requests): changed ones become new versions, removed ones are marked")
        self.button.clicked.connect(lambda: self.name and self.revisitRequested.emit(self.name))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.line)
        layout.addWidget(self.button)
        self.name = ""
        self.show_for(None)

    def show_for(self, name: str | None) -> None:
        self.name = name or ""
        self.button.setEnabled(bool(name))
        self.line.show_for(name)

    def follow(self, sites: QListWidget) -> None:
        """Show the highlighted site of a checkable list, else its first ticked one."""
        self._sites = sites
        sites.currentTextChanged.connect(lambda *_: self.refresh())
        sites.itemChanged.connect(lambda *_: self.refresh())

    def refresh(self) -> None:
        sites = getattr(self, "_sites", None)
        if sites is None:
            self.show_for(self.name or None)
            return
        items = [sites.item(i) for i in range(sites.count())]
        ticked = [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]
        current = sites.currentItem()
        self.show_for(current.text() if current is not None else ticked[0] if ticked else None)
