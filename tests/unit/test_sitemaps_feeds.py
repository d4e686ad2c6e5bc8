"""Sitemap and feed parsing on untrusted bytes; the profile's discovery keys."""

from __future__ import annotations

import gzip
from datetime import datetime, timezone

import pytest

from xnews_gui.core.profile.profile import Profile, ProfileError
from xnews_gui.crawl.feeds import FeedError, find_feeds, parse_feed
from xnews_gui.crawl.sitemaps import SitemapError, parse_sitemap

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
NEWS = 'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
IMAGE = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


def test_index_and_news_urlset():
    index = parse_sitemap(f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc> https://a.vn/s1.xml </loc>'
                          "<lastmod>2026-11-30</lastmod></sitemap><sitemap><loc>https://a.vn/s2.xml</loc>"
                          "</sitemap></sitemapindex>".encode())
    assert index.kind == "index" and [e.url for e in index.entries] == ["https://a.vn/s1.xml", "https://a.vn/s2.xml"]
    assert index.entries[0].modified == datetime(2026, 11, 30, tzinfo=timezone.utc) and index.entries[1].modified is None

    news = parse_sitemap(f"<urlset {NS} {NEWS} {IMAGE}><url><image:image><image:loc>https://a.vn/i.jpg</image:loc>"
                         "</image:image><loc>https://a.vn/bai-1.htm</loc><news:news><news:publication_date>"
                         "2026-11-30T08:15:00+07:00</news:publication_date><news:title>Tin một</news:title>"
                         "</news:news></url></urlset>".encode())
    (entry,) = news.entries
    assert news.kind == "urlset" and entry.url == "https://a.vn/bai-1.htm"  # not the image's loc
    assert entry.modified == datetime(2026, 11, 30, 1, 15, tzinfo=timezone.utc) and entry.title == "Tin một"


def test_gzip_text_and_truncation():
    body = gzip.compress(f"<urlset {NS}><url><loc>https://a.vn/x-1.htm</loc></url></urlset>".encode())
    assert [e.url for e in parse_sitemap(body).entries] == ["https://a.vn/x-1.htm"]
    text = parse_sitemap(b"https://a.vn/1.htm\n\nnot a url\nhttps://a.vn/2.htm\n")
    assert text.kind == "text" and [e.url for e in text.entries] == ["https://a.vn/1.htm", "https://a.vn/2.htm"]
    many = "".join(f"<url><loc>https://a.vn/{i}.htm</loc></url>" for i in range(30))
    cut = parse_sitemap(f"<urlset {NS}>{many}</urlset>".encode(), max_entries=10)
    assert cut.truncated and len(cut.entries) == 10


def test_gzip_bomb_is_refused():
    bomb = gzip.compress(b"<urlset>" + b" " * (60 * 1024 * 1024) + b"</urlset>")  # 60 MiB of spaces, ~60 KiB
    assert len(bomb) < 200_000
    with pytest.raises(SitemapError, match="inflates past 50 MiB"):
        parse_sitemap(bomb)


def test_entities_are_not_expanded_and_no_file_is_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    laughs = "".join(f'<!ENTITY l{i} "&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};&l{i - 1};">' for i in range(1, 12))
    doc = (f'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY l0 "ha">{laughs}'
           f'<!ENTITY xxe SYSTEM "file://{secret}">]>'
           f"<urlset {NS}><url><loc>https://a.vn/&l3;</loc></url><url><loc>https://a.vn/&xxe;</loc></url></urlset>")
    parsed = parse_sitemap(doc.encode())
    text = " ".join(e.url for e in parsed.entries)
    assert "TOP-SECRET" not in text and "haha" not in text
    assert len(text) < 200


def test_not_a_sitemap():
    with pytest.raises(SitemapError, match="not a sitemap"):
        parse_sitemap(b"<html><body>hello</body></html>")
    with pytest.raises(SitemapError):
        parse_sitemap(b"hello world")
    assert parse_sitemap(b'<rss version="2.0"><channel></channel></rss>').kind == "feed"


