"""A model job (training, re-classifying the store) in a process of its own, reported to the GUI.

``ModelJob(request)`` runs ``services/model_child.py``: its lines arrive through the event loop
and come out as signals; ``commit()`` lets a trained model be written, ``cancel()`` stops the
job. A training is cancelled by ending its process: nothing is written before ``commit()``,
and once committed the job cannot be cancelled (the model is being written). A re-classification
is asked to stop between chunks (it says how far it got), and ended after a grace period.
"""

from __future__ import annotations

import json
import logging

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from ..services.model_child import child_command
from .child_lines import ChildLines

log = logging.getLogger(__name__)

STOP_GRACE_MS = 4000


class ModelJob(QObject):
    progress = Signal(object)  # {"fraction", "message", ...}
    review = Signal(list)  # the corrections that contradict the model in use (training)
    ready = Signal(dict)  # the trained candidate, before it is written (training)
    done = Signal(dict)
    failed = Signal(str)
    cancelled = Signal()
    ended = Signal()  # after done, failed or cancelled

    def __init__(self, request: dict, parent=None):
        super().__init__(parent)
        self.request = request
        self.kind = request.get("job", "")
        self.committed = False
        self.cancelling = False
        self._lines = ChildLines(f"model job [{self.kind}]", {"progress": dict, "review": list, "ready": dict, "done": dict,
                                                        "failed": dict, "cancelled": dict}, 256 * 1024 * 1024)
        self._last: tuple[str, object] | None = None
        self._finished = False
        self.process = QProcess(self)
        self._kill_timer = QTimer(self, singleShot=True, interval=STOP_GRACE_MS)
        self._kill_timer.timeout.connect(self._kill)

    @property
    def running(self) -> bool:
        return not self._finished

    def start(self) -> "ModelJob":
        program, args, env = child_command()
        environment = QProcessEnvironment.systemEnvironment()
        for key, value in env.items():
            environment.insert(key, value)
        self.process.setProcessEnvironment(environment)
        self.process.readyReadStandardOutput.connect(self._read_output)
        self.process.readyReadStandardError.connect(self._read_errors)
        self.process.finished.connect(self._process_finished)
        self.process.errorOccurred.connect(self._process_error)
        self.process.start(program, args)
        self.send(json.dumps(self.request, ensure_ascii=False))
        return self

    def send(self, line: str) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.write(line.encode("utf-8") + b"\n")

    def train_with(self, exclude: list[int]) -> None:
        """The answer to ``review``: train, leaving out these corrections."""
        self.send("train " + json.dumps({"exclude": list(exclude)}))

    def commit(self) -> None:
        """Let the trained model be written; from now on the job cannot be cancelled."""
        if not self.cancelling and not self._finished:
            self.committed = True
            self.send("commit")

    def cancel(self) -> bool:
        """Stop the job; False once a trained model is being written (too late)."""
        if self._finished or self.committed:
            return False
        self.cancelling = True
        self.send("cancel")
        if self.kind == "train":
            self._kill()  # nothing was written: end it now, whatever step it is in
        else:
            self._kill_timer.start()  # it stops between chunks and says how far it got
        return True

    def wait(self, timeout_ms: int) -> bool:
        if self.process.state() == QProcess.ProcessState.NotRunning:
            return True
        if self.process.waitForFinished(timeout_ms):
            return True
        self._kill()
        return self.process.waitForFinished(1000)

    def _kill(self) -> None:
        if self.process.state() != QProcess.ProcessState.NotRunning:
            self.process.kill()

    def _read_output(self) -> None:
        for kind, data in self._lines.feed(bytes(self.process.readAllStandardOutput())):
            if kind == "progress":
                self.progress.emit(data)
            elif kind == "review" and not self.cancelling:
                self.review.emit(list(data))
            elif kind == "ready" and not self.cancelling:
                self.ready.emit(dict(data))
            elif kind in ("done", "failed", "cancelled"):
                self._last = (kind, data)

    def _read_errors(self) -> None:
        text = bytes(self.process.readAllStandardError()).decode("utf-8", "replace").rstrip()
        if text:
            log.warning("model job [%s]: %s", self.kind, text)

    def _process_finished(self, exit_code: int, _status=None) -> None:
        self._read_errors()
        self._read_output()
        self._kill_timer.stop()
        last = self._last
        if last is not None and last[0] == "done" and isinstance(last[1], dict):
            self._end(self.done, last[1])
        elif last is not None and last[0] == "failed":
            self._end(self.failed, str(last[1].get("message", "the job failed")))
        elif self.cancelling or (last is not None and last[0] == "cancelled"):
            self._end(self.cancelled)
        else:
            self._end(self.failed, f"the job's process ended without a result (exit code {exit_code})")

    def _process_error(self, error) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._end(self.failed, f"the job's process could not start: {error.name}")

    def _end(self, signal, *args) -> None:
        if self._finished:
            return
        self._finished = True
        signal.emit(*args)
        self.ended.emit()
