"""Discovery without link rules: sitemap-only and feed-only crawls of the demo site and the simulator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import import_newsim
from xnews_gui.core.profile.profile import Profile
from xnews_gui.crawl import CrawlOptions, Crawler
from xnews_gui.crawl.discovery import discover
from xnews_gui.crawl.fetcher import Fetcher
from xnews_gui.crawl.sink import MemorySink
from xnews_gui.demo.site import DemoSite
from xnews_gui.demo.syndication import PARTNER_URL

from .crawl_helpers import Site

def crawl(profile, tmp_path, events=None):
    sink = MemorySink()
    options = CrawlOptions(fetch_images=False, save_raw=False)
    summary = Crawler(profile, sink, state_dir=tmp_path, options=options,
                      on_event=(events.append if events is not None else None)).run()
    return summary, sink


def logs(events):
    return [e.data["message"] for e in events if e.kind == "log"]


@pytest.mark.parametrize("source, skipped", [("sitemap", 8), ("feeds", 1)])
def test_demo_site_from_one_source_only(tmp_path, demo_server, demo_profile, source, skipped):
    # no list rule and no start page crawl: every article URL comes from the sitemaps (or the feeds)
    profile = demo_profile.with_(discovery=(source,), lists=None)
    events = []
    summary, sink = crawl(profile, tmp_path, events)
    base = demo_server.url.rstrip("/")
    expected = {base + a.path for a in DemoSite().articles}
    stored = {row["article"].url for row in sink.articles}
    assert stored == expected  # every article, and nothing else
    assert summary["status"] == "finished" and summary["errors"] == 0
    assert summary["list_pages"] == 0 and summary["pages"] == len(expected)
    # section pages (not article-shaped) and the partner's page (another host) were left out
    assert summary["discovered"] == len(expected) and summary["discovered_skipped"] == skipped
    assert all(PARTNER_URL not in p["url"] for p in sink.pages)

    # a re-crawl reads only what changed since: the section sitemaps' lastmod in the index did not move, and
    # each feed entry's date is its stored copy's (the site's dates on both sides): nothing is fetched again
    events.clear()
    again, _ = crawl(profile, tmp_path, events)
    assert again["pages"] == 0 and again["discovered"] == 0 and again["revisited"] == 0
    message = next(m for m in logs(events) if m.startswith("discovery:"))
    if source == "sitemap":  # the index and the undated pages sitemap only; 6 section sitemaps skipped
        assert "from 2 sitemaps" in message and "(6 sitemaps unchanged" in message
    else:
        assert again["known_skipped"] == 72


def test_sitemaps_and_feeds_together_fetch_each_article_once(tmp_path, demo_server, demo_profile):
    profile = demo_profile.with_(discovery=("sitemap", "feeds", "links"))
    summary, sink = crawl(profile, tmp_path)
    assert summary["articles"] == 72 and summary["article_pages"] == 72 and summary["errors"] == 0
    assert summary["discovered"] == 72  # the feeds and the link rules found nothing new


def test_discover_reports_what_a_site_offers(demo_server):
    fetcher = Fetcher("XNews-test")
    try:
        report = discover(demo_server.url, fetcher)
    finally:
        fetcher.close()
    origin = demo_server.url.rstrip("/")
    assert report.sitemaps == [origin + "/sitemap.xml"]
    assert report.feeds == [f"{origin}/{c['slug']}/rss.xml" for c in DemoSite().corpus["categories"]]
    assert report.sitemap_urls == 72 + 8
    import requests

    from xnews_gui.crawl.feeds import parse_feed

    listed = {e.url for feed in report.feeds for e in parse_feed(requests.get(feed, timeout=10).content, feed)}
    assert report.feed_urls == len(listed) >= 72  # every story is in its section's feed
    assert report.summary() == f"this site has 1 sitemap (80 URLs) and 6 feeds ({len(listed)} URLs)"


def test_a_feed_announced_but_dead_is_not_offered():
    """A page announcing a feed nobody can read (another host, offline): "this site has 1 feed: a crawl can
    read them" was offered for it."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/rss.xml"
    page = (f"<html><head><link rel='alternate' type='application/rss+xml' href='{dead}'></head>"
            "<body>home</body></html>")
    with Site({"/": (200, {"Content-Type": "text/html"}, page), "/robots.txt": (404, {}, "")}) as site:
        fetcher = Fetcher("XNews-test")
        report = discover(site.url + "/", fetcher)
        fetcher.close()
    assert report.feeds == [] and report.summary() == "no sitemap or feed found"


