"""The wrapper builder end to end: a real QWebEngineView, real clicks, rules checked on other pages."""

from __future__ import annotations

import html as htmlmod
import json
import os
import re

import pytest
import requests

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from tests.conftest import shared_data  # noqa: E402
from tests.served import FolderServer  # noqa: E402
from xnews_gui.core.extraction.extract import extract  # noqa: E402
from xnews_gui.ui.inspector.preview import PREVIEW_PAGES
from xnews_gui.core.profile.rules import css_to_xpath, parse_html  # noqa: E402
from xnews_gui.core.text.text import normalize_space
from tests.gui.inspector_helpers import (  # noqa: E402,F401 (sites is a fixture)
    LOAD_MS, click, js, load, pick, pick_widened, rect_of, shot, sites, wait_checks,
)

pytestmark = pytest.mark.gui


def test_build_the_demo_profile_by_clicking(qtbot, sites, demo_server, demo_profile, tmp_path):
    inspector = sites.inspector
    home = demo_server.url
    load(qtbot, sites, home)

    # article links on the home page: the click must not follow the link
    with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
        pick(qtbot, sites, "articles", ".list-news h3.title-news a")
    assert inspector.browser.url() == home
    links = inspector.profile().articles
    assert links.selector in ("h3.title-news a", ".title-news a") and links.allow == (r"-\d+\.htm$",)
    assert js(qtbot, inspector, "highlight(" + json.dumps(css_to_xpath(links.selector)) + ")") == 8
    rows = inspector.preview.model.rows()
    assert 3 <= len(rows) <= PREVIEW_PAGES
    # the grid is a sample of the site (the list page and the demo's sitemap): the status says where from
    # and how many article links the crawl follows from the list page ("8 matches" in the rule panel)
    status = inspector.preview.status.text()
    assert "the list page links to 8 articles" in status or "8 article links on the list page" in status, status
    shot(sites, "1-article-links")

    # next page on a category page
    load(qtbot, sites, home + "thoi-su/")
    pick(qtbot, sites, "next", "nav.pagination a.next")
    assert inspector.profile().lists.selector.endswith("a.next")

    # fields on one article page
    load(qtbot, sites, rows[0].url)
    inspector.start_picking("title")
    QTest.mouseMove(inspector.view.focusProxy(), QPoint(300, 200))
    clicks = [("title", "h1.article-title"), ("summary", "p.article-summary"), ("image", "figure.article-image img"),
              ("author", ".article-author"), ("date", "time.published"), ("body", "div.article-body")]
    for field, css in clicks[:-1]:
        pick(qtbot, sites, field, css)
    with qtbot.waitSignal(inspector.previewUpdated, timeout=LOAD_MS):
        pick_widened(qtbot, sites, "body", "div.article-body > p")
    qtbot.waitUntil(lambda: inspector.panel.table.item(0, 4).text() not in ("\u2026", ""), timeout=10_000)
    inspector.start_picking("title")  # pick mode with the title tinted, for the screenshot
    click_point = QPoint(200, 150)
    QTest.mouseMove(inspector.view.focusProxy(), click_point)
    shot(sites, "2-fields-picked")

    profile = inspector.profile()
    assert set(profile.fields) == {"title", "summary", "image", "body", "author", "date"}
    assert profile.fields["image"].take == "attr:src" and profile.fields["date"].take == "attr:datetime"
    # the rules work on the OTHER article pages of the site
    others = [r.url for r in inspector.preview.model.rows() if r.url != rows[0].url]
    assert len(others) >= 2
    reference = demo_profile.with_(remove=())
    for url in others:
        html = requests.get(url, timeout=10).text
        got, want = extract(html, url, profile), extract(html, url, reference)
        for field, _ in clicks:
            assert got.value(field) == want.value(field), (url, field)
    # and the preview grid says so: every cell ok
    cells = [c.state for r in inspector.preview.model.rows() for c in r.cells.values()]
    assert cells and set(cells) == {"ok"}

    # save to SQLite, export JSON, reopen
    sites.name_edit.setText("demo-clicked")
    with qtbot.waitSignal(sites.profileSaved, timeout=5000) as saved:
        assert sites.save()
    assert saved.args == ["demo-clicked"]
    stored = sites.store.load_profile("demo-clicked")
    assert stored.fields == profile.fields and stored.articles == profile.articles
    out = tmp_path / "profiles" / "demo-clicked.json"
    assert sites.export_profile(out) and json.loads(out.read_text())["name"] == "demo-clicked"
    pipe = tmp_path / "profiles" / "pipe.json"
    os.mkfifo(pipe)  # chosen in the file dialog: refused at once, the window never hangs on it
    assert not sites.export_profile(pipe) and "it is not a regular file" in sites.message.text()
    assert sites.profiles.findItems("demo-clicked", Qt.MatchFlag.MatchExactly)

    inspector.stop_picking()
    sites.inspector.set_profile(None)
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        sites.open_profile("demo-clicked")
    wait_checks(qtbot, inspector)
    assert inspector.panel.table.rowCount() == 8  # 2 link rules + 6 fields


