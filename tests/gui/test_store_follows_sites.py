"""Issue 26 with the mouse: Revisit all, Fetch again and an earlier version in the reader, the list's
"Removed" filter; the offer to re-extract after Accept repair; the reader and the list agree after
"Open in reader" from a crawl card with a search filter on."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWebEngineCore import QWebEngineScript

from tests.gui.inspector_helpers import LOAD_MS, shot
from tests.old_site import OldSite, old_site_profile
from tests.redesign import profile_authored_before_redesign
from xnews_gui.core.text.text import normalize_space
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def press(widget, pos=None) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     pos if pos is not None else widget.rect().center())


def click_row(qtbot, view, article_id: int) -> None:
    row = view.model.row_of(article_id)
    rect = view.table.visualRect(view.model.index(row, 1))
    press(view.table.viewport(), rect.center())
    qtbot.waitUntil(lambda: view.reader.article is not None and view.reader.article["id"] == article_id,
                    timeout=10_000)


def page_text(qtbot, reader) -> str:
    """The text the reader shows (its own pages run no script: asked in the application's world)."""
    got = []
    reader.page.runJavaScript("document.body ? document.body.innerText : ''",  # null while a page loads
                              QWebEngineScript.ScriptWorldId.ApplicationWorld, got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=5000)
    return got[0] or ""


def wait_for_text(qtbot, reader, *parts: str) -> str:
    """The reader's text once one drawing of it holds every part (it may draw an article again as a
    crawl's last batch arrives: a part read from one drawing and the next from another proves nothing)."""
    seen = [""]

    def holds() -> bool:
        seen[0] = page_text(qtbot, reader)
        return all(part in seen[0].replace("\n", " ") for part in parts)

    qtbot.waitUntil(holds, timeout=10_000)
    return seen[0]


def window_for(qtbot, store):
    from xnews_gui.ui.main_window import MainWindow
    from xnews_gui.ui.settings import Preferences

    win = MainWindow(store)
    qtbot.addWidget(win)
    win.crawl.preferences = lambda: Preferences(delay_s=0.0, concurrency=2)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_revisit_all_then_fetch_again_and_the_earlier_version(qtbot, store):
    from xnews_gui.ui.main_window import TABS

    with OldSite() as site:
        profile = old_site_profile(site)
        store.save_profile(profile)
        win = window_for(qtbot, store)
        win.show_tab("crawl")
        win.crawl.set_checked([profile.name])
        with qtbot.waitSignal(win.crawl.sessionFinished, timeout=90_000):
            press(win.crawl.start_button)
        assert store.count_articles(profile.name) == 14
        card = win.crawl.cards[profile.name]
        assert "14 new articles" in card.detail.text() and "Next revisit due" in card.detail.text()

        # Sites tab: the profile's next revisit is said; "Revisit all" asks every stored article again
        site.revise(updated={101: "Cập nhật lúc 14:05: đường đã thông xe."}, gone={102})
        win.show_tab("sites")
        item = win.sites.profiles.findItems(profile.name, Qt.MatchFlag.MatchExactly)[0]
        press(win.sites.profiles.viewport(), win.sites.profiles.visualItemRect(item).center())
        line = win.sites.revisits.line
        qtbot.waitUntil(lambda: line.text().startswith("Next revisit due"), timeout=10_000)
        assert "14 articles watched" in line.text()
        with qtbot.waitSignal(win.crawl.sessionFinished, timeout=90_000) as done:
            press(win.sites.revisits.button)
        assert win.tabs.currentIndex() == TABS.index("crawl")
        summary = done.args[1]
        assert (summary["revisited"], summary["updated"], summary["gone"]) == (14, 1, 1)
        assert "Revisited 14 stored articles: 1 updated, 1 removed at the source, 12 unchanged" in card.detail.text()
        shot(win, "revisit-1-card")

        # Articles tab: "Removed" lists the gone one; the reader says so, the text is still there
        win.show_tab("articles")
        view = win.articles
        gone = store.article_id_for_url(f"{site.url}tin.php?id=102")
        press(view.removed)
        qtbot.waitUntil(lambda: view.model.total() == 1 and not view.model.is_loading(), timeout=10_000)
        click_row(qtbot, view, gone)
        wait_for_text(qtbot, view.reader, "Removed at the source on", store.get_article(gone).body_text[:40])
        assert view.model.index(view.model.row_of(gone), 5).data().endswith("✕")
        shot(win, "revisit-2-removed")
        press(view.removed)
        qtbot.waitUntil(lambda: view.model.total() == 14 and not view.model.is_loading(), timeout=10_000)

        # "Fetch again" on another story the site corrected since: the reader shows the new text, "Updated"
        story = store.article_id_for_url(f"{site.url}tin.php?id=103")
        before = store.get_article(story)
        site.revise(updated={103: "Đính chính: số liệu đã được sửa."})
        click_row(qtbot, view, story)
        fetch = view.reader.toolbar.widgetForAction(view.reader.actions_["fetch"])
        with qtbot.waitSignal(win.crawl.sessionFinished, timeout=90_000):
            press(fetch)
        qtbot.waitUntil(lambda: view.reader.article["title"].endswith("(đã cập nhật)"), timeout=10_000)
        wait_for_text(qtbot, view.reader, "Updated ", "Đính chính")
        assert "changed at the source" in win.statusBar().currentMessage()
        versions = view.reader.versions
        assert versions.isEnabled() and versions.text() == "Versions (1)"
        shot(win, "revisit-3-fetched-again")

        # the earlier text, one click away in "Versions"
        def choose_version_1():
            menu = versions.menu_
            action = next(a for a in menu.actions() if a.text().startswith("Version 1"))
            press(menu, menu.actionGeometry(action).center())

        QTimer.singleShot(300, choose_version_1)
        press(versions)
        qtbot.waitUntil(lambda: (view.reader.article or {}).get("earlier_of") is not None, timeout=10_000)
        text = wait_for_text(qtbot, view.reader, "Earlier version 1 of 1", before.title)
        assert "Đính chính" not in text
        shot(win, "revisit-4-earlier-version")
        win.crawl.shutdown()
        win.sites.shutdown()


@pytest.fixture
def site_server():
    server = DemoServer(port=0, site=DemoSite(per_category=5)).start()
    server.serve = lambda site: setattr(server.httpd.RequestHandlerClass, "site", site)
    yield server
    server.stop()


def test_open_in_reader_with_a_filter_on_then_accept_repair_offers_reextraction(qtbot, store, site_server):
    from xnews_gui.ui.main_window import TABS

    site = DemoSite(per_category=5, second_template=True)
    authored = profile_authored_before_redesign(site, "redesign", site_server.url)
    store.save_profile(authored)
    site_server.serve(site)
    win = window_for(qtbot, store)
    win.show_tab("crawl")
    win.crawl.set_checked(["redesign"])
    with qtbot.waitSignal(win.crawl.sessionFinished, timeout=90_000):
        press(win.crawl.start_button)

    # a search that leaves the failing page out, then "Open in reader" on the crawl card
    view = win.articles
    win.show_tab("articles")
    QTest.keyClicks(view.search, "khong-co-trong-bai-nao")
    qtbot.waitUntil(lambda: view.model.total() == 0 and not view.model.is_loading(), timeout=10_000)
    win.show_tab("crawl")
    warning = win.crawl.cards["redesign"].degraded.fields["body"]
    press(warning.header)
    rect = warning.urls.visualRect(warning.urls.model().index(1, 0))
    QTest.mouseClick(warning.urls.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    url = warning.urls.item(1).text()
    press(warning.reader_button)
    assert win.tabs.currentIndex() == TABS.index("articles")
    wanted = store.article_id_for_url(url)
    qtbot.waitUntil(lambda: view.reader.article is not None and view.reader.article["id"] == wanted, timeout=10_000)
    assert view.search.text() == "" and view.model.total() == store.count_articles()
    current = view.table.currentIndex().row()
    assert view.model.article_id(current) == wanted  # the list highlights what the reader shows
    shot(win, "open-in-reader-1")
    QTest.keyClick(view.table, Qt.Key.Key_J)  # J goes on from there
    qtbot.waitUntil(lambda: view.reader.article["id"] == view.model.article_id(current + 1), timeout=10_000)
    assert view.model.article_id(view.table.currentIndex().row()) == view.reader.article["id"]

    # Open in Sites, Accept repair: the offer to re-extract the stored articles from their saved pages
    win.show_tab("crawl")
    press(warning.sites_button)
    bar = win.sites.inspector.repair_bar
    qtbot.waitUntil(lambda: bar.isVisible() and bar.repair is not None, timeout=LOAD_MS)
    with qtbot.waitSignal(win.sites.profileSaved, timeout=LOAD_MS):
        press(bar.accept_button)
    offer = win.sites.reextract
    qtbot.waitUntil(lambda: offer.isVisible(), timeout=30_000)
    failing = [a for a in site.articles if site.uses_second_template(a)]
    assert offer.plan.count >= len(failing) and "body" in offer.plan.fields
    assert offer.label.text().startswith(f"<b>Re-extract {offer.plan.count} stored articles from their saved pages")
    shot(win, "reextract-1-offer")
    with qtbot.waitSignal(offer.reextracted, timeout=60_000) as done:
        press(offer.button)
    assert done.args[1] >= len(failing)
    for a in failing:
        article_id = store.article_id_for_url(site_server.url.rstrip("/") + a.path)
        row = store.get_article(article_id)
        assert normalize_space(a.paragraphs[-1]) in row.body_text  # the repaired rule's body
        [kept] = store.article_versions(article_id)
        assert kept.reason == "re-extracted: repair accepted: body" and kept.body_text != row.body_text
    assert "Re-extracted" in offer.label.text()
    shot(win, "reextract-2-done")
    win.crawl.shutdown()
    win.sites.shutdown()