def test_find_feeds_in_a_page():
    page = """<html><head>
      <link rel="alternate" type="application/rss+xml" href="/rss/thoi-su.rss">
      <link rel="alternate" type="application/atom+xml" href="https://b.vn/atom.xml">
      <link rel="alternate" hreflang="en" href="/en/">
      <link rel="stylesheet" href="/site.css"></head>
      <body><a href="/rss/the-thao.rss">Thể thao</a><a href="/tin-1.htm">tin</a>
      <a href="javascript:alert(1)//rss">x</a><a href="/rss/thoi-su.rss">again</a></body></html>"""
    assert find_feeds(page, "https://a.vn/") == ["https://a.vn/rss/thoi-su.rss", "https://b.vn/atom.xml",
                                                  "https://a.vn/rss/the-thao.rss"]
    assert find_feeds("", "https://a.vn/") == []


def test_parse_rss_and_atom():
    rss = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>
      <item><title>Mot</title><link>https://a.vn/mot-1.htm</link><pubDate>Mon, 30 Nov 2026 08:00:00 +0700</pubDate></item>
      <item><title>Hai</title><guid isPermaLink="true">https://a.vn/hai-2.htm</guid></item>
      <item><title>No link</title></item></channel></rss>"""
    entries = parse_feed(rss, "https://a.vn/rss.xml", "application/rss+xml")
    assert [e.url for e in entries] == ["https://a.vn/mot-1.htm", "https://a.vn/hai-2.htm"]
    assert entries[0].modified == datetime(2026, 11, 30, 1, 0, tzinfo=timezone.utc) and entries[1].modified is None
    atom = b"""<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
      <entry><title>Ba</title><link rel="alternate" href="/ba-3.htm"/><updated>2026-11-29T10:00:00Z</updated></entry></feed>"""
    (entry,) = parse_feed(atom, "https://a.vn/feeds/atom.xml")
    assert entry.url == "https://a.vn/ba-3.htm" and entry.modified == datetime(2026, 11, 29, 10, tzinfo=timezone.utc)
    with pytest.raises(FeedError):
        parse_feed(b"just some text", "https://a.vn/rss.xml")


def test_feedparser_never_fetches_a_url_given_as_body():
    # handed bytes that look like a URL, it must not open it (it would for a str)
    with pytest.raises(FeedError):
        parse_feed(b"http://127.0.0.1:9/feed.xml", "https://a.vn/rss.xml")


def profile(**extra):
    data = {"schema": 1, "name": "p", "start_urls": ["https://a.vn/"], **extra}
    return Profile.from_dict(data)


def test_profile_discovery_keys_round_trip():
    p = profile(discovery=["sitemap", "feeds"], sitemaps=["https://a.vn/sitemap-news.xml"], feeds=["https://a.vn/rss"])
    assert p.discovery == ("sitemap", "feeds") and p.sitemaps == ("https://a.vn/sitemap-news.xml",)
    again = Profile.from_json(p.to_json())
    assert again == p
    assert profile().discovery == ("links",) and "discovery" not in profile().to_dict()


@pytest.mark.parametrize("extra, message", [
    ({"discovery": ["sitemaps"]}, "'sitemaps' is not one of sitemap, feeds, links"),
    ({"discovery": []}, "at least one is required"),
    ({"discovery": ["links", "links"]}, "listed once"),
    ({"feeds": ["ftp://a.vn/rss"]}, "feeds: 'ftp://a.vn/rss' is not an http"),
])
def test_profile_discovery_errors(extra, message):
    with pytest.raises(ProfileError, match=message):
        profile(**extra)


def test_profile_render_key():
    p = profile(render={"wait_for": "h1.title", "timeout_s": 20})
    assert (p.render.wait_for, p.render.timeout_s) == ("h1.title", 20.0)
    assert Profile.from_json(p.to_json()) == p and profile().render is None
    for bad, message in (({"wait_for": "h1[", "timeout_s": 5}, "render.wait_for"),
                         ({"timeout_s": 0}, "render.timeout_s"), ({"timeout_s": True}, "render.timeout_s"),
                         ({"wait": "h1"}, "unknown key"), ("h1", "expected an object")):
        with pytest.raises(ProfileError, match=message):
            profile(render=bad)


def test_a_date_utc_cannot_hold_is_no_date_and_the_rest_is_read():
    """Year 1 at +05:00 lies before what datetime holds in UTC: the whole discovery of the crawl was lost."""
    body = (f"<urlset {NS}><url><loc>https://a.vn/1.htm</loc><lastmod>0001-01-01T00:00:00+05:00</lastmod></url>"
            "<url><loc>https://a.vn/2.htm</loc><lastmod>9999-12-31T23:59:59-05:00</lastmod></url>"
            "<url><loc>https://a.vn/3.htm</loc><lastmod>2026-11-30</lastmod></url></urlset>").encode()
    parsed = parse_sitemap(body)
    assert [(e.url[-5:], e.modified) for e in parsed.entries] == [
        ("1.htm", None), ("2.htm", None), ("3.htm", datetime(2026, 11, 30, tzinfo=timezone.utc))]


def test_a_byte_order_mark_several_gzip_members_and_bare_ampersands_lose_no_url():
    assert [e.url for e in parse_sitemap(b"\xef\xbb\xbfhttps://a.vn/1.htm\nhttps://a.vn/2.htm\n").entries] == [
        "https://a.vn/1.htm", "https://a.vn/2.htm"]
    joined = gzip.compress(b"https://a.vn/1.htm\n") + gzip.compress(b"https://a.vn/2.htm\n")  # cat a.gz b.gz
    assert [e.url for e in parse_sitemap(joined).entries] == ["https://a.vn/1.htm", "https://a.vn/2.htm"]
    bare = parse_sitemap(f"<urlset {NS}><url><loc>https://a.vn/p?id=1&cat=2&amp;x=3&#38;y=4</loc></url>"
                         "</urlset>".encode())
    assert [e.url for e in bare.entries] == ["https://a.vn/p?id=1&cat=2&x=3&y=4"]
    with pytest.raises(SitemapError, match="gzip members"):
        parse_sitemap(gzip.compress(b"") * 1001)


def test_a_sitemap_cut_off_in_transfer_says_so_and_keeps_no_half_url():
    whole = f"<urlset {NS}>" + "".join(f"<url><loc>https://a.vn/{i}.htm</loc></url>" for i in range(3)) + "</urlset>"
    assert not parse_sitemap(whole.encode()).truncated
    assert not parse_sitemap((whole + "\n<!-- generated -->\n").encode()).truncated
    cut = parse_sitemap(whole[:-len("2.htm</loc></url></urlset>")].encode())
    assert cut.truncated and [e.url for e in cut.entries] == ["https://a.vn/0.htm", "https://a.vn/1.htm"]


def test_review_edges_cdata_trailing_blanks_and_many_gzip_members():
    cdata = parse_sitemap(f"<urlset {NS} {NEWS}><url><loc><![CDATA[https://ex.com/a?x=1&y=2]]></loc><news:news>"
                          "<news:title><![CDATA[Q&A: giá vàng]]></news:title></news:news></url></urlset>".encode())
    assert [(e.url, e.title) for e in cdata.entries] == [("https://ex.com/a?x=1&y=2", "Q&A: giá vàng")]
    whole = f"<urlset {NS}><url><loc>https://a.vn/1.htm</loc></url><url><loc>https://a.vn/2.htm</loc></url></urlset>"
    for tail in ("\n" * 2000, "\x00", "<!-- " + "x" * 3000 + " -->"):  # a whole file, whatever follows it
        parsed = parse_sitemap((whole + tail).encode())
        assert len(parsed.entries) == 2 and not parsed.truncated, repr(tail[:10])
    members = b"".join(gzip.compress(f"https://a.vn/{i}.htm\n".encode()) for i in range(1000))
    assert len(parse_sitemap(members).entries) == 1000  # exactly the limit is read
