"""Issue 13 item 3 in the app: a members-only section is crawled after a login done in the inspector's
browser by real clicks and key presses, kept with one button (a file readable by the user only, its
expiry shown); before that the crawl card says the site answers with login pages."""

from __future__ import annotations

import re
import stat
import time

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl.cookies import Cookie, CookieFile, cookies_path
from xnews_gui.demo.members import SESSION_COOKIE, SESSION_VALUE, stories
from xnews_gui.demo.site import DemoSite

from ..integration.test_cookies import members_profile
from .inspector_helpers import LOAD_MS, click, shot, sites  # noqa: F401  (fixture)


def press(qtbot, button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(button.width() // 2, button.height() // 2))


def crawl(qtbot, view, name: str) -> dict:
    view.set_checked([name])
    press(qtbot, view.start_button)
    session = view.sessions[name]
    with qtbot.waitSignal(session.finished, timeout=60_000) as done:
        pass
    return done.args[0]


def test_a_login_made_in_the_inspector_is_kept_and_the_members_section_is_crawled(qtbot, store, data_dir, sites,
                                                                                    demo_server, tmp_path):
    from xnews_gui.ui.crawl_view import CrawlView
    from xnews_gui.ui.settings import Preferences

    base = demo_server.url.rstrip("/")
    profile = Profile.from_json(members_profile(tmp_path, base).read_text(encoding="utf-8"))
    store.save_profile(profile)
    crawls = CrawlView(store, preferences=lambda: Preferences(delay_s=0.0, concurrency=2))
    qtbot.addWidget(crawls)
    crawls.resize(1100, 700)
    crawls.show()

    summary = crawl(qtbot, crawls, profile.name)
    assert summary["articles"] == 0 and summary["login_pages"] >= 1
    card = crawls.cards[profile.name].detail.text()
    assert "12 article pages answered with a login form" in card and "Rule probably broken" not in card and "Keep this login for crawls" in card
    shot(crawls, "login-1-card-without-login")

    # the members' page in the inspector: a login form; fill it in and submit it as a person does
    inspector = sites.inspector
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        sites.open_profile(profile.name)
    bar = inspector.login_bar
    assert not bar.keep_button.isEnabled() and "none kept" in bar.status.text()
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        click(qtbot, inspector, "ul.member-list a")
    assert "/thanh-vien/" in inspector.browser.url()
    click(qtbot, inspector, "#user")
    QTest.keyClicks(inspector.view.focusProxy(), "ban.doc@example.vn")
    click(qtbot, inspector, "#password")
    QTest.keyClicks(inspector.view.focusProxy(), "mat-khau")
    shot(sites, "login-2-form-filled")
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS) as landed:
        click(qtbot, inspector, "#login")
    assert landed.args[0] == base + "/thanh-vien/"  # the site sent us on: logged in
    qtbot.waitUntil(bar.keep_button.isEnabled, timeout=5000)
    assert "1 cookie from this site" in bar.status.text()

    press(qtbot, bar.keep_button)
    path = cookies_path(data_dir, profile.name)
    kept = CookieFile.load(path)
    assert [(c.name, c.value) for c in kept.cookies] == [(SESSION_COOKIE, SESSION_VALUE)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    expiry = time.strftime("%Y-%m-%d", time.gmtime(kept.cookies[0].expires))
    assert kept.cookies[0].expires > time.time() + 29 * 24 * 3600  # the site's 30 days, not a session cookie
    assert f"kept for {profile.name}: 1 cookie for 127.0.0.1; next expiry {expiry}" in bar.status.text()
    assert bar.forget_button.isEnabled()

    # a member's article in the inspector: its raw HTML is fetched logged in too, so the rules match there
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        click(qtbot, inspector, "ul.member-list a")
    title_row = inspector.panel._keys.index("title")
    qtbot.waitUntil(lambda: inspector.panel.table.item(title_row, 4).text() == "1", timeout=15_000)
    assert not inspector.reach_bar.render.isVisible()  # no false "needs JavaScript"
    qtbot.waitUntil(lambda: re.search(r"Preview: (\d+) of \1 article pages fully extracted",
                                      inspector.preview.status.text()), timeout=15_000)  # the preview's pages too
    shot(sites, "login-3-kept")

    summary = crawl(qtbot, crawls, profile.name)
    assert summary["articles"] == len(stories(DemoSite())) and not summary.get("login_pages")
    assert "login form" not in crawls.cards[profile.name].detail.text()
    assert {a["title"] for a in store.articles_in_order()} == {a.title for a in stories(DemoSite())}
    shot(crawls, "login-4-card-with-login")

    press(qtbot, bar.forget_button)
    assert not path.exists() and "none kept" not in bar.status.text() and bar.keep_button.isEnabled()
    crawls.shutdown()


def test_only_the_cookies_of_the_profiles_sites_are_kept():
    from xnews_gui.ui.inspector.login_bar import for_hosts, profile_hosts

    profile = Profile.from_dict({"schema": 1, "name": "bao", "start_urls": ["https://bao.vn/tin/"],
                                 "allowed_domains": ["m.bao.vn"]})
    jar = [Cookie("sid", "1", ".bao.vn"), Cookie("consent", "yes", "bao.vn"), Cookie("ad", "x", ".quangcao.vn"),
           Cookie("cdn", "y", "static.bao.vn"), Cookie("sso", "z", "id.khac.vn")]
    hosts = profile_hosts(profile, "https://bao.vn/tin/1.htm")
    assert hosts == {"bao.vn", "m.bao.vn"}
    assert [c.name for c in for_hosts(jar, hosts)] == ["sid", "consent", "cdn"]


def test_opening_a_profile_puts_its_kept_login_back_in_the_browser(qtbot, store, data_dir, sites, demo_server,
                                                                     tmp_path):
    base = demo_server.url.rstrip("/")
    profile = Profile.from_json(members_profile(tmp_path, base).read_text(encoding="utf-8"))
    store.save_profile(profile)
    CookieFile([Cookie(SESSION_COOKIE, SESSION_VALUE, "127.0.0.1", "/", time.time() + 3600)]).save(
        cookies_path(data_dir, profile.name))
    inspector = sites.inspector
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        sites.open_profile(profile.name)
    assert "kept for demo-members: 1 cookie" in inspector.login_bar.status.text()
    with qtbot.waitSignal(inspector.pickerReady, timeout=LOAD_MS):
        click(qtbot, inspector, "ul.member-list a")
    dom = []
    inspector.view.page().toHtml(dom.append)
    qtbot.waitUntil(lambda: bool(dom), timeout=5000)
    assert 'class="article-title"' in dom[0] and 'type="password"' not in dom[0]  # the article, logged in


def test_an_expired_login_says_so_in_orange(qtbot, store, data_dir, sites, demo_server, tmp_path):
    profile = Profile.from_json(members_profile(tmp_path, demo_server.url.rstrip("/")).read_text(encoding="utf-8"))
    store.save_profile(profile)
    CookieFile([Cookie(SESSION_COOKIE, SESSION_VALUE, "127.0.0.1", "/", time.time() - 60)]).save(
        cookies_path(data_dir, profile.name))
    sites.open_profile(profile.name)
    status = sites.inspector.login_bar.status
    assert "has expired" in status.text() and "all expired" in status.text() and "log in again" in status.text()
    assert "#b06000" in status.styleSheet()
