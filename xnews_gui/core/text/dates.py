"""Dates as news pages write them -> ISO 8601 (Vietnamese pages put the day first)."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from dateutil import parser as dateparser

_VN_DATE = re.compile(
    r"(?P<d>\d{1,2})[/.-](?P<m>\d{1,2})[/.-](?P<y>\d{4})(?:\D{1,12}?(?P<H>\d{1,2})[:hg](?P<M>\d{2}))?"
)
_TIME_FIRST = re.compile(
    r"(?P<H>\d{1,2})[:hg](?P<M>\d{2})\s*(?P<ampm>[AaPp]\.?[Mm]\.?)?\D{0,12}?(?P<d>\d{1,2})[/.-](?P<m>\d{1,2})[/.-](?P<y>\d{4})"
)
_TZ = re.compile(r"GMT\s*([+-]\d{1,2})", re.I)
_DEFAULTS = (datetime(2000, 1, 1), datetime(2001, 2, 2))
DATE_DOUBT = "day or month first?"  # how a date read day first by default says so (extraction.date_order)


def day_month_readings(text: str) -> tuple[str, str] | None:
    """(day first, month first) ISO readings of a numeric date in ``text`` that reads both ways (12/07/2012),
    else None (one way only, 21/08/2012 or 08/21/2012, or the same day both ways, or no numeric date)."""
    if not text or not text.strip():
        return None
    m = _TIME_FIRST.search(text) or _VN_DATE.search(text)
    if m is None or not (1 <= int(m["d"]) <= 12 and 1 <= int(m["m"]) <= 12) or int(m["d"]) == int(m["m"]):
        return None
    day_first, month_first = parse_date(text), parse_date(text, month_first=True)
    return (day_first, month_first) if day_first and month_first else None


def parse_date(text: str, month_first: bool = False) -> str | None:
    """ISO 8601 for the date in ``text``, or None when none can be read. Numeric dates are read day first
    (12/07/2012 is 12 July) unless ``month_first`` (the United States' order); one that reads only one way
    (08/21/2012) is read that way."""
    if not text or not text.strip():
        return None
    text = text.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).isoformat()
    except ValueError:
        pass
    m = _TIME_FIRST.search(text) or _VN_DATE.search(text)
    if m:
        hour = int(m["H"] or 0)
        ampm = (m.groupdict().get("ampm") or "").lower()
        if ampm.startswith("p") and hour < 12:
            hour += 12
        elif ampm.startswith("a") and hour == 12:
            hour = 0
        day, month = (int(m["m"]), int(m["d"])) if month_first else (int(m["d"]), int(m["m"]))
        if month > 12 >= day:  # only the other order makes a date
            day, month = month, day
        try:
            dt = datetime(int(m["y"]), month, day, hour, int(m["M"] or 0))
        except ValueError:
            dt = None
        if dt is not None:
            tz = _TZ.search(text)
            iso = dt.isoformat()
            if tz:
                hours = int(tz.group(1))
                iso += f"{'+' if hours >= 0 else '-'}{abs(hours):02d}:00"
            return iso
    try:
        # dateutil fills a part the text lacks from its default (today's, unless given): read the
        # text with two defaults, and a date whose day, month or year came from them is no date
        first, second = (dateparser.parse(text, fuzzy=True, dayfirst=not month_first, default=default)
                         for default in _DEFAULTS)
    except (ValueError, OverflowError, TypeError):
        return None
    return first.isoformat() if first.date() == second.date() else None


def as_utc(when: datetime) -> datetime | None:
    """``when`` in UTC (a naive one is taken as UTC); None for a time UTC cannot hold (year 1 at +05:00,
    year 9999 at -05:00: a page's or a server's date is data from outside)."""
    try:
        return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    except (OverflowError, ValueError):
        return None
