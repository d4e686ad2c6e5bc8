"""The live multi-page preview: rows = article pages sampled over the site (list page, sections and next
pages, sitemap), columns = fields, cells = value + state; pages grouped by layout, each layout's fill said."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from ...core.profile.profile import FIELDS
from .. import workers
from .draft import label_for
from .sample import PreviewRow, build_preview, fully_extracted, layout_fill

PREVIEW_PAGES = 8
HINT = "Preview: pick the article links on a list page to test the rules on other articles."


def _preview_job(fetch, fetch_file, profile, list_url, worker=None):
    aborted = (lambda: worker.aborted) if worker is not None else (lambda: False)
    return profile, build_preview(profile, list_url, fetch, aborted, PREVIEW_PAGES, fetch_file)

_STATE_COLORS = {"ok": QColor("#e6f4ea"), "empty": QColor("#fce8e6"), "multiple": QColor("#fef7e0"),
                 "error": QColor("#fce8e6"), "fails": QColor("#fce8e6")}
_STATE_MARK = {"ok": "\u2713", "empty": "\u2717 empty", "multiple": "\u2261 multiple", "error": "\u2717 error",
               "fails": "\u2717"}


class PreviewModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._rows: list[PreviewRow] = []
        self._fields: list[str] = []

    def set_rows(self, rows: list[PreviewRow], fields: list[str]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._fields = [f for f in FIELDS if f in fields]
        self.endResetModel()

    def rows(self) -> list[PreviewRow]:
        return list(self._rows)

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 (Qt naming)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else 1 + len(self._fields)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            if 0 <= section <= len(self._fields):
                return "Page" if section == 0 else self._fields[section - 1].capitalize()
            return None
        return str(section + 1) if 0 <= section < len(self._rows) else None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not (0 <= index.row() < len(self._rows)) or not (0 <= index.column() <= len(self._fields)):
            return None
        row = self._rows[index.row()]
        if index.column() == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                page = row.url.rsplit("/", 1)[-1] or row.url
                return f"{row.layout} \u00b7 {page}" if row.layout else page
            if role == Qt.ItemDataRole.ToolTipRole:
                where = f"\nlayout {row.layout}" if row.layout else ""
                where += f", found on {row.source}" if row.source else ""
                return row.url + where + (f"\n{row.error}" if row.error else "")
            if role == Qt.ItemDataRole.BackgroundRole and row.error:
                return QBrush(_STATE_COLORS["error"])
            return None
        name = self._fields[index.column() - 1]
        cell = row.cells.get(name)
        if cell is None:
            return ("\u2717 " + row.error[:60]) if role == Qt.ItemDataRole.DisplayRole and row.error else None
        if role == Qt.ItemDataRole.DisplayRole:
            if cell.state == "fails" and cell.problems:  # why first: the cell is narrow
                return f"{_STATE_MARK['fails']} {_brief(cell.problems[0])} \u00b7 {cell.value}"
            return f"{_STATE_MARK[cell.state]} {cell.value}" if cell.state in ("ok", "fails") else (
                f"{_STATE_MARK[cell.state]}" + (f": {cell.value}" if cell.value else ""))
        if role == Qt.ItemDataRole.ToolTipRole:
            if cell.problems:  # a value is there, but not what this field looks like on the site
                return f"{name} fails verification:\n" + "\n".join(f"\u2022 {p}" for p in cell.problems) + \
                    f"\n\n{cell.value}"
            return f"{name}: {cell.state}\n{cell.value}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(_STATE_COLORS[cell.state])
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("#202124"))
        if role == Qt.ItemDataRole.UserRole:
            return cell.state
        return None


class PreviewPane(QWidget):
    """The grid and its status line; ``refresh`` re-extracts a few articles in a worker."""

    updated = Signal()  # the grid was refilled

    def __init__(self, parent=None):
        super().__init__(parent)
        self._worker: workers.Worker | None = None
        self._wanted = None  # the profile of the latest refresh: older results are dropped
        self.model = PreviewModel(self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.view.horizontalHeader().setMinimumSectionSize(60)
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.status = QLabel(HINT, self)
        self.status.setWordWrap(True)  # a long status must not widen the window
        self.status.setStyleSheet("color: palette(mid); padding: 2px 4px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.status)
        layout.addWidget(self.view, 1)
        layout.addStretch(0)
        self.view.hide()  # an empty grid with a lone header only confuses
        self.model.modelReset.connect(self._reset)

    def _reset(self) -> None:
        self.view.setVisible(self.model.rowCount() > 0)
        if self.model.columnCount():  # the page ("A · story-01.html") whole: rows that look alike tell nothing
            self.view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def clear(self) -> None:
        """Another profile is shown: its rows must not pass for this one's while the new ones come."""
        self.model.set_rows([], [])
        self.set_status(HINT)

    def refresh(self, profile, list_url: str, fetch, pool, fetch_file=None) -> None:
        if self._worker:
            self._worker.abort()
            self._worker = None
        self._wanted = profile
        if profile is None or profile.articles is None or not list_url:
            self.model.set_rows([], [])
            self.set_status(HINT)
            return
        self.set_status(f"Preview: fetching up to {PREVIEW_PAGES} articles from {list_url}, its sections and "
                        "next pages and the sitemap \u2026")
        worker = workers.Worker(_preview_job, fetch, fetch_file, profile, list_url)
        worker.signals.result.connect(self._previewed)
        worker.signals.error.connect(lambda message, w=worker: self._failed(w, message))
        self._worker = workers.start(worker, pool)

    def shutdown(self) -> None:
        if self._worker:
            self._worker.abort()

    def _failed(self, worker, message: str) -> None:
        if worker is not self._worker:
            return  # an older preview's failure: a newer one is shown or on its way
        self._worker = None
        self.model.set_rows([], [])  # the last preview's rows are not this profile's: they must not pass for it
        self.set_status(f"Preview failed: {message}")

    @Slot(object)
    def _previewed(self, result) -> None:
        profile, (rows, links) = result
        if profile != self._wanted:
            return  # the rules changed meanwhile; a newer preview is on its way
        self._worker = None
        fields = list(profile.fields)
        self.model.set_rows(rows, fields)
        if not rows:
            self.set_status("Preview: the article-link rule finds no article on the list page.")
        elif not fields:
            self.set_status(f"Preview: {_of(rows, links)}; now pick the Title, Body\u2026 on an article.")
        else:
            self.set_status(f"Preview: {_fully(rows, profile)} ({_of(rows, links)})." + _layouts(rows, fields))
        self.updated.emit()


