"""The crawl parses a fetched page from its bytes and decodes its text only when something asks for it
(``core.text.encoding.FetchedHtml``, ``core.extraction.html_text.parse_fetched``). What it gives must be what decoding
first gives: the same text, encoding and bytes as ``decode_html_utf8``, the same tree, the same article.
Whether the bytes are valid UTF-8 is then lxml's word: it must report every invalid sequence."""

from __future__ import annotations

import itertools
import unicodedata

import lxml.html
import pytest

from xnews_gui.core.text.encoding import FetchedHtml, decode_html_utf8, utf8_if_valid
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.html_text import _utf8_html_parser, parse_fetched, parse_page
from xnews_gui.core.profile.profile import Profile

URL = "http://example.com/tin/bai-1.htm"
UTF8 = "text/html; charset=utf-8"
# one byte of each kind the UTF-8 decoder tells apart: ASCII, continuation ranges, leads, never-valid
KINDS = [b"a", b"<", b" "] + [bytes([x]) for x in (0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                                   0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF)]


def _quiet(parser, data: bytes) -> bool:
    try:
        lxml.html.document_fromstring(data, parser=parser)
    except Exception:
        return False
    return len(parser.error_log) == 0


def test_lxml_reports_every_invalid_utf8_sequence():
    """Sequences of up to 3 bytes of every kind (4 with a 4-byte lead) in text, an attribute and at the
    end: whenever lxml reports nothing, Python's strict decoder takes the bytes too."""
    parser = _utf8_html_parser()
    contexts = [(b"<html><body><p>x", b"y</p></body></html>"), (b"<html><body><p title='", b"'>y</p></body></html>"),
                (b"<html><body><p>x", b"")]
    sequences = [b"".join(s) for n in (1, 2, 3) for s in itertools.product(KINDS, repeat=n)]
    sequences += [lead + b"".join(s) for lead in (b"\xf0", b"\xf4") for s in itertools.product(KINDS[3:9], repeat=3)]
    missed, checked = [], 0
    for seq in sequences:
        for before, after in contexts:
            data = before + seq + after
            if _quiet(parser, data):
                checked += 1
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    missed.append(data)
    assert not missed, missed[:5]
    assert checked > 1000  # valid ones were parsed quietly


def _page(body: str) -> str:
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Tin</title></head><body>"
            f"<h1>Tiêu đề bài viết đủ dài</h1><div class='b'>{body}</div></body></html>")


CASES = {
    "clean": (_page("<p>Hà Nội mùa thu, đường phố ngập lá vàng.</p>").encode(), UTF8),
    "ascii": (_page("<p>plain text</p>").encode(), None),
    "invalid byte": (_page("<p>Hà Nội</p>").encode() + b"\xff", UTF8),
    "ASCII inside a character": (_page("<p>Hà Nội</p>").encode().replace("à".encode(), b"\xc3a"), UTF8),
    # its non-ASCII bytes alone are UTF-8 ("à" = c3 a0): only a parser of the whole page sees the break
    "a character split by ASCII": (_page("<p>Hà Nội</p>").encode().replace("à".encode(), b"\xc3x\xa0"), UTF8),
    "surrogate": (_page("<p>x</p>").encode().replace(b"<p>x", b"<p>\xed\xa0\x80x"), None),
    "decomposed": (unicodedata.normalize("NFD", _page("<p>Hà Nội</p>")).encode(), UTF8),
    "control": (_page("<p>a\x01b</p>").encode(), UTF8),
    "control reference": (_page("<p>a&#1;b &#x1F; &#39;</p>").encode(), UTF8),
    "harmless references": (_page("<p>a &#39; b &amp; c &#8220;</p>").encode(), UTF8),
    "C1": (_page("<p>a\x85b</p>").encode(), UTF8),
    "replacement character": (_page("<p>a\ufffdb</p>").encode(), UTF8),
    "byte-order mark": (b"\xef\xbb\xbf" + _page("<p>Hà</p>").encode(), None),
    "windows-1252 header": (_page("<p>café</p>").encode(), "text/html; charset=windows-1252"),
    "windows-1252 meta": (_page("<p>café</p>").replace("utf-8", "windows-1252").encode("cp1252", "replace"), None),
    "xml declaration": (b"<?xml version='1.0' encoding='utf-8'?>" + _page("<p>Hà</p>").encode(), None),
    "leading nbsp": (("\u00a0" + _page("<p>Hà</p>")).encode(), None),
    "blank": (b"  \n ", UTF8),
    "empty": (b"", UTF8),
    "no tags": ("chữ".encode(), None),
}