def test_discover_without_robots_sitemap_tries_the_usual_place():
    sitemap = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               "<url><loc>http://127.0.0.1/a-1.htm</loc></url></urlset>")
    routes = {"/": (200, {"Content-Type": "text/html"}, "<html><head></head><body>home</body></html>"),
              "/sitemap.xml": (200, {"Content-Type": "application/xml"}, sitemap)}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test")
        report = discover(site.url + "/", fetcher)
        fetcher.close()
    assert report.sitemaps == [site.url + "/sitemap.xml"] and report.sitemap_urls == 1 and report.feeds == []
    assert report.summary() == "this site has 1 sitemap (1 URLs)"


def test_bad_sitemaps_are_reported_and_the_rest_is_crawled(tmp_path):
    index = ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
             "<sitemap><loc>{u}/broken.xml</loc></sitemap><sitemap><loc>{u}/gone.xml</loc></sitemap>"
             "<sitemap><loc>{u}/good.xml</loc></sitemap></sitemapindex>")
    good = ('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            "<url><loc>{u}/bai-1.htm</loc></url></urlset>")
    page = "<html><body><h1 class='title'>Một</h1><div class='body'><p>Nội dung.</p></div></body></html>"
    routes = {"/robots.txt": (404, {}, "")}
    with Site(routes) as site:
        u = site.url
        routes.update({"/sitemap.xml": (200, {"Content-Type": "text/xml"}, index.format(u=u)),
                       "/broken.xml": (200, {"Content-Type": "text/xml"}, "<html><p>oops"),
                       "/good.xml": (200, {"Content-Type": "text/xml"}, good.format(u=u)),
                       "/bai-1.htm": (200, {"Content-Type": "text/html"}, page)})
        site.routes.update(routes)
        profile = Profile.from_dict({
            "schema": 1, "name": "t", "start_urls": [u + "/"], "allowed_domains": ["127.0.0.1"],
            "discovery": ["sitemap"],
            "fields": {"title": {"kind": "css", "selector": "h1.title", "take": "text", "required": True},
                       "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}}})
        summary, sink = crawl(profile, tmp_path)
    assert [row["article"].title for row in sink.articles] == ["Một"]
    assert summary["errors_by_kind"] == {"discovery": 2}  # the broken one and the 404, each in one line


@pytest.mark.slow
def test_sitemap_only_crawl_of_the_simulator_is_complete(tmp_path):
    newsim = import_newsim()
    proc = subprocess.Popen([sys.executable, newsim.__file__, "--port", "0", "--articles", "120", "--extra-kb", "4",
                             "--duration", "120"], stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[1]
        data = json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "newsim_profile.json").read_text())
        data["start_urls"] = [url]
        data["links"] = {}  # no link rules at all
        data["discovery"] = ["sitemap"]
        summary, sink = crawl(Profile.from_dict(data), tmp_path)
    finally:
        proc.terminate()
        proc.wait(10)
    sim = newsim.Site(articles=120, extra_kb=4)
    expected = {url.rstrip("/") + a.path for a in sim.articles}
    assert {row["article"].url for row in sink.articles} == expected
    assert summary["status"] == "finished" and summary["errors"] == 0 and summary["list_pages"] == 0
    titles = {row["article"].url: row["article"].title for row in sink.articles}
    assert all(titles[url.rstrip("/") + a.path] == a.title for a in sim.articles)
