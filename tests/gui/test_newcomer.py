"""As a newcomer: from a fresh data folder, author a profile for a site never seen before by mouse clicks
only, save it, crawl it, and reach every article. The app's main window at its default size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import LOAD_MS, rect_of
from tests.newcomer_site import LedgerSite
from xnews_gui.core.profile.rules import css_to_xpath

pytestmark = [pytest.mark.gui, pytest.mark.slow]


class Newcomer:
    """Clicks like a person and counts them; a screenshot after each step."""

    def __init__(self, qtbot, window, shots: Path):
        self.qtbot, self.window, self.shots = qtbot, window, shots
        self.sites = window.sites
        self.inspector = window.sites.inspector
        self.clicks = 0
        self.step = 0

    def click_widget(self, widget) -> None:
        self.clicks += 1
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())

    def click_field(self, key: str) -> None:
        self.click_widget(self.inspector.toolbar.widgetForAction(self.inspector.field_actions[key]))

    def point(self, css: str, below: str = "") -> QPoint:
        rect = rect_of(self.qtbot, self.inspector, css_to_xpath(css))
        assert rect, f"{css} is not on the page"
        if below:  # just above this element, in the space between it and the paragraph before: the text block
            return QPoint(int(rect["x"] + 60), int(rect["y"] - 6))
        return QPoint(int(rect["x"] + min(rect["width"] / 2, 40)), int(rect["y"] + rect["height"] / 2))

    def click_page(self, css: str, signal, below: str = "", timeout: int = 4000) -> None:
        """Click an element of the page until ``signal`` answers (Chromium may drop a first input)."""
        proxy = self.inspector.view.focusProxy()
        for attempt in range(3):
            point = self.point(css, below)
            self.clicks += 1
            with self.qtbot.waitSignal(signal, timeout=timeout, raising=attempt == 2) as seen:
                QTest.mouseMove(proxy, point)
                QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
            if seen.signal_triggered:
                return

    def shot(self, name: str) -> None:
        self.step += 1
        self.qtbot.wait(400)
        self.window.grab().save(str(self.shots / f"newcomer-{self.step:02d}-{name}.png"))


@pytest.fixture
def window(qtbot, store, monkeypatch):
    from xnews_gui.ui import demo_launcher
    from xnews_gui.ui.main_window import MainWindow

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)
    QSettings().clear()  # a newcomer: no window size or layout saved by an earlier run
    win = MainWindow(store)  # a fresh data folder: no profile, no article
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def test_a_newcomer_builds_a_profile_by_clicking_and_the_crawl_reaches_every_article(qtbot, window, store, tmp_path):
    from xnews_gui.crawl import CrawlOptions
    from xnews_gui.services.crawl import start_crawl

    shots = Path(os.environ.get("XNEWS_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    assert store.profile_names() == []
    me = Newcomer(qtbot, window, shots)
    inspector, sites = me.inspector, me.sites
    with LedgerSite() as site:
        bar = window.tabs.tabBar()
        me.clicks += 1
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bar.tabRect(0).center())
        assert window.tabs.currentWidget() is sites
        # the address, typed as anyone types one
        QTest.mouseClick(inspector.browser.address, Qt.MouseButton.LeftButton)
        QTest.keyClicks(inspector.browser.address, site.url)
        with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
            QTest.keyClick(inspector.browser.address, Qt.Key.Key_Return)
        me.shot("front-page")
        me.click_widget(sites.new_button)
        assert inspector.profile().start_urls == (site.url,) and inspector.site_bar.start_edit.text() == site.url

        me.click_field("articles")
        with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
            me.click_page(".feed .card a.card-link", inspector.rulesChanged)
        assert inspector.browser.url() == site.url  # picking does not follow the link
        me.shot("article-links")
        me.click_field("sections")
        me.click_page("#sections li:nth-child(3) a", inspector.rulesChanged)
        me.shot("section-links")
        me.click_field("sections")  # pick mode off: links are links again
        me.click_page("#sections li:nth-child(2) a", inspector.pickerReady, timeout=LOAD_MS)
        assert inspector.browser.url() == site.url + "s/council/"
        me.click_field("next")
        me.click_page("a.older", inspector.rulesChanged)
        me.shot("next-page")
        me.click_field("next")
        me.click_page(".feed .card:nth-child(4) a.card-link", inspector.pickerReady, timeout=LOAD_MS)
        assert "/story/" in inspector.browser.url()
        me.click_field("title")
        me.click_page("h2.story-headline", inspector.rulesChanged)
        me.click_field("body")
        seen = []
        inspector.bridge.picked.connect(lambda f, el, neg: seen.append((f, el.xpath, el.crumb, el.rect)))
        me.click_page("div.story-text .promo", inspector.rulesChanged, below="gap")  # in the text block, between paragraphs
        qtbot.waitUntil(lambda: all(c.state == "ok" for r in inspector.preview.model.rows() for c in r.cells.values())
                        and len(inspector.preview.model.rows()) >= 3 and "body" in inspector.profile().fields,
                        timeout=LOAD_MS)
        me.shot("fields")
        profile = inspector.profile()
        assert profile.fields["body"].selector.endswith("story-text") and profile.fields["title"].take == "text", seen

        view_at = inspector.view.mapTo(window, QPoint(0, 0))
        with qtbot.waitSignal(sites.profileSaved, timeout=60_000):
            me.click_widget(sites.save_button)  # the coverage check runs first, then it saves
        coverage = inspector.site_bar.coverage
        me.shot("saved")
        assert inspector.view.mapTo(window, QPoint(0, 0)) == view_at  # the result line moved nothing
        assert coverage.article_links == len(site.stories) and coverage.warning() == ""
        assert inspector.site_bar.result.text().startswith(f"Coverage: reaches {coverage.list_pages} list pages "
                                                           f"and {len(site.stories)} article links")
        saved = store.load_profile(sites.name_edit.text())
        assert saved is not None and saved.start_urls == (site.url,)

        events = []
        handle = start_crawl(saved, store, CrawlOptions(fetch_images=False, delay_s=0.0), events.append,
                             classifier=None)
        summary = handle.run()
        wanted = {site.url.rstrip("/") + s.path for s in site.stories}
        stored = {a.url for a in store.list_articles(profile=saved.name, limit=1000)}
    assert summary["status"] == "finished" and summary["errors"] == 0
    assert summary["articles"] == len(site.stories) == 300
    assert stored == wanted  # every story of the site, by its own address
    print(f"\nnewcomer: {me.clicks} clicks, coverage {coverage.summary()}, crawl stored {summary['articles']} "
          f"of {len(site.stories)} stories; screenshots in {shots}")
    assert me.clicks <= 20
