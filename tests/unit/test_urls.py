"""Canonical URLs, scope and allowed schemes (core.text.urls, as the crawler uses them)."""

from __future__ import annotations

import pytest

from xnews_gui.core.text.urls import UrlError, absolute, canonical, in_scope, is_allowed_scheme


@pytest.mark.parametrize("url, expected", [
    ("HTTP://Example.COM:80/a/b.htm#top", "http://example.com/a/b.htm"),
    ("https://example.com:443/", "https://example.com/"),
    ("http://example.com:8080/x", "http://example.com:8080/x"),
    ("http://example.com/tin/index.html", "http://example.com/tin/"),
    ("http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"),
    ("http://example.com/th%e1%bb%9di-s%E1%BB%B1", "http://example.com/th%E1%BB%9Di-s%E1%BB%B1"),
    ("http://example.com/thời sự", "http://example.com/th%E1%BB%9Di%20s%E1%BB%B1"),
    ("http://example.com", "http://example.com/"),
])
def test_canonical(url, expected):
    assert canonical(url) == expected


def test_canonical_is_idempotent():
    url = canonical("http://Example.com/a/../b/index.html?z=1&y=%7e#f")
    assert canonical(url) == url


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)",
                                 "data:text/html,hi", "http:///nohost"])
def test_only_http_and_https(url):
    with pytest.raises(UrlError):
        canonical(url)


def test_schemes_and_scope():
    assert is_allowed_scheme("https://x.vn/") and not is_allowed_scheme("file:///x")
    assert in_scope("http://vnexpress.net/a", ["vnexpress.net"])
    assert in_scope("http://m.vnexpress.net/a", ["vnexpress.net"])
    assert not in_scope("http://evilvnexpress.net/a", ["vnexpress.net"])
    assert not in_scope("file:///etc/passwd", [])
    assert in_scope("http://any.site/", [])


def test_absolute():
    assert absolute("http://x.vn/a/b.htm", "../c.htm") == "http://x.vn/c.htm"
    assert absolute("http://x.vn/a/", "//cdn.x.vn/i.png") == "http://cdn.x.vn/i.png"
    assert absolute("http://x.vn/", "") == ""


def test_plain_urls_take_the_short_way_to_the_same_canonical_form(monkeypatch):
    """canonical() skips parsing for URLs that are already plain; on every URL it does so, the result is
    the one of the full parse (hosts a URL parser reads as numbers, dot segments, ports, index pages)."""
    import random

    from xnews_gui.core.text import urls

    rnd = random.Random(7)
    labels = ["a", "www", "xn--abc", "xn--80ak6aa92e", "127", "0", "1", "255", "256", "0x7f", "0x", "com",
              "a-b", "-a", "x" * 63, "x" * 64, "00", "01", "localhost", "EXAMPLE"]
    paths = ["", "/", "/a", "/a/b", "/index.html", "/INDEX.HTM", "/a/index.php", "/a/./b", "/a/../b", "/.",
             "/a.", "/~x", "/a-b_c.d~e", "/a//b", "//a", "/x/Default.ASPX", "/a%20b", "/a?b=1", "/a#f"]
    candidates = []
    for _ in range(6000):
        host = ".".join(rnd.choice(labels) for _ in range(rnd.randint(1, 4)))
        port = rnd.choice(["", ":80", ":443", ":8000", ":0", ":65535", ":65536", ":080"])
        candidates.append(rnd.choice(["http", "https", "HTTP"]) + "://" + host + port + rnd.choice(paths)
                          + rnd.choice(paths[:6]))
    short = {u: urls._plain_canonical(u) for u in candidates}
    taken = [u for u, c in short.items() if c is not None]
    assert 500 < len(taken) < len(short)  # both ways are exercised
    monkeypatch.setattr(urls, "_plain_canonical", lambda url: None)
    for url in taken:
        try:
            full = canonical(url)
        except UrlError as exc:
            full = f"UrlError: {exc}"
        assert short[url] == full, url


def test_scheme_check_and_joins_without_a_parse_answer_as_the_parse_does():
    from urllib.parse import urljoin, urlsplit

    from xnews_gui.core.text.urls import absolute

    urls = ["http://a.vn/x", "HTTPS://A.VN", "https://a.vn/thời-sự", "http://[::1]/x", "http://[bad/x", "http://a]b/",
            " http://a.vn ", "http:/a", "http:", "https:x", "httpx://a", "ftp://a", "javascript:alert(1)", "",
            "http://\ta.vn/\nx", "hTtP://a.vn/?q=[1]", "http://ａ.vn/", "//a.vn/x", "/x"]
    for url in urls:
        try:
            slow = urlsplit(url.strip()).scheme.lower() in ("http", "https")
        except ValueError:
            slow = "ValueError"
        try:
            fast = is_allowed_scheme(url)
        except ValueError:
            fast = "ValueError"
        assert fast == slow, url
    for base in ("http://a.vn/b/c.htm", "https://a.vn", "http://[bad/", "", None):
        for href in ("/x.png", "x.png", "//cdn.vn/y", " /z ", "/a/../b", "http://o.vn/", ""):
            try:
                want = urljoin(base, href.strip()) if base and href else (href.strip() if href else "")
            except ValueError:
                want = href.strip()
            assert absolute(base, href) == want, (base, href)
