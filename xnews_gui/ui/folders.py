"""Where a file dialog opens: the folder the user last chose for that kind of file, else Documents, else
home; never the folder the app was started from, nor the app's own folders (its bundled profiles)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths


def start_folder(key: str) -> Path:
    """The folder last remembered under ``key`` (a QSettings key) while it exists, else Documents or home."""
    last = QSettings().value(key, "")
    if last and Path(str(last)).is_dir():
        return Path(str(last))
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


def remember_folder(key: str, folder: Path) -> None:
    QSettings().setValue(key, str(folder))
