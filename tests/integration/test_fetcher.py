"""The one fetcher: a one-off page is fetched as the crawler fetches (user agent, caps, per-hop checks)."""

from __future__ import annotations

import pytest

from .crawl_helpers import Site, html

from xnews_gui.crawl.fetcher import FetchError, Fetcher, FetchLimits


def test_get_fetches_one_page_with_the_user_agent_and_checks_every_hop():
    routes = {"/old": (301, {"Location": "/new"}, b""), "/new": html("<h1>Trang mới</h1>"),
              "/away": (302, {"Location": "http://localhost:9/elsewhere"}, b"")}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test/1 (+mail@example.org)")
        hops = []
        try:
            page = fetcher.get(site.url + "/old", check=hops.append)
            assert page.url == site.url + "/new" and page.redirects == [site.url + "/new"]
            assert "Trang mới" in page.body.decode("utf-8") and page.content_type.startswith("text/html")
            assert hops == [site.url + "/old", site.url + "/new"]

            def same_host_only(url):
                if not url.startswith(site.url):
                    raise FetchError("scope", f"outside: {url}")

            with pytest.raises(FetchError) as refused:
                fetcher.get(site.url + "/away", check=same_host_only)
            assert refused.value.kind == "scope"
        finally:
            fetcher.close()
    agents = {h.get("User-Agent") for _, p, h in site.log}
    assert agents == {"XNews-test/1 (+mail@example.org)"}
    assert "/elsewhere" not in site.paths()


def test_get_refuses_what_the_crawler_refuses():
    routes = {"/pdf": (200, {"Content-Type": "application/pdf"}, b"%PDF-1.4"),
              "/big": html("x" * 5000)}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test", FetchLimits(max_bytes=1000))
        try:
            kinds = []
            for path in ("/pdf", "/big"):
                with pytest.raises(FetchError) as failed:
                    fetcher.get(site.url + path)
                kinds.append(failed.value.kind)
        finally:
            fetcher.close()
    assert kinds == ["content_type", "too_large"]
