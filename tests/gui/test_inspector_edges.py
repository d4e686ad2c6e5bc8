"""The inspector's last edges, with the mouse: unsaved edits are not dropped without asking when another
profile is opened; after Save the arrow keys reach the page again; "Show on a failing page" brings the
proposed rule's match into view; after Save the status line and the rule table agree about the image."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

from tests.gui.inspector_helpers import LOAD_MS, load, pick, rect_of, shot, sites  # noqa: F401 (sites: fixture)
from tests.integration.crawl_helpers import Site
from tests.plain_site import SECTIONS, PlainSite
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import css_to_xpath

pytestmark = [pytest.mark.gui, pytest.mark.slow]

HTML = {"Content-Type": "text/html; charset=utf-8"}


def press(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


def open_in_list(sites, name: str) -> None:
    """Double-click the profile in the Sites list (with a page shown, a double-click opens it)."""
    item = sites.profiles.findItems(name, Qt.MatchFlag.MatchExactly)[0]
    rect = sites.profiles.visualItemRect(item)
    for send in (QTest.mouseClick, QTest.mouseDClick):
        send(sites.profiles.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())


def _profile(name: str, url: str, body: str = "div.story", fallback: str = "") -> Profile:
    fields = {"title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
              "body": {"kind": "css", "selector": body, "take": "html", "required": True}}
    if fallback:
        fields["body"] = {"rules": [fields["body"], {"kind": "css", "selector": fallback, "take": "html"}],
                          "expect": {"chars": [100, 100000], "words": [20, 20000], "per_page": 1}}
    return Profile.from_dict({"schema": 2, "name": name, "start_urls": [url], "allowed_domains": ["127.0.0.1"],
                              "links": {"articles": {"kind": "css", "selector": "a.story"}}, "fields": fields})


def _button(box: QMessageBox, role: QMessageBox.ButtonRole):
    return next(b for b in box.buttons() if box.buttonRole(b) == role)


def test_unsaved_edits_are_not_dropped_without_asking(qtbot, sites, store):
    with PlainSite() as site:
        store.save_profile(_profile("valley", site.url))
        store.save_profile(_profile("other", site.url))
        sites.refresh()
        load(qtbot, sites, site.url)
        with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
            open_in_list(sites, "valley")  # opens its start page
        assert sites.name_edit.text() == "valley" and not sites.unsaved()
        load(qtbot, sites, site.url.rstrip("/") + site.stories[0].path)
        pick(qtbot, sites, "author", "h1 + div")  # an edit: a field picked
        assert sites.unsaved()
        edited = sites.inspector.profile()

        open_in_list(sites, "other")
        box = sites.guard.box
        assert box is not None and box.isVisible() and "not saved" in box.text()
        shot(sites, "edges-1-asked-before-dropping")
        shot(box, "edges-1b-the-question")
        press(_button(box, QMessageBox.ButtonRole.RejectRole))  # keep editing
        qtbot.waitUntil(lambda: sites.guard.box is None, timeout=3000)
        assert sites.name_edit.text() == "valley" and sites.inspector.profile() == edited

        open_in_list(sites, "other")
        box = sites.guard.box
        press(_button(box, QMessageBox.ButtonRole.DestructiveRole))  # drop them, open the other
        qtbot.waitUntil(lambda: sites.name_edit.text() == "other", timeout=3000)
        assert not sites.unsaved()


def test_after_save_the_arrow_keys_reach_the_page(qtbot, sites, store):
    inspector = sites.inspector
    with PlainSite() as site:
        load(qtbot, sites, site.url)
        press(sites.new_button)
        with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
            pick(qtbot, sites, "articles", "ul li a")
        pick(qtbot, sites, "sections", "body > div:nth-of-type(1) > div > a")
        load(qtbot, sites, site.url.rstrip("/") + site.stories[0].path)
        pick(qtbot, sites, "title", "h1")
        pick(qtbot, sites, "body", "p")
        QTest.mouseClick(sites.name_edit, Qt.MouseButton.LeftButton)
        sites.name_edit.selectAll()
        QTest.keyClicks(sites.name_edit, "valley-courier")
        with qtbot.waitSignal(sites.profileSaved, timeout=60_000):
            press(sites.save_button)
        proxy = inspector.view.focusProxy()
        assert QApplication.focusWidget() is proxy  # not the name field: the keys go to the page
        # ↑ widens the element under the mouse, Enter picks it (the desk line's parent: an element no rule tints,
        # since Enter on a tinted match rejects it)
        inspector.start_picking("author")
        rect = rect_of(qtbot, inspector, css_to_xpath("h1 + div"))
        QTest.mouseMove(proxy, QPoint(int(rect["x"] + 20), int(rect["y"] + rect["height"] / 2)))
        qtbot.wait(50)
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Up)
        with qtbot.waitSignal(inspector.rulesChanged, timeout=10_000):
            QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
        author = inspector.profile().fields["author"]
        assert author.apply(site.page(site.stories[0].path)[1])[0].startswith(site.stories[0].title)  # the column


def _tall_page(n: int) -> str:
    spacer = "".join(f"<p>Front matter line {i} that only fills the page.</p>" for i in range(120))
    story = "".join(f"<p>Paragraph {i} of story {n}, long enough to be read as running text by anyone.</p>"
                    for i in range(6))
    return (f"<html><head><title>Story {n}</title></head><body><h1>Story number {n} of a tall page</h1>"
            f"<div class='front'>{spacer}</div><div class='new-body'>{story}</div></body></html>")


def test_show_on_a_failing_page_brings_the_match_into_view(qtbot, sites, store):
    routes = {"/": (200, HTML, "<html><body><a class='story' href='/s/1.html'>1</a></body></html>"),
              "/s/1.html": (200, HTML, _tall_page(1)), "/s/2.html": (200, HTML, _tall_page(2))}
    inspector = sites.inspector
    with Site(routes) as site:
        base = site.url
        store.save_profile(_profile("tall", base + "/", body="div.old-body", fallback="div.new-body"))
        sites.refresh()
        load(qtbot, sites, base + "/")
        open_in_list(sites, "tall")
        inspector.set_degraded({"body": [base + "/s/1.html", base + "/s/2.html"]})  # as a crawl reported it
        bar = inspector.repair_bar
        qtbot.waitUntil(lambda: bar.isVisible() and bar.repair is not None, timeout=LOAD_MS)
        assert bar.repair.rule.selector == "div.new-body"
        with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
            press(bar.show_button)
        seen = []

        def look():
            inspector.view.page().runJavaScript(
                "(function(){var r=document.querySelector('div.new-body').getBoundingClientRect();"
                "return JSON.stringify([window.scrollY, r.top, r.bottom, window.innerHeight]);})()", 0, seen.append)

        def in_view() -> bool:
            look()
            qtbot.wait(100)
            if not seen or not seen[-1]:
                return False
            scroll, top, bottom, height = json.loads(seen[-1])  # Qt gives JS arrays back as nothing: a string
            return scroll > 0 and top < height and bottom > 0
        qtbot.waitUntil(in_view, timeout=5000)  # scrolled: the match is on screen, not below the fold
        shot(sites, "edges-3-failing-page-match-in-view")


def test_after_save_the_status_line_and_the_table_agree_about_the_image(qtbot, sites, store):
    inspector = sites.inspector
    with PlainSite() as site:
        load(qtbot, sites, site.url)
        press(sites.new_button)
        with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
            pick(qtbot, sites, "articles", "ul li a")
        pick(qtbot, sites, "sections", "body > div:nth-of-type(1) > div > a")
        load(qtbot, sites, site.url.rstrip("/") + site.stories[0].path)
        pick(qtbot, sites, "title", "h1")
        pick(qtbot, sites, "body", "p")
        pick(qtbot, sites, "image", "img[alt='A photo of the story']")  # the logo comes first on the page
        with qtbot.waitSignal(sites.profileSaved, timeout=60_000):
            press(sites.save_button)
        status = inspector.status.text()
        assert "no selector found" not in status, status
        keys = [inspector.panel.key_at(r) for r in range(inspector.panel.table.rowCount())]
        assert "image" in keys and "image" in store.load_profile(sites.name_edit.text()).fields
        image = inspector.profile().fields["image"]
        assert "learned" in image.note or "kept the picked rule" in status, (image.note, status)
        shot(sites, "edges-4-image-status-and-table-agree")


def _edit_cell(qtbot, table, row: int, column: int, text: str) -> None:
    """Double-click a cell with the mouse, type over it, press Enter."""
    rect = table.visualRect(table.model().index(row, column))
    QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    table.scrollTo(table.model().index(row, column))
    rect = table.visualRect(table.model().index(row, column))
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    qtbot.waitUntil(lambda: table.findChild(QLineEdit) is not None and table.findChild(QLineEdit).isVisible(),
                    timeout=3000)
    editor = table.findChild(QLineEdit)
    editor.selectAll()
    QTest.keyClicks(editor, text) if text else QTest.keyClick(editor, Qt.Key.Key_Delete)
    QTest.keyClick(editor, Qt.Key.Key_Return)


def test_save_refuses_what_the_screen_shows_but_the_profile_did_not_take(qtbot, sites, store):
    """A Title selector emptied by hand (refused, shown in red) and start pages typed that are no web address
    were dropped by Save, which said "Saved profile"; the red line also stayed over the next profile."""
    panel, inspector = sites.inspector.panel, sites.inspector
    with PlainSite() as site:
        store.save_profile(_profile("valley", site.url))
        store.save_profile(_profile("other", site.url))
        sites.refresh()
        load(qtbot, sites, site.url)
        with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
            open_in_list(sites, "valley")
        versions = store.latest_version_number("valley")
        row = panel._keys.index("title")
        _edit_cell(qtbot, panel.table, row, 1, "")
        qtbot.waitUntil(lambda: panel.refused_edit() != "", timeout=3000)
        assert panel.refused_edit().startswith("Title: empty") and panel.table.item(row, 1).text() == ""
        press(sites.save_button)
        qtbot.wait(300)
        assert sites.message.text().startswith("Not saved: Title: empty") and "Rules table" in sites.message.text()
        assert sites.confirm_box is None and store.latest_version_number("valley") == versions
        shot(sites, "edges-5-save-refuses-a-refused-edit")

        open_in_list(sites, "other")  # the edit was refused: nothing unsaved, and its red line goes
        qtbot.waitUntil(lambda: sites.name_edit.text() == "other", timeout=3000)
        assert panel.refused_edit() == "" and panel.error.isHidden()

        box = inspector.site_bar.start_edit
        QTest.mouseClick(box, Qt.MouseButton.LeftButton)
        box.selectAll()
        QTest.keyClicks(box, "not a url")
        QTest.keyClick(box, Qt.Key.Key_Return)
        press(sites.save_button)
        qtbot.wait(300)
        assert sites.message.text() == "Not saved: the start pages typed were not taken ('not' is not a web address)."
        press(inspector.site_bar.coverage_button)  # never the old start pages' coverage, shown green beside these
        assert inspector.site_bar.result.text() == ("Not a web address: not (start pages begin with http:// or "
                                                    "https://): coverage not checked.")
        assert inspector.site_bar.coverage is None
        assert store.load_profile("other").start_urls == (site.url,) and store.latest_version_number("other") == 1

        box.selectAll()  # the same page twice, then a section: taken once each, and Save takes them
        QTest.keyClicks(box, site.url + " " + site.url + " " + site.url.rstrip("/") + f"/{SECTIONS[0]}/")
        QTest.keyClick(box, Qt.Key.Key_Return)
        press(sites.save_button)  # its own name: saved, no "Replace it?" (a coverage check may ask about links)
        qtbot.waitUntil(lambda: sites.confirm_box is not None or "Saved" in sites.message.text(), timeout=60_000)
        assert sites.confirm_box is None or "exists already" not in sites.confirm_box.text()
        if sites.confirm_box is not None:
            with qtbot.waitSignal(sites.profileSaved, timeout=60_000):
                press(_button(sites.confirm_box, QMessageBox.ButtonRole.AcceptRole))
        assert sites.message.text() == "Saved profile 'other'."
        assert len(store.load_profile("other").start_urls) == 2


def test_profile_files_open_in_the_users_folders_never_in_the_apps(qtbot, sites, store, tmp_path):
    """Export JSON… opened in the app's bundled profiles folder: Enter wrote the user's profile into the
    installation. Now Documents (or home) first, then the folder last used."""
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    from PySide6.QtCore import QSettings

    from tests.gui.dialogs import when_shown
    from xnews_gui.paths import BUNDLED_PROFILES
    from xnews_gui.ui.sites_files import PROFILE_FOLDER

    QSettings().remove(PROFILE_FOLDER)  # (the settings live as long as the test session)
    seen = []

    def save_in(folder):
        def act(dialog) -> None:
            seen.append(Path(dialog.directory().absolutePath()))
            if folder is None:
                dialog.reject()
                return
            edit = dialog.findChild(QLineEdit, "fileNameEdit")
            edit.clear()
            QTest.keyClicks(edit, str(folder / "valley.json"))
            buttons = dialog.findChild(QDialogButtonBox)
            QTest.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Save), Qt.MouseButton.LeftButton)
        return act

    with PlainSite() as site:
        store.save_profile(_profile("valley", site.url))
        sites.refresh()
        load(qtbot, sites, site.url)
        with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
            open_in_list(sites, "valley")
        when_shown(QFileDialog, save_in(tmp_path))
        press(sites.export_button)
        qtbot.waitUntil(lambda: (tmp_path / "valley.json").is_file(), timeout=10_000)
        when_shown(QFileDialog, save_in(None))
        press(sites.import_button)
        qtbot.waitUntil(lambda: len(seen) == 2, timeout=10_000)
    assert seen[0] != BUNDLED_PROFILES.resolve() and seen[0] in (Path.home(), *Path.home().glob("Documents"))
    assert seen[1] == tmp_path  # the folder the export went to
    assert json.loads((tmp_path / "valley.json").read_text(encoding="utf-8"))["name"] == "valley"
