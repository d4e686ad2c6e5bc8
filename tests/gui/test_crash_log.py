"""What would end the app leaves a trace: the log, a dialog, and faulthandler's stacks for a fatal crash."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from PySide6.QtCore import Qt, qWarning
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from tests.conftest import REPO
from xnews_gui.ui.crash_log import CrashLog

pytestmark = pytest.mark.gui


@pytest.fixture
def crash(tmp_path):
    log = CrashLog(tmp_path / "logs").start()
    yield log
    if log.dialog is not None:
        log.dialog.close()
    log.stop()


def open_dialog(crash) -> QMessageBox | None:
    return crash.dialog if crash.dialog is not None and crash.dialog.isVisible() else None


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_is_logged_and_shown_and_the_app_goes_on(qtbot, crash, tmp_path):
    def broken():
        raise ValueError("the slot broke")

    clicks = []
    bad, good = QPushButton("bad"), QPushButton("good")
    for button in (bad, good):
        qtbot.addWidget(button)
        button.show()
    bad.clicked.connect(broken)
    good.clicked.connect(lambda: clicks.append(1))

    qtbot.mouseClick(bad, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: open_dialog(crash) is not None, timeout=5000)
    box = open_dialog(crash)
    assert "ValueError: the slot broke" in box.text()
    assert str(crash.log_file) in box.informativeText()
    assert "in broken" in box.detailedText()
    text = crash.log_file.read_text(encoding="utf-8")
    assert "unhandled exception in the main thread" in text and "ValueError: the slot broke" in text
    assert 'in broken\n    raise ValueError("the slot broke")' in text
    box.grab().save(str(tmp_path / "exception-dialog.png"))

    # a second error while the dialog is open: counted on it, no second dialog
    qtbot.mouseClick(bad, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "1 more error" in box.informativeText(), timeout=5000)
    assert sum(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.topLevelWidgets()) == 1

    qtbot.mouseClick(good, Qt.MouseButton.LeftButton)  # the app is alive and answers clicks
    assert clicks == [1]
    ok = box.button(QMessageBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: crash.dialog is None, timeout=3000)


def test_an_exception_in_a_thread_is_logged_and_shown(qtbot, crash):
    def work():
        raise RuntimeError("worker thread broke")

    thread = threading.Thread(target=work, name="broken-worker")
    thread.start()
    thread.join(5)
    qtbot.waitUntil(lambda: open_dialog(crash) is not None, timeout=5000)
    assert "RuntimeError: worker thread broke" in open_dialog(crash).text()
    assert "unhandled exception in thread broken-worker" in crash.log_file.read_text(encoding="utf-8")


def test_qt_and_page_console_messages_go_to_the_log_not_the_terminal(qtbot, crash, capfd):
    from PySide6.QtWebEngineCore import QWebEnginePage

    qWarning("a warning from Qt")
    page = QWebEnginePage()
    with qtbot.waitSignal(page.loadFinished, timeout=15000):
        page.setHtml("<script>console.error('the page complains')</script><p>x</p>")
    qtbot.waitUntil(lambda: "the page complains" in crash.log_file.read_text(encoding="utf-8"), timeout=5000)
    page.deleteLater()
    text = crash.log_file.read_text(encoding="utf-8")
    assert "xnews.qt" in text and "a warning from Qt" in text
    out, err = capfd.readouterr()
    assert "the page complains" not in err + out and "a warning from Qt" not in err + out


FATAL_SCRIPT = """
import faulthandler, sys
from pathlib import Path
from xnews_gui.ui.crash_log import install
crash = install(Path(sys.argv[1]), dialogs=False)
print("previous:", crash.previous_crash, flush=True)
if sys.argv[2] == "die":
    faulthandler._sigsegv()
"""


def test_a_fatal_crash_leaves_the_stacks_and_is_reported_at_the_next_start(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")

    def run(mode):
        return subprocess.run([sys.executable, "-c", FATAL_SCRIPT, str(tmp_path), mode], env=env, cwd=str(REPO),
                              capture_output=True, text=True, timeout=60, check=False)

    died = run("die")
    assert died.returncode != 0
    stacks = (tmp_path / "logs" / "crash.log").read_text(encoding="utf-8")
    assert "Segmentation fault" in stacks and "<module>" in stacks
    again = run("live")
    assert again.returncode == 0 and "crash-previous.log" in again.stdout
    assert "Segmentation fault" in (tmp_path / "logs" / "crash-previous.log").read_text(encoding="utf-8")
    assert "previous run ended with a fatal error" in (tmp_path / "logs" / "xnews.log").read_text(encoding="utf-8")
