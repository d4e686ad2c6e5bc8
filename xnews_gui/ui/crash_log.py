"""What ends or troubles the app leaves a trace: a log file in the data folder, and a dialog.

- ``logs/xnews.log`` (rotating, bounded): Python logging, Qt's and QtWebEngine's messages (page
  JavaScript console lines included), and every unhandled exception with its traceback.
- ``logs/crash.log``: faulthandler's dump of every thread's stack when the process dies of a fatal
  signal (a segfault or an abort in native code), which no Python handler can catch. A dump left by
  the previous run is kept as ``crash-previous.log`` and reported once at the next start.
- An exception nobody caught, in a slot or in a thread, is shown in a dialog; the app keeps running.
"""

from __future__ import annotations

import faulthandler
import logging
import logging.handlers
import sys
import threading
import traceback
from pathlib import Path

from PySide6.QtCore import QObject, QtMsgType, Qt, QTimer, Signal, qInstallMessageHandler

from ..paths import logs_dir

log = logging.getLogger("xnews")
qt_log = logging.getLogger("xnews.qt")
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}
# Chromium writes its own lines straight to stderr; only fatal ones are worth a terminal
CHROMIUM_QUIET_FLAGS = "--log-level=3"


class _Reporter(QObject):
    """Carries an exception report to the GUI thread, where the dialog is shown."""

    report = Signal(str, str)  # one-line summary, traceback


class CrashLog:
    """Installed once per process by ``install``; kept so that tests can look at it."""

    def __init__(self, folder: Path, dialogs: bool = True):
        self.folder = Path(folder)
        self.log_file = self.folder / "xnews.log"
        self.crash_file = self.folder / "crash.log"
        self.previous_crash: Path | None = None
        self.dialogs = dialogs
        self.dialog = None  # the open exception dialog (one at a time)
        self.unshown = 0  # exceptions that came while a dialog was open
        self._reporter = _Reporter()
        self._reporter.report.connect(self._show_dialog, Qt.ConnectionType.QueuedConnection)
        self._crash_stream = None
        self._handler: logging.Handler | None = None
        self._old = (sys.excepthook, threading.excepthook)

    # --- set-up ---------------------------------------------------------------------------
    def start(self) -> "CrashLog":
        self.folder.mkdir(parents=True, exist_ok=True)
        self._handler = logging.handlers.RotatingFileHandler(self.log_file, maxBytes=LOG_BYTES,
                                                             backupCount=LOG_BACKUPS, encoding="utf-8")
        self._handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(self._handler)
        if root.level == logging.NOTSET or root.level > logging.INFO:
            root.setLevel(logging.INFO)
        self._keep_previous_crash()
        self._crash_stream = open(self.crash_file, "w", encoding="utf-8")  # noqa: SIM115 (open for life)
        faulthandler.enable(self._crash_stream, all_threads=True)
        qInstallMessageHandler(self._qt_message)
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_excepthook
        log.info("XNews started (Python %s)", sys.version.split()[0])
        return self

    def stop(self) -> None:
        """Undo ``start`` (tests; the app keeps it until the process ends)."""
        sys.excepthook, threading.excepthook = self._old
        qInstallMessageHandler(None)
        if faulthandler.is_enabled():
            faulthandler.disable()
        if self._crash_stream is not None:
            self._crash_stream.close()
            empty = self.crash_file.stat().st_size == 0
            if empty:
                self.crash_file.unlink(missing_ok=True)
        if self._handler is not None:
            logging.getLogger().removeHandler(self._handler)
            self._handler.close()

    def _keep_previous_crash(self) -> None:
        try:
            if self.crash_file.stat().st_size > 0:
                self.previous_crash = self.crash_file.replace(self.folder / "crash-previous.log")
                log.error("the previous run ended with a fatal error; its stacks are in %s",
                          self.previous_crash)
        except OSError:
            pass

    # --- the hooks ---------------------------------------------------------------------------------
    def _qt_message(self, kind, context, message: str) -> None:
        category = getattr(context, "category", None) or "qt"
        qt_log.log(_QT_LEVELS.get(kind, logging.WARNING), "[%s] %s", category, message)
        if kind == QtMsgType.QtFatalMsg:
            self.flush()

    def _excepthook(self, kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            self._old[0](kind, value, tb)
            return
        self.report(kind, value, tb, where="the main thread")

    def _thread_excepthook(self, args) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self.report(args.exc_type, args.exc_value, args.exc_traceback, where=f"thread {name}")

    def report(self, kind, value, tb, where: str) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        log.error("unhandled exception in %s:\n%s", where, text.rstrip())
        self.flush()
        summary = f"{kind.__name__}: {value}" if str(value) else kind.__name__
        if self.dialogs:
            self._reporter.report.emit(summary[:500], text)  # queued: shown by the GUI thread

    def flush(self) -> None:
        if self._handler is not None:
            self._handler.flush()

    # --- the dialog ----------------------------------------------------------------------------
    def _show_dialog(self, summary: str, details: str) -> None:
        from PySide6.QtWidgets import QApplication, QMessageBox

        if self.dialog is not None and self.dialog.isVisible():
            self.unshown += 1  # never a cascade of dialogs: one, and the log has them all
            self.dialog.setInformativeText(self._informative())
            return
        self.unshown = 0
        box = QMessageBox(QMessageBox.Icon.Critical, "XNews hit an unexpected error",
                          f"Something went wrong: {summary}", QMessageBox.StandardButton.Ok,
                          QApplication.activeWindow())
        box.setInformativeText(self._informative())
        box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.finished.connect(lambda _r: setattr(self, "dialog", None))
        self.dialog = box
        QTimer.singleShot(0, box.show)

    def _informative(self) -> str:
        more = f"\n{self.unshown} more error(s) since." if self.unshown else ""
        return f"XNews keeps running. The details are in {self.log_file}.{more}"


_installed: CrashLog | None = None


def quiet_chromium(environ) -> None:
    """Before the web engine starts: Chromium's own log lines go nowhere below fatal."""
    flags = environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
    if "--log-level" not in flags:
        environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} {CHROMIUM_QUIET_FLAGS}".strip()


def install(data_dir: Path, dialogs: bool = True) -> CrashLog:
    """Start logging to ``<data_dir>/logs`` and catching what would end the app (once per process)."""
    global _installed
    if _installed is None:
        _installed = CrashLog(logs_dir(data_dir), dialogs=dialogs).start()
    return _installed


def installed() -> CrashLog | None:
    return _installed
