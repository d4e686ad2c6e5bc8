"""Repair with approval: a field that fails verification gets a proposed rule, shown before it is used.

Where a field fails: on pages of the preview (a value that does not fit the field's content
profile, or none), or on the pages a crawl flagged (summary ``degraded_fields``, read from the
profile's last run). ``core.induction.repair.propose_repair`` looks for a rule that fits on those pages (in
a worker); the bar shows it with the values before and after on each failing page, a button that
opens a failing page with the proposed rule's matches tinted, and one button that accepts it.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem,
    QVBoxLayout,
)

from ...core.extraction.extract import html_to_text
from ...core.profile.profile import FIELDS
from ...core.induction.repair import Repair, propose_repair
from .. import workers
from .draft import label_for, short

MAX_PAGES = 6  # failing pages fetched to judge a repair
_SOURCES = {"chain": "the field's next rule", "fingerprint": "the element most like the one picked at authoring",
            "metadata": "the page's own metadata"}


def _last_degraded(run) -> dict:
    try:
        stats = json.loads(run.stats_json or "{}")
        found = stats.get("degraded_fields") or {}
        return {str(k): [str(u) for u in v] for k, v in found.items() if isinstance(v, list)}
    except (ValueError, AttributeError, TypeError):
        return {}


def degraded_from_last_run(store, name: str) -> dict:
    """{field: failing urls} of the profile's last ended crawl (summary ``degraded_fields``), {} if none."""
    run = store.last_runs().get(name)
    return _last_degraded(run) if run is not None else {}


def _same_field(a, b, field: str) -> bool:
    """The field's rules are what they were (a rename or another field's change keeps a proposal valid)."""
    return a is not None and b is not None and a.rules_for(field) == b.rules_for(field) \
        and a.chains.get(field) == b.chains.get(field)


def _repair_job(profile, field: str, urls: tuple, fetch):
    pages = []
    for url in urls[:MAX_PAGES]:
        try:
            pages.append((fetch(url), url))
        except Exception:  # noqa: BLE001 (a page that cannot be had is not a failing page)
            continue
    return profile, field, urls, (propose_repair(profile, field, pages) if pages else None)


