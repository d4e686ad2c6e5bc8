"""A numeric date that reads both ways (12/07/2012: 12 July, or 7 December in the United States) is read the
way the page itself says, else day first and flagged: on a US site the Articles list showed 2012-07-12 for
a story its own URL dates 2012/12/07, and the preview marked it ✓."""

from __future__ import annotations

import re

import lxml.html
import pytest

from tests.conftest import shared_data
from xnews_gui.core.extraction.date_order import PageDates, read_date
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.text.dates import day_month_readings, parse_date


def page(body: str = "", lang: str = "", head: str = ""):
    return lxml.html.document_fromstring(f"<html{f' lang={lang!r}' if lang else ''}><head>{head}</head>"
                                         f"<body>{body}</body></html>")


def test_the_two_readings_and_the_one_way_dates():
    assert day_month_readings("4:42 PM on 12/07/2012") == ("2012-07-12T16:42:00", "2012-12-07T16:42:00")
    assert day_month_readings("08/21/2012") is None and day_month_readings("21/08/2012") is None
    assert day_month_readings("12/12/2012") is None and day_month_readings("December 7, 2012") is None
    assert parse_date("08/21/2012") == parse_date("08/21/2012", month_first=True) == "2012-08-21T00:00:00"
    assert parse_date("12/07/2012", month_first=True) == "2012-12-07T00:00:00"
    assert parse_date("Thứ năm, 12/7/2012 10:30 (GMT+7)") == "2012-07-12T10:30:00+07:00"


@pytest.mark.parametrize("url, doc, expected", [
    ("http://tv.example/2012/12/07/the-fiscal-cliff/", page(), "2012-12-07"),  # the URL's date
    ("http://news.example/story-1", page(head="<meta property='article:published_time' "
                                              "content='2012-12-07T16:42:00-05:00'>"), "2012-12-07"),
    ("http://news.example/story-1", page("<time datetime='2012-07-12'>x</time>"), "2012-07-12"),
    ("http://news.example/story-1", page("Updated 08/21/2012"), "2012-12-07"),  # the page's one-way dates
    ("http://news.example/story-1", page("Cập nhật 21/08/2012"), "2012-07-12"),
    ("http://news.example/story-1", page(lang="en-US"), "2012-12-07"),
    ("http://news.example/story-1", page(lang="de"), "2012-07-12"),
])
def test_the_page_says_which_way(url, doc, expected):
    iso, doubt = read_date("4:42 PM on 12/07/2012", PageDates(doc, url))
    assert (iso[:10], doubt) == (expected, "")


def test_nothing_on_the_page_says_so_it_is_read_day_first_and_flagged():
    for doc in (page(), page(lang="en"), page("Posted 08/21/2012 and 21/08/2012")):  # silent, or both ways
        iso, doubt = read_date("12/07/2012", PageDates(doc, "http://news.example/story"))
        assert iso.startswith("2012-07-12") and doubt.startswith("day or month first? '12/07/2012'")


def _msnbc(n: int) -> tuple[str, str]:
    html = shared_data("cleanportaleval", "input", f"tv.msnbc.com_news_{n:02d}.html").read_text(encoding="utf-8",
                                                                                               errors="replace")
    return html, re.search(r'property="og:url" content="([^"]+)"', html)[1]


PROFILE = Profile.from_dict({"schema": 1, "name": "tv", "start_urls": ["http://tv.msnbc.com/"], "fields": {
    "title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
    "date": {"kind": "xpath", "take": "text",  # the line a user clicks: "4:42 PM on 12/07/2012"
             "selector": "//*[contains(text(), ' on ') and (contains(text(), ' PM ') or contains(text(), ' AM '))]"}}})


def test_a_real_us_page_gets_its_date_and_without_the_urls_word_a_flag():
    html, url = _msnbc(1)
    assert url.endswith("/2012/12/07/people-dont-understand-the-fiscal-cliff/")
    article = extract(html, url, PROFILE)
    assert article.date.startswith("2012-12-07") and not article.checks.get("date")
    article = extract(html, "http://tv.msnbc.com/story", PROFILE)  # nothing on the page says which way
    assert article.date.startswith("2012-07-12") and article.checks["date"][0].startswith("day or month first?")
    html, url = _msnbc(2)  # 08/21/2012 reads one way only
    assert extract(html, "http://tv.msnbc.com/story", PROFILE).date.startswith("2012-08-21")


@pytest.mark.parametrize("lang, expected", [("en-GB", "2023-10-05"), ("en-AU", "2023-10-05"), ("en-IN", "2023-10-05"),
                                            ("en-US", "2023-05-10"), ("en-PH", "2023-05-10"), ("fr", "2023-10-05")])
def test_english_outside_the_united_states_writes_the_day_first(lang, expected):
    iso, doubt = read_date("05/10/2023", PageDates(page(lang=lang), "http://news.example/story"))
    assert (iso[:10], doubt) == (expected, "")


def test_a_one_way_date_before_a_full_stop_counts():
    iso, doubt = read_date("05/10/2023", PageDates(page("Posted 21/08/2012. Updated later."), "http://a.test/x"))
    assert (iso[:10], doubt) == ("2023-10-05", "")


def test_a_doubtful_date_is_shown_but_is_no_broken_rule_for_the_crawl():
    """Every page of a site that says nothing of its order is doubtful: the crawl called the date field
    degraded (a layout-change alarm) on 12 of 30 pages."""
    from xnews_gui.core.profile.verify import Verifier

    verifier = Verifier()
    for i in range(30):
        article = extract(f"<html><body><h1>Story {i}</h1><span class='d'>05/{i % 12 + 1:02d}/2023</span>"
                          "</body></html>", f"http://news.example/story-{i}", Profile.from_dict({
                              "schema": 1, "name": "d", "start_urls": ["http://news.example/"], "fields": {
                                  "title": {"kind": "css", "selector": "h1", "take": "text"},
                                  "date": {"kind": "css", "selector": "span.d", "take": "text"}}}))
        verifier.add(article)
    assert article.checks["date"][0].startswith("day or month first?")  # the last page's (05/06) is doubtful...
    assert "date" not in verifier.degraded()  # ...and the crawl does not call the rule broken