@pytest.mark.parametrize("name", CASES)
def test_a_fetched_page_reads_and_parses_as_its_decoded_text(name):
    data, content_type = CASES[name]
    text, encoding, utf8 = decode_html_utf8(data, content_type)
    page = FetchedHtml(data, content_type)
    doc = parse_fetched(page, URL)
    assert (page.text, page.encoding, page.utf8) == (text, encoding, utf8)
    if doc is not None:
        assert lxml.html.tostring(doc) == lxml.html.tostring(parse_page(text, utf8, URL))
    if utf8_if_valid(data, content_type) is not None and utf8 is None:
        assert doc is None  # a candidate that is not valid UTF-8 takes the text way


PROFILE = Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://example.com/"], "fields": {
    "title": {"kind": "css", "selector": "h1", "required": True},
    "summary": {"kind": "regex", "selector": "<title>(.*?)</title>"},
    "body": {"kind": "css", "selector": ".b", "take": "html"}}})


@pytest.mark.parametrize("name", CASES)
def test_a_fetched_page_gives_the_article_its_decoded_text_gives(name):
    data, content_type = CASES[name]
    text, _, utf8 = decode_html_utf8(data, content_type)
    assert extract(FetchedHtml(data, content_type), URL, PROFILE).to_dict() == \
        extract(text, URL, PROFILE, utf8=utf8).to_dict()


def test_the_text_is_decoded_only_when_a_rule_reads_it():
    data = CASES["clean"][0]
    css_only = Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://example.com/"],
                                  "fields": {"title": {"kind": "css", "selector": "h1"}}})
    page = FetchedHtml(data, UTF8)
    extract(page, URL, css_only)
    assert page._decoded is None and page.encoding == "utf-8" and page.utf8 is data
    page = FetchedHtml(data, UTF8)
    assert extract(page, URL, PROFILE).summary == "Tin"
    assert page._decoded is not None


@pytest.mark.slow
def test_pinned_pages_fetched_as_bytes_give_their_pinned_articles():
    """A third of the pinned extraction corpus (tests/extract_corpus.py: simulator, demo and real pages)
    through the crawl's way - fetched bytes, text decoded only if needed - gives the pinned articles."""
    from tests import extract_corpus as corpus
    from tests.conftest import shared_data

    shared_data()  # the real pages: skip with the reason when absent (the pinned corpus is in the repository)
    pinned = corpus.read_fixture()
    profiles = corpus.load_profiles(pinned["induced_profiles"])
    compared = from_bytes = 0
    for key, kind, html, url, name in corpus.cases(pinned["induced_profiles"])[::3]:
        if kind != "article" or key not in pinned["cases"]:
            continue
        if isinstance(html, str):
            try:
                data, content_type = html.encode("utf-8"), UTF8
            except UnicodeEncodeError:  # a lone surrogate: no fetched page is that
                continue
        else:
            data, content_type = html, None
        page = FetchedHtml(data, content_type)
        out = corpus.article_output(page, url, profiles[name])
        assert corpus._digest(out) == pinned["cases"][key][1], key
        compared += 1
        from_bytes += page._valid
    assert compared > 250 and from_bytes > 0.4 * compared, (compared, from_bytes)


def test_a_body_prepared_in_place_reads_nothing_outside_itself():
    """The body's last rule prepares its container where it is (no copy): what it gives must be what its
    detached copy gives, also where a copy would see less (a <picture> around it: image_source looks
    two levels up) and where the page is read after the body (og:image without an image rule)."""
    page = ("<html><head><meta property='og:image' content='http://example.com/og.jpg'></head><body>"
            "<h1>Tiêu đề bài viết đủ dài</h1><picture><div class='b'><img data-x='1'><p>Một đoạn văn.</p></div>"
            "<source srcset='http://example.com/real.jpg'></picture>"
            "<div class='c'><script>x()</script><img data-src='/lazy.jpg'><p>Đoạn hai.</p></div></body></html>")
    fields = {"title": {"kind": "css", "selector": "h1"}}
    for body, image in ((".b", True), (".c", True), (".c", False), ("picture", True)):
        spec = dict(fields, body={"kind": "css", "selector": body, "take": "html"})
        if image:
            spec["image"] = {"kind": "css", "selector": "h1", "take": "attr:data-none"}
        profile = Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://example.com/"], "fields": spec})
        import xnews_gui.core.extraction.extract as ex

        in_place = extract(FetchedHtml(page.encode(), UTF8), URL, profile).to_dict()
        real = ex._changed_in_place
        ex._changed_in_place = lambda elements: False
        try:
            copied = extract(FetchedHtml(page.encode(), UTF8), URL, profile).to_dict()
        finally:
            ex._changed_in_place = real
        assert in_place == copied, (body, image)
