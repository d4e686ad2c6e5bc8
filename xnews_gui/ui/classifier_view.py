"""The Classifier screen: model card, per-class scores, confusion-matrix heat map, stored topics, Retrain.

``ClassifierView(model_path, data_dir, parent=None, *, store=None, label_counts=None, hidden=None,
on_hidden_changed=None, training_docs=None, corpus_dir=None)``

Hooks (all optional; without them the view uses ``store``, and does without it when
there is none):

- ``label_counts``: a list of ``(label, count)`` or a callable returning one -- the topics
  of stored articles. Called in a worker thread by ``refresh()``.
- ``hidden``: a set of topic names, or a callable returning one -- the topics marked
  "not interested".
- ``on_hidden_changed(name, hidden)``: called on the GUI thread when the user ticks or
  unticks "Not interested"; the ``hiddenChanged`` signal carries the same.
- ``training_docs``: a callable returning ``classify.Doc``s (stored articles labelled by
  the user's correction, else their section); called in the Retrain worker.
- ``corpus_dir``: the corpus folder Retrain starts from (the "Corpus..." button changes it
  and remembers it in QSettings).

Signals: ``modelChanged(Path)`` after a retrained model is saved (to
``<data_dir>/models/topic.npz``; reload the crawler's classifier then),
``retrainFinished(object)`` with the ``RetrainResult``, ``hiddenChanged(str, bool)``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Callable, Iterable

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..classify import ModelError
from ..classify.retrain import Cancelled, retrain
from ..core.topics import display_name
from ..paths import BUNDLED_MODEL, own_model_path
from ..services.training import training_docs as training_docs_of
from . import store_ops, workers
from .classifier_tables import ConfusionHeatMap, ScoresTable, fill_counts, local_time, read_card

SETTINGS_CORPUS = "classifier/corpus_dir"


def _callable(value, default):
    if value is None:
        return default
    return value if callable(value) else (lambda: value)


class ClassifierView(QWidget):
    modelChanged = Signal(Path)
    retrainFinished = Signal(object)
    hiddenChanged = Signal(str, bool)
    hiddenSaved = Signal(str, bool)  # ... and now the store says so too (lists can re-read it)

    COUNT_COLUMNS = ("Topic", "Stored articles", "Not interested")

    def __init__(self, model_path: Path, data_dir: Path, parent=None, *, store=None,
                 label_counts: Iterable[tuple[str, int]] | Callable | None = None,
                 hidden: set[str] | Callable | None = None,
                 on_hidden_changed: Callable[[str, bool], None] | None = None,
                 training_docs: Callable | None = None, corpus_dir: Path | None = None):
        super().__init__(parent)
        self.model_path = Path(model_path)
        self.data_dir = Path(data_dir)
        self.store = store
        self._label_counts = _callable(label_counts, store.label_counts if store else list)
        self._hidden_source = _callable(hidden, store.hidden_categories if store else set)
        self._on_hidden_changed = on_hidden_changed if on_hidden_changed is not None else (
            self._save_hidden if hidden is None and store else None)
        self._training_docs = training_docs if training_docs is not None else (
            (lambda: training_docs_of(store)) if store else list)
        stored = QSettings().value(SETTINGS_CORPUS, "")
        self.corpus_dir: Path | None = Path(corpus_dir) if corpus_dir else (Path(stored) if stored else None)
        self.card: dict = {}
        self.hidden: set[str] = set()
        self._worker: workers.Worker | None = None
        self._refresh_worker: workers.Worker | None = None
        self._refresh_again = False
        self._refresh_timer = QTimer(self, singleShot=True, interval=800)
        self._refresh_timer.timeout.connect(self.refresh)
        self._filling = False
        self._build()
        self.refresh()

    # --- layout -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel("<b>Topic model</b>")
        self.path_label = QLabel()
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.path_label.setStyleSheet("color: palette(mid);")
        self.corpus_button = QPushButton("Corpus…", toolTip="The labelled corpus folder Retrain starts from")
        self.corpus_button.clicked.connect(self.choose_corpus)
        self.retrain_button = QPushButton("Retrain", toolTip="Train a new model on the corpus and the articles "
                                          "labelled by you or by their site section")
        self.retrain_button.clicked.connect(self._retrain_clicked)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addWidget(self.path_label, 1)
        for b in (self.refresh_button, self.corpus_button, self.retrain_button):
            top.addWidget(b)

        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.progress)

        # left: card and stored topics
        self.card_box = QGroupBox("Model card")
        self.card_form = QFormLayout(self.card_box)
        self.card_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.card_fields: dict[str, QLabel] = {}
        for key in ("Model", "Topics", "Features", "Training set", "Test set", "Accuracy", "Macro-F1",
                    "Trained", "Libraries", "Command"):
            value = QLabel("–")
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.card_fields[key] = value
            self.card_form.addRow(key + ":", value)

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
        card_scroll = QScrollArea()
        card_scroll.setWidgetResizable(True)
        card_scroll.setFrameShape(QFrame.Shape.NoFrame)
        card_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        card_scroll.setWidget(self.card_box)
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(card_scroll)
        left.addWidget(counts_box)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)

        # right: per-class scores and the heat map
        self.scores_table = ScoresTable()
        scores_box = QGroupBox("Per-class precision / recall / F1 (held-out test set)")
        QVBoxLayout(scores_box).addWidget(self.scores_table)
        self.heatmap = ConfusionHeatMap()
        heat_box = QGroupBox("Confusion matrix (rows: true topic, columns: predicted)")
        QVBoxLayout(heat_box).addWidget(self.heatmap)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(scores_box)
        right.addWidget(heat_box)

        row_height = self.fontMetrics().height() + 8
        for table in (self.counts_table, self.scores_table):
            table.verticalHeader().setDefaultSectionSize(row_height)
            table.setAlternatingRowColors(True)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        layout.addWidget(line)
        layout.addWidget(split, 1)
        layout.addLayout(status_row)

    # --- data ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-read the model card, stored topic counts and hidden topics (in a worker)."""
        self._refresh_timer.stop()
        if self._refresh_worker is not None:
            self._refresh_again = True  # the running one may have counted before the latest rows
            return
        path, counts, hidden = self.model_path, self._label_counts, self._hidden_source

        def load():
            result = {"counts": [], "hidden": set(), "card": {}, "error": ""}
            try:
                result["card"] = read_card(path)
            except ModelError as exc:
                result["error"] = str(exc)
            result["counts"] = list(counts())
            result["hidden"] = set(hidden())
            return result

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
        """Refresh soon, once for a burst of calls (articles arriving during a crawl).

        While the screen is hidden nothing is read; it refreshes when shown."""
        if self.isVisible() and not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not event.spontaneous() and self._refresh_worker is None:
            self.refresh()  # the stored articles may have changed while another tab was shown

    def _apply(self, result: dict) -> None:
        self.card = result["card"]
        self.hidden = set(result["hidden"])
        self._show_card()
        self._show_counts(result["counts"])
        if result["error"]:
            self.card_fields["Model"].setText(f"<span style='color:#c62828'>{html.escape(result['error'])}</span>")

    def _show_card(self) -> None:
        card = self.card
        shipped = self.model_path.resolve() == BUNDLED_MODEL.resolve()
        self.path_label.setText("the model shipped with XNews" if shipped else str(self.model_path))
        f = self.card_fields
        # the shipped model's card holds the command its makers ran, with their folders: not for users
        self.card_form.setRowVisible(f["Command"], not shipped)
        if not card:
            for value in f.values():
                value.setText("–")
            self.scores_table.setRowCount(0)
            self.heatmap.set_matrix([], [])
            return
        ts = card.get("training_set", {})
        m = card.get("metrics") or {}
        f["Model"].setText(card.get("model", "–"))
        f["Topics"].setText(f"{len(card.get('labels', []))}: "
                            + ", ".join(display_name(x) for x in card.get("labels", [])))
        f["Features"].setText(f"{card.get('features', '–'):,}" if isinstance(card.get("features"), int) else "–")
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
        self.scores_table.show_scores(m)
        matrix = m.get("confusion_matrix")
        self.heatmap.set_matrix(list(m["labels"]) if matrix else [], matrix or [])

    def _show_counts(self, counts: list[tuple[str, int]]) -> None:
        self._filling = True
        try:
            fill_counts(self.counts_table, counts, self.card.get("labels", []), self.hidden)
        finally:
            self._filling = False

    def label_distribution(self) -> list[tuple[str, int, bool]]:
        """(internal label, stored articles, hidden), top to bottom as shown."""
        t = self.counts_table
        return [(t.item(r, 0).data(Qt.ItemDataRole.UserRole), int(t.item(r, 1).text()),
                 t.item(r, 2).checkState() == Qt.CheckState.Checked) for r in range(t.rowCount())]

    def _hidden_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 2:
            return
        name = item.data(Qt.ItemDataRole.UserRole)
        hidden = item.checkState() == Qt.CheckState.Checked
        self.set_hidden(name, hidden)

    def set_hidden(self, name: str, hidden: bool) -> None:
        """Mark a topic "not interested" (or not): the callback, then ``hiddenChanged``."""
        if hidden == (name in self.hidden):
            return
        (self.hidden.add if hidden else self.hidden.discard)(name)
        if self._on_hidden_changed is not None:
            try:
                self._on_hidden_changed(name, hidden)
            except Exception as exc:  # noqa: BLE001 - tell the user, keep the screen alive
                self.status.setText(f"Could not save '{display_name(name)}': {type(exc).__name__}: {exc}")
        self.hiddenChanged.emit(name, hidden)
        self.status.setText(f"Articles about {display_name(name)} are {'hidden' if hidden else 'shown again'}.")

    def _save_hidden(self, name: str, hidden: bool) -> None:
        store_ops.write(self.store.set_category_hidden, name, hidden, owner=self,
                        on_done=lambda _r: self.hiddenSaved.emit(name, hidden),
                        on_error=lambda message: self.status.setText(
                            f"Could not save '{display_name(name)}': {message}"))

    # --- retrain ------------------------------------------------------------------------------
    def choose_corpus(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Corpus folder (<topic>/<file>.txt)",
                                                  str(self.corpus_dir or Path.home()))
        if folder:
            self.set_corpus_dir(Path(folder))

    def set_corpus_dir(self, folder: Path | None) -> None:
        self.corpus_dir = Path(folder) if folder else None
        QSettings().setValue(SETTINGS_CORPUS, str(self.corpus_dir or ""))
        self.status.setText(f"Retrain will start from {self.corpus_dir}." if self.corpus_dir
                            else "Retrain will use stored articles only.")

    @property
    def retraining(self) -> bool:
        return self._worker is not None

    def _retrain_clicked(self) -> None:
        if self._worker is not None:
            self._worker.abort()
            self.retrain_button.setEnabled(False)
            self.status.setText("Stopping after the current step…")
        else:
            self.start_retrain()

    def start_retrain(self) -> None:
        if self._worker is not None:
            return
        old, out = self.model_path, own_model_path(self.data_dir)
        corpus_dir, docs = self.corpus_dir, self._training_docs
        cache = self.data_dir / "cache" / "corpora"

        def job(worker):
            return retrain(old, out, corpus_dir=corpus_dir, extra_docs=list(docs() or []), cache_dir=cache,
                           progress=lambda f, msg: worker.signals.progress.emit((f, msg)),
                           should_stop=lambda: worker.aborted)

        worker = workers.Worker(job)
        worker.signals.progress.connect(self._retrain_progress)
        worker.signals.result.connect(self._retrain_done)
        worker.signals.error.connect(self._retrain_failed)
        worker.signals.finished.connect(self._retrain_finished)
        self.retrain_button.setText("Cancel")
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.status.setText("Retraining…")
        self._worker = workers.start(worker, workers.crawl_pool())  # long job: keep the query pool free

    def _retrain_progress(self, update) -> None:
        fraction, message = update
        self.progress.setValue(int(fraction * 100))
        self.status.setText(f"Retraining: {message}")

    def _retrain_done(self, result) -> None:
        self.model_path = result.path
        self.card = result.card
        self._show_card()
        self.status.setText(f"Retrained and saved to {result.path}. {result.summary()}")
        self.retrainFinished.emit(result)
        self.modelChanged.emit(result.path)

    def _retrain_failed(self, message: str) -> None:
        if message.startswith(Cancelled.__name__):
            self.status.setText("Retrain cancelled; the model is unchanged.")
        else:
            self.status.setText(f"Retrain failed: {message}")

    def _retrain_finished(self) -> None:
        if self._worker is not None and self._worker.aborted and not self.status.text().startswith("Retrain"):
            self.status.setText("Retrain cancelled; the model is unchanged.")
        self._worker = None
        self.retrain_button.setText("Retrain")
        self.retrain_button.setEnabled(True)
        self.progress.setVisible(False)
        self.refresh()

    def shutdown(self) -> None:
        """Ask a running retrain to stop (the app calls ``workers.wait_all`` on exit)."""
        if self._worker is not None:
            self._worker.abort()
