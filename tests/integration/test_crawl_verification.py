"""A crawl flags a field whose values stop fitting (a redesign rolling out) and says when the fallback filled it."""

from __future__ import annotations

from xnews_gui.core.profile import Profile
from xnews_gui.core.rules import parse_html
from xnews_gui.core.selectors import element_xpath, induce_profile
from xnews_gui.crawl import Crawler, MemorySink
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite

from ..conftest import PROFILES


def test_second_template_is_flagged_degraded_in_the_crawl_summary(tmp_path):
    site = DemoSite(second_template=True)
    server = DemoServer(site=site).start()
    try:
        old = [a for a in site.articles if not site.uses_second_template(a)]
        clicked = site.article_page(old[0])
        doc = parse_html(clicked)
        # rules authored before the redesign: the clicked page and its siblings have the first layout
        induced = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                                  "body": [(clicked, element_xpath(doc.xpath("//div[@class='article-body']")[0]))]},
                                 siblings=[site.article_page(a) for a in old[1:4]], name="demo")
        bundled = Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))
        profile = bundled.with_(start_urls=(server.url,), fields=induced.fields, chains=induced.chains,
                                remove=induced.remove)
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
