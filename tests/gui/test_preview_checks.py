"""What the preview grid claims. Its image check: an image outside the article (a sidebar's) is ✗, but the page's own og:image,
which *Use page metadata* offers, is not (it was ✗ "outside the article" on every page, and the status said
"0 of 8 article pages fully extracted" while every title and body was right). A failed preview shows no
rows of the last one."""

from __future__ import annotations

from xnews_gui.core.profile.profile import Profile
from xnews_gui.ui.inspector.sample import IMAGE_OUTSIDE, preview_row

PAGE = """<html><head><title>T</title><meta property="og:image" content="http://x/lead.jpg"></head><body>
<div class="page"><aside><img src="http://x/ad.jpg"></aside>
<article><h1>Headline of the story</h1><img class="lead" src="http://x/lead.jpg">
<div class="story"><p>First paragraph of the story with enough words to be a body.</p>
<p>Second paragraph of the story with enough words to be a body too.</p></div></article></div></body></html>"""


def profile(image_selector: str) -> Profile:
    rule = {"kind": "css", "selector": image_selector, "take": "attr:content" if "meta" in image_selector else "attr:src"}
    return Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://x/"], "fields": {
        "title": {"kind": "css", "selector": "h1", "take": "text"},
        "body": {"kind": "css", "selector": "div.story", "take": "html"}, "image": rule}})


def problems(selector: str) -> tuple:
    return preview_row(profile(selector), "http://x/a.htm", PAGE).cells["image"].problems


def test_the_pages_og_image_is_not_outside_the_article():
    assert IMAGE_OUTSIDE not in problems("meta[property='og:image']")


def test_a_sidebar_image_is_outside_and_the_articles_own_is_not():
    assert IMAGE_OUTSIDE in problems("aside img")
    assert IMAGE_OUTSIDE not in problems("img.lead")


def test_a_failed_preview_leaves_no_rows_of_the_last_one(qtbot):
    """A 404 start page: "Preview failed ..." was said above the last preview's 8 rows, all ✓."""
    from PySide6.QtCore import QThreadPool

    from xnews_gui.services.pages import PageError
    from xnews_gui.ui.inspector.preview import PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(420, 300)  # a narrow panel, three fields: the Page column was cut to "A · a.h…"
    pane.show()
    article = PAGE.replace("<aside>", "<aside><a class='story' href='http://x/news/story-of-the-day-01.html'>a</a>")
    data = profile("img.lead").to_dict()
    data["links"] = {"articles": {"kind": "css", "selector": "a.story"}}
    good = Profile.from_dict(data)
    pool = QThreadPool()
    with qtbot.waitSignal(pane.updated, timeout=10_000):
        pane.refresh(good, "http://x/", lambda url: article, pool)
    assert pane.model.rowCount() >= 1 and pane.view.isVisible()
    page = pane.model.index(0, 0).data()
    assert pane.view.columnWidth(0) >= pane.view.fontMetrics().horizontalAdvance(page)  # the page name whole

    def gone(url):
        raise PageError(f"cannot fetch {url}: HTTP 404")

    pane.refresh(good.with_(name="t2"), "http://x/missing", gone, pool)
    qtbot.waitUntil(lambda: pane.status.text().startswith("Preview failed"), timeout=10_000)
    assert pane.status.text() == "Preview failed: cannot fetch http://x/missing: HTTP 404"
    assert pane.model.rowCount() == 0 and not pane.view.isVisible()
    pool.waitForDone(5000)


def test_a_long_message_ends_with_an_ellipsis_not_a_cut_word(qtbot):
    """The Sites tab's message line cut "... then the section links or next page, then tl" at the window's
    edge; now it ends with "…" and the tooltip holds it all."""
    from xnews_gui.ui.elided_label import ElidedLabel

    label = ElidedLabel()
    qtbot.addWidget(label)
    label.resize(200, 20)
    label.show()
    text = ("New profile '127.0.0.1' starting at this page: pick the article links, then the section links "
            "or next page, then the fields on an article.")
    label.setText(text)
    assert label.text() == text and label.toolTip() == text
    assert label.shown().endswith("\u2026") and text.startswith(label.shown()[:-1])
    assert label.fontMetrics().horizontalAdvance(label.shown()) <= label.contentsRect().width()
    label.resize(2000, 20)
    assert label.shown() == text
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMenu

    from tests.gui.dialogs import when_shown
    from tests.gui.test_rule_delete import right_click

    def click_copy(menu) -> None:  # the menu runs its own loop: the click is scheduled before it opens
        copy = next(a for a in menu.actions() if a.text() == "Copy")
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         menu.actionGeometry(copy).center())

    QGuiApplication.clipboard().clear()
    label.resize(200, 20)
    when_shown(QMenu, click_copy)
    right_click(label, label.rect().center())  # right-click > Copy: the whole message, not the part shown
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == text, timeout=5000)


def test_an_older_previews_failure_leaves_the_newer_preview_alone(qtbot):
    """A preview whose rules changed meanwhile fails late: it cleared the newer preview's rows."""
    import threading

    from PySide6.QtCore import QThreadPool

    from xnews_gui.services.pages import PageError
    from xnews_gui.ui.inspector.preview import PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    pool, release = QThreadPool(), threading.Event()
    article = PAGE.replace("<aside>", "<aside><a class='story' href='http://x/a.htm'>a</a>")
    data = profile("img.lead").to_dict()
    data["links"] = {"articles": {"kind": "css", "selector": "a.story"}}
    older, newer = Profile.from_dict(data), Profile.from_dict(dict(data, name="t2"))

    def late_failure(url):
        release.wait(10)
        raise PageError(f"cannot fetch {url}: HTTP 404")

    pane.refresh(older, "http://x/", late_failure, pool)
    with qtbot.waitSignal(pane.updated, timeout=10_000):
        pane.refresh(newer, "http://x/", lambda url: article, pool)
    release.set()
    pool.waitForDone(5000)
    qtbot.wait(200)  # the older worker's error signal, queued to this thread
    assert pane.model.rowCount() >= 1 and not pane.status.text().startswith("Preview failed")
