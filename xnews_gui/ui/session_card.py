"""One profile's crawl at a glance: state, counters, progress (or busy), next scheduled run."""

from __future__ import annotations

from html import escape

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame, QGridLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QToolButton, QVBoxLayout,
)

from . import icons
from .degraded_box import DegradedBox

STATE_TEXT = {
    "idle": ("Not run yet", "#6e6e73"), "starting": ("Starting…", "#0b63c5"), "running": ("Running", "#2e8b57"),
    "paused": ("Paused", "#c98a00"), "stopping": ("Stopping…", "#c98a00"), "finished": ("Finished", "#0b63c5"),
    "stopped": ("Stopped", "#6e6e73"), "limit": ("Limit reached", "#0b63c5"), "failed": ("Failed", "#c0392b"),
    "refused": ("Refused", "#c0392b"), "scheduled": ("Scheduled", "#0b63c5"),
    "interrupted": ("Interrupted", "#c98a00"),
}
COUNTERS = (("pages", "Pages"), ("articles", "Articles"), ("queue", "Queue"), ("errors", "Errors"),
            ("rate", "Pages/s"))


class SessionCard(QFrame):
    pauseToggled = Signal(str)
    stopClicked = Signal(str)
    resumeClicked = Signal(str)  # an interrupted crawl (the app was closed or killed during it)
    pageChosen = Signal(str, str)  # a failing page's URL, "reader" | "sites": where the user wants to see it

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.name = name
        self.setObjectName("sessionCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#sessionCard { border: 1px solid palette(mid); border-radius: 6px; }")
        self.title = QLabel(f"<b>{name}</b>")
        self.state = QLabel()
        self.started = QLabel()
        self.started.setStyleSheet("color: palette(placeholder-text);")
        self.next_run = QLabel()
        self.next_run.setStyleSheet("color: palette(placeholder-text);")
        self.pause_btn = QToolButton(toolTip="Pause or resume this crawl", autoRaise=True)
        self.pause_btn.setIcon(icons.named("pause"))
        self.pause_btn.clicked.connect(lambda: self.pauseToggled.emit(self.name))
        self.stop_btn = QToolButton(toolTip="Stop this crawl", autoRaise=True)
        self.stop_btn.setIcon(icons.named("stop"))
        self.stop_btn.clicked.connect(lambda: self.stopClicked.emit(self.name))
        self.resume_btn = QPushButton(icons.named("start"), "Resume")
        self.resume_btn.setToolTip("Go on with this crawl where it stopped")
        self.resume_btn.clicked.connect(lambda: self.resumeClicked.emit(self.name))
        self.resume_btn.hide()
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addWidget(self.state)
        head.addWidget(self.started)
        head.addStretch(1)
        head.addWidget(self.next_run)
        head.addWidget(self.resume_btn)
        head.addWidget(self.pause_btn)
        head.addWidget(self.stop_btn)

        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(0)
        self.values: dict[str, QLabel] = {}
        for col, (key, label) in enumerate(COUNTERS):
            caption = QLabel(label)
            caption.setStyleSheet("color: palette(placeholder-text); font-size: 11px;")
            value = QLabel("–")
            value.setStyleSheet("font-size: 15px; font-weight: 600;")
            grid.addWidget(value, 0, col)
            grid.addWidget(caption, 1, col)
            self.values[key] = value
        grid.setColumnStretch(len(COUNTERS), 1)

        self.progress = QProgressBar()
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.hide()
        self.degraded = DegradedBox(self)  # "body degraded on 7 of the last 30 pages" + the failing URLs
        self.degraded.openInReader.connect(lambda url: self.pageChosen.emit(url, "reader"))
        self.degraded.openInSites.connect(lambda url: self.pageChosen.emit(url, "sites"))

        box = QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.setSpacing(6)
        box.addLayout(head)
        box.addLayout(grid)
        box.addWidget(self.progress)
        box.addWidget(self.detail)
        box.addWidget(self.degraded)
        self.set_state("idle")

    def new_run(self, when: datetime) -> None:
        """A new crawl of this site starts on this card: nothing of the last run stays on it."""
        for key, value in self.values.items():
            value.setText("–" if key == "rate" else "0")
        self.detail.clear()
        self.detail.hide()
        self.degraded.clear()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.started.setText(f"started {when:%H:%M:%S}")
        self.set_state("starting")

    def set_state(self, state: str, max_pages: int = 0) -> None:
        text, color = STATE_TEXT.get(state, (state, "#6e6e73"))
        self.state.setText(f'<span style="color:{color}; font-weight:600">● {text}</span>')
        active = state in ("starting", "running", "paused", "stopping")
        self.pause_btn.setEnabled(state in ("running", "paused"))
        self.pause_btn.setIcon(icons.named("start" if state == "paused" else "pause"))
        self.pause_btn.setToolTip("Resume this crawl" if state == "paused" else "Pause this crawl")
        self.stop_btn.setEnabled(active)
        self.resume_btn.setVisible(state == "interrupted")
        if active and not max_pages:
            self.progress.setRange(0, 0)  # busy indicator: no known end
        elif active:
            self.progress.setRange(0, max_pages)
        else:
            self.progress.setRange(0, 1)
            self.progress.setValue(1 if state in ("finished", "limit") else 0)
        if state in ("starting",):
            self.detail.hide()

    def set_stats(self, stats: dict, max_pages: int = 0, rate: float | None = None) -> None:
        for key in ("pages", "articles", "queue", "errors"):
            if key in stats:
                self.values[key].setText(f"{stats[key]:,}")
        shown = rate if rate is not None else stats.get("pages_per_s")
        if shown is not None:
            self.values["rate"].setText(f"{shown:.1f}")
        if max_pages and self.progress.maximum() > 0:
            self.progress.setValue(min(max_pages, int(stats.get("pages", 0))))
        if "degraded_fields" in stats:  # live: a field can degrade in the middle of a crawl
            self.degraded.set_summary(stats)

    def set_next_run(self, when: datetime | None, tooltip: str = "") -> None:
        self.next_run.setText(f"Next run {when:%H:%M}" if when else "")
        self.next_run.setToolTip(tooltip or (f"Re-crawls at {when:%Y-%m-%d %H:%M:%S}" if when else ""))

    def set_note(self, html_text: str) -> None:
        """A line about an earlier run (after a restart: how the last crawl ended)."""
        self.detail.setText(html_text)
        self.detail.setVisible(bool(html_text))

    def set_summary(self, summary: dict) -> None:
        if summary.get("pages_per_s") is not None:  # the whole run's, not the last second's (0 while it ended)
            self.values["rate"].setText(f"{summary['pages_per_s']:.1f}")
        # links met before (stored, or met earlier in this crawl) and pages of an article stored already: "already
        # known" read as "in the store" on a first crawl into an empty one
        known = summary.get("known_skipped", 0) + summary.get("duplicates", 0)
        parts = [f"{counted(summary.get('pages', 0), 'page')}, {counted(summary.get('articles', 0), 'new article')}, "
                 f"{known:,} seen before, {counted(summary.get('images', 0), 'image')}"
                 + (f" ({summary['image_errors']:,} not fetched)" if summary.get("image_errors") else "")
                 + f", {counted(summary.get('errors', 0), 'error')} in {summary.get('elapsed_s', 0):.1f} s."]
        if summary.get("revisited"):
            same = summary.get("not_modified", 0) + summary.get("unchanged", 0)
            parts.append(f"Revisited {summary['revisited']:,} stored articles: {summary.get('updated', 0):,} updated, "
                         f"{summary.get('gone', 0) + summary.get('still_gone', 0):,} removed at the source, "
                         f"{same:,} unchanged.")
        if summary.get("next_revisit_at"):
            parts.append(f"Next revisit due {datetime.fromtimestamp(summary['next_revisit_at']):%Y-%m-%d %H:%M}.")
        for ended in ("failed", "refused", "stopped"):  # nothing fetched, nothing to follow, workers gone: why, first
            if summary.get(f"{ended}_reason"):
                reason = escape(str(summary[f"{ended}_reason"]).rstrip("."))
                parts.insert(0, f'<span style="color:#c0392b"><b>{ended.title()}:</b> {reason}.</span>')
        broken = summary.get("broken_fields") or []
        if broken:
            items = ", ".join(f"<b>{b['field']}</b> (filled on {b['fill_rate']:.0%} of pages)" for b in broken)
            parts.append(f'<span style="color:#c0392b">Rule probably broken: {items}. '
                         "Check the profile in the Sites tab.</span>")
        for warning in (summary.get("warnings") or [])[:3]:  # e.g. a spider trap the crawl stopped following
            parts.append(f'<span style="color:#b9770e">Warning: {escape(str(warning))}</span>')
        self.detail.setText("<br>".join(parts))
        self.detail.show()
        self.degraded.set_summary(summary)


def counted(n: int, word: str) -> str:
    """'1 error', '2 errors', '1,204 pages'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"
