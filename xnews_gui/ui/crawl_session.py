"""One profile's crawl, run in a process of its own and reported to the GUI in batches.

The crawl runs in a child process (services/crawl_child.py): its threads never hold this
process's interpreter lock, so painting and clicks are not kept waiting by a full-speed crawl.
Its events arrive as JSON lines on a pipe read by the event loop; pause, resume and stop go
back the same way. Every profile crawls this one way: a profile marked "render" starts the child
through ``ui/crawl_child_render.py``, which keeps its render pool (offscreen QtWebEngine pages)
in the child, where the crawl is.
Events only append to a deque; a GUI timer drains it a few times a second and emits one
signal per kind with everything that arrived, so a fast crawl cannot flood the event loop.
"""

from __future__ import annotations

import collections
import json
import logging
import time

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from ..core.profile.profile import Profile
from ..services.crawl_child import MODULE, child_command, options_to_dict
from ..store import Store
from .child_lines import ChildLines
from .crawl_child_render import MODULE as RENDER_MODULE

log = logging.getLogger(__name__)

DRAIN_MS = 200


def skip_hidden_topics() -> bool:
    from .settings import Preferences

    return Preferences.load().skip_hidden_topics


class CrawlSession(QObject):
    articlesStored = Signal(list)  # [{"id", "url", "title", "category", "confidence"}, ...]
    articlesUpdated = Signal(list)  # [{"id", "url", "title"}, ...]: stored articles a revisit found changed
    statsChanged = Signal(dict)
    errorsAdded = Signal(list)  # [{"url", "kind", "message", "at"}, ...]
    logAdded = Signal(list)  # [str, ...]
    stateChanged = Signal(str)  # starting | running | paused | stopping | finished | stopped | limit | failed
    finished = Signal(dict)  # the engine's summary
    watchesFired = Signal(list)  # [{"watch", "id", "url", "title", "category", "profile", ...}, ...]: new matches

    def __init__(self, profile: Profile, store: Store, options, classifier=None, parent=None,
                 image_cache_limit: int = 0, cluster_url: str = ""):
        """``classifier``: None crawls without topics; otherwise the data folder's topic model is used
        (the child process loads it). ``cluster_url``: follow the profile's crawl by Scrapy workers
        sharing that Redis instead (their items stored as they come: services/cluster.py)."""
        super().__init__(parent)
        self.profile = profile
        self.store = store
        self.options = options
        self.classifier = classifier
        self.image_cache_limit = image_cache_limit
        self.cluster_url = cluster_url
        self.state = "idle"
        self.stats: dict = {}
        self.summary: dict | None = None
        self.started_at: float | None = None
        self._events: collections.deque = collections.deque()
        self._timer = QTimer(self, interval=DRAIN_MS)
        self._timer.timeout.connect(self._drain)
        self._process: QProcess | None = None  # the crawl's child process
        self._lines = _child_lines()
        self._ended: tuple[str, object] | None = None  # the child's last word: ("done", summary) | ("failed", msg)
        # the last run's QProcess, deleted when the next run starts: deleting a QProcess from its own
        # finished handler (even with deleteLater) can crash PySide while the signal is still delivered
        self._finished_process: QProcess | None = None

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def max_pages(self) -> int:
        return self.options.max_pages or self.profile.crawl.max_pages

    def is_active(self) -> bool:
        return self.state in ("starting", "running", "paused", "stopping")

    def start(self) -> None:
        if self.is_active():
            return
        self.summary, self.stats = None, {}
        self.started_at = time.time()
        self._set_state("starting")
        self._timer.start()
        self._start_process()

    def pause(self) -> None:
        if self.state == "running" and self._command("pause"):
            self._set_state("paused")

    def resume(self) -> None:
        if self.state == "paused" and self._command("resume"):
            self._set_state("running")

    def stop(self) -> None:
        if self.is_active():
            self._set_state("stopping")
            self._command("stop")

    def wait(self, timeout_ms: int) -> bool:
        """Wait for the crawl's process to end (closing the window); killed when it takes longer."""
        process = self._process
        if process is None or process.state() == QProcess.ProcessState.NotRunning:
            return True
        if process.waitForFinished(timeout_ms):
            return True
        process.kill()
        return process.waitForFinished(1000)

    def _command(self, command: str) -> bool:
        if self._process is None or self._process.state() == QProcess.ProcessState.NotRunning:
            return False
        self._process.write(command.encode() + b"\n")
        return True

    # --- the child process --------------------------------------------------------------
    def _start_process(self) -> None:
        if self._finished_process is not None:
            self._finished_process.deleteLater()
            self._finished_process = None
        program, args, env = child_command(RENDER_MODULE if self.profile.needs_browser else MODULE)
        environment = QProcessEnvironment.systemEnvironment()
        for key, value in env.items():
            environment.insert(key, value)
        process = self._process = QProcess(self)
        process.setProcessEnvironment(environment)
        process.readyReadStandardOutput.connect(self._read_output)
        process.readyReadStandardError.connect(self._read_errors)
        process.finished.connect(self._process_finished)
        process.errorOccurred.connect(self._process_error)
        self._lines, self._ended = _child_lines(), None
        request = {"data_dir": str(self.store.root), "profile": self.profile.to_dict(),
                   "options": options_to_dict(self.options),
                   "classifier": "none" if self.classifier is None else "auto",
                   "skip_hidden_topics": skip_hidden_topics(), "image_cache_limit": self.image_cache_limit}
        if self.cluster_url:
            request["cluster"] = self.cluster_url
        process.start(program, args)
        process.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")

    def _read_output(self) -> None:
        process = self._process
        if process is None:
            return
        for kind, data in self._lines.feed(bytes(process.readAllStandardOutput())):
            if kind in ("done", "failed"):
                self._ended = (kind, data)
            else:
                self._events.append((kind, data))

    def _read_errors(self) -> None:
        """The child's own messages and tracebacks go to the app's log."""
        if self._process is not None:
            text = bytes(self._process.readAllStandardError()).decode("utf-8", "replace").rstrip()
            if text:
                log.warning("crawl process [%s]: %s", self.name, text)

    def _process_finished(self, exit_code: int, _status=None) -> None:
        self._read_errors()
        self._read_output()
        self._finished_process, ended, self._process = self._process, self._ended, None
        if ended is not None and ended[0] == "done" and isinstance(ended[1], dict):
            self._done(ended[1])
        elif ended is not None and ended[0] == "failed":
            self._crashed(str(ended[1].get("message", "the crawl failed")))
        else:
            self._crashed(f"the crawl's process ended without a summary (exit code {exit_code})")

    def _process_error(self, error) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            self._process = None
            self._crashed(f"the crawl's process could not start: {error.name}")

    # --- GUI thread -------------------------------------------------------------------
    def _drain(self) -> None:
        articles, updated, errors, logs, stats, summary, watched = [], [], [], [], None, None, []
        now = time.time()
        while self._events:
            kind, data = self._events.popleft()
            if kind == "article":
                articles.append(data)
            elif kind == "updated":
                updated.append(data)
            elif kind == "error":
                errors.append(dict(data, at=now))
            elif kind == "log":
                logs.append(str(data.get("message", "")))
            elif kind == "stats":
                stats = data
            elif kind == "watch":
                watched.append(data)
            elif kind == "finished":
                summary = data
            elif kind == "state" and self.state == "starting":
                self._set_state(data)
        if stats is not None:
            self.stats = stats
            self.statsChanged.emit(stats)
        if articles:
            self.articlesStored.emit(articles)
        if updated:
            self.articlesUpdated.emit(updated)
        if errors:
            self.errorsAdded.emit(errors)
        if watched:
            self.watchesFired.emit(watched)
        if logs:
            self.logAdded.emit(logs)
        if summary is not None:
            self.summary = summary

    def _done(self, summary: dict) -> None:
        self._finish(summary, summary.get("status", "finished"))

    def _crashed(self, message: str) -> None:
        self._events.append(("log", {"message": f"crawl failed: {message}"}))
        self._drain()  # a "finished" summary read before the process died is the base, not the verdict
        self._finish(dict(self.summary or self.stats, status="failed", failed_reason=message), "failed")

    def _finish(self, summary: dict, state: str) -> None:
        self._drain()
        self._timer.stop()
        self.summary = summary
        self.stats = {k: v for k, v in summary.items() if k != "broken_fields"} or self.stats
        self.statsChanged.emit(self.stats)
        self._set_state(state)
        self.finished.emit(summary)

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)


def _child_lines() -> ChildLines:
    """What the crawl's process says: "state" a word, every other kind an object (the child keeps its
    strings short, so a line over 4 MB is no message of it)."""
    kinds = ("article", "updated", "error", "log", "stats", "watch", "finished", "page", "done", "failed")
    return ChildLines("crawl process", {"state": str, **dict.fromkeys(kinds, dict)}, 4 * 1024 * 1024)
