"""Issue 13 items 1-2 in the inspector: it says "this site has a sitemap and N feeds" and one click makes
the profile read them; a field that only JavaScript builds gets "Mark render", which makes the profile
render its article pages waiting for that field."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from xnews_gui.core.profile.profile import Profile
from xnews_gui.demo.site import DemoSite

from .inspector_helpers import LOAD_MS, load, pick, shot, sites  # noqa: F401  (fixture)


def press(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(button.width() // 2, button.height() // 2))


def test_the_inspector_offers_the_sites_sitemap_and_feeds(qtbot, sites):
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        url = sites.open_demo()
    offer = sites.inspector.reach_bar.discovery
    qtbot.waitUntil(offer.isVisible, timeout=15_000)
    text = offer.label.text()
    sections = len(DemoSite().corpus["categories"])  # one feed per section
    assert text.startswith("This site has 1 sitemap (") and f"URLs) and {sections} feeds" in text, text
    assert sites.inspector.profile().discovery == ("links",)
    shot(sites, "reach-1-sitemap-offer")

    press(offer.button)
    profile = sites.inspector.profile()
    assert profile.discovery == ("sitemap", "feeds", "links")
    assert profile.sitemaps == (url + "sitemap.xml",) and len(profile.feeds) == sections
    assert not offer.isVisible()
    assert Profile.from_json(profile.to_json()).discovery == profile.discovery  # saved as it is shown


def test_a_field_built_by_javascript_offers_mark_render(qtbot, sites, demo_server):
    story = DemoSite().articles[0]
    load(qtbot, sites, demo_server.url + f"js/{story.id}.htm")
    inspector = sites.inspector
    qtbot.waitUntil(lambda: inspector.view.title() != "", timeout=LOAD_MS)
    qtbot.wait(200)  # the page builds the article 30 ms after loading
    pick(qtbot, sites, "title", "h1.article-title")
    offer = inspector.reach_bar.render
    qtbot.waitUntil(offer.isVisible, timeout=15_000)
    selector = inspector.profile().fields["title"].selector  # the rule the click induced
    assert "Title is built by JavaScript" in offer.label.text() and f"waiting for {selector}?" in offer.label.text()
    assert inspector.profile().render is None
    inspector.stop_picking()
    shot(sites, "reach-2-render-offer")

    press(offer.button)
    render = inspector.profile().render
    assert render is not None and render.wait_for == selector
    assert not offer.isVisible() and "Marked render" in inspector.status.text()
    title_row = inspector.panel._keys.index("title")
    qtbot.waitUntil(lambda: inspector.panel.table.item(title_row, 4).text() == "1 (rendered)", timeout=10_000)
    shot(sites, "reach-3-render-marked")


def test_a_feed_on_a_host_the_crawl_would_refuse_is_not_offered():
    """The crawl reads feeds within the profile's domains (its scope check refuses the others): a feed on
    another host was offered with "a crawl can read them"."""
    from xnews_gui.core.profile.profile import Profile
    from xnews_gui.crawl.discovery import SiteReport
    from xnews_gui.ui.inspector.reach_bar import crawlable, uses_discovery, with_discovery

    profile = Profile.from_dict({"schema": 1, "name": "s", "start_urls": ["http://www.news.test/"],
                                 "allowed_domains": ["www.news.test"]})
    report = SiteReport(feeds=["http://feeds.other.test/rss.xml", "http://www.news.test/rss.xml"], feed_urls=30)
    assert crawlable(profile, report).feeds == ["http://www.news.test/rss.xml"]
    assert with_discovery(profile, report).feeds == ("http://www.news.test/rss.xml",)
    outside = SiteReport(feeds=["http://feeds.other.test/rss.xml"], feed_urls=30)
    assert crawlable(profile, outside).summary() == "no sitemap or feed found"
    assert uses_discovery(profile, outside)  # nothing to offer: the bar stays hidden
