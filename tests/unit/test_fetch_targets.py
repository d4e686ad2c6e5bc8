"""The fetcher sends a plain URL to its host's pool itself: the request target must be the one urllib3's
PoolManager sends for that URL (parse_url's request_uri, which the pool then percent-encodes)."""

from __future__ import annotations

import random
from urllib.parse import urlsplit

import pytest
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

from xnews_gui.crawl.fetcher import origin, plain_target

PLAIN = [
    "http://127.0.0.1:8000/", "http://127.0.0.1:8000", "https://example.com/a/b-1.htm", "http://Example.COM/A",
    "http://example.com/a?x=1&y=%2f", "http://example.com/a?", "http://example.com/a#frag", "http://e.com?q#f",
    "http://example.com/a//b", "http://example.com/%zz", "http://example.com/a%7e%7E", "http://example.com/~u/",
    "http://example.com/a:b@c;d=e", "http://example.com/a'b(c)*!$,+", 'http://example.com/a"b<c>d',
    "http://example.com/a|b{c}^d`e[f]", "http://example.com/a?x#y?z", "http://example.com/a?b=c/d?e",
    "http://example.com:65535/x", "http://example.com:65536/x", "http://example.com/a.b/c.", "http://example.com/a.",
]
NOT_PLAIN = [  # left to PoolManager (any "/." may start a dot segment)
    "http://example.com/.well-known/x", "http://example.com/a/./b", "http://example.com/a/../b",
    "http://example.com/..", "http://example.com/a/.",
    "HTTP://example.com/a", "http://user:pw@example.com/a", "http://[::1]:8000/a", "http://example.com/a b",
    "http://example.com/đường", "http://bücher.de/a", "http://example.com\\a", "ftp://example.com/a",
    "http://example.com/a\tb", "http://example.com/\x7f",
]


def _urllib3_target(url: str) -> str:
    return parse_url(url).request_uri


def _same(url: str) -> bool:
    (scheme, netloc), target = plain_target(url)
    try:
        parsed = parse_url(url)
    except LocationParseError:  # e.g. port 70000: the fetcher's pool lookup parses the URL and fails alike
        with pytest.raises(LocationParseError):
            parse_url(f"{scheme}://{netloc}")
        return True
    host = parse_url(f"{scheme}://{netloc}")
    # the pool percent-encodes the target it is given as parse_url encodes a path and query
    return parse_url("http://h" + target).request_uri == _urllib3_target(url) \
        and (host.scheme, host.host, host.port) == (parsed.scheme, parsed.host, parsed.port)


def test_plain_urls_keep_urllib3s_request_target_and_host():
    assert [url for url in NOT_PLAIN if plain_target(url) is not None] == []
    for url in PLAIN:
        assert _same(url), url


def test_random_urls_keep_urllib3s_request_target():
    rng = random.Random(11)
    alphabet = "abcXYZ019-._~!$&'()*+,;=:@/?#%\"<>[]{}|^`"
    seen = 0
    for _ in range(5000):
        tail = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        url = rng.choice(["http://example.com", "https://a.b-c.org:8443"]) + "/" * rng.randint(0, 1) + tail
        if plain_target(url) is None:  # a dot segment, or the tail ran into the host or port
            continue
        seen += 1
        assert _same(url), url
    assert seen > 2500


def test_origin_is_urlsplits_scheme_and_netloc():
    odd = [" http://a.example/x", "http://a.exa\tmple/x", "http://a.example\n/x", "HTTPS://A.example/x",
           "http://u@a.example/x", "http://a.example:8080", "http://a.example?q", "http://a.example#f",
           "http://a.example\\x", "http:/a.example/x", "http:a.example", "//a.example/x", "mailto:x@y",
           "http://[::1]:80/x", "http://bücher.de/x", "http://a_b.example/x", "https://a.example:/x", ""]
    rng = random.Random(5)
    alphabet = "aZ09.-:/?#@[]\\ \t%_"
    fuzz = ["http" + rng.choice(["", "s"]) + "://" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
            for _ in range(3000)]
    for url in PLAIN + NOT_PLAIN + odd + fuzz:
        try:
            expected = tuple(urlsplit(url)[:2])
        except ValueError:  # urlsplit refuses it (e.g. an unclosed "["): so does origin
            with pytest.raises(ValueError):
                origin(url)
            continue
        assert origin(url) == expected, url
