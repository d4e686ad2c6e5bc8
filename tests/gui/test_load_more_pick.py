"""A profile for list pages that load more, made by clicking in the inspector's real browser: the demo
site's "Xem thêm" section (the button clicked in pick mode) and its scrolling section (Scrolls for more
marked); the coverage check counts what loading more reaches (60, 50 of them by loading more), and the
saved profiles crawl every story, in the app's crawl process and from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from xnews_gui.crawl import CrawlOptions
from xnews_gui.demo import load_more as demo_more
from xnews_gui.demo.site import DemoSite
from xnews_gui.store import Store
from xnews_gui.ui.crawl_session import CrawlSession

from ..conftest import REPO
from .inspector_helpers import LOAD_MS, click, load, pick_widened, shot, sites  # noqa: F401  (fixture)

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def press(widget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(widget.width() // 2, widget.height() // 2))


def press_action(inspector, action) -> None:
    press(inspector.toolbar.widgetForAction(action))


def click_page(qtbot, inspector, css: str, signal, timeout: int = 4000) -> None:
    """Click an element of the page until ``signal`` answers (Chromium may drop a first input)."""
    for attempt in range(3):
        with qtbot.waitSignal(signal, timeout=timeout, raising=attempt == 2) as seen:
            click(qtbot, inspector, css)
        if seen.signal_triggered:
            return


def build_by_clicking(qtbot, sites, url: str, mark_more, name: str):
    """Open the section, New profile, Article links, the section's way to load more (``mark_more``), check
    coverage, then Title and Body on a story, and Save: the saved profile and the coverage report."""
    inspector = sites.inspector
    load(qtbot, sites, url)
    press(sites.new_button)
    sites.name_edit.setText(name)
    press_action(inspector, inspector.field_actions["articles"])
    click_page(qtbot, inspector, ".list-news h3.title-news a", inspector.rulesChanged)
    mark_more(inspector)
    with qtbot.waitSignal(inspector.site_bar.coverageDone, timeout=60_000) as done:
        press(inspector.site_bar.coverage_button)
    coverage = done.args[0]
    shot(sites, f"load-more-{name}-coverage")
    if inspector.field_group.checkedAction() is not None:  # pick mode off: links are links again
        press_action(inspector, inspector.field_group.checkedAction())
    inspector.view.page().runJavaScript("window.scrollTo(0, 0)")  # back to the top, as a person scrolls
    qtbot.wait(200)
    click_page(qtbot, inspector, ".list-news h3.title-news a", inspector.pickerReady, timeout=LOAD_MS)
    press_action(inspector, inspector.field_actions["title"])
    click_page(qtbot, inspector, "h1.article-title", inspector.rulesChanged)
    press_action(inspector, inspector.field_actions["body"])
    pick_widened(qtbot, sites, "body", "div.article-body p")
    with qtbot.waitSignal(sites.profileSaved, timeout=90_000):
        press(sites.save_button)
    shot(sites, f"load-more-{name}-saved")
    return sites.store.load_profile(name), coverage


def crawl_from_the_command_line(tmp_path, profile) -> tuple[subprocess.CompletedProcess, set[str]]:
    path = tmp_path / f"{profile.name}.json"
    path.write_text(profile.to_json(), encoding="utf-8")
    data = tmp_path / "cli-data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                           str(path), "--no-images", "--no-raw", "--delay", "0"],
                          capture_output=True, text=True, env=env, timeout=240)
    with Store.open(data) as store:
        return proc, {a["url"] for a in store.articles_in_order()}


def test_a_load_more_button_picked_by_clicking_reaches_and_crawls_all_60(qtbot, sites, demo_server, tmp_path):
    inspector = sites.inspector
    base = demo_server.url.rstrip("/")

    def pick_the_button(inspector):
        press_action(inspector, inspector.load_more.pick_action)
        assert "Load more" in inspector.status.text()
        click_page(qtbot, inspector, "button.xem-them", inspector.rulesChanged)
        shot(sites, "load-more-button-picked")

    profile, coverage = build_by_clicking(qtbot, sites, base + "/xem-them/", pick_the_button, "demo-xem-them")
    assert profile.more is not None and profile.more.click == "button.xem-them" and not profile.more.scroll
    assert coverage.article_links == 60 and coverage.by_loading_more == 50 and coverage.warning() == ""
    assert inspector.site_bar.result.text().startswith("Coverage: reaches 1 list page and 60 article links "
                                                       "(50 by loading more)")
    assert inspector.load_more.pick_action.text() == "Load more \u2713"
    wanted = {base + a.path for a in demo_more.stories(DemoSite())}

    # the app's crawl (its own process, with a render pool) takes every story
    session = CrawlSession(profile, sites.store, CrawlOptions(fetch_images=False, save_raw=False, delay_s=0.0),
                           classifier=None)
    with qtbot.waitSignal(session.finished, timeout=120_000) as finished:
        session.start()
    summary = finished.args[0]
    stored = {a["url"] for a in sites.store.articles_in_order(profile=profile.name)}
    assert summary["articles"] == 60 and summary["loaded_more"] == 5 and not summary["warnings"]
    assert stored == wanted

    proc, from_cli = crawl_from_the_command_line(tmp_path, profile)  # the same profile, from the command line
    assert proc.returncode == 0 and "60 new articles" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert from_cli == wanted


def test_a_page_marked_scrolls_for_more_reaches_and_crawls_all_60(qtbot, sites, demo_server, tmp_path):
    inspector = sites.inspector
    base = demo_server.url.rstrip("/")

    def mark_scrolling(inspector):
        press_action(inspector, inspector.load_more.scroll_action)
        assert "Scrolls for more" in inspector.status.text()

    profile, coverage = build_by_clicking(qtbot, sites, base + "/cuon/", mark_scrolling, "demo-cuon")
    assert profile.more is not None and profile.more.scroll and profile.more.pages == ("/cuon/$",)
    assert coverage.article_links == 60 and coverage.by_loading_more == 50
    assert inspector.load_more.scroll_action.isChecked()
    saved = json.loads(profile.to_json())["more"]
    assert saved == {"scroll": True, "pages": ["/cuon/$"]}

    proc, from_cli = crawl_from_the_command_line(tmp_path, profile)
    assert proc.returncode == 0 and "60 new articles" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert from_cli == {base + a.path for a in demo_more.stories(DemoSite())}

    press_action(inspector, inspector.load_more.scroll_action)  # unmarked: the profile no longer loads more
    assert inspector.profile().more is None and "no longer load more" in inspector.status.text()
