"""What the Crawl tab keeps over a restart. Re-crawl schedules: each profile's interval and next run,
kept in the store (store/schedules.py), so a schedule goes on after a restart (an overdue run starts a
few seconds after the window opens); and the crawls the app was closed (or killed) during.

The Crawl tab asks ``due(now)`` every second and starts what it returns; the Crawl and Sites
lists show a schedule the same way (``describe``, ``mark_scheduled``). The clock gives local time
(naive, as ``datetime.now()``, which marks the repeated hour of a DST change); next runs are kept and
compared in UTC, so an interval is real minutes across a DST change, and shown in local time.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Callable

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QListWidget, QSpinBox, QWidget

from ..store import Store
from . import icons
from .run_history import STATUS_TEXT

START_GRACE = timedelta(seconds=3)  # an overdue run waits this long after start-up (the window first)


def to_local(utc: datetime | None) -> datetime | None:
    return None if utc is None else utc.replace(tzinfo=timezone.utc).astimezone().replace(tzinfo=None)


def to_utc(local: datetime | None) -> datetime | None:
    return None if local is None else local.astimezone(timezone.utc).replace(tzinfo=None)


def describe(minutes: int, next_run: datetime | None) -> str:
    """'Re-crawled every 30 min while XNews is open; next run 14:05' ('' when not scheduled)."""
    if not minutes:
        return ""
    when = f"next run {next_run:%H:%M}" if next_run else "next run when this crawl ends"
    return f"Re-crawled every {minutes} min while XNews is open; {when}"


class CrawlScheduler(QObject):
    changed = Signal()  # a schedule or a next run changed: lists and cards show it again

    def __init__(self, store: Store, clock: Callable[[], datetime] = datetime.now, parent=None):
        super().__init__(parent)
        self.store = store
        self.clock = clock
        self.minutes: dict[str, int] = {}
        self.next_runs: dict[str, datetime] = {}  # naive UTC
        self.running: set[str] = set()
        self.closing = False  # the app closes: crawls it stops are interrupted, not run ends

    def load(self, names) -> None:
        """The stored schedules of these profiles; an overdue run is due shortly after start-up."""
        self._adopt_qsettings(names)
        now = self._now()
        for name, schedule in self.store.schedules().items():
            if name not in names or not schedule.minutes:
                continue
            self.minutes[name] = schedule.minutes
            when = schedule.next_run or now  # None: it was running when the app went away
            self.next_runs[name] = max(when, now + START_GRACE)
        self.changed.emit()

    def _adopt_qsettings(self, names) -> None:
        """Schedules an older XNews kept in its settings (lost at every restart) move to the store."""
        settings = QSettings()
        for name in names:
            key = f"schedule/{name}"
            try:
                minutes = int(settings.value(key, 0) or 0)
            except (TypeError, ValueError):
                minutes = 0
            if settings.contains(key):
                settings.remove(key)
            if minutes and name not in self.store.schedules():
                self.store.set_schedule(name, minutes, self._now() + timedelta(minutes=minutes))

    def minutes_of(self, name: str) -> int:
        return self.minutes.get(name, 0)

    def _now(self) -> datetime:
        return to_utc(self.clock())

    def next_run(self, name: str) -> datetime | None:
        """When ``name`` runs next, in local time (None: not waiting)."""
        return to_local(self.next_runs.get(name))

    def text(self, name: str) -> str:
        return describe(self.minutes_of(name), self.next_run(name))

    def set(self, name: str, minutes: int) -> None:
        """Re-crawl ``name`` every ``minutes`` (0 = never); the first run comes ``minutes`` from now
        (or when its running crawl ends)."""
        minutes = max(0, int(minutes))
        if minutes == self.minutes_of(name):
            return
        if minutes:
            self.minutes[name] = minutes
            if name in self.running:
                self.next_runs.pop(name, None)
            else:
                self.next_runs[name] = self._now() + timedelta(minutes=minutes)
        else:
            self.minutes.pop(name, None)
            self.next_runs.pop(name, None)
        self.store.set_schedule(name, minutes, self.next_runs.get(name))
        self.changed.emit()

    def started(self, name: str) -> None:
        """A crawl of ``name`` started (scheduled or not): its next run is counted from its end."""
        self.running.add(name)
        if self.minutes_of(name):
            self.next_runs.pop(name, None)
            self.store.set_next_run(name, None)
            self.changed.emit()

    def finished(self, name: str, _status: str = "") -> None:
        """A crawl ended, however (a Stop too: it stops this run, not the schedule; untick to end that):
        a scheduled profile's next run comes one interval later."""
        self.running.discard(name)
        minutes = self.minutes_of(name)
        if minutes and not self.closing:  # closed: no next run stored, so a restart runs it soon (load)
            self.next_runs[name] = self._now() + timedelta(minutes=minutes)
            self.store.set_next_run(name, self.next_runs[name])
            self.changed.emit()

    def due(self) -> list[str]:
        """The profiles whose next run has come (taken off the waiting list)."""
        now = self._now()
        names = [name for name, when in self.next_runs.items() if when <= now]
        for name in names:
            del self.next_runs[name]
        return names

    def stop_timing(self) -> None:
        """The app closes: nothing more starts (the store keeps every schedule for the next start)."""
        self.closing = True
        self.next_runs.clear()


