"""A rule that matches the rendered page but not the raw HTML: "needs JavaScript" only when the raw HTML lacks
the text too. A BBC page puts its <body class="news"> among IE conditional comments; the browser sees the
class, the crawler's parser does not, and the bar said "Body is built by JavaScript ... Mark render" (a slow
rendered crawl for nothing)."""

from __future__ import annotations

from tests.conftest import shared_data
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.ui.inspector.rule_checks import check_rules

PROFILE = Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://x/"]})


def bbc_page() -> tuple[str, str]:
    """(raw HTML, the page as the browser builds it: the same document, its body with class "news")."""
    import lxml.html

    raw = shared_data("cleanportaleval", "input", "bbc.co.uk_news_01.html").read_text(encoding="utf-8",
                                                                                       errors="replace")
    doc = lxml.html.document_fromstring(raw)
    doc.body.set("class", "news")
    return raw, lxml.html.tostring(doc, encoding="unicode")


def check(raw: str, rendered: str):
    rule = Rule(kind="css", selector="body.news", take="html")
    return check_rules(PROFILE, ["body"], [rule], "http://x/a.htm", rendered, raw)[0]


def test_text_in_the_raw_html_is_no_javascript():
    result = check(*bbc_page())
    assert result.matches == 1 and result.raw_matches == 0, "the parsers agree here: the test shows nothing"
    assert not result.needs_js and result.parsed_otherwise


def test_text_only_in_the_rendered_page_needs_javascript():
    story = "<h1>Popular DIY projects</h1><p>" + "A long paragraph of the story the script writes. " * 5 + "</p>"
    raw = "<html><head><title>t</title></head><body><div id='app'></div><script>build()</script></body></html>"
    rendered = f"<html><head><title>t</title></head><body class='news'><div id='app'>{story}</div></body></html>"
    result = check(raw, rendered)
    assert result.needs_js and not result.parsed_otherwise


def test_a_headline_in_the_raw_html_is_no_javascript_either():
    raw, rendered = bbc_page()
    rule = Rule(kind="css", selector="body.news h1", take="text")
    result = check_rules(PROFILE, ["title"], [rule], "http://x/a.htm", rendered, raw)[0]
    assert result.matches >= 1 and result.raw_matches == 0
    assert not result.needs_js and result.parsed_otherwise


def test_a_headline_only_in_a_raw_pages_link_list_still_needs_javascript():
    """The demo's JavaScript page lists its own headline under "Most read" as a link: no h1 holds it."""
    title = "Quốc hội yêu cầu đẩy nhanh tiến độ giải phóng mặt bằng tại Nha Trang"
    raw = f"<html><body><div id='app'></div><aside><a href='/x'>{title}</a></aside></body></html>"
    rendered = f"<html><body><div id='app'><h1 class='t'>{title}</h1></div><aside><a href='/x'>{title}</a></aside></body></html>"
    rule = Rule(kind="css", selector="h1.t", take="text")
    result = check_rules(PROFILE, ["title"], [rule], "http://x/a.htm", rendered, raw)[0]
    assert result.needs_js and not result.parsed_otherwise
