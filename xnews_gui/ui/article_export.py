"""Export from the Articles tab (Ctrl+E, a row's menu): which articles, the file and its format, the
export itself in a worker (xnews_gui.export), the outcome on the status line or in a warning."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from . import workers
from .folders import remember_folder, start_folder

EXPORT_FOLDER = "export/folder"  # QSettings: where the last export went
EXPORT_FORMAT = "export/format"  # ... and its format


class ArticleExport:
    """The Articles tab's exports; ``view`` (the tab) gives the selection, the listed articles, the store,
    the dialogs' parent and the status line."""

    def __init__(self, view):
        self.view = view
        self.box: QMessageBox | None = None  # the question being asked, kept alive while it is open

    def ask(self) -> None:
        """Export (Ctrl+E): the selected articles or all the listed ones, as the user says when both
        are possible (one selected row is usually just the article being read)."""
        view = self.view
        selected, listed = view.selected_ids(), view.model.total()
        if not listed:
            QMessageBox.information(view, "Export", "There are no articles to export with the current filter.")
            return
        if not selected or len(selected) >= listed:
            self.choose_file(view.model.all_ids())
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Export articles", "Which articles do you want to export?",
                          parent=view)
        chosen = box.addButton(f"The selected one{'s' if len(selected) > 1 else ''} ({len(selected):,})",
                               QMessageBox.ButtonRole.AcceptRole)
        box.addButton(f"All listed ({listed:,})", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(chosen)
        box.finished.connect(lambda _code: self._answered(box, selected))
        self.box = box
        box.open()

    def _answered(self, box: QMessageBox, selected: list[int]) -> None:
        self.box = None
        role = box.buttonRole(box.clickedButton()) if box.clickedButton() else None
        box.deleteLater()
        if role == QMessageBox.ButtonRole.AcceptRole:
            self.choose_file(selected)
        elif role == QMessageBox.ButtonRole.ActionRole:
            self.choose_file(self.view.model.all_ids())

    def choose_file(self, ids: list[int]) -> None:
        from ..export import FORMATS

        filters = ";;".join(FORMATS.values())
        last = str(QSettings().value(EXPORT_FORMAT, "epub"))
        last = last if last in FORMATS else "epub"  # the type of the last export is offered again
        start = str(export_folder() / f"xnews-export.{'xml' if last in ('rss', 'atom') else last}")
        path, chosen = QFileDialog.getSaveFileName(self.view,
                                                   f"Export {len(ids):,} article{'s' if len(ids) != 1 else ''}",
                                                   start, filters, FORMATS[last])
        if not path:
            return
        picked = next((k for k, v in FORMATS.items() if v == chosen), last)
        fmt, target = target_file(Path(path), picked)
        if target != Path(path) and target.exists() and QMessageBox.question(
                self.view, "Export articles", f"{target.name} already exists in {target.parent}.\nReplace it?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
            self.view.statusMessage.emit(f"Not exported: {target.name} was kept.")
            return  # the dialog asked about the name typed, not about the one the suffix made
        self.run(ids, fmt, target)

    def run(self, ids: list[int], fmt: str, path: Path) -> workers.Worker:
        from ..export import NAMES, export_articles

        view = self.view

        def job() -> Path:
            return export_articles(view.store.articles_for_export(ids), fmt, path, view.store)

        def done(written: Path) -> None:
            remember_folder(EXPORT_FOLDER, written.parent)  # only a folder that took the export
            QSettings().setValue(EXPORT_FORMAT, fmt)
            view.statusMessage.emit(f"Exported {len(ids):,} articles as {NAMES[fmt]} to {written}")

        def failed(message: str) -> None:
            view.statusMessage.emit(f"Export failed: {message}")  # not "Exporting…" under the warning
            QMessageBox.warning(view, "Export failed", message)

        view.statusMessage.emit(f"Exporting {len(ids):,} articles…")
        return workers.run_in_background(job, on_result=done, on_error=failed)


def target_file(path: Path, picked: str) -> tuple[str, Path]:
    """(format, file) for a name typed in the dialog: the format its suffix names wins over the type picked
    (a typed "news.csv" is a CSV file); a name without such a suffix ("news", "tin-tuc-05.12") gets the
    picked type's."""
    from ..export import format_for

    if format_for(path) is None:  # no format's suffix ("news", "tin-tuc-05.12")
        return picked, path.with_name(f"{path.name}.{'xml' if picked in ('rss', 'atom') else picked}")
    return format_for(path, picked), path


def export_folder() -> Path:
    """Where the export dialog opens: the last export's folder, else Documents, else home."""
    return start_folder(EXPORT_FOLDER)