class ScheduleControls(QWidget):
    """"Re-crawl every [N min]": shows and sets the schedule of the sites ``targets()`` names (the ticked
    ones, else the highlighted one); unticked when they differ or none is scheduled."""

    def __init__(self, scheduler: CrawlScheduler, targets: Callable[[], list[str]],
                 apply: Callable[[str, int], None], parent=None):
        super().__init__(parent)
        self.scheduler, self.targets, self.apply = scheduler, targets, apply
        self.box = QCheckBox("Re-crawl every", self)
        self.box.setToolTip("While XNews is open, crawl the ticked sites again after each run "
                            "(kept with the profile: it goes on after a restart)")
        self.minutes = QSpinBox(self, minimum=1, maximum=24 * 60, value=30, suffix=" min")
        self.box.toggled.connect(self._changed)
        self.minutes.valueChanged.connect(self._changed)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.box)
        row.addWidget(self.minutes)
        row.addStretch(1)

    def sync(self) -> None:
        minutes = {self.scheduler.minutes_of(name) for name in self.targets()}
        one = next(iter(minutes)) if len(minutes) == 1 else 0
        for w in (self.box, self.minutes):
            w.blockSignals(True)
        self.box.setChecked(bool(one))
        if one:
            self.minutes.setValue(one)
        for w in (self.box, self.minutes):
            w.blockSignals(False)

    def _changed(self, *_args) -> None:
        minutes = self.minutes.value() if self.box.isChecked() else 0
        for name in self.targets():
            self.apply(name, minutes)


def schedule_texts(store: Store) -> dict[str, str]:
    """profile -> its schedule in words, from the store (what ``CrawlScheduler.text`` says, written through)."""
    return {name: describe(s.minutes, to_local(s.next_run)) for name, s in store.schedules().items() if s.minutes}


def mark_scheduled(profiles: QListWidget, texts: dict[str, str]) -> None:
    """In a freshly filled list of profile names: the clock icon and the schedule in the tooltip where
    there is one (after any note the tooltip holds already, such as a degraded field's)."""
    for row in range(profiles.count()):
        item = profiles.item(row)
        text = texts.get(item.text(), "")
        if text:
            if item.icon().isNull():
                item.setIcon(icons.named("schedule"))
            item.setToolTip("\n".join(t for t in (item.toolTip(), text) if t))


def earlier_crawls(store: Store, names, scheduler: CrawlScheduler) -> list[tuple[str, str, str, dict]]:
    """(profile, card state, note, counts of its last run) of the scheduled sites and the crawls interrupted
    by closing or killing the app, for the cards the Crawl tab shows after a restart."""
    schedules = store.schedules()
    last = store.last_runs()
    out = []
    for name in names:
        run = last.get(name)
        closed = schedules.get(name) is not None and schedules[name].interrupted is not None
        killed = run is not None and run.status == "interrupted"
        if closed or killed or scheduler.minutes_of(name):
            out.append((name, "interrupted" if closed or killed else "scheduled", earlier_run_note(run, closed, killed),
                        run_counts(run)))
    return out


def run_counts(run) -> dict:
    """The counters of a run as its card shows them (its summary's, else the run's own columns)."""
    if run is None:
        return {}
    try:
        stats = json.loads(run.stats_json or "{}")
    except ValueError:
        stats = {}
    stats = stats if isinstance(stats, dict) else {}
    out = {key: int(stats.get(key, getattr(run, key)) or 0) for key in ("pages", "articles", "errors")}
    if isinstance(stats.get("queue"), int):
        out["queue"] = stats["queue"]
    return out


def earlier_run_note(run, closed: bool, killed: bool) -> str:
    """How a site's last crawl ended, for its card after a restart."""
    if run is None:
        return "Not crawled yet." if not (closed or killed) else ""
    try:
        stats = json.loads(run.stats_json or "{}")
    except ValueError:
        stats = {}
    when = to_local(run.started)
    counts = f"{int(stats.get('pages', run.pages) or 0):,} pages, {int(stats.get('articles', run.articles) or 0):,} new articles"
    if closed or killed:
        why = "XNews was closed" if closed else "its process was killed"
        return (f"The crawl started {when:%Y-%m-%d %H:%M} stopped when {why} ({counts}). "
                "<b>Resume</b> goes on where it stopped.")
    return f"Last crawl {when:%Y-%m-%d %H:%M}: {STATUS_TEXT.get(run.status, run.status).lower()}, {counts}."
