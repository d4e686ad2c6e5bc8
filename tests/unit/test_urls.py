"""Canonical URLs, scope and allowed schemes (core.urls, as the crawler uses them)."""

from __future__ import annotations

import pytest

from xnews_gui.core.urls import UrlError, absolute, canonical, in_scope, is_allowed_scheme


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