def test_clicking_a_tinted_match_rejects_it_and_escape_leaves_pick_mode(qtbot, sites, demo_server):
    inspector = sites.inspector
    load(qtbot, sites, demo_server.url)
    pick(qtbot, sites, "articles", ".list-news h3.title-news a")
    # the second headline link is tinted: clicking it is a rejection, not a pick
    for attempt in range(3):
        with qtbot.waitSignal(inspector.bridge.picked, timeout=4000, raising=attempt == 2) as picked:
            rect = rect_of(qtbot, inspector, "(//div[@class='item-news'])[2]/h3/a")
            point = QPoint(int(rect["x"] + 10), int(rect["y"] + rect["height"] / 2))
            QTest.mouseMove(inspector.view.focusProxy(), point)
            QTest.mouseClick(inspector.view.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
        if picked.signal_triggered:
            break
    field, element, negative = picked.args
    assert field == "articles" and negative and element.tag == "a" and element.href.endswith(".htm")
    qtbot.waitUntil(lambda: bool(inspector.draft.negatives.get("articles")), timeout=5000)
    assert inspector.browser.url() == demo_server.url  # never followed
    with qtbot.waitSignal(inspector.bridge.exited, timeout=5000):
        QTest.keyClick(inspector.view.focusProxy(), Qt.Key.Key_Escape)
    assert inspector.active_field == "" and not any(a.isChecked() for a in inspector.field_actions.values())


def test_hand_edit_shows_a_clear_error_and_metadata_suggestions_apply(qtbot, sites, demo_server):
    inspector = sites.inspector
    load(qtbot, sites, demo_server.url + "thoi-su/")
    href = parse_html(requests.get(demo_server.url + "thoi-su/", timeout=10).text).cssselect("h3.title-news a")[0].get("href")
    load(qtbot, sites, demo_server.url.rstrip("/") + href)
    try:
        qtbot.waitUntil(inspector.suggest_box.isVisible, timeout=LOAD_MS)
    except Exception:
        raise AssertionError(f"no suggestions; status: {inspector.status.text()!r}, url {inspector.browser.url()}, "
                             f"suggestions {inspector._suggestions}, dom {len(inspector._dom_html or '')}") from None
    used = inspector.apply_suggestions()
    assert {"title", "image", "summary", "date"} <= set(used)
    assert not inspector.suggest_box.isVisible()
    wait_checks(qtbot, inspector)
    table = inspector.panel.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "Title")
    assert table.item(row, 4).text() == "1"
    article = parse_html(requests.get(demo_server.url.rstrip("/") + href, timeout=10).text)
    headline = article.cssselect("h1.article-title")[0].text_content().strip()
    assert headline[:30] in table.item(row, 5).text()  # the og:title rule yields this page's headline
    shot(sites, "3-suggestions")
    table.item(row, 1).setText("h1[")  # a broken selector typed by hand
    assert "invalid CSS selector" in inspector.panel.error.text()
    assert inspector.profile().fields["title"].selector == "meta[property='og:title']"
    table.item(row, 1).setText("h1.article-title")
    assert inspector.panel.error.isHidden()
    assert inspector.profile().fields["title"].selector == "h1.article-title"
    wait_checks(qtbot, inspector)
    assert table.item(row, 4).text() == "1"


@pytest.fixture
def portal_server():
    with FolderServer(shared_data("cleanportaleval", "input")) as site:
        yield site.url


def _gold_headline(stem: str) -> str:
    text = shared_data("cleanportaleval", "GoldStandard", f"{stem}.txt").read_text(encoding="utf-8", errors="replace")
    m = re.search(r"<h>(.*?)(?=<[hpl]>|\Z)", text, re.S)
    return _plain(m.group(1))


def _plain(text: str) -> str:
    return normalize_space(htmlmod.unescape(text)).translate(str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014", "''\"\"--"))


def test_cleanportaleval_page_title_and_body_picked_in_the_browser(qtbot, sites, portal_server):
    inspector = sites.inspector
    load(qtbot, sites, portal_server + "tv.msnbc.com_news_01.html")
    pick(qtbot, sites, "title", "h1")
    pick_widened(qtbot, sites, "body", "div.entry-content > p")
    shot(sites, "4-cleanportaleval")
    profile = inspector.profile()
    title, body = profile.fields["title"], profile.fields["body"]
    for n in ("02", "07", "15"):
        stem = f"tv.msnbc.com_news_{n}"
        html = requests.get(portal_server + stem + ".html", timeout=10).text
        assert _plain(title.apply(html)[0]) == _gold_headline(stem)
        article = extract(html, portal_server + stem + ".html", profile)
        assert len(article.body_text) > 200 and not article.errors
    assert body.selector == "div.entry-content"


