"""Issue 13 items 2+3: pages rendered by the render pool are fetched with the profile's kept cookies (a
login), as fetched pages are: the members' page renders the article only with them."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import QCoreApplication, QEvent

from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.crawl.cookies import Cookie, CookieFile, cookies_path
from xnews_gui.crawl.render import RenderError
from xnews_gui.demo.members import SESSION_COOKIE, SESSION_VALUE, stories
from xnews_gui.demo.site import DemoSite
from xnews_gui.services.crawl import start_crawl
from xnews_gui.ui.render_pool import RenderPool

from ..integration.test_cookies import members_profile


def render_in_thread(qtbot, pool, url: str):
    box: list = []

    def run():
        try:
            box.append(pool.render(url, "h1.article-title", 4))
        except RenderError as exc:
            box.append(exc)

    thread = threading.Thread(target=run, name="render-test")
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=20_000)
    thread.join()
    return box[0]


def test_rendered_pages_carry_the_cookies_a_crawl_sends(qtbot, store, demo_server, tmp_path):
    base = demo_server.url.rstrip("/")
    story = stories(DemoSite())[0]
    url = f"{base}/thanh-vien/{story.id}.htm"
    pool = RenderPool(1, timeout_s=4)
    try:
        refused = render_in_thread(qtbot, pool, url)
        assert isinstance(refused, RenderError) and "h1.article-title" in str(refused)  # the login form only

        profile = Profile.from_json(members_profile(tmp_path, base).read_text(encoding="utf-8"))
        CookieFile([Cookie(SESSION_COOKIE, SESSION_VALUE, "127.0.0.1", "/", time.time() + 3600)]).save(
            cookies_path(store.root, profile.name))
        start_crawl(profile, store, CrawlOptions(fetch_images=False, save_raw=False), classifier=None, renderer=pool)
        html = render_in_thread(qtbot, pool, url)  # the crawl's set-up handed the kept cookies to the pool
        assert isinstance(html, str) and story.title in html and pool.cookies_set == 1
    finally:
        pool.close()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        pool.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
