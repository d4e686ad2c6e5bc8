"""Issue 10's authoring flow with the mouse: start pages shown and editable, New profile from the page in
view, section links, the coverage check, Save that asks and refuses, a metadata bar that moves nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import LOAD_MS, js, load, pick, shot, sites  # noqa: F401 (sites is a fixture)

pytestmark = pytest.mark.gui


def click(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


def type_into(qtbot, edit, text: str) -> None:
    """Click into a line edit, select what is there, type, Enter."""
    click(edit)
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key.Key_Return)


def answer(qtbot, sites, role_text: str) -> None:
    """Click a button of the question Save asks (it is open, not exec'ed: the app goes on)."""
    qtbot.waitUntil(lambda: sites.confirm_box is not None and sites.confirm_box.isVisible(), timeout=LOAD_MS)
    box = sites.confirm_box
    button = next(b for b in box.buttons() if b.text().replace("&", "") == role_text)
    click(button)
    qtbot.waitUntil(lambda: sites.confirm_box is None, timeout=5000)


def open_demo_profile(qtbot, sites) -> None:
    from xnews_gui.bundled import seed_bundled_profiles

    seed_bundled_profiles(sites.store)
    sites.refresh()
    item = sites.profiles.findItems("demo", Qt.MatchFlag.MatchExactly)[0]
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        QTest.mouseClick(sites.profiles.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         sites.profiles.visualItemRect(item).center())


def test_new_profile_starts_at_the_page_in_view_and_keeps_nothing_of_the_old_one(qtbot, sites, demo_server):
    inspector = sites.inspector
    open_demo_profile(qtbot, sites)
    bar = inspector.site_bar
    assert bar.start_edit.text() == sites.demo.server.url  # the start page is shown
    inspector.start_picking("articles")
    qtbot.waitUntil(lambda: js(qtbot, inspector, "badge()") == "8 matches", timeout=5000)
    qtbot.waitUntil(lambda: inspector.preview.model.rowCount() > 0, timeout=LOAD_MS)
    # another site's section page; New profile starts there
    section = demo_server.url + "the-thao/"
    load(qtbot, sites, section)
    click(sites.new_button)
    profile = inspector.profile()
    assert profile.start_urls == (section,) and bar.start_edit.text() == section
    assert sites.name_edit.text() == "127.0.0.1"  # from the page's host, not the old profile's name
    assert not profile.fields and profile.articles is None and profile.lists is None
    assert inspector.panel.table.rowCount() == 0 and inspector.preview.model.rowCount() == 0
    assert inspector.preview.status.text().startswith("Preview: pick the article links")
    qtbot.waitUntil(lambda: js(qtbot, inspector, "badge()") == "", timeout=5000)  # no old match badge
    shot(sites, "flow-1-new-profile")


def test_start_pages_are_editable_and_use_this_page_takes_the_view(qtbot, sites, demo_server):
    inspector = sites.inspector
    load(qtbot, sites, demo_server.url + "kinh-doanh/")
    click(sites.new_button)
    bar = inspector.site_bar
    home, sport = demo_server.url, demo_server.url + "the-thao/"
    type_into(qtbot, bar.start_edit, f"{home} {sport}")
    assert inspector.profile().start_urls == (home, sport)
    type_into(qtbot, bar.start_edit, "not-an-address")
    assert "Not a web address" in inspector.status.text() and inspector.profile().start_urls == (home, sport)
    click(bar.use_button)
    assert inspector.profile().start_urls == (demo_server.url + "kinh-doanh/",)
    assert bar.start_edit.text() == demo_server.url + "kinh-doanh/"


def test_section_links_pick_and_coverage_check(qtbot, sites, demo_server):
    inspector = sites.inspector
    load(qtbot, sites, demo_server.url)
    click(sites.new_button)
    pick(qtbot, sites, "articles", ".list-news h3.title-news a")
    bar = inspector.site_bar
    with qtbot.waitSignal(bar.coverageDone, timeout=LOAD_MS) as done:
        click(bar.coverage_button)
    home_only = done.args[0]
    # the warning in full on a line of its own, wrapped inside the window (never cut at its edge)
    assert home_only.list_pages == 1 and "\u26a0" in bar.result.text()
    assert bar.warning.isVisible() and "Section links or Next page" in bar.warning.text() and bar.warning.wordWrap()
    right = bar.warning.mapTo(sites.window(), bar.warning.rect().topRight()).x()
    assert right <= sites.window().width() and bar.warning.sizeHint().width() <= sites.window().width()
    pick(qtbot, sites, "sections", "nav.main-nav li a")
    sections = inspector.profile().lists.selector
    assert "menu" in sections or sections.startswith("nav")
    assert bar.result.text() == "" and bar.warning.isHidden()  # the old result is for other rules
    load(qtbot, sites, demo_server.url + "thoi-su/")
    pick(qtbot, sites, "next", "nav.pagination a.next")
    lists = inspector.profile().lists.selector
    assert ", " in lists and lists.endswith("a.next")  # sections and next page, one rule
    rows = [inspector.panel.table.item(r, 0).text() for r in range(inspector.panel.table.rowCount())]
    assert rows == ["Article links", "Section links", "Next page"]
    with qtbot.waitSignal(bar.coverageDone, timeout=60_000) as done:
        click(bar.coverage_button)
    report = done.args[0]
    assert report.list_pages > 10 and report.article_links == 72 and report.warning() == ""
    assert bar.result.text() == f"Coverage: reaches {report.list_pages} list pages and 72 article links."
    shot(sites, "flow-2-coverage")


def test_save_refuses_without_title_and_body_and_asks_before_replacing(qtbot, sites, demo_server, demo_profile):
    inspector = sites.inspector
    sites.store.save_profile(demo_profile.with_(name="mysite"))
    load(qtbot, sites, demo_server.url)
    click(sites.new_button)
    sites.name_edit.setText("mysite")
    inspector.rename("mysite")
    pick(qtbot, sites, "articles", ".list-news h3.title-news a")
    click(sites.save_button)
    assert "needs a Title and a Body rule" in sites.message.text()
    assert sites.store.load_profile("mysite").fields == demo_profile.fields  # untouched
    # with title and body (the demo's rules, typed in by the preview's profile) Save asks
    inspector.set_profile(inspector.profile().with_(fields=demo_profile.fields, lists=demo_profile.lists))
    click(sites.save_button)
    answer(qtbot, sites, "Cancel")
    assert sites.message.text() == "Not saved (cancelled): the stored profile is unchanged."
    assert "1e8e3e" not in sites.message.styleSheet()  # a cancel is no success: not green
    assert sites.store.load_profile("mysite").articles == demo_profile.articles
    shot(sites, "flow-3-before-answer")
    click(sites.save_button)
    assert "exists already" in sites.confirm_box.text()
    with qtbot.waitSignal(sites.profileSaved, timeout=5000):
        answer(qtbot, sites, "Replace")
    assert sites.store.load_profile("mysite").articles == inspector.profile().articles
    current = sites.profiles.currentItem()
    assert current is not None and current.text() == "mysite"  # the sidebar highlights what was saved


def test_the_metadata_bar_moves_nothing_under_the_mouse(qtbot, sites, demo_server):
    inspector = sites.inspector
    load(qtbot, sites, demo_server.url + "thoi-su/")
    address, view = inspector.browser.address, inspector.view
    before = (address.mapTo(sites, QPoint(0, 0)), view.mapTo(sites, QPoint(0, 0)), view.size())
    assert not inspector.suggest_box.isVisible()
    inspector.start_picking("title")
    from xnews_gui.core.profile.rules import parse_html
    import requests

    href = parse_html(requests.get(demo_server.url + "thoi-su/", timeout=10).text).cssselect("h3.title-news a")[0].get("href")
    load(qtbot, sites, demo_server.url.rstrip("/") + href)
    qtbot.waitUntil(inspector.suggest_box.isVisible, timeout=LOAD_MS)
    after = (address.mapTo(sites, QPoint(0, 0)), view.mapTo(sites, QPoint(0, 0)), view.size())
    assert after == before
    with qtbot.waitSignal(inspector.rulesChanged, timeout=5000):
        click(inspector.suggest_box.button)
    assert {"title", "summary", "image", "date"} <= set(inspector.profile().fields)
    shot(sites, "flow-4-metadata")
    # the bar hid with the focused button: the focus goes to the page, not to the Start pages line all
    # selected, where the next key replaced the start pages
    from PySide6.QtWidgets import QApplication, QLineEdit

    assert not isinstance(QApplication.focusWidget(), QLineEdit)



def test_the_crawl_card_says_why_a_crawl_is_refused(qtbot, store, demo_server, demo_profile):
    """Issue 10 item 1: a profile starting at an article; the card says Refused and why, not Finished."""
    from xnews_gui.ui.crawl_view import CrawlView
    from xnews_gui.ui.settings import Preferences

    article = demo_server.url + "thoi-su/quoc-hoi-yeu-cau-day-nhanh-tien-do-giai-phong-mat-bang-tai-nha-trang-1001.htm"
    store.save_profile(demo_profile.with_(name="wrong-start", start_urls=(article,), lists=None))
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0, concurrency=2))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.set_checked(["wrong-start"])
    click(view.start_button)
    session = view.sessions["wrong-start"]
    with qtbot.waitSignal(session.finished, timeout=30_000) as done:
        pass
    assert done.args[0]["status"] == "refused"
    card = view.cards["wrong-start"]
    assert "Refused" in card.state.text()
    assert "is an article, not a list page" in card.detail.text() and "Sites tab" in card.detail.text()
    shot(view, "flow-5-refused-card")


