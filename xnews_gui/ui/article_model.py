"""The results table: a lazy QAbstractTableModel over the articles in SQLite.

A worker fetches the ordered (sort key, id) pairs of everything that matches the
filter, and the first block of rows with them; the view is shown ``BLOCK`` rows at a
time through canFetchMore/fetchMore and each block's contents are read by primary key
in a worker ahead of painting. Painting never runs SQL: a row not read yet is blank
for a moment and asks for its block. Articles stored while a crawl runs are queued,
checked against the filter in one small query, and inserted in place in batches:
never a full reload per insert. What each cell says (texts, tooltips): article_cells.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont

from ..store import Store
from ..store.queries import ROW_COLUMNS, ArticleFilter
from . import workers
from .article_cells import cell_text, cell_tooltip
from .display_order import DisplayOrder, release
from .topic_display import no_topic_reason

BLOCK = 256
COLUMNS = [  # (header, sort key)
    ("Site", "profile"),
    ("Title", "title"),
    ("Topic", "category"),
    ("Date", "published"),
    ("Fetched", "fetched_at"),
    ("Status", "status"),
]
ID_ROLE = Qt.ItemDataRole.UserRole + 1
_C = {name: i for i, name in enumerate(ROW_COLUMNS)}
# data() runs ~1,300 times per painted screen, each a call from C++ that takes the GIL: the roles as
# plain ints (an enum attribute lookup costs ~0.5 us), and the roles a delegate asks that we never
# answer (decoration, alignment, background, check state...) turned away first
_DISPLAY, _FONT, _TOOLTIP, _FOREGROUND = (int(r) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ToolTipRole,
    Qt.ItemDataRole.ForegroundRole))
_ANSWERED = frozenset({_DISPLAY, int(ID_ROLE), _FONT, _TOOLTIP, _FOREGROUND})
_ID, _READ, _STARRED = _C["id"], _C["read"], _C["starred"]
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable  # asked per painted cell: made once


class ArticleTableModel(QAbstractTableModel):
    loaded = Signal(int)  # total matching rows after a (re)load
    rowsArrived = Signal(int)  # how many live rows were inserted

    def __init__(self, store: Store, parent=None, *, flush_ms: int = 300, clock=datetime.now):
        super().__init__(parent)
        self.store = store
        self._order = DisplayOrder()
        self._visible = 0
        self._rows: dict[int, tuple] = {}
        self._cells: dict[int, tuple] = {}  # id -> the six display texts of its row (cleared when re-read)
        self._reasons: dict[int, str] = {}  # no-topic reasons asked for (tooltips)
        self._filter = ArticleFilter()
        self._sort, self._desc = "fetched_at", True
        self._generation = 0
        self._loading = False
        self._pending: list[int] = []
        self._blocks_asked: set[int] = set()  # block starts (row // BLOCK * BLOCK) being read
        self._flush = QTimer(self, singleShot=True, interval=flush_ms)
        self._flush.timeout.connect(self._flush_pending)
        self._reload_soon = QTimer(self, singleShot=True, interval=0)  # reloads asked in one go: one read
        self._reload_soon.timeout.connect(self._start_reload)
        self._clock = clock  # local time now; a test may bring its own
        self._today = ""
        self._midnight = QTimer(self, singleShot=True)
        self._midnight.timeout.connect(self.new_day)
        self.new_day()
        self._bold = QFont()
        self._bold.setBold(True)

    # --- Qt model API ------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self._visible

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            if 0 <= section < len(COLUMNS):
                return COLUMNS[section][0]
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _FLAGS

    def canFetchMore(self, parent=QModelIndex()) -> bool:  # noqa: N802
        return not parent.isValid() and self._visible < len(self._order)

    def fetchMore(self, parent=QModelIndex()) -> None:  # noqa: N802
        if parent.isValid():
            return
        more = min(BLOCK, len(self._order) - self._visible)
        if more <= 0:
            return
        self._ask_block(self._visible)  # read ahead of the paint
        self.beginInsertRows(QModelIndex(), self._visible, self._visible + more - 1)
        self._visible += more
        self.endInsertRows()

    def show_through(self, row: int) -> bool:
        """Make ``row`` part of the view in one step (a jump far down the list): one insert and
        one block read, not a fetchMore and a worker per block on the way. False if no such row."""
        if not 0 <= row < len(self._order):
            return False
        if row >= self._visible:
            last = min(len(self._order), row - row % BLOCK + BLOCK) - 1  # whole blocks
            self._ask_block(row)
            self.beginInsertRows(QModelIndex(), self._visible, last)
            self._visible = last + 1
            self.endInsertRows()
        return True

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(COLUMNS):
            return
        sort, desc = COLUMNS[column][1], order == Qt.SortOrder.DescendingOrder
        if (sort, desc) != (self._sort, self._desc):  # Qt's sortByColumn asks twice for one click
            self._sort, self._desc = sort, desc
            self.reload()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role not in _ANSWERED:
            return None
        r = index.row()  # -1 for an invalid index
        if not 0 <= r < self._visible:
            return None
        row = self._rows.get(self._order.ids[r])
        if row is None:  # not read yet: its block is asked for (no SQL here)
            self._ask_block(r)
            return None
        if role == _DISPLAY:
            cells = self._cells.get(row[_ID])
            if cells is None:  # the six texts, worked out once per row read (dates parsed once)
                cells = self._cells[row[_ID]] = tuple(cell_text(row, c, self.today) for c in range(len(COLUMNS)))
            col = index.column()
            if col == 4:
                self.today()  # a midnight timer that came late (the machine slept) is noticed here
            return cells[col]
        if role == ID_ROLE:
            return row[_ID]
        if role == _FONT:
            return None if row[_READ] else self._bold
        if role == _FOREGROUND:
            return QColor("#b8860b") if index.column() == 5 and row[_STARRED] else None
        return cell_tooltip(row, index.column(), self.no_topic_reason)  # the tooltip

    # --- what the views ask ---------------------------------------------------
    @property
    def filter(self) -> ArticleFilter:
        return self._filter

    def set_filter(self, flt: ArticleFilter) -> None:
        if flt != self._filter:
            self._filter = flt
            self.reload()

    def total(self) -> int:
        return len(self._order)

    def is_loading(self) -> bool:
        return self._loading

    def article_id(self, row: int) -> int | None:
        return self._order.id_at(row) if 0 <= row < len(self._order) else None

    def row_of(self, article_id: int) -> int:
        return self._order.row_of(article_id)

    def all_ids(self) -> list[int]:
        return self._order.ids.tolist()

    def reload(self) -> None:
        """Re-query in a worker; the old rows stay until the new ones are ready. Reloads asked in
        one turn of the event loop (a sort and a filter set up together) make one read."""
        self._generation += 1
        self._loading = True
        self._pending.clear()  # the reload sees them anyway
        self._reload_soon.start()

    def _start_reload(self) -> None:
        generation = self._generation
        flt, sort, desc = self._filter, self._sort, self._desc
        workers.run_in_background(
            self._read_order, flt, sort, desc, generation,
            on_result=lambda found: self._reloaded(generation, found),
            on_error=lambda msg: self._failed(generation, msg),
        )

    def _read_order(self, flt, sort, desc, generation) -> tuple[DisplayOrder, dict] | None:
        """(worker) The display order and the rows of its first block; None once a newer reload
        was asked (the read stops early)."""
        order = DisplayOrder.read(self.store, flt, sort, desc, lambda: generation == self._generation)
        if order is None:
            return None
        return order, self.store.rows_by_id(order.ids[:BLOCK].tolist())

    def add_articles(self, ids) -> None:
        """Articles just stored (any thread's ids, called on the GUI thread): shown in batches."""
        self._pending.extend(int(i) for i in ids)
        if not self._flush.isActive():
            self._flush.start()

    def refresh_article(self, article_id: int) -> None:
        """Re-read one row (flags or category changed)."""
        if article_id not in self._rows:
            return
        generation = self._generation
        workers.run_in_background(self.store.rows_by_id, [article_id],
                                  on_result=lambda rows: self._rows_read(generation, rows))

    def article_row(self, row: int) -> dict | None:
        """The cached columns of a row as a dict (title, url, flags...)."""
        if not 0 <= row < len(self._order):
            return None
        aid = self._order.id_at(row)
        if aid not in self._rows:  # asked outside painting: read it now
            self._rows.update(self.store.rows_by_id([aid]))
        data = self._rows.get(aid)
        return dict(zip(ROW_COLUMNS, data)) if data else None

    def today(self) -> str:
        """Today's date (ISO), as of now: "Fetched" shows only the time for today's articles."""
        today = self._clock().date().isoformat()
        if today != self._today:  # the midnight timer is late (a suspended machine): repaint soon,
            self._midnight.start(0)  # not in the middle of this paint
        return today

    def new_day(self) -> None:
        """A new day began: relative dates are repainted, and the timer is set for the next midnight."""
        now = self._clock()
        changed = bool(self._today) and now.date().isoformat() != self._today
        self._today = now.date().isoformat()
        midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time())
        self._midnight.start(max(1000, int((midnight - now).total_seconds() * 1000) + 1000))
        if changed:
            self._cells.clear()  # "Fetched" shows the date again for yesterday's articles
        if changed and self._visible:
            self.dataChanged.emit(self.index(0, 4), self.index(self._visible - 1, 4))

    def no_topic_reason(self, article_id: int) -> str:
        """Why the classifier gave this article no topic (worked out from its text when first asked)."""
        reason = self._reasons.get(article_id)
        if reason is None:
            article = self.store.get_article(article_id)
            if article is None:
                return ""
            text = "\n".join(filter(None, (article.title, article.summary, article.body_text)))
            reason = self._reasons[article_id] = no_topic_reason(text, article.confidence)
        return reason

    # --- internals -------------------------------------------------------------
    def _reloaded(self, generation: int, found: tuple[DisplayOrder, dict] | None) -> None:
        if found is None:
            return
        order, rows = found
        if generation != self._generation:
            order.release()
            return
        self.beginResetModel()
        old = self._order, self._rows, self._cells
        self._order = order
        self._visible = min(BLOCK, len(order))
        self._rows, self._cells = dict(rows), {}
        self._blocks_asked.clear()
        self._reasons.clear()
        self._loading = False
        self.endResetModel()
        old[0].release()  # the old order and rows are freed in a worker, not here
        release(*old[1:])
        self.loaded.emit(len(order))

    def _failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self._loading = False
            self.loaded.emit(len(self._order))

    def _ask_block(self, row: int) -> None:
        start = row - row % BLOCK
        if start in self._blocks_asked:
            return
        ids = [i for i in self._order.ids[start : start + BLOCK] if i not in self._rows]
        if not ids:
            return
        self._blocks_asked.add(start)
        generation = self._generation

        def read(result: dict) -> None:
            self._blocks_asked.discard(start)
            # the whole view: live inserts may have moved this block's rows meanwhile
            self._rows_read(generation, result, 0, self._visible - 1)

        workers.run_in_background(self.store.rows_by_id, ids, on_result=read,
                                  on_error=lambda _msg: self._blocks_asked.discard(start))

    def _rows_read(self, generation: int, rows: dict, first: int | None = None, last: int | None = None) -> None:
        """Rows read in a worker: cache them and repaint their rows (``first``..``last`` when known)."""
        if generation != self._generation or not rows:
            return
        self._rows.update(rows)
        for aid in rows:
            self._cells.pop(aid, None)
        if first is None:  # a refreshed row: repaint the view (Qt repaints only what is visible), no search
            first, last = (0, self._visible - 1) if any(aid in self._order.known for aid in rows) else (0, -1)
        last = min(last, self._visible - 1)
        if first <= last:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))

    def _flush_pending(self) -> None:
        if not self._pending:
            return
        ids = [i for i in dict.fromkeys(self._pending) if i not in self._order.known]
        self._pending.clear()
        if not ids:
            return
        generation = self._generation
        workers.run_in_background(
            self._read_new, self._filter, self._sort, self._desc, ids,
            on_result=lambda found: self._insert(generation, *found),
        )

    def _read_new(self, flt, sort, desc, ids) -> tuple[list[tuple], dict]:
        """(worker) The keys of the new articles that match, and their rows."""
        new = self.store.ordered_keys(flt, sort, desc, ids)
        return new, self.store.rows_by_id([aid for _, aid in new])

    def _insert(self, generation: int, new: list[tuple], rows: dict) -> None:
        if generation != self._generation or self._loading:
            return  # a reload is coming with these rows in it
        self._rows.update(rows)
        new = [item for item in new if item[1] not in self._order.known]
        if not new:
            return
        # new arrives sorted; walk it and the current order together, inserting contiguous runs
        inserted, i = 0, 0
        while i < len(new):
            pos = self._order.position(new[i], self._desc)
            run = [new[i]]
            while i + len(run) < len(new) and self._order.position(new[i + len(run)], self._desc) == pos:
                run.append(new[i + len(run)])
            shown = pos < self._visible or (pos == self._visible == len(self._order))
            if shown:
                self.beginInsertRows(QModelIndex(), pos, pos + len(run) - 1)
            self._order.insert(pos, run)
            if shown:
                self._visible += len(run)
                self.endInsertRows()
            inserted += len(run)
            i += len(run)
        self.rowsArrived.emit(inserted)
