"""Which comes first in a page's numeric dates, the day or the month: 12/07/2012 is 12 July in most of the
world and 7 December in the United States. A date that reads both ways is settled by what the page says
itself, else it is read day first and flagged, never a wrong date in silence.

The page's own evidence, strongest first: a date in its URL (/2012/12/07/) or in its machine-readable
metadata (article:published_time, <time datetime>, schema.org's datePublished) that is one of the two
readings; its other numeric dates that read one way only (08/21/2012 is month first); its language
(en-US, en-PH: month first; any other language, and English of elsewhere: day first). A doubt is the
page's to show (the preview's ✗), not a sign the rules broke: the crawl's degraded check leaves it out.
"""

from __future__ import annotations

import re

from ..text.dates import DATE_DOUBT, day_month_readings, parse_date

_URL_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)[/_-]?(0[1-9]|1[0-2])[/_-]?(0[1-9]|[12]\d|3[01])(?!\d)")
_NUMERIC = re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](?:\d{4})(?![\d/-])(?!\.\d)")
MONTH_FIRST = ("en-us", "en-ph")  # the English of the United States and the Philippines; other English: day first
_MACHINE = ("//meta[@property='article:published_time' or @property='og:updated_time' or "
            "@property='article:modified_time' or @itemprop='datePublished' or @name='date' or "
            "@name='pubdate' or @name='publishdate' or @name='DC.date.issued']/@content"
            " | //time/@datetime | //*[@itemprop='datePublished']/@datetime")
MAX_DATES = 200  # of the page's text and metadata: a bounded look


class PageDates:
    """The evidence of one page, read once and only when a date that reads both ways needs it."""

    def __init__(self, doc, url: str):
        self.doc, self.url = doc, url
        self._days: set[str] | None = None
        self._order: str | None = None

    def days(self) -> set[str]:
        """Days (YYYY-MM-DD) the page's URL and metadata name."""
        if self._days is None:
            found = {f"{y}-{m}-{d}" for y, m, d in _URL_DATE.findall(self.url)}
            try:
                machine = self.doc.xpath(_MACHINE)[:MAX_DATES] if self.doc is not None else []
            except Exception:  # an odd document: no metadata evidence
                machine = []
            found |= {iso[:10] for iso in map(lambda v: parse_date(str(v)[:64]), machine) if iso}
            self._days = found
        return self._days

    def order(self) -> str:
        """"dmy", "mdy" or "" (unknown), from the page's one-way numeric dates, else its language."""
        if self._order is None:
            text = self.doc.text_content() if self.doc is not None else ""
            ways = set()
            for first, second in _NUMERIC.findall(text[:200_000])[:MAX_DATES]:
                if int(first) > 12 >= int(second):
                    ways.add("dmy")
                elif int(second) > 12 >= int(first):
                    ways.add("mdy")
            lang = (self.doc.get("lang") or "").lower().replace("_", "-") if self.doc is not None else ""
            if len(ways) == 1:
                self._order = ways.pop()
            elif lang.startswith(MONTH_FIRST):
                self._order = "mdy"
            elif lang and lang not in ("en", "en-"):  # en-GB, en-AU, en-IN... and every other language
                self._order = "dmy"
            else:
                self._order = ""
        return self._order


def read_date(text: str, page: PageDates) -> tuple[str, str]:
    """(ISO date or "", doubt): the doubt says why a date that reads both ways was read day first."""
    both = day_month_readings(text)
    if both is None:
        return parse_date(text) or "", ""
    day_first, month_first = both
    days = page.days()
    if day_first[:10] in days or month_first[:10] in days:
        return (day_first if day_first[:10] in days else month_first), ""
    order = page.order()
    if order:
        return (month_first if order == "mdy" else day_first), ""
    return day_first, (f"{DATE_DOUBT} {text.strip()[:40]!r} read as {day_first[:10]}, day first (nothing on the "
                       "page says which)")
