"""In pick mode the arrow keys widen and narrow the outlined element and never scroll the page: at a leaf
(nothing narrower) ↓ scrolled the page under the mouse, so the next click landed elsewhere."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import load, rect_of, sites  # noqa: F401 (sites: fixture)
from tests.integration.crawl_helpers import Site
from xnews_gui.core.profile.rules import css_to_xpath

pytestmark = pytest.mark.gui

PAGE = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Long</title></head><body>"
        "<h1 id='head'>A long story</h1>" + "".join(f"<p>Paragraph {i} of a long story.</p>" for i in range(300))
        + "</body></html>")


def scrolled(qtbot, inspector) -> float:
    box = []
    inspector.view.page().runJavaScript("window.scrollY", 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return box[0]


def test_the_arrow_keys_never_scroll_the_page_in_pick_mode(qtbot, sites):
    inspector = sites.inspector
    with Site({"/a.htm": (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE)}) as site:
        load(qtbot, sites, site.url.rstrip("/") + "/a.htm")
        inspector.start_picking("title")
        rect = rect_of(qtbot, inspector, css_to_xpath("h1#head"))
        proxy = inspector.view.focusProxy()
        QTest.mouseMove(proxy, QPoint(int(rect["x"] + 10), int(rect["y"] + rect["height"] / 2)))
        qtbot.wait(100)
        before = scrolled(qtbot, inspector)
        for _ in range(3):  # the h1 has no child: nothing narrower
            QTest.keyClick(proxy, Qt.Key.Key_Down)
        qtbot.wait(300)
        assert scrolled(qtbot, inspector) == before