def test_a_crawl_of_a_site_that_is_down_says_failed_and_why_in_the_card_and_the_history(qtbot, store, demo_profile):
    from tests.proxy_server import dead_port
    from xnews_gui.ui.crawl_view import CrawlView
    from xnews_gui.ui.settings import Preferences

    down = f"http://127.0.0.1:{dead_port()}/"  # the site is down
    store.save_profile(demo_profile.with_(name="site-down", start_urls=(down,)))
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0, concurrency=2))
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    view.set_checked(["site-down"])
    click(view.start_button)
    with qtbot.waitSignal(view.sessions["site-down"].finished, timeout=30_000) as done:
        pass
    assert done.args[0]["status"] == "failed"
    card = view.cards["site-down"]
    assert "Failed" in card.state.text() and "Finished" not in card.state.text()
    assert "<b>Failed:</b> nothing could be fetched: robots.txt unreachable" in card.detail.text()
    bar = view.bottom.tabBar()
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     bar.tabRect(view.bottom.indexOf(view.history)).center())
    assert view.bottom.currentWidget() is view.history
    qtbot.waitUntil(lambda: view.history.rowCount() >= 1 and view.history.statuses()[0] == "failed", timeout=10_000)
    status = view.history.item(0, 2)
    assert status.text().startswith("Failed: nothing could be fetched") and "robots.txt" in status.toolTip()
    shot(view, "flow-6-failed-card")


