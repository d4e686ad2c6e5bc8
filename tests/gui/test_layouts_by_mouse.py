"""Issue 24 with the mouse, on a site without one class or id whose stories are split over sibling blocks
(tests/plain_site.py, served on 127.0.0.1): a click on the first paragraph gives the whole body; a pick of one
block shows ✗ "covers 33%" in the preview and Save widens it to every block; the preview shows both of the
site's layouts and each one's fill; a click on a page of the second layout adds an alternative rule."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import LOAD_MS, load, pick, pick_widened, shot, sites  # noqa: F401 (sites: fixture)
from tests.plain_site import PlainSite
from xnews_gui.core.extraction.extract import extract

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def press(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


def _body_cells(inspector):
    model = inspector.preview.model
    if "body" not in model._fields:
        return []
    column = 1 + model._fields.index("body")
    return [(row, model.data(model.index(r, column)), model.data(model.index(r, column), Qt.ItemDataRole.UserRole))
            for r, row in enumerate(model.rows())]


def _whole(profile, site, stories) -> bool:
    for story in stories:
        html = site.page(story.path)[1]
        got = extract(html, site.url.rstrip("/") + story.path, profile)
        if not all(p in got.body_text for p in story.paragraphs) or got.checks.get("body"):
            return False
    return True


def test_split_stories_without_classes_by_mouse(qtbot, sites, store):
    inspector = sites.inspector
    with PlainSite() as site:
        load(qtbot, sites, site.url)
        press(sites.new_button)
        with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
            pick(qtbot, sites, "articles", "ul li a")
        pick(qtbot, sites, "sections", "body > div:nth-of-type(1) > div > a")
        one = [s for s in site.stories if s.layout == 1]
        two = [s for s in site.stories if s.layout == 2]
        load(qtbot, sites, site.url.rstrip("/") + one[0].path)
        pick(qtbot, sites, "title", "h1")

        # a newcomer's click on the first paragraph: the whole body, on every page of the preview
        pick(qtbot, sites, "body", "p")
        qtbot.waitUntil(lambda: len(_body_cells(inspector)) >= 6 and all(
            state == "ok" for row, _, state in _body_cells(inspector) if row.layout == "A"), timeout=LOAD_MS)
        assert _whole(inspector.profile(), site, one[1:5])
        # both of the site's layouts are in the preview, with each one's fill said
        assert {row.layout for row, _, _ in _body_cells(inspector)} == {"A", "B"}
        assert re.search(r"Layout B \(\d+ pages?\): title 0/\d+", inspector.preview.status.text()), \
            inspector.preview.status.text()
        shot(sites, "layouts-1-first-paragraph")

        # the natural container pick: one block of the split story (point at a paragraph, widen once)
        pick_widened(qtbot, sites, "body", "p")
        qtbot.waitUntil(lambda: any(state == "fails" and "covers" in text
                                    for row, text, state in _body_cells(inspector) if row.layout == "A"),
                        timeout=LOAD_MS)
        shares = [int(re.search(r"covers (\d+)%", text).group(1)) for row, text, state in _body_cells(inspector)
                  if row.layout == "A" and state == "fails"]
        assert shares and all(20 <= s <= 45 for s in shares), shares  # two paragraphs of six: about a third
        model = inspector.preview.model
        column = 1 + model._fields.index("body")
        tip = model.data(model.index(0, column), Qt.ItemDataRole.ToolTipRole)
        assert "of the article's text" in tip
        shot(sites, "layouts-2-one-block-covers-a-third")

        # Save widens it: every block of the story, joined, on both layouts
        with qtbot.waitSignal(sites.profileSaved, timeout=60_000):
            press(sites.save_button)
        if inspector.learning.question is not None:  # never expected here: nothing that worked is lost
            pytest.fail(inspector.learning.question.text())
        assert "split over 3 sibling blocks" in inspector.status.text() or "widened" in inspector.status.text(), \
            inspector.status.text()
        saved = store.load_profile(sites.name_edit.text())
        assert _whole(saved, site, one[1:6] + two[1:4]), saved.rules_for("body")
        qtbot.waitUntil(lambda: _body_cells(inspector) and all(state == "ok" for _, _, state in _body_cells(inspector)),
                        timeout=LOAD_MS)
        shot(sites, "layouts-3-saved-whole-bodies")

        # a click on a page of the second layout adds an alternative: the first layout's rule stays first
        first_title = inspector.profile().fields["title"]
        before = inspector.profile().chains["title"].fallbacks
        load(qtbot, sites, site.url.rstrip("/") + two[0].path)
        pick(qtbot, sites, "title", "font b")
        assert "added an alternative rule for this page's layout" in inspector.status.text(), inspector.status.text()
        chain = inspector.profile().chains["title"]
        assert inspector.profile().fields["title"].selector == first_title.selector  # h1 stays first
        assert len(chain.fallbacks) == len(before) + 1 and chain.anchors[-1].selector == "title"
        profile = inspector.profile()
        for story in one[2:4] + two[2:4]:
            html = site.page(story.path)[1]
            assert extract(html, site.url.rstrip("/") + story.path, profile).title == story.title
        shot(sites, "layouts-4-second-layout-adds-an-alternative")
