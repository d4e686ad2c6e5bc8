"""The cheap paths of the per-page extraction give exactly what the plain definitions give."""

from html import escape

import lxml.html
import pytest

from xnews_gui.core.extraction import html_text
from xnews_gui.core.extraction.sanitize import _clean, sanitize_html
from xnews_gui.core.profile.verify import _shares

BASE = "https://news.example.vn/thoi-su/bai-viet.html"
LINKS = ["/a/b.htm", "c.htm", "  spaced.htm  ", "//cdn.example.vn/x.png", "http://other.example/y",
         "http://[bad", "javascript:alert(1)", "data:image/png;base64,AAAA", "?page=2", "#top", "",
         "HTTPS://Upper.example/Z?", "../../up.htm", "mailto:a@b.vn", "https://x.vn/a b"]


@pytest.mark.parametrize("link", LINKS)
def test_absolute_links_match_lxml_make_links_absolute(link):
    html = (f'<p><a href="{escape(link)}" title="t">a</a> <img src="{escape(link)}" alt="i">'
            f'<blockquote cite="{escape(link)}">q</blockquote><a name="n">plain</a></p>')
    reference = lxml.html.fragment_fromstring(html, create_parent="div")
    reference.make_links_absolute(BASE, resolve_base_href=False, handle_failures="discard")
    expected = _clean("".join(lxml.html.tostring(c, encoding="unicode") for c in reference))
    assert sanitize_html(html, BASE) == expected


def _plain_shares(value):
    n = max(1, len(value))
    digits = sum(ch.isdigit() for ch in value)
    punct = sum(1 for ch in value if not ch.isalnum() and not ch.isspace())
    return digits / n, punct / n


@pytest.mark.parametrize("value", [
    "", " ", "Hà Nội", "Giá vàng tăng 2,5% (lên 78,9 triệu/lượng)!", "x²³ ١٢٣ Ⅻ ½", "a_b\u00a0c\u2028d\te",
    "“Trích dẫn” — đoạn… ©2024", "e-mail: ai@bao.vn\n#tag $100",
])
def test_shares_match_the_plain_definition(value):
    assert _shares(value) == _plain_shares(value)


@pytest.mark.parametrize("page", [
    "<p>Hà Nội</p>", "<p>a\x01b\x7fc\x85d\x9f</p>", "<p>C1 only: \x85 \x9f \u00a0</p>", "<p>DEL only\x7f</p>",
    "<p>non-character only \uffff</p>", "<p>" + "\u00a0©" * 40 + "\x85</p>", "<p>" + "\u00a0" * 40 + "</p>", "<p>&#1;&#x1F;&#128;&#39;&#xD800;&#65535;</p>",
    "<p>\ud800lone</p>", "\ufeff<p>bom\ufffe</p>", "<?xml version='1.0' encoding='latin-1'?><p>é</p>",
    "<meta charset='windows-1252'><title>“Tiêu đề”</title><p>Đà Nẵng\u00a0€</p>", "", " \n", "<p>café</p>",
])
def test_page_checked_and_parsed_as_utf8_bytes_is_the_page_parsed_as_text(page):
    from xnews_gui.core.profile.rules import parse_html
    from xnews_gui.core.text.text import strip_control_chars_html, strip_control_chars_html_utf8

    text, data = strip_control_chars_html_utf8(page)
    assert text == strip_control_chars_html(page)
    assert data == text.encode("utf-8")
    ours = html_text.parse_page(text, data, BASE)
    assert lxml.html.tostring(ours) == lxml.html.tostring(parse_html(text, BASE))


@pytest.mark.parametrize("base", [BASE, "https://h.vn", "http://user@h.vn:8080/a;p?q#f", "HTTP://H.VN/a", "ftp://h.vn/a",
                                  "http:///a", "", "/relative", "javascript:void(0)"])
def test_joined_links_are_what_urljoin_gives(base):
    from urllib.parse import urljoin

    from xnews_gui.core.extraction.sanitize import join_url

    links = ["/images/1-main.png", "/thời-sự/bài-viết.htm", "/", "/a//b", "/a/./b", "/a/../b", "/a/..", "/.", "/a?",
             "/a#", "/a?q=1#f", "/a;p", "/a\\b", "/a b", "/a\tb", "/a\x01", "/%7Ea", "/a:b@c", "//cdn.vn/x.png"]
    for link in links:
        assert join_url(base, link) == urljoin(base, link), link


@pytest.mark.parametrize("base", [
    BASE, "http://h.vn", "https://h.vn:8080", "http://h.vn?q", "http://h.vn#f", "http://h.vn:123456/a", "HTTP://h.vn/a",
    "http://user@h.vn/a", "http://[::1]:80/a", "http://h.vn\t/a", "http://h\n.vn/a", " http://h.vn/a", "http:///a",
    "http://./a", "http://h.vn:/a", "http://h_x.vn/a", "http://hà.vn/a", "ftp://h.vn/a", "", "/relative", "http:h.vn/a",
])
def test_the_origin_before_a_root_relative_link_is_urlparses(base):
    from urllib.parse import urlparse

    from xnews_gui.core.text.urls import _origin

    parts = urlparse(base)
    expected = f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""
    assert _origin(base) == expected
