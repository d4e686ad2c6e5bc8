"""Acting on a dialog the way a person does: a modal dialog (a file dialog, a question) runs its own event loop,
so what the test does in it is scheduled before the click that opens it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication


def when_shown(kind, act, every_ms: int = 100, tries: int = 150) -> None:
    """Call ``act(widget)`` once a visible top-level widget of ``kind`` shows (looked for every ``every_ms``)."""
    left = [tries]

    def look() -> None:
        shown = next((w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()), None)
        if shown is not None:
            act(shown)
        elif left[0] > 0:
            left[0] -= 1
            QTimer.singleShot(every_ms, look)

    QTimer.singleShot(every_ms, look)


def answer(button_text: str, seen: dict | None = None) -> dict:
    """Click ``button_text`` in the next message box, with the mouse; its text lands in the returned dict."""
    from PySide6.QtWidgets import QMessageBox

    seen = {} if seen is None else seen

    def click(box) -> None:
        seen["text"] = box.text()
        button = next(b for b in box.buttons() if b.text().replace("&", "") == button_text)
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)

    when_shown(QMessageBox, click)
    return seen
