"""The offer after a profile's rules changed (an accepted repair, a save, a revert): "Re-extract 7 stored
articles from their saved pages". How many would change is worked out first, in the background, from
the raw pages in the store (services/reextract.py); nothing is offered when none would."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from ..services.reextract import apply_reextract, plan_reextract
from ..store import Store
from . import workers


class ReextractOffer(QFrame):
    reextracted = Signal(str, int)  # profile, articles whose fields changed

    def __init__(self, store: Store, parent=None, *, classifier_loader=None):
        super().__init__(parent)
        self.store = store
        self.classifier_loader = classifier_loader  # the data folder's topic model (None: topics stay)
        self.setObjectName("reextractOffer")
        self.setStyleSheet("#reextractOffer { background: #e8f1fb; border: 1px solid #8fb8e6; border-radius: 4px; }")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.button = QPushButton("Re-extract", self)
        self.button.setToolTip("Extract them again with the profile's current rules, without the network; their "
                               "current values are kept as an earlier version")
        self.button.clicked.connect(self.accept)
        self.later = QPushButton("Not now", self)
        self.later.clicked.connect(self.hide)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        row.addWidget(self.later)
        self.profile = None
        self.plan = None
        self.reason = ""
        self._asked = 0
        self.hide()

    def offer(self, name: str, reason: str) -> None:
        """The rules of profile ``name`` changed (``reason``, e.g. 'repair accepted: body'): count its
        stored articles whose fields the new rules change; offer to re-extract them when there are some."""
        profile = self.store.load_profile(name)
        self._asked += 1
        asked = self._asked
        self.hide()
        if profile is None or not self.store.count_articles(name):
            return
        workers.run_in_background(plan_reextract, self.store, profile,
                                  on_result=lambda plan: self._planned(asked, profile, reason, plan))

    def _planned(self, asked: int, profile, reason: str, plan) -> None:
        if not shiboken6.isValid(self) or asked != self._asked:
            return
        self.profile, self.plan, self.reason = profile, plan, reason
        if not plan.count:
            return
        self.label.setText(f"<b>Re-extract {plan.count:,} stored article{'s' if plan.count != 1 else ''} from "
                           f"their saved pages</b> with {profile.name}'s new rules: {plan.summary()}.")
        self.button.setEnabled(True)
        self.button.setText("Re-extract")
        self.show()

    def accept(self) -> None:
        if self.plan is None or not self.plan.count:
            return
        profile, plan, reason = self.profile, self.plan, self.reason
        self.button.setEnabled(False)
        self.button.setText("Re-extracting…")
        loader = self.classifier_loader

        def job() -> int:
            model = None
            if loader is not None:
                try:
                    model = loader()
                except Exception:  # an unusable model: the topics stay as they are
                    model = None
            return apply_reextract(self.store, profile, plan, classifier=model, reason=reason)

        workers.run_in_background(job, on_result=lambda done: self._done(profile.name, done),
                                  on_error=self._failed)

    def _done(self, name: str, done: int) -> None:
        if not shiboken6.isValid(self):
            return
        self.plan = None
        self.label.setText(f"Re-extracted {done:,} article{'s' if done != 1 else ''} of {name} from their saved "
                           "pages; their earlier values are kept as versions (the reader's Versions button).")
        self.button.hide()
        self.later.setText("Close")
        self.reextracted.emit(name, done)

    def _failed(self, message: str) -> None:
        if shiboken6.isValid(self):
            self.label.setText(f"Re-extraction failed: {message}")
            self.button.setEnabled(True)
            self.button.setText("Try again")

    def showEvent(self, event) -> None:  # noqa: N802
        self.button.show()
        self.later.setText("Not now")
        super().showEvent(event)
