"""Pages that need JavaScript: the demo site's JS-only section crawled through the render pool by the
command line (offscreen QtWebEngine), embedded JSON read without a browser, and a clear error when a
render profile is crawled without a pool."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.sink import MemorySink
from xnews_gui.demo.site import DemoSite
from xnews_gui.store import Store

from ..conftest import PROFILES, REPO
from .crawl_helpers import Site


def js_profile(base: str) -> dict:
    data = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    for key in ("self_test", "topics"):
        data.pop(key, None)
    data.update(name="demo-js", start_urls=[base + "/js/"],
                links={"articles": {"kind": "css", "selector": "ul.js-list a.js-article", "allow": ["/js/\\d+\\.htm$"]}},
                render={"wait_for": "h1.article-title", "timeout_s": 20})
    return data


@pytest.mark.slow
def test_the_command_line_crawls_a_javascript_only_section_through_the_render_pool(tmp_path, demo_server):
    base = demo_server.url.rstrip("/")
    profile = tmp_path / "demo-js.json"
    profile.write_text(json.dumps(js_profile(base), ensure_ascii=False), encoding="utf-8")
    data = tmp_path / "data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(data), "crawl", "--profile",
                           str(profile), "--no-images", "--render-pages", "2"],
                          capture_output=True, text=True, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "72 new articles" in proc.stdout
    with Store.open(data) as store:
        rows = {a["url"]: a for a in store.articles_in_order()}
    site = DemoSite()
    assert len(rows) == 72
    for a in site.articles:
        row = rows[f"{base}/js/{a.id}.htm"]
        assert row["title"] == a.title and row["author"] == a.author and row["summary"] == a.summary
        assert a.paragraphs[0] in row["body_text"] and a.paragraphs[-1] in row["body_text"]


def test_without_a_render_pool_the_crawl_says_why(tmp_path, demo_server):
    from xnews_gui.core.profile.profile import Profile

    profile = Profile.from_dict(js_profile(demo_server.url.rstrip("/")))
    summary = Crawler(profile, MemorySink(), state_dir=tmp_path,
                      options=CrawlOptions(fetch_images=False, save_raw=False)).run()
    assert summary["articles"] == 0 and summary["errors_by_kind"] == {"render": 72, "extraction": 72}


def test_embedded_json_makes_rendering_unnecessary(tmp_path):
    from xnews_gui.core.profile.profile import Profile

    ld = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebPage", "name": "x"},
        {"@type": "NewsArticle", "headline": "Bão số 5 đổ bộ miền Trung", "description": "Tóm tắt.",
         "datePublished": "2026-11-30T08:00:00+07:00", "author": [{"@type": "Person", "name": "Minh Anh"}],
         "image": {"@type": "ImageObject", "url": "/images/bao.jpg"},
         "articleBody": "Đoạn một của bài.\nĐoạn hai của bài, dài hơn một chút."}]}
    page = (f"<html><head><script type='application/ld+json'>{json.dumps(ld, ensure_ascii=False)}</script></head>"
            "<body><div id='app'></div><script src='/app.js'></script></body></html>")
    listing = "<html><body><a class='art' href='/bai-1.htm'>bai</a></body></html>"
    routes = {"/": (200, {"Content-Type": "text/html; charset=utf-8"}, listing),
              "/bai-1.htm": (200, {"Content-Type": "text/html; charset=utf-8"}, page),
              "/robots.txt": (404, {}, "")}
    with Site(routes) as site:
        profile = Profile.from_dict({
            "schema": 2, "name": "spa", "start_urls": [site.url + "/"], "allowed_domains": ["127.0.0.1"],
            "links": {"articles": {"kind": "css", "selector": "a.art"}},
            "fields": {"title": {"kind": "css", "selector": "h1.title", "take": "text", "required": True},
                       "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}},
            "render": {"wait_for": "h1.title"}})
        sink = MemorySink()
        summary = Crawler(profile, sink, state_dir=tmp_path, options=CrawlOptions(fetch_images=False)).run()
    (row,) = sink.articles
    art = row["article"]
    assert summary["from_embedded_json"] == 1 and summary["rendered"] == 0 and summary["errors"] == 0
    assert art.title == "Bão số 5 đổ bộ miền Trung" and art.author == "Minh Anh" and art.summary == "Tóm tắt."
    assert art.body_text.startswith("Đoạn một của bài.") and art.image == site.url + "/images/bao.jpg"
    assert art.date.startswith("2026-11-30T08:00")
    assert "/app.js" not in site.paths()  # no browser: the page's script was never fetched
