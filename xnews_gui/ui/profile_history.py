"""A profile's history (from the Sites tab): its saved versions, what changed since one, revert.

Each row is one version (number, when, why it was saved). Selecting a row (or "Diff") says what
changed from that version to the current profile, field by field and rule by rule
(core/profile/profile_diff.py); "JSON diff" shows the raw unified diff of the two JSON texts;
"Revert to this version" makes it current again, written in the background
(``store_ops.write``), and recorded as a new version, so a revert can be undone too.
"""

from __future__ import annotations

import difflib
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QHBoxLayout, QHeaderView, QLabel, QPushButton, QSplitter, QTableWidget,
    QTableWidgetItem, QTextBrowser, QVBoxLayout,
)

from ..core.profile.profile import Profile, ProfileError
from ..core.profile.profile_diff import diff_profiles
from ..store import Store
from . import store_ops
from .run_history import local_time

NUMBER_ROLE = Qt.ItemDataRole.UserRole
COLUMNS = ("Version", "Saved", "Why")


def _change_html(change) -> str:
    """A replaced value as old (red, struck through) -> new (green); other changes as their line."""
    if not change.label:
        return escape(change.text)
    return (f"{escape(change.label)}: <span style='color:#b3261e; text-decoration:line-through'>"
            f"{escape(change.before)}</span> \u2192 <span style='color:#1e7e34'>{escape(change.after)}</span>")


class ProfileHistory(QDialog):
    """Non-modal: ``ProfileHistory(store, name, parent).show()``; ``reverted(name)`` after a revert landed."""

    reverted = Signal(str)

    def __init__(self, store: Store, name: str, parent=None):
        super().__init__(parent)
        self.store = store
        self.name = name
        self.setWindowTitle(f"History of {name}")
        self.resize(900, 520)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self.show_diff)
        self.diff_view = QTextBrowser(self)
        self.diff_view.setOpenLinks(False)
        self.diff_button = QPushButton("Diff", self)
        self.diff_button.setToolTip("What changed from the selected version to the current profile, rule by rule")
        self.diff_button.clicked.connect(self.show_diff)
        self.json_button = QPushButton("JSON diff", self)
        self.json_button.setToolTip("The raw difference of the two profiles' JSON")
        self.json_button.clicked.connect(self.show_json_diff)
        self.revert_button = QPushButton("Revert to this version", self)
        self.revert_button.setToolTip("Make the selected version the current profile (saved as a new version)")
        self.revert_button.clicked.connect(self.revert)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.table)
        split.addWidget(self.diff_view)
        split.setSizes([380, 520])
        buttons = QHBoxLayout()
        for button in (self.diff_button, self.json_button, self.revert_button):
            buttons.addWidget(button)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(close)
        box = QVBoxLayout(self)
        box.addWidget(split, 1)
        box.addLayout(buttons)
        self.refresh()

    # --- reading ----------------------------------------------------------------------
    def refresh(self, select: int | None = None) -> None:
        """Re-read the versions (newest first); keep or set the selected version."""
        keep = select if select is not None else self.selected_number()
        versions = self.store.profile_history(self.name)
        self._json: dict[int, str] = {}  # version -> its JSON, read when first needed
        self.table.blockSignals(True)
        self.table.setRowCount(len(versions))
        for row, v in enumerate(versions):
            items = (QTableWidgetItem(f"{v.number}" + ("  (current)" if row == 0 else "")),
                     QTableWidgetItem(local_time(v.at)), QTableWidgetItem(v.reason))
            items[0].setData(NUMBER_ROLE, v.number)
            for col, item in enumerate(items):
                self.table.setItem(row, col, item)
        self.table.blockSignals(False)
        rows = {self.table.item(r, 0).data(NUMBER_ROLE): r for r in range(self.table.rowCount())}
        if keep in rows:
            self.table.selectRow(rows[keep])
        elif len(versions) > 1:
            self.table.selectRow(1)  # the version before the current one: what the last save changed
        self._sync_buttons()
        if not versions:
            self.diff_view.setPlainText("No saved versions.")

    def selected_number(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.table.item(rows[0].row(), 0).data(NUMBER_ROLE) if rows else None

    def current_number(self) -> int | None:
        return self.table.item(0, 0).data(NUMBER_ROLE) if self.table.rowCount() else None

    def version_json(self, number: int) -> str:
        if number not in self._json:
            version = self.store.profile_version(self.name, number)
            self._json[number] = version.json if version is not None else ""
        return self._json[number]

    def _profiles(self) -> tuple[Profile, Profile] | None:
        number = self.selected_number()
        if number is None or self.current_number() is None:
            return None
        try:
            return Profile.from_json(self.version_json(number)), Profile.from_json(self.version_json(self.current_number()))
        except ProfileError as exc:
            self.diff_view.setPlainText(f"This version cannot be read: {exc}")
            return None

    def show_diff(self) -> None:
        self._sync_buttons()
        number = self.selected_number()
        pair = self._profiles()
        if pair is None:
            return
        if number == self.current_number():
            self.diff_view.setHtml(f"<p>Version {number} <b>is</b> the current profile. "
                                   "Select an older version to see what changed since.</p>")
            return
        changes = diff_profiles(*pair)
        if not changes:
            self.diff_view.setHtml(f"<p>Version {number} and the current profile are the same.</p>")
            return
        rows = "".join(f"<tr><td style='padding-right:10px'><b>{escape(c.where)}</b></td>"
                       f"<td>{_change_html(c)}</td></tr>" for c in changes)
        self.diff_view.setHtml(f"<p>From version {number} to the current profile "
                               f"(version {self.current_number()}): {len(changes)} change(s)</p>"
                               f"<table cellspacing='3'>{rows}</table>")

    def show_json_diff(self) -> None:
        number, current = self.selected_number(), self.current_number()
        if number is None or current is None:
            return
        lines = difflib.unified_diff(self.version_json(number).splitlines(), self.version_json(current).splitlines(),
                                     f"version {number}", f"version {current} (current)", lineterm="", n=2)
        self.diff_view.setPlainText("\n".join(lines) or "The JSON texts are the same.")

    # --- revert ------------------------------------------------------------------------
    def revert(self) -> None:
        number = self.selected_number()
        if number is None or number == self.current_number():
            return
        self.revert_button.setEnabled(False)
        self.status.setText(f"Reverting to version {number}\u2026")

        def done(result) -> None:
            _profile, new_number = result
            self.status.setText(f"{self.name} is version {number} again (saved as version {new_number}).")
            self.refresh(select=new_number)
            self.reverted.emit(self.name)

        def failed(message: str) -> None:
            self.status.setText(f"Could not revert: {message}")
            self._sync_buttons()

        store_ops.write(self.store.revert_profile, self.name, number, owner=self, on_done=done, on_error=failed)

    def _sync_buttons(self) -> None:
        number = self.selected_number()
        older = number is not None and number != self.current_number()
        self.diff_button.setEnabled(number is not None)
        self.json_button.setEnabled(older)
        self.revert_button.setEnabled(older)
