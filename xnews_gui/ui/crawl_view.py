"""The crawl dashboard: pick profiles, start/pause/resume/stop, watch progress, errors and log,
re-crawl on a schedule while the app is open (kept in the store: it goes on after a restart), and
resume a crawl the app was closed (or killed) during."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime
from typing import Callable

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFormLayout, QFrame, QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QScrollArea, QSpinBox,
    QSplitter, QTabWidget, QToolTip, QVBoxLayout, QWidget,
)

from ..core.profile.profile import Profile
from ..services.cluster import shown_url
from ..store import Store
from . import icons
from .cluster_follow import FollowClusterButton
from .crawl_schedule import CrawlScheduler, ScheduleControls, earlier_crawls
from .crawl_session import CrawlSession
from .demo_launcher import DEMO_PROFILE, DemoSite, demo_hint
from .error_model import ErrorTableModel, error_table
from .rate_chart import RateChart
from .revisit_line import RevisitBox
from .run_history import STATUS_TEXT, RunHistory
from .session_card import SessionCard, counted
from .settings import Preferences
from .site_checklist import SiteChecklist


NOTHING_TICKED = "No site ticked: tick a site in the list on the left (or select one), then press Start."


class CrawlView(QWidget):
    articlesStored = Signal(list)  # ids of new articles, in batches
    articlesUpdated = Signal(list)  # ids of stored articles a revisit replaced with a changed version
    sessionFinished = Signal(str, dict)  # profile name, summary
    watchesFired = Signal(list)  # new articles that matched watches, as crawls report them
    pageChosen = Signal(str, str, str)  # a card's failing page: profile, URL, "reader" | "sites"
    schedulesChanged = Signal()  # a schedule or its next run changed (the Sites list shows them too)

    def __init__(self, store: Store, parent=None, *, classifier_loader: Callable | None = None,
                 preferences: Callable[[], Preferences] = Preferences.load,
                 clock: Callable[[], datetime] = datetime.now):
        super().__init__(parent)
        self.store = store
        self.data_dir = store.root
        self.classifier_loader = classifier_loader
        self.preferences = preferences
        self.clock = clock
        self.demo = DemoSite(store)
        self.sessions: dict[str, CrawlSession] = {}
        self.cards: dict[str, SessionCard] = {}
        self.scheduler = CrawlScheduler(store, clock, self)
        self._last_pages: dict[str, tuple[float, int]] = {}
        self._rates: dict[str, float] = {}

        self._build()
        self.tick = QTimer(self, interval=1000)
        self.tick.timeout.connect(self._on_tick)
        self.tick.start()
        self.scheduler.changed.connect(self._schedules_changed)
        names = self.store.profile_names()
        self.scheduler.load(names)
        self._show_earlier_crawls(names)
        self.refresh_profiles()
        self.history.refresh()

    # --- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        self.hint, self.demo_button = demo_hint()
        self.demo_button.clicked.connect(self.start_demo)

        # left: profiles and controls
        self.profile_list = SiteChecklist()
        self.profile_list.itemChanged.connect(lambda _item: self._sync_site_controls())
        self.profile_list.currentItemChanged.connect(lambda *_: self._sync_site_controls())
        self.start_button = QPushButton(icons.named("start"), "Start")
        self.start_button.setToolTip("Crawl the ticked sites (F5)")
        self.pause_button = QPushButton(icons.named("pause"), "Pause")
        self.resume_button = QPushButton(icons.named("start"), "Resume")
        self.stop_button = QPushButton(icons.named("stop"), "Stop")
        self.start_button.clicked.connect(self.start_checked)
        self.pause_button.clicked.connect(self.pause_all)
        self.resume_button.clicked.connect(self.resume_all)
        self.stop_button.clicked.connect(self.stop_all)
        buttons = QHBoxLayout()
        for b in (self.start_button, self.pause_button, self.resume_button, self.stop_button):
            buttons.addWidget(b)
        self.max_pages = QSpinBox(minimum=0, maximum=1_000_000, singleStep=50, specialValueText="no limit")
        self.max_pages.setToolTip("Stop each crawl after this many pages (0 = the profile's own limit)")
        self.schedule_controls = ScheduleControls(self.scheduler, self.profile_list.targets, self.schedule)
        self.schedule_box, self.schedule_minutes = self.schedule_controls.box, self.schedule_controls.minutes
        self.revisits = RevisitBox(self.store)  # the highlighted (or first ticked) site's next revisit; Revisit all
        self.revisits.revisitRequested.connect(lambda name: self.start_profile(name, revisit=True))
        self.revisits.follow(self.profile_list)
        self.follow_cluster = FollowClusterButton(self.profile_list.highlighted,
                                                  lambda name, url: self.start_profile(name, cluster_url=url))
        form = QFormLayout()
        form.addRow("Page limit:", self.max_pages)
        left_box = QGroupBox("Sites")
        left = QVBoxLayout(left_box)
        left.addWidget(self.profile_list, 1)
        left.addLayout(form)
        left.addWidget(self.schedule_controls)
        left.addLayout(buttons)
        left.addWidget(self.follow_cluster)
        left.addWidget(self.revisits)

        # right: one card per crawl, the chart under them
        self.cards_host = QWidget()
        self.cards_layout = QVBoxLayout(self.cards_host)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.empty_label = QLabel("No crawl yet. Tick a site on the left and press Start.")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("color: palette(placeholder-text); padding: 24px;")
        self.cards_layout.addWidget(self.empty_label)
        self.cards_layout.addStretch(1)
        scroll = self.cards_scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.cards_host)
        self.chart = RateChart()
        right_box = QGroupBox("Crawls")
        right = QVBoxLayout(right_box)
        self.chart.setFixedHeight(190)
        right.addWidget(self.chart)
        right.addWidget(scroll, 1)

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(left_box)
        top.addWidget(right_box)
        top.setStretchFactor(0, 1)
        top.setStretchFactor(1, 3)
        top.setSizes([260, 740])

        # bottom: errors and log
        self.errors = ErrorTableModel(self)
        self.error_view = error_table(self.errors)
        self.log = QPlainTextEdit(readOnly=True)
        self.log.setMaximumBlockCount(5000)
        self.bottom = QTabWidget()
        self.bottom.addTab(self.error_view, "Errors")
        self.bottom.addTab(self.log, "Log")
        self.history = RunHistory(self.store)  # past runs, 'interrupted' when their process was killed
        self.history.loaded.connect(self._say_last_run)
        self.bottom.addTab(self.history, "History")

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(split, 1)
        self._sync_buttons()

    # --- profiles -------------------------------------------------------------------------
    def refresh_profiles(self) -> None:
        names = self.store.profile_names()
        self.profile_list.fill(names, {name: self.scheduler.text(name) for name in names})
        self._sync_site_controls()
        self.hint.setVisible(not self.sessions and not self.cards and self.store.count_articles() == 0)

    def checked_profiles(self) -> list[str]:
        return self.profile_list.checked()

    def _sync_site_controls(self) -> None:
        self.schedule_controls.sync()
        self.follow_cluster.setEnabled(self.profile_list.highlighted() is not None)

    def set_checked(self, names) -> None:
        self.profile_list.set_checked(names)

    # --- commands --------------------------------------------------------------------------
    def start_checked(self) -> None:
        names = self.checked_profiles()
        if not names and self.profile_list.currentItem() is not None:
            names = [self.profile_list.currentItem().text()]
        if not names:  # said where the user looks, at the button: nothing happened otherwise
            QToolTip.showText(self.start_button.mapToGlobal(self.start_button.rect().bottomLeft()),
                              NOTHING_TICKED, self.start_button)
            self._log("crawl", NOTHING_TICKED)
        for name in names:
            self.start_profile(name)

    def start_demo(self) -> CrawlSession | None:
        profile = self.demo.profile()
        if profile is None:
            self._log("demo", "the demo profile is missing from profiles/")
            return None
        self._log("demo", f"demo site running at {profile.start_urls[0]}")
        self.hint.hide()
        return self.start_profile(profile.name, profile)

    def start_profile(self, name: str, profile: Profile | None = None, *, revisit: bool = False,
                      revisit_urls=(), cluster_url: str = "") -> CrawlSession | None:
        """``revisit``: every stored article asked again too; ``revisit_urls``: only those ("Fetch again");
        ``cluster_url``: follow Scrapy workers crawling the profile through that Redis instead."""
        session = self.sessions.get(name)
        if session is not None and session.is_active():
            if cluster_url:
                self._log(name, "a crawl of this site is running: stop it, then follow the cluster")
            return None if revisit or revisit_urls or cluster_url else session
        if profile is None:  # the demo: the site inside the app (started now), as the Sites tab opens it
            profile = self.demo.profile() if name == DEMO_PROFILE else self.store.load_profile(name)
        if profile is None:
            self._log(name, "no such profile")
            return None
        prefs = self.preferences()
        options = replace(prefs.crawl_options(max_pages=self.max_pages.value()), revisit=revisit,
                          revisit_urls=tuple(revisit_urls))
        session = CrawlSession(profile, self.store, options, classifier=self.classifier_loader, parent=self,
                               image_cache_limit=prefs.image_cache_mb * 1024 * 1024, cluster_url=cluster_url)
        old = self.sessions.pop(name, None)
        if old is not None:
            old.deleteLater()
        self.sessions[name] = session
        self.hint.hide()  # a crawl of one's own site: the demo's invitation has done its job
        card = self._card(name)
        card.new_run(datetime.now())
        self._show_first(card)
        session.stateChanged.connect(lambda state, n=name: self._state_changed(n, state))
        session.statsChanged.connect(lambda stats, n=name: self._stats_changed(n, stats))
        session.articlesStored.connect(lambda items: self.articlesStored.emit([a["id"] for a in items]))
        session.articlesUpdated.connect(lambda items: self.articlesUpdated.emit([a["id"] for a in items]))
        session.errorsAdded.connect(lambda errs, n=name: self.errors.add(n, errs))
        session.watchesFired.connect(self.watchesFired)
        session.logAdded.connect(lambda lines, n=name: [self._log(n, line) for line in lines])
        session.finished.connect(lambda summary, n=name: self._finished(n, summary))
        self.scheduler.started(name)
        self.store.clear_interrupted(name)
        self._last_pages[name] = (time.monotonic(), 0)
        self._rates.pop(name, None)
        self._log(name, f"fetching again: {', '.join(revisit_urls)}" if revisit_urls else
                  f"following the cluster crawl at {shown_url(cluster_url)}" if cluster_url else
                  f"crawl started{' (all stored articles revisited)' if revisit else ''}: {', '.join(profile.start_urls)}")
        session.start()
        self._sample(force=True)
        self._sync_buttons()
        return session

    def pause_all(self) -> None:
        for s in self.sessions.values():
            s.pause()

    def resume_all(self) -> None:
        for s in self.sessions.values():
            s.resume()

    def stop_all(self) -> None:
        for s in self.sessions.values():
            s.stop()

    def is_crawling(self) -> bool:
        return any(s.is_active() for s in self.sessions.values())

    def active_crawls(self) -> list[str]:
        return [name for name, s in self.sessions.items() if s.is_active()]

    def shutdown(self, timeout_ms: int = 10000) -> None:
        """Stop every crawl and wait for the workers (closing the window). The crawls still running are
        remembered as interrupted: the next start offers to resume them."""
        from . import workers

        self.tick.stop()
        self.scheduler.stop_timing()
        interrupted = self.active_crawls()
        if interrupted:
            self.store.mark_interrupted(interrupted)
        self.stop_all()
        for session in self.sessions.values():  # crawls in a process of their own
            session.wait(timeout_ms)
        workers.crawl_pool().waitForDone(timeout_ms)  # a profile marked "render" crawls in a thread
        self.demo.stop()

    # --- session events ------------------------------------------------------------------------
    def _card(self, name: str) -> SessionCard:
        card = self.cards.get(name)
        if card is None:
            card = SessionCard(name)
            card.pauseToggled.connect(self._toggle_pause)
            card.stopClicked.connect(lambda n: self.sessions[n].stop() if n in self.sessions else None)
            card.resumeClicked.connect(self.start_profile)
            card.pageChosen.connect(lambda url, where, n=name: self.pageChosen.emit(n, url, where))
            self.cards[name] = card
            self.cards_layout.insertWidget(0, card)
            self.empty_label.hide()
        return card

    def _show_first(self, card: SessionCard) -> None:
        """The crawl just started goes on top of the cards, scrolled into view."""
        if self.cards_layout.indexOf(card) != 0:
            self.cards_layout.removeWidget(card)
            self.cards_layout.insertWidget(0, card)
        QTimer.singleShot(0, lambda: self.cards_scroll.ensureWidgetVisible(card) if shiboken6.isValid(card) else None)

    def _toggle_pause(self, name: str) -> None:
        s = self.sessions.get(name)
        if s is not None:
            s.resume() if s.state == "paused" else s.pause()

    def _state_changed(self, name: str, state: str) -> None:
        session = self.sessions.get(name)
        self._card(name).set_state(state, session.max_pages if session else 0)
        self._sync_buttons()

    def _stats_changed(self, name: str, stats: dict) -> None:
        session = self.sessions.get(name)
        now, pages = time.monotonic(), int(stats.get("pages", 0))
        t0, p0 = self._last_pages.get(name, (now, pages))
        if now - t0 >= 0.9:
            self._rates[name] = (pages - p0) / (now - t0)
            self._last_pages[name] = (now, pages)
        active = session is not None and session.is_active()
        rate = self._rates[name] if active and name in self._rates else stats.get("pages_per_s", 0.0)
        self._card(name).set_stats(stats, session.max_pages if session else 0, rate=rate)

    def _finished(self, name: str, summary: dict) -> None:
        card = self._card(name)
        card.set_summary(summary)
        self._rates.pop(name, None)
        self._sample(force=True)
        broken = ", ".join(b["field"] for b in summary.get("broken_fields") or [])
        self._log(name, f"crawl {summary.get('status', 'finished')}: {counted(summary.get('pages', 0), 'page')}, "
                        f"{counted(summary.get('articles', 0), 'new article')}, "
                        f"{counted(summary.get('errors', 0), 'error')}"
                        + (f"; rule probably broken: {broken}" if broken else ""))
        self.scheduler.finished(name, str(summary.get("status", "finished")))
        self._sync_buttons()
        self.history.refresh()
        self.revisits.refresh()
        self.sessionFinished.emit(name, summary)

    def _sample(self, force: bool = False) -> None:
        active = [s for s in self.sessions.values() if s.is_active()]
        if active or force:
            rate = sum(self._rates.get(s.name, 0.0) for s in active)
            articles = sum(int(s.stats.get("articles", 0)) for s in self.sessions.values())
            self.chart.add(rate, articles)

    def _on_tick(self) -> None:
        self._sample()
        for name in self.scheduler.due():
            self.start_profile(name)

    # --- scheduling --------------------------------------------------------------------------
    @property
    def next_runs(self) -> dict[str, datetime]:
        """profile -> its next scheduled run, local time."""
        return {name: self.scheduler.next_run(name) for name in self.scheduler.next_runs}

    def schedule(self, name: str, minutes: int) -> None:
        """Re-crawl ``name`` every ``minutes`` (0 = never) while the app is open; kept in the store."""
        self.scheduler.set(name, minutes)
        if minutes and name not in self.cards:
            self._card(name).set_state("scheduled")

    def _schedules_changed(self) -> None:
        for name, card in self.cards.items():
            card.set_next_run(self.scheduler.next_run(name), self.scheduler.text(name))
        self.refresh_profiles()
        self.schedulesChanged.emit()

    def _show_earlier_crawls(self, names) -> None:
        """After a restart: a card for each scheduled site (with its next run) and for each crawl that
        was interrupted (the app closed or was killed during it), with Resume."""
        for name, state, note, counts in earlier_crawls(self.store, names, self.scheduler):
            card = self._card(name)
            card.set_state(state)
            card.set_stats(counts)  # the numbers its note gives, not "–"
            card.set_next_run(self.scheduler.next_run(name), self.scheduler.text(name))
            card.set_note(note)

    def _say_last_run(self, rows: list) -> None:
        """With no crawl shown, the place of the cards says what the last one did (History has them all)."""
        if rows:
            started, profile, status = rows[0][:3]
            self.empty_label.setText(f"No crawl running. The last one: {profile}, "
                                     f"{STATUS_TEXT.get(status, status).lower()}, started {started} (History, "
                                     "below, has them all). Tick a site on the left and press Start.")
            self.empty_label.setWordWrap(True)

    # --- misc --------------------------------------------------------------------------------
    def _sync_buttons(self) -> None:
        states = {s.state for s in self.sessions.values()}
        self.pause_button.setEnabled("running" in states)
        self.resume_button.setEnabled("paused" in states)
        self.stop_button.setEnabled(bool(states & {"starting", "running", "paused"}))

    def _log(self, name: str, message: str) -> None:
        self.log.appendPlainText(f"{time.strftime('%H:%M:%S')}  [{name}]  {message}")

