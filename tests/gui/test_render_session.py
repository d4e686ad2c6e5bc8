"""The app's crawl of a JavaScript-only section: the crawl session starts the crawl's process with a
render pool of offscreen QtWebEngine pages in it, and the articles built in the browser are stored."""

from __future__ import annotations

import os

from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.demo.site import DemoSite
from xnews_gui.ui.crawl_session import CrawlSession

from ..integration.test_render import js_profile


def while_the_pool_renders(qtbot, pool, work, timeout_ms: int) -> None:
    """Run ``work`` in a thread (it asks the pool to render) while the Qt thread serves the pool; then free it."""
    import threading

    from PySide6.QtCore import QCoreApplication, QEvent

    thread = threading.Thread(target=work, name="render-test")
    thread.start()
    try:
        qtbot.waitUntil(lambda: not thread.is_alive(), timeout=timeout_ms)
    finally:
        thread.join(60)
        pool.close()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        pool.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_a_render_profile_is_crawled_through_the_apps_render_pool(qtbot, store, demo_server):
    base = demo_server.url.rstrip("/")
    profile = Profile.from_dict(js_profile(base))
    session = CrawlSession(profile, store, CrawlOptions(fetch_images=False, save_raw=False, max_articles=6),
                           classifier=None)
    with qtbot.waitSignal(session.finished, timeout=60000) as finished:
        session.start()
    summary = finished.args[0]
    assert summary["articles"] == 6 and summary["rendered"] >= 6 and summary["errors"] == 0
    titles = {a.title for a in DemoSite().articles}
    stored = store.articles_in_order()
    assert len(stored) == 6 and all(a["title"] in titles and a["url"].startswith(base + "/js/") for a in stored)
    run = store.recent_runs(1, profile=profile.name)[0]
    assert run.pid != os.getpid(), "the render profile was crawled in the app's process"
    assert session.state == run.status == summary["status"] == "limit"  # (max_articles)


def test_periodic_passes_of_a_render_profile_go_through_the_render_pool(qtbot, tmp_path, demo_server):
    """A re-crawl on a schedule (``crawl --periodic``) renders its pages as a single crawl does."""


    from xnews_gui.crawl.periodic import PeriodicCrawler
    from xnews_gui.crawl.sink import MemorySink
    from xnews_gui.ui.render_pool import RenderPool

    profile = Profile.from_dict(js_profile(demo_server.url.rstrip("/")))
    pool = RenderPool(2)
    runner = PeriodicCrawler(profile, MemorySink(), state_dir=tmp_path, renderer=pool,
                             options=CrawlOptions(fetch_images=False, save_raw=False, max_articles=3))
    box: list = []
    while_the_pool_renders(qtbot, pool, lambda: box.append(runner.run_pass()), 60_000)
    summary = box[0]
    assert summary["articles"] == 3 and summary["rendered"] >= 3 and pool.rendered >= 3


def test_a_page_whose_script_grows_without_end_is_refused_not_carried_in(qtbot):
    """A 300-byte page whose script appends 12 MB: the whole DOM came into the crawl (fetched pages stop at
    5 MB); now the render says why it is not read, and a normal page still renders."""


    from tests.integration.crawl_helpers import Site
    from xnews_gui.crawl.render import RenderError
    from xnews_gui.ui.render_pool import RenderPool

    grows = (b"<!doctype html><html><body><script>var s = 'x'.repeat(1024 * 1024);"
             b"for (var i = 0; i < 12; i++) { var d = document.createElement('div'); d.textContent = s;"
             b" document.body.appendChild(d); }"
             b"var h = document.createElement('h1'); h.textContent = 'ready'; document.body.appendChild(h);"
             b"</script></body></html>")
    small = b"<!doctype html><html><body><h1>ready</h1><p>A story.</p></body></html>"
    with Site({"/grows": (200, {"Content-Type": "text/html"}, grows),
               "/small": (200, {"Content-Type": "text/html"}, small)}) as site:
        pool = RenderPool(1)
        box: dict = {}

        def both() -> None:
            for path in ("/grows", "/small"):
                try:
                    box[path] = pool.render(site.url.rstrip("/") + path, "h1", 30)
                except RenderError as exc:
                    box[path] = exc

        while_the_pool_renders(qtbot, pool, both, 90_000)
    assert isinstance(box["/grows"], RenderError), f"{len(box['/grows']):,} characters carried in"
    assert "million characters once rendered" in str(box["/grows"])
    assert isinstance(box["/small"], str) and "A story." in box["/small"]
