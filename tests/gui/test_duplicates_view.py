"""The Articles table and near-duplicates: a story's copies say how many sources carry it, and
'1 per story' (clicked with the mouse) leaves one row per story."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from xnews_gui.ui.articles_view import ArticlesView

from ..integration.test_duplicates import article, vntc
from ..unit.test_neardup import SITE_A, syndicated

pytestmark = pytest.mark.gui


def test_sources_are_counted_and_one_per_story_hides_the_copies(qtbot, store, tmp_path):
    story, other = vntc("Khoa hoc", 2)
    copy_a, copy_b = syndicated(story)
    store.store_article(article("https://a.vn/tin-1.htm", "Tin ở báo A", copy_a), "site-a")
    store.store_article(article("https://b.vn/tin-7.htm", "Tin ở báo B", copy_b), "site-b")
    store.store_article(article("https://a.vn/tin-2.htm", "Bài khác", "\n".join(SITE_A + [other])), "site-a")
    store.group_duplicates()

    view = ArticlesView(store)
    qtbot.addWidget(view)
    view.resize(1100, 400)
    view.show()
    with qtbot.waitSignal(view.model.loaded, timeout=5000):
        view.model.reload()
    model = view.model

    def statuses() -> dict:
        return {model.index(r, 1).data(): model.index(r, 1).data(Qt.ItemDataRole.ToolTipRole)
                for r in range(model.rowCount())}

    qtbot.waitUntil(lambda: len(statuses()) == 3 and None not in statuses().values(), timeout=5000)
    two = "\nThe same story from 2 sources"
    assert statuses() == {"Tin ở báo A": "Tin ở báo A" + two, "Tin ở báo B": "Tin ở báo B" + two, "Bài khác": "Bài khác"}

    box = view.one_per_story
    with qtbot.waitSignal(model.loaded, timeout=5000):
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert box.isChecked()
    qtbot.waitUntil(lambda: len(statuses()) == 2 and None not in statuses().values(), timeout=5000)
    assert statuses() == {"Tin ở báo A": "Tin ở báo A" + two, "Bài khác": "Bài khác"}
    view.grab().save(str(tmp_path / "one-per-story.png"))

    with qtbot.waitSignal(model.loaded, timeout=5000):
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    qtbot.waitUntil(lambda: len(statuses()) == 3, timeout=5000)
