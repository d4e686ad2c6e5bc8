"""The Sites tab's profile versions: the History window and a revert or import the open draft follows (a mixin
of ``SitesView``: it uses the view's store, guard, inspector and message line)."""

from __future__ import annotations

from .profile_history import ProfileHistory


class ProfileVersions:
    def open_history(self) -> ProfileHistory | None:
        """The selected profile's versions, in a window that does not block the app."""
        item = self.profiles.currentItem()
        if item is None:
            self._message("Select a profile in the list to see its history.", error=True)
            return None
        if self.history_dialog is not None:
            self.history_dialog.close()
            self.history_dialog.deleteLater()
        self.history_dialog = ProfileHistory(self.store, item.text(), self)
        self.history_dialog.reverted.connect(self._reverted)
        self.history_dialog.show()
        return self.history_dialog

    def _reverted(self, name: str) -> None:
        self._message(f"Reverted {name!r}; its history keeps the version before.")
        self._follow_store(name, "reverted")
        self.reextract.offer(name, "reverted")

    def _follow_store(self, name: str, how: str) -> None:
        """A profile changed in the store behind the inspector (``how``: "reverted", "imported"): its open
        draft follows, once asked when it has unsaved edits."""
        self.refresh(select=name)
        if self.name_edit.text().strip() != name or (stored := self.store.load_profile(name)) is None:
            return

        def follow() -> None:
            self.inspector.set_profile(stored)
            self.guard.mark_clean(self.current_profile())

        def keep() -> None:
            self.guard.mark_clean(stored)  # the edits stay unsaved against the version now stored
            self._message(f"Still editing {name!r}; the {how} version is stored (Save replaces it).")
        self.guard.check(self.current_profile(), f"load the {how} \u201c{name}\u201d", follow, keep)
