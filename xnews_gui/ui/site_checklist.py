"""The Crawl tab's list of sites: one per profile, each with a tick (the sites Start crawls) and the
schedule marked; the highlighted site is the one the per-site controls act on."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem

from .crawl_schedule import mark_scheduled


class SiteChecklist(QListWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setToolTip("Tick the sites to crawl")

    def fill(self, names: list[str], schedules: dict[str, str]) -> None:
        """The list again (after a profile change): the ticks and the highlighted site kept, each
        site's schedule (``schedules``: name -> its text) marked; no change signal meanwhile."""
        checked = set(self.checked())
        current = self.currentItem().text() if self.currentItem() else ""
        self.blockSignals(True)
        self.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in checked else Qt.CheckState.Unchecked)
            self.addItem(item)
            if name == current:
                self.setCurrentItem(item)
        mark_scheduled(self, schedules)
        self.blockSignals(False)

    def checked(self) -> list[str]:
        out = []
        for i in range(self.count()):
            item = self.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.text())
        return out

    def set_checked(self, names) -> None:
        names = set(names)
        for i in range(self.count()):
            item = self.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)

    def highlighted(self) -> str | None:
        """The highlighted site, else the first ticked one."""
        current = self.currentItem()
        checked = self.checked()
        return current.text() if current is not None else (checked[0] if checked else None)

    def targets(self) -> list[str]:
        """The sites the schedule controls act on: the ticked ones, else the highlighted one."""
        names = self.checked()
        current = self.currentItem()
        return names or ([current.text()] if current is not None else [])
