"""Unsaved edits are asked about on every path that replaces the draft, with the mouse: New profile, the demo
site, a History revert and an import of the open profile (each dropped the edits without a word before)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from tests.gui.dialogs import answer
from tests.gui.inspector_helpers import LOAD_MS, load, pick, sites  # noqa: F401 (sites: fixture)
from tests.gui.test_inspector_edges import _button, _profile, open_in_list, press
from tests.plain_site import PlainSite

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def _open_and_edit(qtbot, sites, store, site) -> None:
    store.save_profile(_profile("valley", site.url))
    sites.refresh()
    load(qtbot, sites, site.url)
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        open_in_list(sites, "valley")
    assert not sites.unsaved()
    load(qtbot, sites, site.url.rstrip("/") + site.stories[0].path)
    pick(qtbot, sites, "author", "h1 + div")
    assert sites.unsaved() and "author" in sites.inspector.profile().fields


def _click_row(table, row: int) -> None:
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     table.visualRect(table.model().index(row, 0)).center())


def _asked(qtbot, sites) -> QMessageBox:
    qtbot.waitUntil(lambda: sites.guard.box is not None and sites.guard.box.isVisible(), timeout=5000)
    return sites.guard.box


def test_new_profile_and_the_demo_ask_before_dropping_edits(qtbot, sites, store):
    with PlainSite() as site:
        _open_and_edit(qtbot, sites, store, site)
        press(sites.new_button)
        box = _asked(qtbot, sites)
        assert "new profile" in box.text() and "valley" in box.text()
        press(_button(box, QMessageBox.ButtonRole.RejectRole))  # keep editing
        qtbot.waitUntil(lambda: sites.guard.box is None, timeout=3000)
        assert sites.name_edit.text() == "valley" and "author" in sites.inspector.profile().fields
        assert "no new profile" in sites.message.text()

        assert sites.open_demo() is None  # asked, not opened
        box = _asked(qtbot, sites)
        assert "demo site" in box.text()
        press(_button(box, QMessageBox.ButtonRole.RejectRole))
        qtbot.waitUntil(lambda: sites.guard.box is None, timeout=3000)
        assert "author" in sites.inspector.profile().fields

        press(sites.new_button)
        press(_button(_asked(qtbot, sites), QMessageBox.ButtonRole.DestructiveRole))  # drop them
        qtbot.waitUntil(lambda: sites.name_edit.text() == "127.0.0.1", timeout=3000)
        assert "author" not in sites.inspector.profile().fields and not sites.unsaved()


def test_a_revert_of_the_open_profile_asks_and_then_counts_as_saved(qtbot, sites, store):
    with PlainSite() as site:
        store.save_profile(_profile("valley", site.url, body="div.old"))  # version 1
        _open_and_edit(qtbot, sites, store, site)  # version 2 open, an author rule picked
        dialog = sites.open_history()
        _click_row(dialog.table, 1)  # version 1
        press(dialog.revert_button)
        box = _asked(qtbot, sites)
        assert "reverted" in box.text()
        press(_button(box, QMessageBox.ButtonRole.RejectRole))  # keep editing
        qtbot.waitUntil(lambda: sites.guard.box is None, timeout=3000)
        assert "author" in sites.inspector.profile().fields and sites.unsaved()  # unsaved against the revert

        _click_row(dialog.table, 1)  # version 2 (of 3 now)
        press(dialog.revert_button)
        press(_button(_asked(qtbot, sites), QMessageBox.ButtonRole.DestructiveRole))
        qtbot.waitUntil(lambda: "author" not in sites.inspector.profile().fields, timeout=5000)
        assert not sites.unsaved()  # the draft is the stored version: no false question next time


def test_a_revert_with_nothing_unsaved_follows_without_a_question(qtbot, sites, store):
    with PlainSite() as site:
        store.save_profile(_profile("valley", site.url, body="div.old"))
        store.save_profile(_profile("valley", site.url))
        sites.refresh()
        load(qtbot, sites, site.url)
        with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
            open_in_list(sites, "valley")
        dialog = sites.open_history()
        _click_row(dialog.table, 1)
        press(dialog.revert_button)
        qtbot.waitUntil(lambda: sites.inspector.profile().fields["body"].selector == "div.old", timeout=5000)
        assert sites.guard.box is None and not sites.unsaved()


def test_importing_the_open_profile_asks_before_dropping_edits(qtbot, sites, store, tmp_path):
    with PlainSite() as site:
        _open_and_edit(qtbot, sites, store, site)
        f = tmp_path / "valley.json"
        f.write_text(_profile("valley", site.url, body="div.imported").to_json())
        answer("Replace")  # "A profile named 'valley' is stored already"
        with qtbot.waitSignal(sites.profileSaved, timeout=10_000):
            sites.import_profile(f)
        box = _asked(qtbot, sites)
        assert "imported" in box.text()
        press(_button(box, QMessageBox.ButtonRole.RejectRole))
        qtbot.waitUntil(lambda: sites.guard.box is None, timeout=3000)
        assert "author" in sites.inspector.profile().fields
        assert store.load_profile("valley").fields["body"].selector == "div.imported"


def test_quitting_with_unsaved_edits_asks_first(qtbot, store):
    from tests.gui.test_crawl_restart import click, message_box
    from xnews_gui.ui.main_window import MainWindow

    window = MainWindow(store)
    qtbot.addWidget(window)
    window.show()
    window.show_tab("sites")
    with PlainSite() as site:
        _open_and_edit(qtbot, window.sites, store, site)
        window.close()
        box = message_box(qtbot)
        assert "\u201cvalley\u201d has changes that are not saved" in box.text()
        click(qtbot, next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.RejectRole))
        qtbot.waitUntil(lambda: window.quit_box is None, timeout=5000)
        assert window.isVisible() and "author" in window.sites.inspector.profile().fields

        window.close()
        click(qtbot, next(b for b in message_box(qtbot).buttons() if b.text() == "Quit"))
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=20_000)


def test_a_new_profile_never_takes_a_stored_profiles_name(qtbot, sites, store):
    with PlainSite() as site:
        store.save_profile(_profile("127.0.0.1", site.url))
        sites.refresh()
        load(qtbot, sites, site.url)
        press(sites.new_button)
        qtbot.waitUntil(lambda: sites.name_edit.text() != "", timeout=3000)
        assert sites.name_edit.text() == "127.0.0.1-2"
