"""The Sites tab: saved profiles on the left, the inspector (wrapper builder) on the right."""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListWidget, QMessageBox, QPushButton, QSplitter,
    QVBoxLayout, QWidget,
)

from ..core.profile.profile import Profile, ProfileError
from ..store import Store
from . import store_ops
from .crawl_schedule import mark_scheduled, schedule_texts
from .degraded_box import ProfileHealth
from .elided_label import ElidedLabel
from .demo_launcher import DEMO_PROFILE, DemoSite
from .inspector import Inspector
from .inspector import start_page
from .inspector.repair_bar import degraded_from_last_run
from .profile_history import ProfileHistory
from .reextract_offer import ReextractOffer
from .revisit_line import RevisitBox
from .sites_files import ProfileFiles
from .sites_versions import ProfileVersions
from .save_refusal import why_not_saved
from .unsaved_guard import UnsavedGuard


DEMO_PRACTICE = "tin-nhanh"  # the demo site's name: a profile built on it while trying the steps


class SitesView(ProfileFiles, ProfileVersions, QWidget):
    """Build, open, save and export site profiles. The database is already open.

    ``demo`` is the in-process demo site (the Crawl tab's, so that one server runs); a view
    without one starts its own when asked and stops it in ``shutdown``.
    """

    profileSaved = Signal(str)

    def __init__(self, store: Store, parent=None, *, demo: DemoSite | None = None):
        super().__init__(parent)
        self.store = store
        self.data_dir = store.root
        self.demo = demo if demo is not None else DemoSite(store)
        self._owns_demo = demo is None
        self.inspector = Inspector(self, data_dir=store.root)
        self.inspector.browser.startAction.connect(self._start_action)

        self.profiles = QListWidget(self)
        self.profiles.setToolTip("Saved site profiles: select one to open it (double-click while a page is shown)")
        self.profiles.itemActivated.connect(lambda item: self.open_profile(item.text()))
        self.profiles.currentItemChanged.connect(self._profile_selected)
        self._refreshing = False
        self.new_button = QPushButton("New profile", self)
        self.new_button.setToolTip("Start a new profile for the page shown in the browser")
        self.new_button.clicked.connect(self.new_profile)
        self.health = ProfileHealth(self)  # the selected profile's last crawl, when fields degraded in it
        self.history_button = QPushButton("History\u2026", self)
        self.history_button.setToolTip("The selected profile's saved versions: what changed, revert")
        self.history_button.clicked.connect(self.open_history)
        self.history_dialog: ProfileHistory | None = None
        self.revisits = RevisitBox(store, self)  # when the selected profile's articles are next revisited; Revisit all
        self.revisitRequested = self.revisits.revisitRequested
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(4, 4, 4, 4)
        title = QLabel("Site profiles", self)
        title.setStyleSheet("font-weight: bold;")
        left_layout.addWidget(title)
        left_layout.addWidget(self.profiles, 1)
        left_layout.addWidget(self.health)
        left_layout.addWidget(self.revisits)
        left_layout.addWidget(self.history_button)
        left_layout.addWidget(self.new_button)

        self.name_edit = QLineEdit(self)
        self.name_edit.setPlaceholderText("profile name, e.g. vnexpress")
        self.name_edit.setMaximumWidth(240)
        self.save_button = QPushButton("Save", self)
        self.save_button.setToolTip("Save the profile in the database (Ctrl+S)")
        self.save_button.setShortcut("Ctrl+S")
        self.save_button.clicked.connect(self.save_clicked)
        self.confirm_box: QMessageBox | None = None  # the open question before saving, if any
        self.guard = UnsavedGuard(self)  # the profile as opened or saved: asks before unsaved edits are dropped
        self._save_after_coverage = False
        self.export_button = QPushButton("Export JSON\u2026", self)
        self.export_button.clicked.connect(self.export_dialog)
        self.import_button = QPushButton("Import JSON\u2026", self)
        self.import_button.setToolTip("Store a profile from a JSON file (replacing one of the same name is asked first; its History keeps it)")
        self.import_button.clicked.connect(self.import_dialog)
        self.message = ElidedLabel(self)  # one line that never resizes the bar (the page below must not move)
        top = QHBoxLayout()
        top.setContentsMargins(4, 2, 4, 2)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Profile:", self.name_edit)
        top.addLayout(form)
        top.addWidget(self.save_button)
        top.addWidget(self.export_button)
        top.addWidget(self.import_button)
        top.addWidget(self.message, 1)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addLayout(top)
        # after a repair, a save or a revert: "Re-extract N stored articles from their saved pages"
        self.reextract = ReextractOffer(store, self)
        right_layout.addWidget(self.reextract)
        right_layout.addWidget(self.inspector, 1)

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([170, 1100])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.name_edit.textEdited.connect(self.inspector.rename)
        self.inspector.site_bar.coverageDone.connect(self._coverage_done)
        self.inspector.repairAccepted.connect(lambda field: self.save(reason=f"repair accepted: {field}"))
        self.inspector.rulesChanged.connect(self._sync_name)
        self.inspector.rulesChanged.connect(lambda: self._message(""))  # the inspector's status takes over
        self.refresh()  # shows the start page too

    # --- public API ----------------------------------------------------------------
    def refresh(self, select: str = "") -> None:
        """Reload the profile list; keep the highlighted profile, or highlight ``select``."""
        current = select or (self.profiles.currentItem().text() if self.profiles.currentItem() else "")
        self._refreshing = True
        try:
            self.profiles.clear()
            self.profiles.addItems(self.store.profile_names())
            matches = self.profiles.findItems(current, Qt.MatchFlag.MatchExactly) if current else []
            if matches:
                self.profiles.setCurrentItem(matches[0])
            self.health.reload(self.store, self.profiles)
            mark_scheduled(self.profiles, schedule_texts(self.store))  # as the Crawl tab shows them
            self._show_health()
        finally:
            self._refreshing = False
        if self.inspector.browser.on_start_page():
            self.show_start_page()  # with the new list of profiles

    def _show_health(self) -> None:
        item = self.profiles.currentItem()
        self.health.show_for(item)
        self.history_button.setEnabled(item is not None)
        self.revisits.show_for(item.text() if item is not None else None)

    def show_start_page(self) -> None:
        """The local start page: the three steps, the demo site, the stored profiles."""
        entries = []
        for name in self.store.profile_names():
            profile = self.store.load_profile(name)
            if profile is not None:
                entries.append(start_page.ProfileEntry(name, profile.start_urls[0] if profile.start_urls else "",
                                                       len(profile.fields), self.health.notes.get(name, "")))
        self.inspector.show_start(start_page.render(entries))

    def open_demo(self) -> str | None:
        """Start the bundled demo site in-process and show its home page, with a fresh profile to build; its
        address (None while asking first, when the open profile has unsaved edits)."""
        opened: list[str] = []
        self.guard.check(self.current_profile(), "open the demo site", lambda: opened.append(self._open_demo()),
                         lambda: self._message("Still editing; the demo site was not opened."))
        return opened[0] if opened else None

    def _open_demo(self) -> str:
        url = self.demo.start()
        self.name_edit.setText(DEMO_PRACTICE)  # not "demo": saving must not overwrite the bundled profile
        self.inspector.new_profile(DEMO_PRACTICE, url)
        self.inspector.load_url(url)
        self._message("Demo site open: choose \u201cArticle links\u201d and click an article title.")
        return url

    def load_url(self, url: str) -> None:
        self.inspector.load_url(url)

    def show_page_of(self, name: str, url: str) -> None:
        """A page of profile ``name`` (e.g. one where a field failed), in the inspector with that profile open."""
        if self.name_edit.text().strip() == name and self.inspector.profile() is not None:
            self.inspector.set_degraded(degraded_from_last_run(self.store, name))  # the repair, for the open draft
            self.load_url(url)  # the profile is open already: keep its draft
        elif self.open_profile(name, url) is None and self.guard.box is None:
            self.load_url(url)

    def unsaved(self) -> bool:
        """The profile in the inspector has edits that were not saved (a pick, a hand edit, a learned rule)."""
        return self.guard.unsaved(self.current_profile())

    def open_profile(self, name: str, url: str = "") -> Profile | None:
        """Open a stored profile in the inspector; with unsaved edits, ask first (None while asking)."""
        current = self.current_profile()
        if self.unsaved() and not (current.name == name and not url):
            self.guard.ask(current.name, f"open \u201c{name}\u201d", lambda: self._open(name, url),
                           lambda: self._kept(current.name, name))
            return None
        return self._open(name, url)

    def _kept(self, current: str, other: str) -> None:
        self._message(f"Still editing {current!r}; {other!r} was not opened.")
        self._select_in_list(current)

    def _select_in_list(self, name: str) -> None:
        matches = self.profiles.findItems(name, Qt.MatchFlag.MatchExactly)
        self._refreshing = True
        try:
            if matches:
                self.profiles.setCurrentItem(matches[0])
            else:
                self.profiles.clearSelection()
        finally:
            self._refreshing = False

    def _open(self, name: str, url: str = "") -> Profile | None:
        # the demo profile points at the demo site, started here (on another port when 8765 is taken)
        profile = self.demo.profile() if name == DEMO_PROFILE else self.store.load_profile(name)
        if profile is None:
            self._message(f"No profile named {name!r}.", error=True)
            return None
        self.name_edit.setText(profile.name)
        self.inspector.set_profile(profile)
        self.guard.mark_clean(self.current_profile())
        self.inspector.set_degraded(degraded_from_last_run(self.store, name))  # a repair is proposed for them
        if url or profile.start_urls:
            self.inspector.load_url(url or profile.start_urls[0])
        self._message(f"Opened {name}: {len(profile.fields)} field rules.")
        return profile

    def new_profile(self) -> None:
        """A fresh profile that starts at the page in view (never the old profile's name or pages)."""
        url = "" if self.inspector.browser.on_start_page() else self.inspector.browser.url()
        if not url.startswith(("http://", "https://")):
            self.inspector.browser.address.setFocus()
            self._message("Type the address of the site's home page above, press Enter, then click New profile.",
                          error=True)
            return
        if self.inspector.browser.load_failed:
            self._message(f"The page did not load ({url}): check the address above, press Enter, then click "
                          "New profile.", error=True)
            return
        self.guard.check(self.current_profile(), "start a new profile at this page", lambda: self._new(url),
                         lambda: self._message("Still editing; no new profile was started."))

    def _new(self, url: str) -> None:
        taken, base = set(self.store.profile_names()), _name_from_url(url)
        name, n = base, 2
        while name in taken:  # never a stored profile's name: Save would offer to replace it
            name, n = f"{base}-{n}", n + 1
        self.name_edit.setText(name)
        self.profiles.clearSelection()
        self.inspector.new_profile(name, url)
        self.guard.mark_clean(None)  # saving it under a stored profile's name replaces that one: asked
        self._message(f"New profile {name!r} starting at this page: pick the article links, then the section links "
                      "or next page, then the fields on an article.")

    def current_profile(self) -> Profile | None:
        profile = self.inspector.profile()
        name = self.name_edit.text().strip()
        if profile is not None and name and name != profile.name:
            profile = profile.with_(name=name)
        return profile

    def save_clicked(self) -> None:
        """Save as a person does: a coverage check first, a question when it looks wrong or when a
        profile of that name exists, then the store."""
        profile = self._valid_profile(for_saving=True)
        if profile is None:
            return
        if self.inspector.learn_before_save(self.save_clicked):  # the picked rules, learned from the site first
            self._message("Learning the rules from the site before saving\u2026")
            return
        coverage = self.inspector.site_bar.coverage_for(profile)
        if coverage is None:
            self._save_after_coverage = True
            self._message("Checking coverage before saving\u2026")
            self.inspector.site_bar.check()
            return
        questions = []
        if coverage.warning():
            questions.append(f"Coverage: {coverage.summary()}.\n\u26a0 {coverage.warning()}.")
        if profile.name in self.store.profile_names() and profile.name != self.guard.clean_name():
            questions.append(f"A profile named \u201c{profile.name}\u201d exists already. Replace it?")
        if not questions:
            self.save()
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Save profile", "\n\n".join(questions), parent=self)
        box.addButton("Save anyway" if coverage.warning() else "Replace", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda _code, box=box: self._answered(box))
        self.confirm_box = box
        box.open()  # not exec(): the app goes on while the question waits

    def _answered(self, box: QMessageBox) -> None:
        self.confirm_box = None
        if box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.AcceptRole:
            self.save()
        else:
            self._message("Not saved (cancelled): the stored profile is unchanged.", neutral=True)  # not green
        box.deleteLater()

    def _coverage_done(self, _report) -> None:
        if self._save_after_coverage:
            self._save_after_coverage = False
            self.save_clicked()

    def save(self, reason: str = "saved in inspector") -> bool:
        """Store the profile (no questions; written in the background, profileSaved when done).
        ``reason`` goes into the profile's history (e.g. 'repair accepted: body')."""
        profile, draft = self._valid_profile(), self.inspector.draft
        if profile is None:
            return False
        profile = draft.with_self_test(profile) if draft is not None else profile
        def saved(_) -> None:
            if draft is not None:
                draft.saved(profile)
            if self.current_profile() is not None and self.current_profile().name == profile.name:
                self.guard.mark_clean(profile)
            self.refresh(select=profile.name)  # the sidebar shows the profile just saved
            self._message(f"Saved profile {profile.name!r}.")
            if self.name_edit.hasFocus() or self.save_button.hasFocus():
                self.inspector.view.setFocus()  # back to the page: the arrow keys widen and narrow picks again
            self.profileSaved.emit(profile.name)
            self.reextract.offer(profile.name, reason)  # articles stored with the old rules

        store_ops.write(self.store.save_profile, profile, reason=reason, owner=self, on_done=saved,
                        on_error=lambda message: self._message(f"Could not save {profile.name!r}: {message}",
                                                               error=True))
        return True

    def shutdown(self) -> None:
        self.inspector.shutdown()
        if self._owns_demo:
            self.demo.stop()

    # --- helpers -----------------------------------------------------------------------
    def _start_action(self, action: str, argument: str) -> None:
        if action == "demo":
            self.open_demo()
        elif action == "profile":
            self.open_profile(argument)

    def _profile_selected(self, current, _previous) -> None:
        """Selecting a profile while no site is shown opens it (loads its first start address)."""
        self._show_health()
        if current is not None and not self._refreshing and self.inspector.browser.on_start_page():
            self.open_profile(current.text())

    def _valid_profile(self, for_saving: bool = False) -> Profile | None:
        profile = self.current_profile()
        if profile is None:
            self._message("Nothing to save yet: pick some fields first.", error=True)
            return None
        refusal = why_not_saved(profile, self.inspector) if for_saving else ""
        if refusal:
            self._message(refusal, error=True)
            return None
        try:
            return Profile.from_dict(profile.to_dict())  # the same validation a loaded file gets
        except ProfileError as exc:
            self._message(str(exc), error=True)
            return None

    def _sync_name(self) -> None:
        profile = self.inspector.profile()
        if profile is not None and not self.name_edit.text().strip():
            self.name_edit.setText(profile.name)

    def _message(self, text: str, error: bool = False, neutral: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #c5221f;" if error else "color: palette(text);" if neutral
                                   else "color: #1e8e3e;")


def _name_from_url(url: str) -> str:
    host = urlsplit(url).hostname or "site"
    host = host[4:] if host.startswith("www.") else host
    return host.replace(":", "-")[:64]
