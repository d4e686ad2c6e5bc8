import pytest

from xnews_gui.core.text.dates import parse_date


@pytest.mark.parametrize(
    "text, iso",
    [
        ("2024-03-12T10:30:00+07:00", "2024-03-12T10:30:00+07:00"),
        ("2024-03-12T03:30:00Z", "2024-03-12T03:30:00+00:00"),
        ("Thứ ba, 12/3/2024, 10:30 (GMT+7)", "2024-03-12T10:30:00+07:00"),
        ("10:30 12/03/2024", "2024-03-12T10:30:00"),
        ("4:42 PM on 12/07/2012", "2012-07-12T16:42:00"),
        ("12:05 am 01/02/2020", "2020-02-01T00:05:00"),
        ("March 5, 2021", "2021-03-05T00:00:00"),
    ],
)
def test_dates_as_news_pages_write_them(text, iso):
    assert parse_date(text) == iso


@pytest.mark.parametrize("text", ["", "   ", "no date here", "31/02/2024",
                                  "torsdag 09. mai 2024 - 13:26",  # a month it cannot read is not today's month
                                  "13:26", "2024"])
def test_unreadable_dates_give_none(text):
    assert parse_date(text) is None


@pytest.mark.parametrize("text", ["torsdag 09. mai 2024 - 13:26", "13:26", "09. mai", "Published Jan 2020",
                                  "Updated 5 March"])
def test_a_date_missing_its_day_month_or_year_is_no_date_rather_than_today(text):
    """dateutil fills what the text lacks from today: the same page gave another date each day."""
    assert parse_date(text) is None


def test_a_date_rule_whose_value_reads_as_no_date_lets_the_next_rule_try():
    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.profile.profile import Profile

    page = ('<html><head><script type="application/ld+json">{"@type": "NewsArticle", '
            '"datePublished": "2024-05-09T11:26:41.000Z"}</script></head><body><h1>Nordmann dømt</h1>'
            '<time datetime="torsdag 09. mai 2024 - 13:26">Publisert</time><p>Tekst.</p></body></html>')
    profile = Profile.from_dict({
        "schema": 2, "name": "t", "start_urls": ["http://example.test/"],
        "fields": {"title": {"kind": "css", "selector": "h1", "take": "text"},
                   "date": {"rules": [{"kind": "css", "selector": "time", "take": "attr:datetime"},
                                      {"kind": "jsonld", "selector": "datePublished"}]}}})
    article = extract(page, "http://example.test/a.html", profile)
    assert article.date == "2024-05-09T11:26:41+00:00"
    assert "date" not in article.multiple
