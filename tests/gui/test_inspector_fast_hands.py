"""The inspector under fast hands: quick picks, edits while a rule is being induced, slow checks, closing
while a page is still loading. Real clicks in a real QWebEngineView on pages served from 127.0.0.1."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

from tests.gui.inspector_helpers import js, load, rect_of, shot, sites  # noqa: F401 (sites is a fixture)
from tests.integration.crawl_helpers import Site
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import css_to_xpath
from xnews_gui.ui.inspector import picking as inspector_module  # pick jobs run picking.induce_job

pytestmark = pytest.mark.gui
ROWS = 5000  # a long page: inducing a rule on it takes a noticeable time (~0.2 s or more)


def big_article(n: int) -> str:
    rows = "".join(f"<div class='row r{i % 7}'><p class='para'>Paragraph {i} of story {n}.</p>"
                   f"<span class='meta'>m{i}</span></div>" for i in range(ROWS))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Story {n}</title></head><body>"
            f"<header class='top'><div class='ad banner'>ADVERTISEMENT</div></header>"
            f"<main><article><h1 class='headline'>Headline of story {n}</h1><p class='lede'>Lede of story {n}</p>"
            f"<time class='when' datetime='2026-01-0{n}T08:00:00'>1 Jan</time>"
            f"<div class='share'>Share this story</div><aside class='related'>Related stories</aside>"
            f"<div class='content'><p class='first'>First words of story {n}.</p>{rows}</div></article></main>"
            f"<footer class='foot'>Footer of the site</footer></body></html>")


def _send(handler, body: str, delay: float = 0.0) -> None:
    if delay:
        time.sleep(delay)
    data = body.encode("utf-8")
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@pytest.fixture(autouse=True)
def checks_finish(qtbot):
    """Every edit and pick starts a check of the rules on the long page: a test waits for the last
    ones to come back (seconds on a busy machine) before the leftover-worker check looks."""
    yield
    from xnews_gui.ui import workers

    qtbot.waitUntil(lambda: not workers.active_workers(), timeout=30_000)


@pytest.fixture
def site():
    with Site({"/story/1.htm": (200, {"Content-Type": "text/html; charset=utf-8"}, big_article(1))}) as s:
        yield s


def click_at(inspector, css: str) -> None:
    proxy = inspector.view.focusProxy()
    point = _points[css]
    QTest.mouseMove(proxy, point)
    QTest.mouseClick(proxy, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


_points: dict = {}  # css -> where to click (measured before the quick clicks)


def measure(qtbot, inspector, *css: str) -> None:
    """Where the elements are (asked before the quick clicks, so that nothing waits between them)."""
    for c in css:
        rect = rect_of(qtbot, inspector, css_to_xpath(c))
        assert rect, c
        _points[c] = QPoint(int(rect["x"] + min(rect["width"] / 2, 40)), int(rect["y"] + rect["height"] / 2))


def arm(qtbot, sites, field: str) -> None:
    """Pick mode on and the picker ready for input (a first click on the page wakes Chromium's input)."""
    inspector = sites.inspector
    inspector.start_picking(field)
    qtbot.wait(300)


class HeldInductions:
    """Each pick's induction waits in its worker until ``picks`` picks have reached the GUI thread.

    The picks can only get there while the GUI thread is free: had it waited for a pick's job (or run
    it), the held job would never see the rest and ``all_overlapped`` fails. It also makes the inductions
    overlap on any machine, fast or busy, which is what these tests are about."""

    def __init__(self, monkeypatch, inspector, picks: int):
        self.picks, self.seen = picks, 0
        self.release = threading.Event()
        self.jobs: list[tuple[bool, bool]] = []  # (ran on the GUI thread, released by the picks)
        real = inspector_module.induce_job

        def held(job):
            on_gui = threading.current_thread() is threading.main_thread()
            self.jobs.append((on_gui, False if on_gui else self.release.wait(20)))
            return real(job)

        monkeypatch.setattr(inspector_module, "induce_job", held)
        inspector.bridge.picked.connect(self._picked)

    def _picked(self, *_args) -> None:
        self.seen += 1
        if self.seen >= self.picks:
            self.release.set()

    def all_overlapped(self) -> bool:
        return len(self.jobs) == self.picks and all(not on_gui and released for on_gui, released in self.jobs)


def test_three_quick_removal_picks_all_end_up_in_the_rules(qtbot, sites, site, monkeypatch):
    inspector = sites.inspector
    load(qtbot, sites, site.url + "/story/1.htm")
    QTest.mouseClick(sites.new_button, Qt.MouseButton.LeftButton)
    targets = ("div.ad.banner", "div.share", "aside.related")
    measure(qtbot, inspector, *targets)
    arm(qtbot, sites, "remove")
    for attempt in range(3):  # Chromium may drop input that arrives before its first frame
        with qtbot.waitSignal(inspector.bridge.picked, timeout=3000, raising=attempt == 2) as first:
            click_at(inspector, targets[0])
        if first.signal_triggered:
            break
    QTest.keyClick(inspector.view.focusProxy(), Qt.Key.Key_Escape)  # start again from an empty rule list
    qtbot.waitUntil(lambda: len(inspector.profile().remove) == 1, timeout=10_000)
    inspector.set_profile(inspector.profile().with_(remove=()))
    arm(qtbot, sites, "remove")

    picked = []
    inspector.bridge.picked.connect(lambda field, element, negative: picked.append((element.crumb, negative)))
    held = HeldInductions(monkeypatch, inspector, picks=3)
    for css in targets:  # three clicks with nothing waited for in between
        click_at(inspector, css)
    qtbot.waitUntil(lambda: len(picked) == 3, timeout=5000)
    qtbot.waitUntil(lambda: len(inspector.profile().remove) == 3, timeout=15_000)
    assert held.all_overlapped(), held.jobs  # each pick reached the GUI thread while the others were induced
    qtbot.wait(300)  # nothing still on its way takes one out again
    selectors = sorted(r.selector for r in inspector.profile().remove)
    assert len(selectors) == 3, picked
    assert any("banner" in s or ".ad" in s for s in selectors), (selectors, picked)
    assert any("related" in s or "aside" in s for s in selectors) and any("share" in s for s in selectors), selectors
    assert inspector.panel.table.rowCount() == 3


def test_quick_picks_of_three_fields_all_end_up_in_the_rules(qtbot, sites, site, monkeypatch):
    """Title, summary, date: toolbar button, element, next button, next element... each pick's rule is
    still being induced (a long page) when the next one comes."""
    inspector = sites.inspector
    load(qtbot, sites, site.url + "/story/1.htm")
    QTest.mouseClick(sites.new_button, Qt.MouseButton.LeftButton)
    picks = (("title", "h1.headline"), ("summary", "p.lede"), ("date", "time.when"))
    measure(qtbot, inspector, *(css for _, css in picks))
    arm(qtbot, sites, "title")
    for attempt in range(3):  # wake Chromium's input with a first pick of the title
        with qtbot.waitSignal(inspector.bridge.picked, timeout=3000, raising=attempt == 2) as first:
            click_at(inspector, "h1.headline")
        if first.signal_triggered:
            break
    qtbot.waitUntil(lambda: "title" in inspector.profile().fields, timeout=10_000)
    inspector.stop_picking()
    inspector.set_profile(inspector.profile().with_(fields={}))

    buttons = {key: inspector.toolbar.widgetForAction(inspector.field_actions[key]) for key, _ in picks}
    picked, inducing, applied = [], [], []
    inspector.bridge.picked.connect(lambda field, element, negative: picked.append(field))
    held = HeldInductions(monkeypatch, inspector, picks=3)
    inspector.inductionStarted.connect(inducing.append)
    inspector.rulesChanged.connect(lambda: applied.append(len(inducing)))
    for key, css in picks:
        QTest.mouseClick(buttons[key], Qt.MouseButton.LeftButton)
        assert js(qtbot, inspector, "current()") == key  # the page's picker follows the button
        with qtbot.waitSignal(inspector.bridge.picked, timeout=5000):  # the page has taken the click
            click_at(inspector, css)
    assert picked == ["title", "summary", "date"]
    qtbot.waitUntil(lambda: {"title", "summary", "date"} <= set(inspector.profile().fields), timeout=15_000)
    qtbot.wait(300)
    fields = inspector.profile().fields
    assert fields["title"].selector.startswith("h1") and fields["date"].take == "attr:datetime"
    assert "lede" in fields["summary"].selector or fields["summary"].selector.startswith("p")
    assert applied[0] == 3, applied  # the three were being induced together
    assert held.all_overlapped(), held.jobs  # and the GUI thread took each pick while the others were


def _edit_cell(table, row: int, col: int, text: str) -> None:
    """Double-click a rule's cell, type, Enter: as a person edits a selector."""
    rect = table.visualRect(table.model().index(row, col))
    # a real double-click is a click and then a double-click event (QTest's alone opens no editor)
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    editors = [w for w in table.viewport().findChildren(QLineEdit) if w.isVisible()]
    assert len(editors) == 1
    editor = editors[0]
    editor.selectAll()
    QTest.keyClicks(editor, text)
    QTest.keyClick(editor, Qt.Key.Key_Return)
    # the delegate commits on Enter through a queued call: deliver that one only (an induction's
    # result waiting in the queue must not slip in before the edit)
    QCoreApplication.sendPostedEvents(table.itemDelegate(), QEvent.Type.MetaCall)


def _row(table, label: str) -> int:
    return next(r for r in range(table.rowCount()) if table.item(r, 0).text() == label)


def _profile(url: str) -> Profile:
    return Profile.from_dict({
        "schema": 1, "name": "story", "start_urls": [url], "allowed_domains": ["127.0.0.1"],
        "fields": {"title": {"kind": "css", "selector": "header .banner", "take": "text", "required": True},
                   "summary": {"kind": "css", "selector": "aside.related", "take": "text"},
                   "body": {"kind": "css", "selector": "div.content", "take": "html", "required": True}},
    })


def test_a_hand_edit_made_during_an_induction_survives_it(qtbot, sites, site):
    inspector = sites.inspector
    url = site.url + "/story/1.htm"
    inspector.set_profile(_profile(url))
    load(qtbot, sites, url)
    measure(qtbot, inspector, "h1.headline")
    arm(qtbot, sites, "title")
    table = inspector.panel.table
    for attempt in range(3):
        with qtbot.waitSignal(inspector.inductionStarted, timeout=3000, raising=attempt == 2) as started:
            click_at(inspector, "h1.headline")
        if started.signal_triggered:
            break
    # the title's rule is being induced on a long page; meanwhile the summary is corrected by hand
    _edit_cell(table, _row(table, "Summary"), 1, "p.lede")
    assert inspector.profile().fields["title"].selector == "header .banner"  # the induction is still running
    assert inspector.profile().fields["summary"].selector == "p.lede"
    qtbot.waitUntil(lambda: inspector.profile().fields["title"].selector != "header .banner", timeout=15_000)
    fields = inspector.profile().fields
    assert fields["title"].selector.startswith("h1")
    assert fields["summary"].selector == "p.lede"  # the edit survived the induction
    assert table.item(_row(table, "Summary"), 1).text() == "p.lede"


def test_a_stale_check_never_repaints_newer_rules(qtbot, sites):
    answered, slow_done = [], threading.Event()

    def slow_first_raw_fetch(handler):  # the browser's load is quick; the inspector's first raw fetch is slow
        raw = "XNews" in handler.headers.get("User-Agent", "")
        answered.append(raw)
        slow = raw and answered.count(True) == 1
        _send(handler, big_article(2), delay=1.5 if slow else 0.0)
        if slow:
            slow_done.set()

    with Site({"/story/2.htm": slow_first_raw_fetch}) as slow:
        inspector = sites.inspector
        url = slow.url + "/story/2.htm"
        inspector.set_profile(_profile(url))
        load(qtbot, sites, url)
        table = inspector.panel.table
        qtbot.waitUntil(lambda: answered.count(True) == 1, timeout=5000)  # the check of the old rules waits
        with qtbot.waitSignal(inspector.checksUpdated, timeout=10_000):
            _edit_cell(table, _row(table, "Title"), 1, "h1.headline")
        row = _row(table, "Title")
        assert table.item(row, 5).text() == "Headline of story 2"
        qtbot.wait(2500)  # the old check (of "header .banner") has come back by now
        assert slow_done.is_set()
        assert table.item(row, 5).text() == "Headline of story 2" and table.item(row, 4).text() == "1"
        shot(sites, "fast-hands-stale-check")


def test_closing_the_inspector_while_a_page_loads_neither_waits_nor_cuts_the_fetch(qtbot, sites):
    release, answered = threading.Event(), threading.Event()

    def slow_article(handler):
        release.wait(30)  # answers when the test says so (or after 30 s: a shutdown that waited)
        answered.set()
        _send(handler, big_article(3))

    list_page = ("<html><body>" + "".join(f"<a class='story' href='/story/{n}.htm'>Story {n}</a>" for n in range(3, 6))
                 + "</body></html>")
    routes = {"/": (200, {"Content-Type": "text/html; charset=utf-8"}, list_page)}
    routes.update({f"/story/{n}.htm": slow_article for n in range(3, 6)})
    with Site(routes) as slow:
        inspector = sites.inspector
        profile = _profile(slow.url + "/").with_(articles=None)
        from xnews_gui.core.profile.profile import LinkRule

        inspector.set_profile(profile.with_(articles=LinkRule(kind="css", selector="a.story")))
        qtbot.waitUntil(lambda: any(p.startswith("/story/") for p in slow.paths()), timeout=5000)
        in_flight = next(p for p in slow.paths() if p.startswith("/story/"))  # held back by the server
        cache = inspector.cache
        sites.shutdown()
        assert not answered.is_set()  # shutdown returned while the page was still being held back
        assert not cache.closed  # the preview's fetch still uses the session
        release.set()
        qtbot.waitUntil(lambda: cache.closed, timeout=5000)
        assert cache.get(slow.url + in_flight) is not None  # the fetch under way was read to its end, not cut


def test_closing_while_chromium_answers_empty_leaves_no_timer_and_no_stray_page(qtbot):
    """The pick's DOM is asked again while Chromium answers an empty document: a retry timer without a
    context object fired into the deleted view (RuntimeError), and a handler asking the closed view for its
    address made a new page on the default profile under it."""
    import sys

    import shiboken6
    from PySide6.QtWebEngineCore import QWebEnginePage

    from xnews_gui.ui.inspector import Inspector

    errors = []
    old_hook, sys.excepthook = sys.excepthook, lambda *a: errors.append(a[1])
    try:
        with Site({"/empty": (200, {"Content-Type": "text/html"}, b""),
                   "/a": (200, {"Content-Type": "text/html"}, b"<h1>x</h1>")}) as site:
            inspector = Inspector()
            inspector.show()
            with qtbot.waitSignal(inspector.view.loadFinished, timeout=20_000):
                inspector.load_url(site.url.rstrip("/") + "/empty")
            answered = []
            inspector.with_dom(inspector.browser.url(), answered.append)
            qtbot.wait(150)  # the first empty answer came: a retry is waiting
            inspector.shutdown()
            qtbot.wait(100)
            stray = [p for p in inspector.view.findChildren(QWebEnginePage)
                     if shiboken6.isValid(p) and p.profile() is p.profile().defaultProfile()]
            assert not stray and inspector.browser.url() == ""
            shiboken6.delete(inspector)  # the window goes
            qtbot.wait(1000)  # every retry would have fired by now
    finally:
        sys.excepthook = old_hook
    assert not errors, errors
