"""A crawl flags a field whose values stop fitting (a redesign rolling out) and says when the fallback filled it."""

from __future__ import annotations

from xnews_gui.crawl import Crawler, MemorySink
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite

from ..redesign import profile_authored_before_redesign


def test_second_template_is_flagged_degraded_in_the_crawl_summary(tmp_path):
    site = DemoSite(second_template=True)
    server = DemoServer(site=site).start()
    try:
        # rules authored before the redesign: the clicked page and its siblings have the first layout
        profile = profile_authored_before_redesign(site, "demo", server.url)
        sink = MemorySink()
        summary = Crawler(profile, sink, state_dir=tmp_path).run()
    finally:
        server.stop()
    assert summary["articles"] == len(site.articles)
    second = {server.url.rstrip("/") + a.path for a in site.articles if site.uses_second_template(a)}
    degraded = summary["degraded_fields"]
    assert "body" in degraded and "title" not in degraded  # the title's JSON-LD anchor still holds
    assert set(degraded["body"]) <= second
    failed, checked = summary["degraded_counts"]["body"]  # the card's "body degraded on 9 of the last 30 pages"
    assert checked == 30 and len(degraded["body"]) == failed and failed >= 5
    assert summary["fallbacks"] == len(second)
