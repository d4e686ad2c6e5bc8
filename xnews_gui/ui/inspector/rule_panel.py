"""The side panel: one row per rule, editable by hand, with match counts and a value preview."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QMenu, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from ...core.profile.rules import Rule, RuleError
from .draft import label_for
from .rule_checks import RuleCheck

COLUMNS = ("Field", "Selector", "Kind", "Take", "Matches", "Value")
EDITABLE = {1: "selector", 2: "kind", 3: "take"}
OK, WARN, BAD = QColor("#1e8e3e"), QColor("#b06000"), QColor("#c5221f")


class RulePanel(QWidget):
    """Lists (key, Rule) rows; emits ``ruleEdited(key, Rule)`` for a valid hand edit and ``ruleDeleted(key)``
    for Delete rule (right-click on a row, or the Delete key)."""

    ruleEdited = Signal(str, object)
    ruleDeleted = Signal(str)
    rowActivated = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for col, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Interactive,
                                    QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch)):
            header.setSectionResizeMode(col, mode)
        self.table.setColumnWidth(1, 190)
        # five rows stay in view when bars (metadata, sitemap, a repair) show under the table: the splitter
        # takes their room from the preview, not from the rules being edited (two rows were left)
        rows = self.table.verticalHeader().defaultSectionSize()
        self.table.setMinimumHeight(header.sizeHint().height() + 5 * rows + 4)
        self.table.horizontalHeaderItem(5).setToolTip("The value the rule takes from the page shown")
        self.table.horizontalHeaderItem(4).setToolTip("Matches on the page shown (rendered; raw HTML checked too)")
        self.empty = QLabel("No rules yet. Choose a field above, then click the matching part of the page.", self)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: palette(mid); padding: 6px;")
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c5221f; padding: 2px 4px;")
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        self.table.hide()  # until there is a rule: the hint above says what to do
        self._keys: list[str] = []
        self._rules: dict[str, Rule] = {}
        self._filling = False
        self.table.itemChanged.connect(self._edited)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.installEventFilter(self)
        self.menu: QMenu | None = None  # the row's menu while it is open

    def _menu(self, pos) -> None:
        row = self.table.rowAt(pos.y())
        if not 0 <= row < len(self._keys):
            return
        key = self._keys[row]
        if self.menu is not None:
            self.menu.deleteLater()  # one menu at a time, not one more per right-click
        self.menu = QMenu(self.table)
        self.menu.addAction(f"Delete the {label_for(key)} rule", lambda: self.ruleDeleted.emit(key))
        self.menu.popup(self.table.viewport().mapToGlobal(pos))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt naming)
        if watched is self.table and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Delete \
                and self.table.state() != QAbstractItemView.State.EditingState:
            row = self.table.currentRow()
            if 0 <= row < len(self._keys):
                self.ruleDeleted.emit(self._keys[row])
                return True
        return super().eventFilter(watched, event)

    # --- content ----------------------------------------------------------------
    def set_rules(self, rows: list[tuple[str, Rule]]) -> None:
        """Show these rules; a refused hand edit's message goes with the text it was about."""
        self.show_error("")
        self._filling = True
        self._keys = [k for k, _ in rows]
        self._rules = dict(rows)
        self.table.setRowCount(len(rows))
        for r, (key, rule) in enumerate(rows):
            cells = (label_for(key), rule.selector if rule.kind != "markers" else " \u2026 ".join(rule.start[:1] + rule.end[:1]),
                     rule.kind, rule.take, "\u2026", "")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                if c in EDITABLE and rule.kind != "markers" and not (key in ("articles", "sections", "next") and c == 3):
                    flags |= Qt.ItemFlag.ItemIsEditable
                item.setFlags(flags)
                if c == 1:
                    item.setToolTip(f"{text}\n\n{rule.note}" if rule.note else text)
                self.table.setItem(r, c, item)
        self.empty.setVisible(not rows)
        self.table.setVisible(bool(rows))
        self._filling = False

    def set_checks(self, checks: list[RuleCheck], rendered: bool = False, joined: frozenset = frozenset()) -> None:
        """``rendered``: the profile is marked render (its crawls see the page as the browser does);
        ``joined``: keys whose every match is taken (a story split over blocks), not the first alone."""
        self._filling = True
        for check in checks:
            if check.key not in self._keys:
                continue
            r = self._keys.index(check.key)
            count, value = self.table.item(r, 4), self.table.item(r, 5)
            if count is None or value is None:
                continue
            single = not (check.key in ("articles", "sections") or check.key.startswith("remove:")
                          or check.key in joined)
            if check.error:
                count.setText("error")
                count.setForeground(QBrush(BAD))
                value.setText(check.error)
                tip = check.error
            elif check.needs_js and rendered:
                count.setText(f"{check.matches} (rendered)")
                count.setForeground(QBrush(OK))
                tip = ("Matches only in the page as rendered by the browser: the profile is marked render, so "
                       "its crawls render the article pages and find it.")
            elif check.needs_js:
                count.setText(f"{check.matches} \u26a0 needs JavaScript")
                count.setForeground(QBrush(WARN))
                tip = ("Matches only in the page as rendered by the browser, not in the raw HTML the crawler "
                       "downloads. Pick another element, edit the selector, or click “Mark render” below.")
            elif check.parsed_otherwise:
                count.setText(f"{check.matches} \u26a0 not in raw HTML")
                count.setForeground(QBrush(WARN))
                tip = ("The raw HTML the crawler downloads has this text, but the rule does not match it there: the "
                       "browser and the crawler read this page's markup differently (no JavaScript is needed). "
                       "Pick a narrower element inside it, or edit the selector.")
            elif check.key in ("articles", "sections", "next") and check.matches <= 0 and check.raw_matches <= 0:
                count.setText("\u2014")
                count.setForeground(QBrush(QColor("#5f6368")))
                tip = "a link rule: it matches on list pages, not on this page"
            else:
                n = check.raw_matches if check.raw_matches >= 0 else check.matches
                count.setText("\u2026" if n < 0 else str(n))
                bad = n == 0 or (single and n > 1)
                count.setForeground(QBrush(BAD if n == 0 else WARN if bad else OK))
                tip = ("matches in the raw HTML (what the crawler sees)" if check.raw_matches >= 0
                       else "matches on the rendered page; the raw HTML is still loading")
                if single and n > 1:
                    tip += f"\n{n} matches: the first is used, the field is marked 'multiple'"
            count.setToolTip(tip)
            if check.key in ("articles", "sections", "next") and not check.preview and not check.error:
                value.setText("(list pages only)")
                value.setForeground(QBrush(QColor("#5f6368")))
            elif not check.error:
                value.setText(check.preview or "(empty)")
                value.setForeground(QBrush(QColor("#5f6368") if not check.preview else self.palette().text().color()))
            value.setToolTip(check.preview)
        self._filling = False

    def refused_edit(self) -> str:
        """The message of a hand edit the table shows but the profile did not take ("" when none)."""
        return self.error.text() if not self.error.isHidden() else ""

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def key_at(self, row: int) -> str:
        return self._keys[row]

    # --- editing --------------------------------------------------------------------
    def _edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() not in EDITABLE:
            return
        key = self._keys[item.row()]
        old = self._rules[key]
        attr = EDITABLE[item.column()]
        new = old.with_(**{attr: item.text().strip()}, note="edited by hand")
        try:
            new.check(label_for(key))
        except RuleError as exc:
            self.show_error(str(exc))
            item.setForeground(QBrush(BAD))
            item.setToolTip(str(exc))
            return
        self.show_error("")
        item.setForeground(self.palette().text().color())
        self._rules[key] = new
        self.ruleEdited.emit(key, new)

    def _selected(self) -> None:
        rows = {i.row() for i in self.table.selectedItems()}
        if len(rows) == 1:
            self.rowActivated.emit(self._keys[rows.pop()])