def _brief(problem: str) -> str:
    """The first problem, short enough for a cell: "covers 12%", "not the page's headline"."""
    if problem.startswith("covers "):
        return problem.split(" of ", 1)[0]
    if "covers " in problem:
        return "covers " + problem.split("covers ", 1)[1].split(" of ", 1)[0]
    if problem.startswith("differs from the page's own headline"):
        return "not the page's headline"
    if problem.startswith("the same image"):
        return "same on every page"
    if problem.startswith("the image stands outside"):
        return "outside the article"
    return problem[:40]


def _fully(rows, profile) -> str:
    missing = [label_for(f) for f in ("title", "body") if f not in profile.fields]
    if missing:
        return f"no article page fully extracted: the profile has no {' and no '.join(missing)} rule yet"
    ok = sum(1 for r in rows if fully_extracted(r, profile))
    return f"{ok} of {len(rows)} article pages fully extracted" + (_held_back(rows) if ok < len(rows) else "")


_WHY_NOT = {"empty": "is empty", "multiple": "matches several elements (the first one is taken)",
            "error": "has an error", "fails": "is doubtful"}


def _held_back(rows) -> str:
    """What keeps the other pages from "fully extracted": the field and state on most of them."""
    counts = Counter((name, cell.state) for r in rows for name, cell in r.cells.items() if cell.state != "ok")
    if not counts:
        return ""
    (name, state), n = counts.most_common(1)[0]
    return f" \u2014 {label_for(name)} {_WHY_NOT.get(state, state)} on {n}"


def _layouts(rows, fields) -> str:
    """Each layout's fill: " Layout A (6 pages): every field ✓. Layout B (2 pages): body 0/2 ✗."."""
    fills = layout_fill(rows, fields)
    if not fills or (len(fills) == 1 and all(n == fills[0].pages for n in fills[0].ok.values())):
        return ""  # one layout, every field filled: the count above says it all
    parts = []
    for fill in fills:
        short = [f"{label_for(f).lower()} {n}/{fill.pages} \u2717" for f, n in fill.ok.items() if n < fill.pages]
        parts.append(f"Layout {fill.layout} ({fill.pages} page{'s' if fill.pages != 1 else ''}): "
                     + (", ".join(short) if short else "every field \u2713"))
    return " " + ". ".join(parts) + "."


def _of(rows, links: int) -> str:
    """Why the grid has fewer rows than the rule has matches: a sample, of the links the crawl follows; and
    where the sample comes from when it is not only the list page."""
    sources = {r.source for r in rows if r.source}
    if sources <= {"list page"}:
        return (f"{len(rows)} of the {links} article links the crawl follows from the list page" if links > len(rows)
                else f"{links} article link{'s' if links != 1 else ''} on the list page")
    lists = len(sources - {"list page", "sitemap"})
    where = (["the list page"] if "list page" in sources else []) + \
        ([f"{lists} section or next page{'s' if lists != 1 else ''}"] if lists else []) + \
        (["the sitemap"] if "sitemap" in sources else [])
    whence = f"{', '.join(where[:-1])} and {where[-1]}" if len(where) > 1 else where[0]
    return f"{len(rows)} pages from {whence}; the list page links to {links} article{'s' if links != 1 else ''}"
