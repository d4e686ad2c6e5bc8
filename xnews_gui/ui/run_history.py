"""The crawl dashboard's run history: the latest runs from the store, read in a worker.

A run whose process was killed stays ``running`` in the store until the next start marks
it ``interrupted`` (``Store.mark_interrupted_runs``); the table says so in words.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from ..store import Store
from . import workers

STATUS_ROLE = Qt.ItemDataRole.UserRole  # the status as stored
COLUMNS = ("Started", "Site", "Status", "Pages", "Articles", "Errors", "Fields")
WARN = "#b9770e"
STATUS_TEXT = {
    "running": "Running", "finished": "Finished", "stopped": "Stopped", "limit": "Limit reached",
    "failed": "Failed", "refused": "Refused",
    "interrupted": "Interrupted (the app or command was killed)",
}


def local_time(when) -> str:
    if not isinstance(when, datetime):
        try:
            when = datetime.fromisoformat(str(when))
        except ValueError:
            return str(when or "")
    return when.replace(tzinfo=timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M")


def field_health(stats_json: str) -> str:
    """'body degraded (9 of 30 pages)' for a run's degraded fields; '' when none (or no summary)."""
    try:
        summary = json.loads(stats_json or "{}")
    except ValueError:
        return ""
    if not isinstance(summary, dict):
        return ""
    counts = summary.get("degraded_counts") or {}
    parts = []
    for name, urls in (summary.get("degraded_fields") or {}).items():
        failed, checked = (counts.get(name) or [len(urls), 0])[:2]
        parts.append(f"{name} degraded ({failed} of {checked} pages)" if checked else f"{name} degraded")
    return ", ".join(parts)


def run_reason(status: str, stats_json: str) -> str:
    """Why a run was refused or failed, as its summary says ('' when it does not)."""
    try:
        summary = json.loads(stats_json or "{}")
    except ValueError:
        return ""
    return str(summary.get(f"{status}_reason") or "") if isinstance(summary, dict) else ""


def read_runs(store: Store, limit: int = 50) -> list[tuple]:
    """(started, profile, status, pages, articles, errors, degraded fields, why it was refused or failed) of the
    latest runs, newest first."""
    return [(local_time(r.started), r.profile, r.status, r.pages, r.articles, r.errors, field_health(r.stats_json),
             run_reason(r.status, r.stats_json)) for r in store.recent_runs(limit)]


class RunHistory(QTableWidget):
    loaded = Signal(list)  # the rows shown (read_runs), newest first

    def __init__(self, store: Store, parent=None, limit: int = 50):
        super().__init__(0, len(COLUMNS), parent)
        self.store = store
        self.limit = limit
        self.setHorizontalHeaderLabels(COLUMNS)
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self._loading = False
        self._again = False

    def refresh(self) -> None:
        """Re-read the runs in a worker (one read at a time; a refresh asked meanwhile follows)."""
        if self._loading:
            self._again = True
            return
        self._loading = True
        workers.run_in_background(read_runs, self.store, self.limit, on_result=self._show,
                                  on_error=lambda _msg: self._done())

    def statuses(self) -> list[str]:
        """The status column as stored (top to bottom)."""
        return [self.item(row, 2).data(STATUS_ROLE) for row in range(self.rowCount())]

    def _show(self, rows: list[tuple]) -> None:
        self.setRowCount(len(rows))
        for i, (*row, reason) in enumerate(rows):
            for col, value in enumerate(row):
                text = STATUS_TEXT.get(value, value) if col == 2 else str(value)
                item = QTableWidgetItem(text)
                if col == 2:
                    item.setData(STATUS_ROLE, value)
                    if reason:  # the reason in short, in full under the mouse
                        item.setText(f"{text}: {reason if len(reason) <= 60 else reason[:59] + '…'}")
                        item.setToolTip(reason)
                    if value in ("interrupted", "failed", "refused"):
                        item.setForeground(QColor("#b3261e"))
                if col == 6 and value:
                    item.setText(f"\u26a0 {value}")
                    item.setForeground(QColor(WARN))
                    item.setToolTip("Values of these fields failed verification on recent pages of this run "
                                    "(a changed page layout?): see the profile in the Sites tab")
                self.setItem(i, col, item)
        self._done()
        self.loaded.emit(rows)

    def _done(self) -> None:
        self._loading = False
        if self._again:
            self._again = False
            self.refresh()