class RepairBar(QFrame):
    """Shows the repair proposed for the inspector's first failing field. ``accepted(field)`` after one
    click on Accept (the draft has the repaired rule then)."""

    accepted = Signal(str)

    def __init__(self, inspector):
        super().__init__(inspector)
        self.inspector = inspector
        self.degraded: dict[str, list[str]] = {}  # from a crawl
        self.repair: Repair | None = None
        self.failing: dict[str, list[str]] = {}  # field -> failing urls (crawl first, then preview)
        self._asked = None  # (profile, field, urls) of the proposal on its way or shown
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("RepairBar { background: #fef7e0; } QLabel { color: #5f3b00; }")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(("Failing page", "Before", "After the repair"))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMaximumHeight(130)
        self.show_button = QPushButton("Show on a failing page", self)
        self.show_button.setToolTip("Open a page where the field fails, with the proposed rule's matches tinted")
        self.show_button.clicked.connect(self.show_on_page)
        self.accept_button = QPushButton("Accept repair", self)
        self.accept_button.setToolTip("Use the proposed rule first (the old rules stay behind it) and save the profile")
        self.accept_button.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addStretch(1)
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.accept_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(3)
        layout.addWidget(self.label)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        self.hide()

    # --- what fails -----------------------------------------------------------------
    def reset(self) -> None:
        self.degraded, self.failing, self.repair, self._asked = {}, {}, None, None
        self.hide()

    def set_degraded(self, degraded: dict) -> None:
        """Fields a crawl flagged degraded ({field: failing urls})."""
        self.degraded = {k: list(v) for k, v in degraded.items() if k in FIELDS and v}
        self.consider()

    def consider(self) -> None:
        """Look at the crawl's and the preview's failures; propose a repair for the first failing field."""
        ins = self.inspector
        profile = ins.profile()
        if profile is None:
            self.reset()
            return
        failing: dict[str, list[str]] = {k: list(v) for k, v in self.degraded.items() if k in profile.fields}
        for row in ins.preview.model.rows():
            for name, cell in row.cells.items():
                if name in profile.chains and cell.state in ("fails", "empty"):
                    urls = failing.setdefault(name, [])
                    if row.url not in urls:
                        urls.append(row.url)
        self.failing = failing
        field = next((f for f in FIELDS if f in failing), None)
        if field is None:
            self.repair, self._asked = None, None
            self.hide()
            return
        asked = (profile, field, tuple(failing[field]))
        if asked == self._asked:
            return
        self._asked = asked
        worker = workers.Worker(_repair_job, profile, field, asked[2], ins.cache.fetch)
        worker.signals.result.connect(self._proposed)
        workers.start(worker, ins.pool)

    @Slot(object)
    def _proposed(self, result) -> None:
        profile, field, urls, repair = result
        if self._asked != (profile, field, urls) or not _same_field(self.inspector.profile(), profile, field):
            return  # the field's rules or the failures changed meanwhile
        self.repair = repair
        where = f"{len(urls)} page{'s' if len(urls) != 1 else ''}"
        why = "a crawl flagged it degraded" if field in self.degraded else "on the preview's pages"
        head = f"\u26a0 {label_for(field)} fails verification on {where} ({why})."
        if repair is None:
            self.label.setText(f"{head} No repair found: open a failing page and pick the field again.")
            self.table.setRowCount(0)
            self.accept_button.hide()
        else:
            rule = repair.rule
            self.label.setText(f"{head} Proposed rule: {rule.kind} <b>{rule.selector}</b>, from "
                               f"{_SOURCES.get(repair.source, repair.source)}: it fits on {repair.fixed} of "
                               f"{repair.pages} failing pages tried.")
            self._fill(repair)
            self.accept_button.show()
            if self.inspector.browser.url() in urls:  # a failing page is in view: tint what the repair takes
                self.inspector.show_rule_on(self.inspector.browser.url(), repair.rule)
        self.label.setToolTip(field)
        self.show()

    def _fill(self, repair: Repair) -> None:
        after = dict(repair.after)
        self.table.setRowCount(len(repair.before))
        for r, (url, old) in enumerate(repair.before):
            new = after.get(url, "")
            new = html_to_text(new) if new.lstrip().startswith("<") else new  # a body rule takes html
            for c, text in enumerate((url.rsplit("/", 1)[-1] or url, short(old, 80) or "(empty)",
                                      short(new, 80) or "(empty)")):
                item = QTableWidgetItem(text)
                item.setToolTip(url if c == 0 else (old if c == 1 else new)[:2000])
                self.table.setItem(r, c, item)

    # --- the two buttons -------------------------------------------------------------
    @Slot()
    def show_on_page(self) -> None:
        """Open the first failing page the repair fixes, with the proposed rule's matches tinted."""
        if self.repair is not None:
            fixed = [u for u, v in self.repair.after if v] or [u for u, _ in self.repair.before]
            self.inspector.show_rule_on(fixed[0], self.repair.rule)
        elif self._asked:
            self.inspector.show_rule_on(self._asked[2][0], None)

    @Slot()
    def accept(self) -> None:
        repair, ins = self.repair, self.inspector
        if repair is None or ins.draft is None or self._asked is None:
            return
        if not _same_field(ins.profile(), self._asked[0], repair.field):
            ins.say(f"{label_for(repair.field)} changed since the repair was proposed; it is proposed again.")
            self._asked = None
            self.consider()
            return
        ins.draft.accept_repair(repair.field, repair.apply(ins.draft.profile))
        self.degraded.pop(repair.field, None)
        ins.say(f"Repair accepted: {label_for(repair.field)} now starts with {repair.rule.selector} "
                "(the old rules follow it).")
        self.repair, self._asked = None, None
        self.hide()
        ins.rules_replaced()
        self.accepted.emit(repair.field)