# --- the start page -----------------------------------------------------------------------------------
def page_js(qtbot, page, expr: str):
    from PySide6.QtWebEngineCore import QWebEngineScript

    box = []
    page.runJavaScript(f"JSON.stringify({expr})", QWebEngineScript.ScriptWorldId.ApplicationWorld, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return json.loads(box[0]) if box[0] else None


def start_page_shown(qtbot, sites) -> None:
    page = sites.inspector.view.page()
    qtbot.waitUntil(lambda: sites.inspector.browser.on_start_page()
                    and page_js(qtbot, page, "!!document.getElementById('open-demo')") is True, timeout=LOAD_MS)


def click_in_page(qtbot, inspector, expr: str) -> None:
    """A real click at the centre of the element ``expr`` (JavaScript) returns."""
    rect = page_js(qtbot, inspector.view.page(),
                   f"(() => {{ const r = ({expr}).getBoundingClientRect(); "
                   "return {x: r.x, y: r.y, w: r.width, h: r.height}; })()")
    point = QPoint(int(rect["x"] + rect["w"] / 2), int(rect["y"] + rect["h"] / 2))
    QTest.mouseMove(inspector.view.focusProxy(), point)
    QTest.mouseClick(inspector.view.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


@pytest.fixture
def free_demo_port(monkeypatch):
    from xnews_gui.ui import demo_launcher

    monkeypatch.setattr(demo_launcher, "DEMO_PORT", 0)


def test_start_page_explains_the_steps_and_opens_the_demo_site(qtbot, free_demo_port, sites):
    inspector = sites.inspector
    start_page_shown(qtbot, sites)
    assert inspector.browser.address.text() == ""  # no odd internal address in the bar
    text = page_js(qtbot, inspector.view.page(), "document.body.innerText")
    for words in ("Open a list page", "Pick the article links", "Open an article and pick the fields",
                  "Open the demo site", "None yet"):
        assert words in text, words
    assert sites.demo.server is None  # nothing runs until asked
    for attempt in range(3):  # Chromium may drop input that arrives before its first frame
        with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS, raising=attempt == 2) as ready:
            click_in_page(qtbot, inspector, "document.getElementById('open-demo')")
        if ready.signal_triggered:
            break
    assert sites.demo.server is not None
    assert ready.args == [sites.demo.server.url] and inspector.browser.url() == sites.demo.server.url
    assert inspector.browser.address.text() == sites.demo.server.url
    assert not inspector.browser.on_start_page()
    # a fresh profile to practise on, not the bundled "demo" one that saving would overwrite
    assert sites.name_edit.text() == "tin-nhanh" and inspector.profile().name == "tin-nhanh"
    assert not inspector.profile().fields and inspector.profile().articles is None
    pick(qtbot, sites, "articles", ".list-news h3.title-news a")  # the page is a normal, pickable page
    assert inspector.profile().articles is not None


def test_start_page_lists_profiles_and_selecting_one_opens_it(qtbot, free_demo_port, sites):
    from xnews_gui.bundled import seed_bundled_profiles

    seed_bundled_profiles(sites.store)
    sites.refresh()
    inspector = sites.inspector
    start_page_shown(qtbot, sites)
    qtbot.waitUntil(lambda: "demo" in page_js(qtbot, inspector.view.page(),
                                              "[...document.querySelectorAll('td a')].map(a => a.textContent)"),
                    timeout=LOAD_MS)
    item = sites.profiles.findItems("demo", Qt.MatchFlag.MatchExactly)[0]
    rect = sites.profiles.visualItemRect(item)
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS) as ready:
        QTest.mouseClick(sites.profiles.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         rect.center())
    assert ready.args == [sites.demo.server.url]  # the demo profile's start address, on the running demo site
    assert sites.name_edit.text() == "demo"
    wait_checks(qtbot, inspector)
    profile = inspector.profile()
    assert len(profile.fields) == 6
    assert inspector.panel.table.rowCount() == 3 + 6 + len(profile.remove)  # article, section and next links, fields, parts removed
    # with a page shown, a selection alone does not navigate away from it
    sites.profiles.clearSelection()
    sites.profiles.setCurrentRow(-1)
    QTest.mouseClick(sites.profiles.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.center())
    qtbot.wait(300)
    assert inspector.browser.url() == sites.demo.server.url
