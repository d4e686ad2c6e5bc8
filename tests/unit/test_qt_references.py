"""PySide6 6.12.0 drops a reference to True on every Signal.emit made from Python and one to None on
every event-loop run, on Python 3.11, where those objects are counted: after a few thousand background
jobs the interpreter aborts ("Fatal Python error: bool_dealloc"). pyproject.toml excludes that
release; this test runs a long session's worth of signals in a child process on the PySide6 installed,
so the drift check (tools/drift.py) says whether a new release brings the loss back."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
from PySide6.QtCore import QCoreApplication, QObject, Signal
app = QCoreApplication([])
class Emitter(QObject):
    said = Signal(object)
emitter = Emitter()
emitter.said.connect(lambda _x: None)
true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
for i in range(60_000):  # a long session's worth of signals from background jobs
    emitter.said.emit(i)
for _ in range(2_000):
    app.processEvents()
print("lost", true_before - sys.getrefcount(True), none_before - sys.getrefcount(None))
"""


def test_a_long_session_of_signals_loses_no_reference_and_does_not_abort():
    import PySide6

    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"PySide6 {PySide6.__version__} aborted the interpreter: {done.stderr[-300:]}"
    lost = [int(n) for n in done.stdout.split()[1:]]
    assert max(lost) < 100, f"PySide6 {PySide6.__version__} lost references to True/None: {lost}"
