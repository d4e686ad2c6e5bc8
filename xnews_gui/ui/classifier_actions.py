"""The Classifier screen's actions (a mixin of ``ClassifierView``): choosing, removing a model, the
floor, and the jobs that run in a process of their own (Retrain, Re-classify) with progress and Cancel."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..classify.compare import describe
from .corrections_dialog import CorrectionsDialog
from .model_compare import model_name
from .model_job import ModelJob

SETTINGS_CORPUS = "classifier/corpus_dir"


class ClassifierActions:
    # --- choosing a model ----------------------------------------------------------------------
    def use_model(self, version_id: str) -> None:
        """Make a model the one in use; asks first when it scored worse than the model in use."""
        v = self.versions.get(version_id)
        if v is None or version_id == self.active_id:
            return
        c = v.card.get("comparison") or {}
        new, old = c.get("new"), c.get("in_use_scores")
        if c.get("in_use") == self.active_id and new and old and new["accuracy"] < old["accuracy"]:
            box = QMessageBox(QMessageBox.Icon.Question, "Use a weaker model?",
                              f"{v.title} was right on {new['accuracy']:.1%} of {c['documents']:,} held-out "
                              f"documents, {model_name(self.active_id)} on {old['accuracy']:.1%} of the same ones. "
                              f"Use {v.title} anyway?", parent=self)
            box.addButton("Use it", QMessageBox.ButtonRole.AcceptRole)
            box.addButton(QMessageBox.StandardButton.Cancel)
            box.finished.connect(lambda _c, box=box: self._use_answered(box, version_id))
            self.question = box
            box.open()
            return
        self._use(version_id)

    def _use_answered(self, box: QMessageBox, version_id: str) -> None:
        self.question = None
        if box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.AcceptRole:
            self._use(version_id)
        box.deleteLater()

    def _use(self, version_id: str) -> None:
        try:
            version = self.registry.use(version_id)
        except (ValueError, OSError) as exc:
            self.status.setText(f"Could not use that model: {exc}")
            return
        self.active_id = version.id
        self._show_active(self.registry.labels_from())
        self.status.setText(f"{version.title} is in use: crawls from now on label articles with it. "
                            "Re-classify to give it the stored articles too.")
        self.modelChanged.emit(version.id)
        self.refresh(select=version.id)

    def remove_model(self, version_id: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Remove model",
                          f"Remove model {version_id}? Its file and card are deleted.", parent=self)
        box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda _c, box=box: self._remove_answered(box, version_id))
        self.question = box
        box.open()

    def _remove_answered(self, box: QMessageBox, version_id: str) -> None:
        self.question = None
        if box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.DestructiveRole:
            try:
                self.registry.remove(version_id)
                self.status.setText(f"Model {version_id} removed.")
            except (ValueError, OSError) as exc:
                self.status.setText(f"Not removed: {exc}")
            self.refresh()
        box.deleteLater()

    def set_floor(self, floor: float | None) -> None:
        self.registry.set_floor(floor)
        self.status.setText(("The model's own confidence floor is used" if floor is None else
                             f"Confidence floor {floor:.2f}: articles the model is less sure of get no topic")
                            + " in crawls from now on; Re-classify applies it to the stored articles.")
        self.modelChanged.emit(self.active_id)
        self.refresh()

    # --- jobs: retrain, re-classify --------------------------------------------------------------
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
        return self.job is not None and self.job.kind == "train"

    def start_retrain(self) -> ModelJob | None:
        return self._start_job({"job": "train", "data_dir": str(self.data_dir),
                                "corpus_dir": str(self.corpus_dir or ""),
                                "cache_dir": str(self.data_dir / "cache" / "corpora"),
                                "stored_articles": self.store is not None}, "Retraining")

    def start_reclassify(self) -> ModelJob | None:
        return self._start_job({"job": "reclassify", "data_dir": str(self.data_dir), "profile": ""},
                               "Re-classifying")

    def _start_job(self, request: dict, verb: str) -> ModelJob | None:
        if self.job is not None:
            return None
        job = self.job = ModelJob(request, self)
        job.progress.connect(self._job_progress)
        job.review.connect(self._review)
        job.ready.connect(self._ready)
        job.done.connect(lambda result: self._job_done(job, result))
        job.failed.connect(lambda message: self.status.setText(f"{verb} failed: {message}"))
        job.cancelled.connect(lambda: self.status.setText(
            "Retrain cancelled; no model was saved." if job.kind == "train" else "Re-classification cancelled."))
        job.ended.connect(self._job_ended)
        self._verb, self._job_message, self._job_started = verb, "starting", time.monotonic()
        for b in (self.retrain_button, self.reclassify_button):
            b.setEnabled(False)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setVisible(True)
        self._clock.start()
        self._show_job_status()
        job.start()
        return job

    def cancel_job(self) -> None:
        if self.job is not None and self.job.cancel():
            self.cancel_button.setEnabled(False)
            self.status.setText("Stopping…")

    def _job_progress(self, data: dict) -> None:
        if data.get("fraction") is not None:
            self.progress.setValue(int(float(data["fraction"]) * 100))
        self._job_message, self._job_started = str(data.get("message", "")), time.monotonic()
        self._show_job_status()

    def _show_job_status(self) -> None:
        if self.job is None or self.job.cancelling:
            return
        seconds = int(time.monotonic() - self._job_started)
        self.status.setText(f"{self._verb}: {self._job_message}" + (f" ({seconds} s)" if seconds >= 2 else ""))

    def _review(self, corrections: list) -> None:
        dialog = self.corrections_dialog = CorrectionsDialog(corrections, self)
        dialog.finished.connect(lambda code: self._reviewed(dialog, code))
        dialog.open()

    def _reviewed(self, dialog: CorrectionsDialog, code: int) -> None:
        self.corrections_dialog = None
        if self.job is not None and self.job.kind == "train":
            if code:
                self.job.train_with(dialog.excluded())
            else:
                self.cancel_job()
        dialog.deleteLater()

    def _ready(self, _candidate: dict) -> None:
        """Trained and compared: let it be written (Cancel can no longer stop it)."""
        if self.job is not None:
            self.job.commit()
            self.cancel_button.setEnabled(False)
            self._job_message = "saving the new model"

    def _job_done(self, job: ModelJob, result: dict) -> None:
        if job.kind == "train":
            in_use = model_name(result.get("in_use"))
            name = f"model {result['version']}"
            self.status.setText(f"Model {result['version']} is trained and kept; {in_use} stays in use until you "
                                f"choose another. Compared {describe(result.get('comparison'), name, in_use)}.")
            self.refresh(select=result["version"])
            self.details.setCurrentWidget(self.comparison)
        else:
            from ..services.reclassify import ReclassifyResult

            summary = ReclassifyResult(**result).summary(model_name(result.get("model")))
            self.status.setText(summary[0].upper() + summary[1:] + ".")
            self.labelsChanged.emit()
            self.refresh()
        self.jobFinished.emit(job.kind, result)

    def _job_ended(self) -> None:
        job, self.job = self.job, None
        self._clock.stop()
        for b in (self.retrain_button, self.reclassify_button):
            b.setEnabled(True)
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        if job is not None:
            job.deleteLater()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop a running job (the app is closing): a training not committed is ended, nothing written."""
        if self.job is not None:
            job = self.job
            job.cancel()
            job.wait(timeout_ms)