def test_new_profile_on_the_start_page_asks_for_the_site(qtbot, sites):
    qtbot.waitUntil(sites.inspector.browser.on_start_page, timeout=LOAD_MS)
    sites.name_edit.setText("old-name")
    click(sites.new_button)
    assert "Type the address of the site's home page" in sites.message.text()
    assert sites.inspector.profile() is None  # nothing made up: no profile without a site
    assert sites.name_edit.text() == "old-name"


def test_new_profile_on_a_page_that_did_not_load_says_so_and_makes_nothing(qtbot, sites):
    from tests.proxy_server import dead_port

    down = f"127.0.0.1:{dead_port()}/"  # an address where nothing answers
    qtbot.waitUntil(sites.inspector.browser.on_start_page, timeout=LOAD_MS)
    address = sites.inspector.browser.address
    click(address)
    QTest.keyClicks(address, down)
    with qtbot.waitSignal(sites.inspector.view.loadFinished, timeout=LOAD_MS) as loaded:
        QTest.keyClick(address, Qt.Key.Key_Return)
    assert loaded.args == [False]
    sites.name_edit.setText("old-name")
    click(sites.new_button)
    assert "The page did not load" in sites.message.text() and "check the address" in sites.message.text()
    assert sites.inspector.profile() is None and sites.name_edit.text() == "old-name"


