"""The crawl hands extraction the fetched bytes when they are exactly the decoded page's UTF-8
(``decode_html_utf8``): the article must be the one extracting the text alone gives."""

from __future__ import annotations

from tests import extract_corpus as corpus
from xnews_gui.core.encoding import decode_html_utf8
from xnews_gui.core.extract import extract


def test_extracting_with_the_fetched_bytes_gives_the_same_article():
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
    data = "<html><body><h1>Tin \x01nóng</h1><div class='b'><p>Một đoạn văn đủ dài &#1;cho phần thân.</p></div></body></html>"
    text, _, utf8 = decode_html_utf8(data.encode("utf-8"), "text/html; charset=utf-8")
    assert utf8 is not None
    from xnews_gui.core.text import strip_control_chars_html_utf8
    assert strip_control_chars_html_utf8(text, utf8) == strip_control_chars_html_utf8(text)
    assert "\x01" not in strip_control_chars_html_utf8(text, utf8)[0]
