import pytest

from xnews_gui.core.dates import parse_date


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
