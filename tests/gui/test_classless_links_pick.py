"""Article links on a list page without classes or ids, picked in the real browser with the mouse: one
click takes the list, and clicking a tinted link of another list ("Most read") to reject it keeps the
stories' list (it used to leave a positional rule for the one link clicked: "1 match")."""

from __future__ import annotations


import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from tests.gui.inspector_helpers import load, pick, rect_of, shot, sites  # noqa: E402,F401 (sites is a fixture)
from tests.served import FolderServer  # noqa: E402
from tests.unit.test_classless_links import STORIES  # noqa: E402
from xnews_gui.core.profile.rules import parse_html  # noqa: E402

pytestmark = pytest.mark.gui

MOST_READ = [f"news/story-{2000 + i}.html" for i in range(3)]  # the same kind of links, in a list of its own
PAGE = ("<html><body><h1>Test News</h1><ul>"
        + "".join(f"<li><a href='{href}'>Story number {i} of the day</a></li>" for i, href in enumerate(STORIES))
        + "</ul><h2>Most read</h2><ul>"
        + "".join(f"<li><a href='{href}'>Popular story {i}</a></li>" for i, href in enumerate(MOST_READ))
        + "</ul></body></html>")


@pytest.fixture
def plain_site(tmp_path):
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    with FolderServer(tmp_path) as site:
        yield site.url


def selected(inspector) -> list[str]:
    rule = inspector.profile().articles
    doc = parse_html(PAGE)
    found = doc.cssselect(rule.selector) if rule.kind == "css" else doc.xpath(rule.selector)
    return [a.get("href") for a in found]


def test_a_link_of_another_list_rejected_with_the_mouse_keeps_the_stories_list(qtbot, sites, plain_site):
    inspector = sites.inspector
    load(qtbot, sites, plain_site)
    pick(qtbot, sites, "articles", "h1 + ul > li > a")
    qtbot.waitUntil(lambda: inspector.profile() is not None and inspector.profile().articles is not None,
                    timeout=10_000)
    assert selected(inspector) == STORIES + MOST_READ  # one click: every story link, "Most read" tinted too
    before = inspector.profile().articles
    rect = rect_of(qtbot, inspector, "/html/body/ul[2]/li[2]/a")  # a tinted "Most read" link: reject it
    point = QPoint(int(rect["x"] + 5), int(rect["y"] + rect["height"] / 2))
    for attempt in range(3):  # Chromium may drop input that arrives before its first frame
        with qtbot.waitSignal(inspector.bridge.picked, timeout=4000, raising=attempt == 2) as picked:
            QTest.mouseMove(inspector.view.focusProxy(), point)
            QTest.mouseClick(inspector.view.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                             point)
        if picked.signal_triggered:
            break
    assert picked.args[2]  # a rejection, not a second example
    qtbot.waitUntil(lambda: inspector.profile().articles != before, timeout=10_000)
    assert inspector.browser.url() == plain_site  # not followed
    assert inspector.profile().articles.kind == "css" and selected(inspector) == STORIES, inspector.profile().articles
    shot(sites, "classless-links-rejected")
