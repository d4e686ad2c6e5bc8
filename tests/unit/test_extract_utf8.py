"""The crawl hands extraction the fetched bytes when they are exactly the decoded page's UTF-8
(``decode_html_utf8``): the article must be the one extracting the text alone gives."""

from __future__ import annotations

from tests import extract_corpus as corpus
from tests.conftest import shared_data
from xnews_gui.core.text.encoding import decode_html_utf8
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile


def test_extracting_with_the_fetched_bytes_gives_the_same_article():
    shared_data()  # the real pages: skip with the reason when absent
    profiles = corpus.load_profiles({})
    handed, compared = 0, 0
    articles = [case for case in corpus.cases({}, groups={"demo", "broad"}) if case[1] == "article"]
    for key, kind, html, url, name in articles[::4]:  # demo pages and real ones (the whole corpus: test_extract_same)
        data = html if isinstance(html, bytes) else html.encode("utf-8")
        text, _, utf8 = decode_html_utf8(data)
        handed += utf8 is not None
        compared += 1
        assert extract(text, url, profiles[name], utf8=utf8).to_dict() == extract(text, url, profiles[name]).to_dict(), key
    assert compared > 100 and handed > 0.8 * compared


def test_a_page_with_control_characters_still_loses_them():
    for control in ("\x01", "\x7f", "\x85", "\ufffe", "\uffff"):
        data = (f"<html><body><h1>Tin {control}nóng</h1><div class='b'><p>Một đoạn văn đủ dài &#1;cho "
                "phần thân.</p></div></body></html>").encode("utf-8")
        text, _, utf8 = decode_html_utf8(data, "text/html; charset=utf-8")
        assert utf8 is None, repr(control)  # only bytes free of control characters are handed on
        profile = Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://example.com/"], "fields": {"title": {"kind": "css", "selector": "h1"},
                                                             "body": {"kind": "css", "selector": ".b", "take": "html"}}})
        article = extract(text, "http://example.com/a", profile, utf8=utf8)
        assert article.title == "Tin nóng" and "\x01" not in article.body_html, repr(control)
    clean = "<html><body><h1>Tin nóng</h1><p>Một đoạn&#1; văn &#x1F;</p></body></html>"
    text, _, utf8 = decode_html_utf8(clean.encode("utf-8"), "text/html; charset=utf-8")
    assert utf8 is not None  # references to control characters still go, without the bytes
    from xnews_gui.core.text.text import strip_control_chars_html_utf8
    assert strip_control_chars_html_utf8(text, utf8, clean=True) == strip_control_chars_html_utf8(text)
    assert "&#1;" not in strip_control_chars_html_utf8(text, utf8, clean=True)[0]
