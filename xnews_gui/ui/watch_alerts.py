"""Telling the user that new articles match their watches: a desktop notification (the system tray's
message) and a badge on the Articles tab.

    alerts = WatchAlerts(window)
    alerts.fired(hits)          # the hits a crawl reported ([{"watch", "id", "title", ...}, ...])
    alerts.badge()              # "★ 3" while 3 matching articles are unseen, else ""

Where the desktop has no system tray (some window managers, Qt's offscreen platform) the message goes
to the window's status bar instead; ``asked`` keeps every notification asked for, either way.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QSystemTrayIcon

from . import icons

MESSAGE_MS = 8000
GATHER_MS = 1500  # the matches of a crawl's next batches join one notification instead of one each


class WatchAlerts(QObject):
    changed = Signal()  # the badge may read otherwise
    clicked = Signal(str)  # a notification was clicked: the watch it was about

    def __init__(self, store, window):
        super().__init__(window)
        self.store = store
        self.window = window
        self.asked: list[tuple[str, str]] = []  # (title, message) of every notification asked for
        self.tray: QSystemTrayIcon | None = None
        self._last_watch = ""
        self._pending: dict[str, list] = {}
        self._timer = QTimer(self, singleShot=True, interval=GATHER_MS)
        self._timer.timeout.connect(self._tell)

    def fired(self, hits: list) -> None:
        """New matches: the badge now, one notification per watch for what comes within ``GATHER_MS``."""
        for hit in hits:
            self._pending.setdefault(str(hit.get("watch", "")), []).append(hit)
        if not self._timer.isActive():
            self._timer.start()
        self.changed.emit()

    def _tell(self) -> None:
        pending, self._pending = self._pending, {}
        for name, found in pending.items():
            first = found[0].get("title") or found[0].get("url", "")
            title = f"XNews: {len(found)} new article{'s' if len(found) > 1 else ''} for \u201c{name}\u201d"
            message = first + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
            self._notify(title, message, name)

    def badge(self) -> str:
        unseen = sum(self.store.unseen_watch_hits().values())
        return f"\u2605 {unseen}" if unseen else ""

    def _notify(self, title: str, message: str, watch: str) -> None:
        self.asked.append((title, message))
        self._last_watch = watch
        if QSystemTrayIcon.isSystemTrayAvailable():
            if self.tray is None:
                self.tray = QSystemTrayIcon(icons.named("articles"), self)
                self.tray.setToolTip("XNews")
                self.tray.messageClicked.connect(lambda: self.clicked.emit(self._last_watch))
            self.tray.show()
            self.tray.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information, MESSAGE_MS)
        else:
            self.window.statusBar().showMessage(f"{title}: {message}", MESSAGE_MS)
