"""Unsaved edits in the inspector are never dropped without asking (another profile, a new one, the demo or
a reverted or imported version opened over them)."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QMessageBox

from ..core.profile.profile import Profile


class UnsavedGuard:
    """Remembers the profile as it was opened or saved; anything else is an unsaved edit. ``ask`` puts the
    question (a non-blocking dialog, ``box`` while it is open) and calls ``on_drop`` or ``on_keep``."""

    def __init__(self, parent):
        self.parent = parent
        self.clean = ""
        self.box: QMessageBox | None = None

    def mark_clean(self, profile: Profile | None) -> None:
        self.clean = profile.to_json() if profile is not None else ""

    def clean_name(self) -> str:
        """The name of the profile as it was opened or saved ("" for a new one): saving under it is no
        replacing of another profile."""
        return json.loads(self.clean).get("name", "") if self.clean else ""

    def unsaved(self, profile: Profile | None) -> bool:
        """Edits not saved: a pick, a hand edit, a learned rule (an empty new profile has none)."""
        return profile is not None and bool(profile.fields or profile.articles) and profile.to_json() != self.clean

    def check(self, profile: Profile | None, action: str, proceed, on_keep) -> None:
        """``proceed`` now when ``profile`` has no unsaved edits; else ask first whether to ``action``
        (e.g. "open \u201cother\u201d") and drop them, and call ``proceed`` or ``on_keep``."""
        if self.unsaved(profile):
            self.ask(profile.name, action, proceed, on_keep)
        else:
            proceed()

    def ask(self, current: str, action: str, on_drop, on_keep) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Unsaved changes",
                          f"The profile \u201c{current}\u201d has changes that are not saved.\n\n"
                          f"{action[:1].upper()}{action[1:]} and drop them?", parent=self.parent)
        drop = box.addButton(f"Drop the changes and {action}", QMessageBox.ButtonRole.DestructiveRole)
        keep = box.addButton("Keep editing", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(keep)  # Enter keeps the edits
        box.finished.connect(lambda _code: self._answered(box, box.clickedButton() is drop, on_drop, on_keep))
        self.box = box
        box.open()  # not exec(): the app goes on while the question waits

    def _answered(self, box: QMessageBox, drop: bool, on_drop, on_keep) -> None:
        self.box = None
        box.deleteLater()
        (on_drop if drop else on_keep)()
