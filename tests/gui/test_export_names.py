"""Export's file dialog as a person uses it: the name typed decides the format (a typed "news.csv" with the
dialog's default EPUB type is a CSV file), a name without a suffix gets the chosen type's, and a failed
export says why in words and does not become the dialog's next folder."""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDialogButtonBox, QFileDialog, QLineEdit

from tests.gui.dialogs import answer, when_shown
from tests.gui.test_articles_view import click_menu
from xnews_gui.export import FORMATS
from xnews_gui.ui.article_export import EXPORT_FOLDER, EXPORT_FORMAT
from xnews_gui.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, store, make_articles):
    QSettings().remove(EXPORT_FORMAT)  # each test starts from the first export's type, EPUB
    make_articles(5)
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.resize(1024, 700)
    win.show()
    win.show_tab("articles")
    with qtbot.waitSignal(win.articles.model.loaded, timeout=5000):
        win.articles.model.reload()
    yield win
    win.close()


def fill_dialog(name: str, file_type: str | None = None, shot: Path | None = None) -> None:
    """When the export dialog shows: pick ``file_type`` in its type box, type ``name``, click Save."""
    def fill(dialog) -> None:
        if file_type is not None:
            types = dialog.findChild(QComboBox, "fileTypeCombo")
            types.setCurrentIndex(types.findText(file_type))
        edit = dialog.findChild(QLineEdit, "fileNameEdit")
        edit.clear()
        QTest.keyClicks(edit, name)
        if shot is not None:
            dialog.grab().save(str(shot))
        buttons = dialog.findChild(QDialogButtonBox)
        save = buttons.button(QDialogButtonBox.StandardButton.Save) or buttons.button(QDialogButtonBox.StandardButton.Open)
        QTest.mouseClick(save, Qt.MouseButton.LeftButton)

    when_shown(QFileDialog, fill)


def export(qtbot, window, folder: Path, name: str, file_type: str | None = None, shot: Path | None = None) -> str:
    QSettings().setValue(EXPORT_FOLDER, str(folder))
    fill_dialog(name, file_type, shot)
    with qtbot.waitSignal(window.articles.statusMessage, timeout=15000,
                          check_params_cb=lambda m: m.startswith("Exported")) as said:
        click_menu(qtbot, window, "File", "Export articles…")
    return said.args[0]


def test_a_typed_csv_name_writes_csv_whatever_the_type_box_says(qtbot, window, tmp_path):
    said = export(qtbot, window, tmp_path, "news.csv", shot=tmp_path / "typed-csv.png")  # the box stays on EPUB
    out = tmp_path / "news.csv"
    assert not zipfile.is_zipfile(out)  # an EPUB is a zip: the bug this guards against
    rows = list(csv.DictReader(out.open(encoding="utf-8-sig")))
    assert len(rows) == 5 and rows[0]["title"].startswith("Article")
    assert said == f"Exported 5 articles as CSV to {out}"


def test_a_name_without_a_suffix_gets_the_chosen_types(qtbot, window, tmp_path):
    said = export(qtbot, window, tmp_path, "news", file_type=FORMATS["csv"])
    out = tmp_path / "news.csv"
    assert len(list(csv.DictReader(out.open(encoding="utf-8-sig")))) == 5 and not (tmp_path / "news").exists()
    assert said.endswith(f"as CSV to {out}")


def test_a_suffix_the_name_did_not_have_never_replaces_a_file_unasked(qtbot, window, tmp_path):
    kept = tmp_path / "news.csv"
    kept.write_text("mine, keep it", encoding="utf-8")
    QSettings().setValue(EXPORT_FOLDER, str(tmp_path))
    fill_dialog("news", file_type=FORMATS["csv"])  # the dialog checked "news"; the file written would be news.csv
    seen = answer("No")
    with qtbot.waitSignal(window.articles.statusMessage, timeout=15000) as said:
        click_menu(qtbot, window, "File", "Export articles…")
    assert "news.csv already exists" in seen["text"] and said.args[0] == "Not exported: news.csv was kept."
    assert kept.read_text(encoding="utf-8") == "mine, keep it"
    said = export(qtbot, window, tmp_path, "tin-tuc-05.12", file_type=FORMATS["csv"])  # a dot, not a suffix
    assert said.endswith(f"as CSV to {tmp_path / 'tin-tuc-05.12.csv'}")


def test_a_failed_export_says_why_in_words_and_is_not_the_next_folder(qtbot, window, tmp_path, monkeypatch):
    QSettings().setValue(EXPORT_FOLDER, str(tmp_path))
    gone = tmp_path / "unplugged" / "news.epub"  # a folder that went away (a USB stick) after the dialog closed
    monkeypatch.setattr("xnews_gui.ui.article_export.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(gone), FORMATS["epub"]))
    seen = answer("OK")  # the warning runs its own event loop
    click_menu(qtbot, window, "File", "Export articles…")
    qtbot.waitUntil(lambda: "text" in seen, timeout=15000)
    assert "does not exist" in seen["text"] and "Error" not in seen["text"], seen["text"]
    assert Path(str(QSettings().value(EXPORT_FOLDER))) == tmp_path
    assert window.statusBar().currentMessage().startswith("Export failed: cannot write")  # not "Exporting…"


def test_the_next_export_offers_the_type_of_the_last_one(qtbot, window, tmp_path):
    """After a CSV export the dialog offered EPUB again: "news.txt" became news.txt.epub."""
    export(qtbot, window, tmp_path, "news", file_type=FORMATS["csv"])
    offered = {}

    def look(dialog) -> None:
        offered["type"] = dialog.findChild(QComboBox, "fileTypeCombo").currentText()
        offered["name"] = dialog.findChild(QLineEdit, "fileNameEdit").text()
        dialog.reject()

    when_shown(QFileDialog, look)
    click_menu(qtbot, window, "File", "Export articles…")
    qtbot.waitUntil(lambda: "type" in offered, timeout=10000)
    assert offered == {"type": FORMATS["csv"], "name": "xnews-export.csv"}
