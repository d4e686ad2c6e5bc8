"""The site bar above the picker: where the crawl starts (editable) and how far the link rules reach.

A site is start pages, list pages and article pages. The start pages are shown and editable here;
*Use this page* takes the page in view; *Check coverage* follows the link rules from the start pages a
few levels (``core.induction.coverage``, in a worker, politely) and says "reaches N list pages and M article
links", in orange when something looks wrong.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ...core.induction.coverage import Coverage, check_coverage
from ...core.profile.profile import Profile
from .. import workers
from ..elided_label import ElidedLabel


def link_key(profile: Profile | None) -> tuple:
    """What a coverage result depends on: a result for another key is stale."""
    if profile is None:
        return ()
    return (profile.start_urls, profile.allowed_domains, profile.articles, profile.lists, profile.crawl.max_depth,
            profile.more)


def _coverage_job(profile: Profile, fetch, load_more=None, worker=None):
    aborted = (lambda: worker.aborted) if worker is not None else (lambda: False)
    return link_key(profile), check_coverage(profile, fetch, aborted=aborted, load_more=load_more)


class SiteBar(QWidget):
    startUrlsEdited = Signal(list)  # the start pages typed or taken from the view
    useThisPage = Signal()
    coverageDone = Signal(object)  # Coverage, for the current link rules

    def __init__(self, cache, pool, parent=None):
        super().__init__(parent)
        self.cache, self.pool = cache, pool
        self.load_more = lambda profile: None  # (profile) -> load_more(url) for list pages that load more
        self.coverage: Coverage | None = None
        self._coverage_key: tuple = ()
        self._worker: workers.Worker | None = None
        self._profile: Profile | None = None
        label = QLabel("Start pages:", self)
        label.setToolTip("Where the crawl starts: the site's home or section pages (not an article)")
        self.start_edit = QLineEdit(self)
        self.start_edit.setPlaceholderText("the home page or section pages the crawl starts from (space between two)")
        self.start_edit.editingFinished.connect(self._edited)
        self.use_button = QPushButton("Use this page", self)
        self.use_button.setToolTip("Start the crawl at the page shown below")
        self.use_button.clicked.connect(self.useThisPage)
        self.coverage_button = QPushButton("Check coverage", self)
        self.coverage_button.setToolTip("Follow the link rules from the start pages a few levels and count "
                                        "the list pages and article links they reach")
        self.coverage_button.clicked.connect(self.check)
        self.result = ElidedLabel(self)  # one line that never grows the bar (the page below must not move)
        # what looks wrong, in full, wrapped on a line of its own: never cut at the window's edge
        self.warning = QLabel(self)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b06000; padding: 0 4px 2px 4px;")
        self.warning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warning.hide()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(label)
        row.addWidget(self.start_edit, 3)
        row.addWidget(self.use_button)
        row.addWidget(self.coverage_button)
        row.addWidget(self.result, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(1)
        layout.addLayout(row)
        layout.addWidget(self.warning)

    # --- the profile shown ------------------------------------------------------------------
    def show_profile(self, profile: Profile | None) -> None:
        self._profile = profile
        urls = " ".join(profile.start_urls) if profile else ""
        if self.start_edit.text() != urls and not self.start_edit.hasFocus():
            self.start_edit.setText(urls)
        if link_key(profile) != self._coverage_key:
            self._forget()

    def start_urls(self) -> list[str]:
        return self.start_edit.text().split()

    def _edited(self) -> None:
        urls = self.start_urls()
        if self._profile is not None and tuple(urls) != self._profile.start_urls:
            self._forget()  # a result for other start pages is no result for these
            self.startUrlsEdited.emit(urls)

    def _typed_not_taken(self) -> str:
        """Why the start pages typed are not the profile's ("" when they are)."""
        typed = tuple(self.start_urls())
        if self._profile is None or typed == self._profile.start_urls:
            return ""
        bad = [u for u in typed if not u.startswith(("http://", "https://"))]
        if bad:
            return f"Not a web address: {bad[0]} (start pages begin with http:// or https://)"
        return "The start pages typed are not taken yet: press Enter in the Start pages line"

    # --- coverage ----------------------------------------------------------------------------
    def coverage_for(self, profile: Profile | None) -> Coverage | None:
        """The last coverage result if it is for these link rules and start pages."""
        return self.coverage if profile is not None and link_key(profile) == self._coverage_key else None

    @Slot()
    def check(self) -> None:
        profile = self._profile
        if profile is None or not profile.start_urls:
            self._say("No start page yet: open the site's home page and click \u201cUse this page\u201d.", warn=True)
            return
        not_taken = self._typed_not_taken()
        if not_taken:
            self._forget()
            self._say(f"{not_taken}: coverage not checked.", warn=True)
            return
        if self._worker is not None:
            self._worker.abort()
        self._say(f"Checking coverage from {len(profile.start_urls)} start page(s)\u2026")
        worker = workers.Worker(_coverage_job, profile, self.cache.fetch, self.load_more(profile))
        worker.signals.result.connect(self._checked)
        worker.signals.error.connect(self._failed)
        self._worker = workers.start(worker, self.pool)

    @Slot(object)
    def _checked(self, result) -> None:
        key, report = result
        if key != link_key(self._profile):
            return  # the rules or start pages changed meanwhile
        self._worker = None
        self.coverage, self._coverage_key = report, key
        warning = report.warning()
        self._say(f"Coverage: {report.summary()}." + (" \u26a0 see below" if warning else ""), warn=bool(warning))
        self.result.setToolTip(f"Coverage: {report.summary()}." + (f"\n\u26a0 {warning}" if warning else ""))
        self.warning.setText(f"\u26a0 {warning[0].upper()}{warning[1:]}." if warning else "")
        self.warning.setVisible(bool(warning))
        self.coverageDone.emit(report)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self._worker = None
        self._say(f"Coverage check failed: {message}", warn=True)

    def _forget(self) -> None:
        self.coverage, self._coverage_key = None, ()
        if self._worker is not None:
            self._worker.abort()
            self._worker = None
        self.result.clear()
        self.warning.clear()
        self.warning.hide()

    def shutdown(self) -> None:
        if self._worker is not None:
            self._worker.abort()

    def _say(self, text: str, warn: bool = False) -> None:
        self.result.setText(text)
        self.result.setStyleSheet("color: #b06000;" if warn else "color: #1e8e3e;")
