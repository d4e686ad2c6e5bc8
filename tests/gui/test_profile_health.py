"""Degraded fields on the crawl card and in the Sites list (a real crawl of a site whose second layout
breaks the rules), and a profile's history from the Sites tab: rows, Diff, JSON diff, Revert by mouse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWebEngineCore import QWebEngineScript

from tests.gui.dialogs import answer
from tests.redesign import profile_authored_before_redesign
from xnews_gui.core.induction.repair import propose_repair
from xnews_gui.core.text.urls import canonical
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite
from xnews_gui.ui.main_window import TABS, MainWindow
from xnews_gui.ui.settings import Preferences

pytestmark = pytest.mark.gui
SHOTS = Path(__file__).parent.parent.parent / "build" / "screenshots"


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


@pytest.fixture
def two_layouts():
    """The demo site with a second article layout (every third article) and rules authored before it."""
    site = DemoSite(second_template=True)
    server = DemoServer(site=site, port=0).start()
    profile = profile_authored_before_redesign(site, "twolayouts", server.url)
    try:
        yield site, server, profile
    finally:
        server.stop()


def page_text(qtbot, page) -> str:
    box = []
    page.runJavaScript("document.body ? document.body.innerText : ''",
                       QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return box[0] or ""


def click(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def click_row(view, row: int, column: int = 0) -> None:
    rect = view.visualRect(view.model().index(row, column))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_degraded_field_on_the_crawl_card_and_the_sites_list(qtbot, store, two_layouts):
    site, server, profile = two_layouts
    store.save_profile(profile, reason="saved in inspector")
    store.save_profile(profile.with_(name="calm"), reason="saved in inspector")  # never crawled
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.crawl.preferences = lambda: Preferences(delay_s=0.05)  # slow enough to watch the card while it runs
    win.resize(1280, 800)
    win.show()
    win.show_tab("crawl")
    win.crawl.set_checked(["twolayouts"])
    click(win.crawl.start_button)
    session, card = win.crawl.sessions["twolayouts"], win.crawl.cards["twolayouts"]
    qtbot.waitUntil(lambda: "body" in card.degraded.fields or not session.is_active(), timeout=90000)
    assert session.is_active(), "the card says a field degraded while the crawl still runs"
    assert card.degraded.fields["body"].header.text().startswith("\u26a0 body degraded on ")
    qtbot.waitUntil(lambda: not session.is_active() and session.summary is not None, timeout=90000)
    summary = session.summary
    failed, checked = summary["degraded_counts"]["body"]
    assert checked == 30 and failed >= 5

    qtbot.waitUntil(lambda: card.degraded.fields["body"].header.text().endswith(" of the last 30 pages"), timeout=5000)
    warning = card.degraded.fields["body"]
    assert not card.degraded.isHidden() and "title" not in card.degraded.fields
    assert warning.header.text() == f"\u26a0 body degraded on {failed} of the last 30 pages"
    assert "fallback on" in card.degraded.fallbacks.text()
    assert warning.urls.isHidden()
    click(warning.header)  # the line opens the failing pages
    assert not warning.urls.isHidden() and not warning.actions_row.isHidden()
    second = {server.url.rstrip("/") + a.path for a in site.articles if site.uses_second_template(a)}
    urls = [warning.urls.item(i).text() for i in range(warning.urls.count())]
    assert len(urls) == failed and set(urls) <= second  # every failing page of the window is listed
    qtbot.waitUntil(lambda: not warning.urls.visibleRegion().isEmpty(), timeout=3000)
    shot(card, "crawl-card-degraded")
    shot(win, "crawl-tab-degraded")

    click_row(warning.urls, 1)
    assert warning.selected_urls() == [urls[1]]
    QGuiApplication.clipboard().clear()
    click(warning.copy_button)
    assert QGuiApplication.clipboard().text() == urls[1]

    bar = win.crawl.bottom.tabBar()  # the run history keeps what each run found
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton,
                     pos=bar.tabRect(next(i for i in range(bar.count()) if bar.tabText(i) == "History")).center())
    history = win.crawl.history
    qtbot.waitUntil(lambda: history.rowCount() == 1 and history.item(0, 6) is not None, timeout=5000)
    assert history.item(0, 6).text() == f"\u26a0 body degraded ({failed} of 30 pages)"
    shot(win.crawl, "crawl-history-degraded")

    click(warning.reader_button)  # the failing page's stored article, in the reader
    assert win.tabs.currentIndex() == TABS.index("articles")
    reader = win.articles.reader
    qtbot.waitUntil(lambda: (reader._article or {}).get("url") == canonical(urls[1]), timeout=5000)

    win.show_tab("sites")  # the profile's entry says what its last crawl found
    sites = win.sites
    note = f"body degraded on {failed} of the last 30 pages"
    qtbot.waitUntil(lambda: note in page_text(qtbot, sites.inspector.view.page()), timeout=15000)  # start page
    shot(win, "sites-start-page-degraded")
    item = sites.profiles.findItems("twolayouts", Qt.MatchFlag.MatchExactly)[0]
    assert f"body degraded on {failed} of the last 30 pages" in item.toolTip()
    assert item.foreground().color().name() == "#b9770e"
    click_row(sites.profiles, sites.profiles.row(item))
    assert not sites.health.isHidden()
    assert f"body degraded on {failed} of the last 30 pages" in sites.health.text()
    calm = sites.profiles.findItems("calm", Qt.MatchFlag.MatchExactly)[0]
    assert calm.toolTip() == "" and calm.icon().isNull()  # a profile never crawled carries no warning
    shot(sites.profiles.parentWidget(), "sites-list-degraded")

    win.show_tab("crawl")  # "Open in Sites": the failing page, with the crawl's profile open to fix it
    sites.open_profile("calm")
    click(warning.sites_button)
    assert win.tabs.currentIndex() == TABS.index("sites")
    assert sites.name_edit.text() == "twolayouts" and sites.inspector.profile().name == "twolayouts"
    qtbot.waitUntil(lambda: sites.inspector.browser.url() == urls[1], timeout=15000)
    win.crawl.shutdown()
    win.sites.shutdown()


def test_history_from_the_sites_tab_rows_diff_revert_and_import(qtbot, store, two_layouts, tmp_path, monkeypatch):
    site, server, profile = two_layouts
    store.save_profile(profile, reason="saved in inspector")
    failing = [(site.article_page(a), server.url.rstrip("/") + a.path)
               for a in site.articles if site.uses_second_template(a)][:5]
    repair = propose_repair(profile, "body", failing)
    assert repair is not None
    repaired = repair.apply(profile)
    assert store.save_profile(repaired, reason="repair accepted: body") == 2

    from xnews_gui.ui.sites_view import SitesView

    view = SitesView(store)
    qtbot.addWidget(view)
    view.resize(1100, 700)
    view.show()
    view.open_profile("twolayouts")  # open in the inspector: its draft must follow a revert
    item = view.profiles.findItems("twolayouts", Qt.MatchFlag.MatchExactly)[0]
    view.profiles.setCurrentItem(item)
    assert view.inspector.profile() == repaired
    click(view.history_button)
    dialog = view.history_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    table = dialog.table
    assert table.rowCount() == 2
    assert [table.item(r, 2).text() for r in range(2)] == ["repair accepted: body", "saved in inspector"]
    assert table.item(0, 0).text() == "2  (current)"

    click_row(table, 0)  # the current version: nothing to revert to
    assert "is the current profile" in dialog.diff_view.toPlainText()
    assert not dialog.revert_button.isEnabled()
    click_row(table, 1)
    click(dialog.diff_button)
    text = dialog.diff_view.toPlainText()
    assert "From version 1 to the current profile (version 2)" in text
    assert re.search(r"body\s+rule 1: ", text), text  # said field by field, rule by rule
    assert "title" not in text.split("change(s)", 1)[1]  # the title did not change
    shot(dialog, "profile-history-diff")
    click(dialog.json_button)
    raw = dialog.diff_view.toPlainText()
    assert raw.startswith("--- version 1") and "\n-" in raw and "\n+" in raw

    click(dialog.revert_button)  # written in the background; the dialog follows
    qtbot.waitUntil(lambda: table.rowCount() == 3, timeout=5000)
    assert store.load_profile("twolayouts") == profile
    qtbot.waitUntil(lambda: view.inspector.profile() == profile, timeout=3000)
    assert table.item(0, 2).text().startswith("reverted to version 1")
    assert "is version 1 again (saved as version 3)" in dialog.status.text()
    assert dialog.selected_number() == 3
    click_row(table, 1)  # the repaired version is kept: one click away from coming back
    assert "From version 2 to the current profile (version 3)" in dialog.diff_view.toPlainText()
    shot(dialog, "profile-history-reverted")
    dialog.close()

    # a JSON import from the Sites tab is a version too (the file dialog answers with our file)
    exported = tmp_path / "twolayouts-fixed.json"
    imported = repaired.with_(self_test=None, description="fixed by hand")
    exported.write_text(imported.to_json(), encoding="utf-8")
    monkeypatch.setattr("xnews_gui.ui.sites_files.QFileDialog.getOpenFileName", lambda *a, **k: (str(exported), ""))
    asked = answer("Cancel")  # it would replace the stored profile: asked first, as Save asks
    click(view.import_button)
    assert "is stored already" in asked["text"] and "Not imported: the stored 'twolayouts' is kept" in \
        view.message.text() and store.load_profile("twolayouts") != imported
    asked = answer("Replace")
    with qtbot.waitSignal(view.profileSaved, timeout=5000):
        click(view.import_button)
    assert store.load_profile("twolayouts") == imported
    assert view.inspector.profile().description == "fixed by hand"  # the open draft follows the import
    assert "History keeps that" in view.message.text()
    shot(view, "sites-after-import")
    click(view.history_button)
    table = view.history_dialog.table
    assert table.rowCount() == 4 and table.item(0, 2).text() == "imported from file twolayouts-fixed.json"
    view.history_dialog.close()
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 2, "name": "x"', encoding="utf-8")
    assert not view.import_profile(bad) and "Not imported: profile is not valid JSON" in view.message.text()
    view.shutdown()


def test_card_lists_each_degraded_field_and_a_new_run_starts_clean(qtbot):
    from datetime import datetime

    from xnews_gui.ui.session_card import SessionCard

    card = SessionCard("site")
    qtbot.addWidget(card)
    card.show()
    two = {"pages": 40, "degraded_fields": {"body": ["http://a/1", "http://a/2"], "date": ["http://a/3"]},
           "degraded_counts": {"body": [2, 30], "date": [1, 12]}}
    card.set_stats(two)  # live, while the crawl runs
    assert [w.header.text() for w in card.degraded.fields.values()] == [
        "\u26a0 body degraded on 2 of the last 30 pages", "\u26a0 date degraded on 1 of the last 12 pages"]
    click(card.degraded.fields["date"].header)
    assert not card.degraded.fields["date"].urls.isHidden() and card.degraded.fields["body"].urls.isHidden()
    card.set_summary({"pages": 41, "degraded_fields": {"body": ["http://a/1"]}})  # a summary without counts
    qtbot.waitUntil(lambda: list(card.degraded.fields) == ["body"], timeout=2000)
    assert card.degraded.fields["body"].header.text() == "\u26a0 body degraded on 1 recent page"
    card.new_run(datetime.now())
    assert card.degraded.isHidden() and not card.degraded.fields