def test_an_imported_profile_is_the_one_the_editor_shows(qtbot, sites, store, demo_server, demo_profile, tmp_path,
                                                         monkeypatch):
    store.save_profile(demo_profile.with_(name="first"))
    sites.refresh()
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        sites.open_profile("first")
    assert sites.name_edit.text() == "first"
    exported = tmp_path / "second.json"
    exported.write_text(demo_profile.with_(name="second", description="from a colleague",
                                           self_test=None).to_json(), encoding="utf-8")
    monkeypatch.setattr("xnews_gui.ui.sites_files.QFileDialog.getOpenFileName", lambda *a, **k: (str(exported), ""))
    with qtbot.waitSignal(sites.profileSaved, timeout=10_000):
        click(sites.import_button)
    qtbot.waitUntil(lambda: sites.name_edit.text() == "second", timeout=10_000)
    assert sites.profiles.currentItem().text() == "second"  # the list and the editor agree
    assert sites.inspector.profile().description == "from a colleague"
    # with unsaved edits, an import asks first; "Keep editing" keeps them, and the list shows what is edited
    sites.inspector.set_profile(sites.inspector.profile().with_(description="my edit, not saved"))
    assert sites.unsaved()
    third = tmp_path / "third.json"
    third.write_text(demo_profile.with_(name="third", self_test=None).to_json(), encoding="utf-8")
    monkeypatch.setattr("xnews_gui.ui.sites_files.QFileDialog.getOpenFileName", lambda *a, **k: (str(third), ""))
    with qtbot.waitSignal(sites.profileSaved, timeout=10_000):
        click(sites.import_button)
    qtbot.waitUntil(lambda: sites.guard.box is not None and sites.guard.box.isVisible(), timeout=5000)
    click(next(b for b in sites.guard.box.buttons() if b.text() == "Keep editing"))
    qtbot.waitUntil(lambda: sites.guard.box is None, timeout=5000)
    assert sites.name_edit.text() == "second" and sites.inspector.profile().description == "my edit, not saved"
    assert sites.profiles.currentItem().text() == "second" and "third" in sites.store.profile_names()


def test_a_profile_made_by_clicking_gets_a_self_test_that_profiles_check_runs(qtbot, sites, demo_server, cli):
    from tests.gui.inspector_helpers import pick_widened

    article = demo_server.url + "thoi-su/quoc-hoi-yeu-cau-day-nhanh-tien-do-giai-phong-mat-bang-tai-nha-trang-1001.htm"
    load(qtbot, sites, demo_server.url)
    click(sites.new_button)
    sites.name_edit.setText("clicked")
    sites.inspector.rename("clicked")
    load(qtbot, sites, article)
    pick(qtbot, sites, "title", "h1.article-title")
    pick_widened(qtbot, sites, "body", "div.article-body > p")
    with qtbot.waitSignal(sites.profileSaved, timeout=10_000):
        assert sites.save()
    test = sites.store.load_profile("clicked").self_test
    assert test is not None and test.url == article and test.expect == {"title": "required", "body": "required"}
    assert not sites.unsaved()  # the self-test is part of what was saved, not an edit
    draft = sites.inspector.draft
    no_body = draft.profile.with_(self_test=None, fields={"title": draft.profile.fields["title"]})
    assert draft.with_self_test(no_body).self_test is None  # a self-test that could only fail is not made
    code, out, err = cli("profiles", "check", "clicked")
    assert code == 0 and "title" in out and "body" in out and "2/2 fields ok" in out, out + err


def test_a_small_window_squeezes_the_rules_not_the_page(qtbot, sites, demo_server):
    sites.resize(760, 640)
    load(qtbot, sites, demo_server.url)
    qtbot.wait(100)
    assert sites.inspector.view.width() >= 420 and sites.width() <= 900  # the page keeps room, the tab stays small
    shot(sites, "flow-6-small-window")
