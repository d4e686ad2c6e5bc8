"""PySide6 6.12.0 loses a reference to True per Signal.emit (and to None per event loop run) on
Python 3.11: the app keeps the counts up (ui/refcounts.py) so a long session does not abort."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import sys
from PySide6.QtCore import QCoreApplication, QObject, Signal
app = QCoreApplication([])
{guard}
class Emitter(QObject):
    said = Signal(object)
emitter = Emitter()
emitter.said.connect(lambda _x: None)
for i in range(60_000):  # a long session's worth of signals from background jobs
    emitter.said.emit(i)
    if i % 5000 == 0:
        {top_up}
print("alive")
"""


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="True and None are immortal from Python 3.12 on")
def test_a_long_session_of_signals_does_not_abort_the_interpreter():
    guarded = PROGRAM.format(guard="from xnews_gui.ui import refcounts", top_up="refcounts.keep_counts_up()")
    done = subprocess.run([sys.executable, "-c", guarded], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "alive" in done.stdout, done.stderr[-500:]


def test_the_guard_adds_references_only_where_they_run_low():
    from xnews_gui.ui import refcounts

    before = sys.getrefcount(True)
    added = refcounts.keep_counts_up()
    if sys.version_info >= (3, 12):
        assert added == 0
    else:
        assert sys.getrefcount(True) >= refcounts.LOW and (added == 0) == (before >= refcounts.LOW)
        assert refcounts.keep_counts_up() == 0  # topped up: nothing more now
