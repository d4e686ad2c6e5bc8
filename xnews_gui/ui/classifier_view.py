"""The Classifier screen: the models kept and the one in use, Retrain, Re-classify, scores, floor, topics.

``ClassifierView(data_dir, parent=None, *, store=None, label_counts=None, hidden=None,
on_hidden_changed=None, corpus_dir=None)``

- The header always names the model in use (``services.model_registry``). A retrain runs in a process
  of its own (``model_job``); the new model is kept with its card, compared with the model in use
  on the same held-out documents, and used only when the user clicks "Use this model".
- "Re-classify" re-labels the stored articles with the model in use, in a process of its own,
  with progress and Cancel; the user's corrections keep their topic.
- ``label_counts`` / ``hidden``: a list / set or a callable returning one (the stored topics and
  those marked "not interested"); without them the view asks ``store``. ``on_hidden_changed(name,
  hidden)`` is called when the user ticks "Not interested" (default: saved in the store).

Signals: ``modelChanged(str)`` (the id of the model now in use), ``labelsChanged()`` (a
re-classification wrote labels), ``jobFinished(str, dict)`` ("train" | "reclassify", the
result), ``hiddenChanged(str, bool)``, ``hiddenSaved(str, bool)``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Callable, Iterable

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QFormLayout, QFrame, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
    QProgressBar, QPushButton, QScrollArea, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout,
    QWidget,
)

from ..services.model_registry import SHIPPED, Registry
from ..core.text.topics import display_name
from ..errors import describe
from . import store_ops, workers
from .classifier_actions import SETTINGS_CORPUS, ClassifierActions
from .classifier_tables import ConfusionHeatMap, ScoresTable, fill_counts, local_time
from .floor_box import FloorBox
from .model_compare import ComparisonBox, model_name
from .model_job import ModelJob
from .model_list import ModelList
from .wrap_scroll import WrapScroll

CARD_ROWS = ("Model", "Topics", "Features", "Training set", "Test set", "Accuracy", "Macro-F1", "Trained",
             "Libraries", "Command")


def _callable(value, default):
    if value is None:
        return default
    return value if callable(value) else (lambda: value)


class ClassifierView(ClassifierActions, QWidget):
    modelChanged = Signal(str)
    labelsChanged = Signal()
    jobFinished = Signal(str, dict)
    hiddenChanged = Signal(str, bool)
    hiddenSaved = Signal(str, bool)  # ... and now the store says so too (lists can re-read it)

    COUNT_COLUMNS = ("Topic", "Stored articles", "Not interested")

    def __init__(self, data_dir: Path, parent=None, *, store=None,
                 label_counts: Iterable[tuple[str, int]] | Callable | None = None,
                 hidden: set[str] | Callable | None = None,
                 on_hidden_changed: Callable[[str, bool], None] | None = None, corpus_dir: Path | None = None):
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.registry = Registry(self.data_dir)
        self.store = store
        self._label_counts = _callable(label_counts, store.label_counts if store else list)
        self._hidden_source = _callable(hidden, store.hidden_categories if store else set)
        self._on_hidden_changed = on_hidden_changed if on_hidden_changed is not None else (
            self._save_hidden if hidden is None and store else None)
        stored = QSettings().value(SETTINGS_CORPUS, "")
        self.corpus_dir: Path | None = Path(corpus_dir) if corpus_dir else (Path(stored) if stored else None)
        self.versions: dict[str, object] = {}
        self.active_id = SHIPPED
        self.card: dict = {}  # the selected model's
        self.hidden: set[str] = set()
        self.job: ModelJob | None = None
        self._job_started = 0.0
        self._job_message = ""
        self._select_next: str | None = None
        self._refresh_worker: workers.Worker | None = None
        self._refresh_again = False
        self._refresh_timer = QTimer(self, singleShot=True, interval=800)
        self._refresh_timer.timeout.connect(self.refresh)
        self._clock = QTimer(self, interval=1000)
        self._clock.timeout.connect(self._show_job_status)
        self._filling = False
        self._build()
        self.refresh()

    # --- layout -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.active_label = QLabel()
        self.active_label.setWordWrap(True)
        self.active_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refresh_button = QPushButton("Refresh", clicked=self.refresh)
        self.corpus_button = QPushButton("Corpus…", toolTip="The labelled corpus folder Retrain starts from",
                                         clicked=self.choose_corpus)
        self.retrain_button = QPushButton("Retrain", toolTip="Train a new model on the corpus and the articles "
                                          "labelled by you or by their site section; it is kept beside the "
                                          "model in use, which it replaces only if you choose it",
                                          clicked=self.start_retrain)
        self.reclassify_button = QPushButton("Re-classify", toolTip="Re-label the stored articles with the model "
                                             "in use (your corrections stay)", clicked=self.start_reclassify)
        top = QHBoxLayout()
        top.addWidget(self.active_label, 1)
        for b in (self.refresh_button, self.corpus_button, self.retrain_button, self.reclassify_button):
            top.addWidget(b)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #b9770e;")
        self.notice.hide()

        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel", clicked=self.cancel_job)
        self.cancel_button.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.progress)
        status_row.addWidget(self.cancel_button)

        self.models = ModelList()
        self.models.chosen.connect(self._show_selected)
        self.models.useRequested.connect(self.use_model)
        self.models.removeRequested.connect(self.remove_model)
        models_box = QGroupBox("Models")
        QVBoxLayout(models_box).addWidget(self.models)
        self.card_box = QGroupBox("Model card")
        self.card_form = QFormLayout(self.card_box)
        self.card_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.card_fields: dict[str, QLabel] = {}
        for key in CARD_ROWS:
            value = QLabel("–", wordWrap=True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.card_fields[key] = value
            self.card_form.addRow(key + ":", value)
        card_scroll = self.card_scroll = WrapScroll(self.card_box)
        self.counts_table = QTableWidget(0, len(self.COUNT_COLUMNS))
        self.counts_table.setHorizontalHeaderLabels(self.COUNT_COLUMNS)
        self.counts_table.verticalHeader().setVisible(False)
        self.counts_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.counts_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.counts_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.counts_table.itemChanged.connect(self._hidden_item_changed)
        counts_box = QGroupBox("Stored articles by topic")
        QVBoxLayout(counts_box).addWidget(self.counts_table)
        left = QSplitter(Qt.Orientation.Vertical)
        for w in (models_box, card_scroll, counts_box):
            left.addWidget(w)
            left.setCollapsible(left.indexOf(w), False)

        self.comparison = ComparisonBox()
        self.scores_table = ScoresTable()
        scores_scroll = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        scores_scroll.setWidget(self.scores_table)
        self.heatmap = ConfusionHeatMap()
        self.floor_box = FloorBox()
        self.floor_box.floorChosen.connect(self.set_floor)
        self.details = QTabWidget()
        for widget, name, tip in (
                (self.comparison, "Comparison", "The selected model beside the model in use, on the same held-out "
                 "documents"),
                (scores_scroll, "Scores", "Per-topic precision, recall and F1 on the held-out test set"),
                (self.heatmap, "Confusion", "Rows: true topic, columns: predicted (held-out test set)"),
                (self.floor_box, "Floor", "The confidence under which an article gets no topic")):
            self.details.setTabToolTip(self.details.addTab(widget, name), tip)
        for table in (self.counts_table, self.scores_table):
            table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
            table.setAlternatingRowColors(True)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.details)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        for i in range(2):
            split.setCollapsible(i, False)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        line = QFrame(frameShape=QFrame.Shape.HLine)
        layout.addWidget(line)
        layout.addWidget(split, 1)
        layout.addLayout(status_row)

    # --- data ---------------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> None:
        """Re-read the models, the stored topic counts and hidden topics (in a worker)."""
        self._refresh_timer.stop()
        if select:
            self._select_next = select
        if self._refresh_worker is not None:
            self._refresh_again = True  # the running one may have counted before the latest rows
            return
        registry, counts, hidden = self.registry, self._label_counts, self._hidden_source

        def load():
            return {"versions": registry.versions(), "active": registry.active_id(), "floor": registry.floor(),
                    "labels_from": registry.labels_from(), "counts": list(counts()), "hidden": set(hidden())}

        worker = workers.Worker(load)
        worker.signals.result.connect(self._apply)
        worker.signals.error.connect(lambda msg: self.status.setText(f"Could not read: {msg}"))
        worker.signals.finished.connect(self._refresh_done)
        self._refresh_worker = workers.start(worker)

    def _refresh_done(self) -> None:
        self._refresh_worker = None
        if self._refresh_again:
            self._refresh_again = False
            self.refresh()

    def schedule_refresh(self, *_args) -> None:
        """Refresh soon, once for a burst of calls (articles arriving during a crawl); while the screen
        is hidden nothing is read: it refreshes when shown."""
        if self.isVisible() and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not event.spontaneous() and self._refresh_worker is None:
            self.refresh()  # the stored articles may have changed while another tab was shown

    def _apply(self, result: dict) -> None:
        self.versions = {v.id: v for v in result["versions"]}
        self.active_id = result["active"]
        self.hidden = set(result["hidden"])
        select, self._select_next = self._select_next, None
        self.models.show_versions(result["versions"], self.active_id, select)
        active = self.versions.get(self.active_id)
        self.floor_box.show_for(active.card if active else {}, result["floor"])
        self._show_active(result["labels_from"])
        self._show_selected(self.models.selected_id())
        self._show_counts(result["counts"])

    def _show_active(self, labels_from: str) -> None:
        v = self.versions.get(self.active_id)
        title = v.title if v else model_name(self.active_id)
        facts = []
        if v and v.created:
            facts.append(f"trained {local_time(v.created)}")
        if v and v.accuracy is not None:
            facts.append(f"held-out accuracy {v.accuracy:.3f}")
        self.active_label.setText(f"Topic model in use: <b>{html.escape(title)}</b>"
                                  + (f" ({', '.join(facts)})" if facts else ""))
        stale = labels_from != self.active_id and self.store is not None
        self.notice.setText(f"The stored articles were last labelled as a whole with {model_name(labels_from)}; "
                            f"crawls now use {model_name(self.active_id)}. Re-classify gives them all its labels "
                            "(your corrections stay)." if stale else "")
        self.notice.setVisible(stale)

    def _show_selected(self, version_id: str) -> None:
        v = self.versions.get(version_id)
        self.card = v.card if v else {}
        title = v.title if v else ""
        self.card_box.setTitle(f"Model card: {title}" if title else "Model card")
        self._show_card(v is not None and v.id == SHIPPED)
        self.comparison.show_for(title, self.card)

    def _show_card(self, shipped: bool) -> None:
        card, f = self.card, self.card_fields
        # the shipped model's card holds the command its makers ran, with their folders: not for users
        self.card_form.setRowVisible(f["Command"], not shipped)
        if not card:
            for value in f.values():
                value.setText("–")
            self.scores_table.setRowCount(0)
            self.heatmap.set_matrix([], [])
            return
        ts, m = card.get("training_set", {}), card.get("metrics") or {}
        f["Model"].setText(card.get("model", "–"))
        f["Topics"].setText(f"{len(card.get('labels', []))}: "
                            + ", ".join(display_name(x) for x in card.get("labels", [])))
        f["Features"].setText(f"{card['features']:,}" if isinstance(card.get("features"), int) else "–")
        f["Training set"].setText(f"{ts.get('train_docs', '–')} documents from {ts.get('source') or 'unknown'}"
                                  f" ({ts.get('duplicates_removed_train', 0)} duplicates removed)")
        f["Test set"].setText(f"{ts.get('test_docs', '–')} documents ({ts.get('test_split', '')}; "
                              f"{ts.get('test_overlap_removed', 0)} also in training removed)")
        f["Accuracy"].setText(f"{m['accuracy']:.4f}" if "accuracy" in m else "–")
        f["Macro-F1"].setText(f"{m['macro']['f1']:.4f}" if "macro" in m else "–")
        f["Trained"].setText(f"{local_time(card.get('created', '–'))} in {card.get('train_seconds', '–')} s")
        v = card.get("versions", {})
        f["Libraries"].setText(", ".join(f"{k} {v[k]}" for k in ("scikit-learn", "numpy", "python") if k in v) or "–")
        f["Command"].setText(card.get("command", "–"))
        self.card_scroll.fit()
        self.scores_table.show_scores(m)
        matrix = m.get("confusion_matrix")
        self.heatmap.set_matrix(list(m["labels"]) if matrix else [], matrix or [])

    def _show_counts(self, counts: list[tuple[str, int]]) -> None:
        self._filling = True
        try:
            active = self.versions.get(self.active_id)
            fill_counts(self.counts_table, counts, active.card.get("labels", []) if active else [], self.hidden)
        finally:
            self._filling = False

    def label_distribution(self) -> list[tuple[str, int, bool]]:
        """(internal label, stored articles, hidden), top to bottom as shown."""
        t = self.counts_table
        return [(t.item(r, 0).data(Qt.ItemDataRole.UserRole), int(t.item(r, 1).text()),
                 t.item(r, 2).checkState() == Qt.CheckState.Checked) for r in range(t.rowCount())]

    # --- not interested -----------------------------------------------------------------------
    def _hidden_item_changed(self, item: QTableWidgetItem) -> None:
        if not self._filling and item.column() == 2:
            self.set_hidden(item.data(Qt.ItemDataRole.UserRole), item.checkState() == Qt.CheckState.Checked)

    def set_hidden(self, name: str, hidden: bool) -> None:
        """Mark a topic "not interested" (or not): the callback, then ``hiddenChanged``."""
        if hidden == (name in self.hidden):
            return
        (self.hidden.add if hidden else self.hidden.discard)(name)
        if self._on_hidden_changed is not None:
            try:
                self._on_hidden_changed(name, hidden)
            except Exception as exc:  # noqa: BLE001 - tell the user, keep the screen alive
                self.status.setText(f"Could not save '{display_name(name)}': {describe(exc)}")
        self.hiddenChanged.emit(name, hidden)
        self.status.setText(f"Articles about {display_name(name)} are {'hidden' if hidden else 'shown again'}.")

    def _save_hidden(self, name: str, hidden: bool) -> None:
        store_ops.write(self.store.set_category_hidden, name, hidden, owner=self,
                        on_done=lambda _r: self.hiddenSaved.emit(name, hidden),
                        on_error=lambda message: self.status.setText(
                            f"Could not save '{display_name(name)}': {message}"))
