"""Issue 9 items 6-7 with the mouse: Save learns the picks from the site (a one-paragraph body pick is
widened, and the person is told), a redesign breaks the body on its new pages, a crawl flags it degraded,
the inspector marks the failing values ✗ and proposes a repair shown on a failing page, one click
accepts it, and the next crawl extracts the body of the new layout."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import LOAD_MS, js, load, pick, shot, sites  # noqa: F401 (sites: fixture)
from tests.redesign import profile_authored_before_redesign
from xnews_gui.core.profile.rules import css_to_xpath
from xnews_gui.core.text.text import normalize_space
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def press(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


@pytest.fixture
def site_server():
    """The demo site before its redesign (one list page per section); ``serve(site)`` swaps what it serves."""
    server = DemoServer(port=0, site=DemoSite(per_category=5)).start()
    server.serve = lambda site: setattr(server.httpd.RequestHandlerClass, "site", site)
    yield server
    server.stop()


def crawl(qtbot, view, name: str) -> dict:
    view.set_checked([name])
    press(view.start_button)
    with qtbot.waitSignal(view.sessions[name].finished, timeout=60_000) as done:
        pass
    return done.args[0]


def test_save_learns_the_site_then_a_redesign_is_repaired_with_one_click(qtbot, sites, site_server, store):
    from xnews_gui.ui.crawl_view import CrawlView
    from xnews_gui.ui.settings import Preferences

    inspector = sites.inspector
    home = site_server.url
    load(qtbot, sites, home)
    press(sites.new_button)
    name = sites.name_edit.text()
    with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
        pick(qtbot, sites, "articles", ".list-news h3.title-news a")
    pick(qtbot, sites, "sections", "nav.main-nav li a")
    article = inspector.preview.model.rows()[0].url
    load(qtbot, sites, article)
    pick(qtbot, sites, "title", "h1.article-title")
    pick(qtbot, sites, "body", "div.article-body > p")  # ONE click on one paragraph
    assert inspector.profile().fields["body"].selector.endswith(" p")  # the paragraphs, as clicked

    # Save: the picks are learned again from the preview's pages; the widened body is said
    with qtbot.waitSignal(sites.profileSaved, timeout=LOAD_MS):
        press(sites.save_button)
    body = inspector.profile().fields["body"]
    assert body.selector.endswith("article-body") and "body" in inspector.profile().chains
    assert "widened to the container" in inspector.status.text()
    saved = store.load_profile(name)
    assert saved.fields["body"].selector == body.selector and saved.chains["body"].expect is not None
    row = [inspector.panel.key_at(r) for r in range(inspector.panel.table.rowCount())].index("body")
    assert "widened to the container" in inspector.panel.table.item(row, 1).toolTip()  # said in the rule list too
    shot(sites, "repair-1-learned-at-save")

    # the redesign rolls out: every third article in another layout; a crawl flags the body degraded
    redesigned = DemoSite(per_category=5, second_template=True)
    site_server.serve(redesigned)
    view = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0, concurrency=2))
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    first = crawl(qtbot, view, name)
    second = {home.rstrip("/") + a.path for a in redesigned.articles if redesigned.uses_second_template(a)}
    assert first["articles"] == len(redesigned.articles) and "body" in first["degraded_fields"]
    assert set(first["degraded_fields"]["body"]) <= second

    # the person opens the profile again: ✗ on the failing values, a repair proposed
    item = sites.profiles.findItems(name, Qt.MatchFlag.MatchExactly)[0]
    rect = sites.profiles.visualItemRect(item)
    for send in (QTest.mouseClick, QTest.mouseDClick):  # a double-click: press, release, then the second press
        send(sites.profiles.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    assert inspector.preview.model.rowCount() == 0  # no row of the authoring-time pages passes for the new ones
    bar = inspector.repair_bar
    qtbot.waitUntil(lambda: bar.isVisible() and bar.repair is not None, timeout=LOAD_MS)
    assert "Body fails verification" in bar.label.text() and "crawl flagged it degraded" in bar.label.text()
    repair = bar.repair
    assert repair.fixed == repair.pages >= 5 and bar.table.rowCount() == repair.pages
    page, before, after_text = (bar.table.item(0, c).text() for c in range(3))  # before/after, as text
    assert before != after_text and len(after_text.split()) > 5 and not after_text.startswith("<")
    qtbot.waitUntil(lambda: any(r.url in second for r in inspector.preview.model.rows()), timeout=LOAD_MS)
    model = inspector.preview.model
    column = 1 + model._fields.index("body")
    failing = [r for r, row in enumerate(model.rows()) if row.url in second]
    for r in failing:  # ✗ with the reasons, although the body is not empty (the fallback filled it)
        index = model.index(r, column)
        assert model.data(index).startswith("\u2717 ") and model.data(index, Qt.ItemDataRole.UserRole) == "fails"
        assert "fails verification" in model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert all(model.data(model.index(r, column)).startswith("\u2713") for r in range(model.rowCount())
               if r not in failing)

    # shown on a failing page, its matches tinted in the browser
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS) as shown:
        press(bar.show_button)
    assert shown.args[0] in second
    qtbot.waitUntil(lambda: js(qtbot, inspector, "badge()") == "1 match", timeout=5000)
    xpath = css_to_xpath(repair.rule.selector)
    assert js(qtbot, inspector, f"highlight({json.dumps(xpath)})") == 1
    shot(sites, "repair-2-proposed-on-a-failing-page")
    table = inspector.panel.table  # the bars above the preview leave five rules in view (two were left)
    assert table.viewport().height() >= 5 * table.verticalHeader().defaultSectionSize()

    # ONE click accepts it: the profile is updated and saved
    with qtbot.waitSignal(sites.profileSaved, timeout=LOAD_MS):
        press(bar.accept_button)
    stored = store.load_profile(name)
    assert stored.fields["body"].selector == repair.rule.selector
    assert body.selector in [r.selector for r in stored.rules_for("body")[1:]]  # the old rule follows it
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=LOAD_MS)
    shot(sites, "repair-3-accepted")

    # new stories in the new layout: the next crawl extracts their bodies with the rules, no fallback
    fresh = DemoSite(per_category=5, seed=8, second_template=True)
    site_server.serve(fresh)
    after = crawl(qtbot, view, name)
    assert after["articles"] > 0 and not after["degraded_fields"] and after["fallbacks"] == 0
    checked = 0
    for a in fresh.articles:
        if not fresh.uses_second_template(a):
            continue
        rows = store.db.execute_sql("SELECT body_text FROM article WHERE url = ?",
                                    (home.rstrip("/") + a.path,)).fetchall()
        if rows:
            assert normalize_space(a.paragraphs[-1]) in rows[0][0]
            checked += 1
    assert checked >= 5


def test_open_in_sites_on_a_crawl_card_brings_the_profile_and_its_repair(qtbot, store, site_server):
    """The crawl card's failing page, "Open in Sites": the Sites tab shows it with the profile's repair."""
    from xnews_gui.ui.main_window import TABS, MainWindow
    from xnews_gui.ui.settings import Preferences

    site = DemoSite(per_category=5, second_template=True)
    authored = profile_authored_before_redesign(site, "redesign", site_server.url)
    store.save_profile(authored)
    site_server.serve(site)
    win = MainWindow(store)
    qtbot.addWidget(win)
    win.crawl.preferences = lambda: Preferences(delay_s=0.0, concurrency=2)
    win.resize(1400, 900)
    win.show()
    win.show_tab("crawl")
    win.crawl.set_checked(["redesign"])
    with qtbot.waitSignal(win.crawl.sessionFinished, timeout=90_000):
        press(win.crawl.start_button)
    warning = win.crawl.cards["redesign"].degraded.fields["body"]
    press(warning.header)
    rect = warning.urls.visualRect(warning.urls.model().index(0, 0))
    QTest.mouseClick(warning.urls.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    url = warning.urls.item(0).text()
    press(warning.sites_button)
    assert win.tabs.currentIndex() == TABS.index("sites")
    inspector = win.sites.inspector
    assert inspector.profile().name == "redesign"
    bar = inspector.repair_bar
    qtbot.waitUntil(lambda: bar.isVisible() and bar.repair is not None, timeout=LOAD_MS)
    qtbot.waitUntil(lambda: inspector.browser.url() == url, timeout=LOAD_MS)
    assert bar.repair.fixed >= 5 and "crawl flagged it degraded" in bar.label.text()
    qtbot.waitUntil(lambda: js(qtbot, inspector, "badge()") == "1 match", timeout=LOAD_MS)  # the repair, tinted
    shot(win, "repair-4-open-in-sites")
    proposed = bar.repair.rule.selector
    assert proposed != authored.fields["body"].selector
    with qtbot.waitSignal(win.sites.profileSaved, timeout=LOAD_MS):
        press(bar.accept_button)
    assert store.load_profile("redesign").fields["body"].selector == proposed
    assert store.profile_history("redesign")[0].reason == "repair accepted: body"
    win.crawl.shutdown()
    win.sites.shutdown()

