"""Stored articles a sitemap says are newer, beyond the pass's revisit budget: they were dropped, and the
sitemap's date was recorded, so the next pass called it "unchanged, not read" and never came back for
them (10 of 30 updates seen, for ever, every pass "finished"). Now they are left for the next pass, which
reads that sitemap again, and the pass says so."""

from __future__ import annotations

import pytest

from tests.integration.crawl_helpers import Site, article_page, list_page, make_profile
from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions
from xnews_gui.services.crawl import start_crawl

N = 30


def _answer(handler, body: str, content_type: str) -> None:
    data = body.encode()
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _index(h, child: str, version: dict) -> None:
    _answer(h, "<?xml version='1.0'?><sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
               f"<sitemap><loc>{child}</loc><lastmod>2024-0{1 + version['n']}-01T00:00:00Z</lastmod>"
               "</sitemap></sitemapindex>", "application/xml")


def _routes(base: str, version: dict, nested: bool) -> dict:
    def index(h):  # nested: an index of an index of the sitemap (the sub-index's date is not to be kept either)
        _index(h, f"{base}/sub.xml" if nested else f"{base}/sm-1.xml", version)

    def sub(h):
        _index(h, f"{base}/sm-1.xml", version)

    def child(h):
        urls = "".join(f"<url><loc>{base}/a{i}.htm</loc><lastmod>2024-0{1 + version['n']}-01T{i % 24:02d}:00:00Z"
                       "</lastmod></url>" for i in range(N))
        _answer(h, f"<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{urls}"
                   "</urlset>", "application/xml")

    def story(i):
        return lambda h: _answer(h, article_page(f"Story {i} version {version['n']}")[2], "text/html; charset=utf-8")

    routes = {"/robots.txt": (200, {"Content-Type": "text/plain"}, f"User-agent: *\nSitemap: {base}/sitemap.xml\n"),
              "/sitemap.xml": index, "/sub.xml": sub, "/sm-1.xml": child, "/": list_page([f"/a{i}.htm" for i in range(N)])}
    routes.update({f"/a{i}.htm": story(i) for i in range(N)})
    return routes


@pytest.mark.parametrize("nested", [False, True])
def test_updates_over_the_revisit_budget_are_fetched_by_the_next_passes(store, nested):
    version = {"n": 0}
    with Site({}) as site:
        site.routes.update(_routes(site.url.rstrip("/"), version, nested))
        data = make_profile(site.url.rstrip("/") + "/", revisit_budget=10).to_dict()
        data["discovery"] = ["sitemap", "links"]
        profile = Profile.from_dict(data)

        def crawl():
            events = []
            summary = start_crawl(profile, store, CrawlOptions(fetch_images=False), events.append,
                                  classifier=None).run()
            current = sum("version 1" in row[0] for row in store.db.execute_sql("select title from article"))
            warnings = [e.data["message"] for e in events if e.kind == "log" and e.data.get("warning")]
            return summary, current, warnings

        first, current, _ = crawl()
        assert first["articles"] == N and current == 0
        version["n"] = 1  # every story updated; the index and the sitemap say so
        seen = []
        for _ in range(3):
            summary, current, warnings = crawl()
            seen.append(current)
            if summary.get("revisits_deferred"):
                assert any("left for the next pass" in w for w in warnings)
        assert seen == [10, 20, 30]
        summary, current, _ = crawl()
        assert current == N and summary["revisits_deferred"] == 0 and summary["revisits_newer"] == 0
