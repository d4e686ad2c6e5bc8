"""The Sites tab's profile files: export a profile as JSON, import one (a mixin of ``SitesView``: it uses the
view's store, message line and current profile)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from ..export import ExportError, write_text
from ..services.profiles import read_profile_file
from . import store_ops
from .folders import remember_folder, start_folder

PROFILE_FOLDER = "profiles/folder"  # QSettings: where profile files were last exported or imported from


class ProfileFiles:
    def export_profile(self, path: Path) -> bool:
        profile = self._valid_profile()
        if profile is None:
            return False
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, profile.to_json())
        except OSError as exc:
            self._message(f"Could not write {path}: {exc.strerror or exc}", error=True)
            return False
        except ExportError as exc:
            self._message(f"Could not export the profile: {exc}", error=True)
            return False
        self._message(f"Exported to {path}.")
        return True

    def export_dialog(self) -> None:
        profile = self._valid_profile()
        if profile is None:
            return
        default = str(start_folder(PROFILE_FOLDER) / f"{profile.name}.json")
        path, _ = QFileDialog.getSaveFileName(self, "Export profile", default, "Profile JSON (*.json)")
        if path and self.export_profile(Path(path)):
            remember_folder(PROFILE_FOLDER, Path(path).parent)

    def import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import profile", str(start_folder(PROFILE_FOLDER)),
                                              "Profile JSON (*.json)")
        if path:
            remember_folder(PROFILE_FOLDER, Path(path).parent)
            self.import_profile(Path(path))

    def import_profile(self, path: Path) -> bool:
        """Store the profile of a JSON file (in the background; a version "imported from file ...")."""
        try:
            profile = read_profile_file(path)
        except (ValueError, OSError) as exc:  # ProfileError and FileRefused are ValueErrors
            self._message(f"Not imported: {exc}", error=True)
            return False
        replaced = profile.name in self.store.profile_names()
        if replaced and not self._replace_ok(profile.name, Path(path).name):
            self._message(f"Not imported: the stored {profile.name!r} is kept.")
            return False

        def saved(_) -> None:
            editing = self.name_edit.text().strip()
            self._follow_store(profile.name, "imported")
            if editing != profile.name:  # the list selects the import: the editor shows it (asking first
                self.open_profile(profile.name)  # when the profile being edited has unsaved changes)
            self._message(f"Imported {profile.name!r} from {Path(path).name}"
                          + (" (it replaces the stored one; History keeps that)." if replaced else "."))
            self.profileSaved.emit(profile.name)

        store_ops.write(self.store.save_profile, profile, reason=f"imported from file {Path(path).name}", owner=self,
                        on_done=saved, on_error=lambda message: self._message(f"Could not import: {message}", error=True))
        return True

    def _replace_ok(self, name: str, file_name: str) -> bool:
        """Ask before an import replaces a stored profile, as Save does."""
        box = QMessageBox(QMessageBox.Icon.Question, "Import profile",
                          f"A profile named {name!r} is stored already.\nReplace it with the one in {file_name}? "
                          "(Its History keeps the stored one.)", parent=self)
        replace_button = box.addButton("Replace", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is replace_button
