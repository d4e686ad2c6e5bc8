"""How the results table writes dates: local fetch times, short publication dates."""

from __future__ import annotations

from datetime import datetime, timezone


def utc_to_local(value) -> str:
    """The store keeps fetch times in UTC; people read local time."""
    try:
        dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        return str(value or "")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone().replace(tzinfo=None).isoformat(sep=" ")


def short_date(value, today: str | None = None) -> str:
    """'2026-11-28T14:55:00+07:00' -> '2026-11-28 14:55' (just '14:55' on ``today``); else as it is."""
    if not value:
        return ""
    text = value.isoformat(sep=" ") if isinstance(value, datetime) else str(value)
    if len(text) >= 16 and text[4] == "-" and text[10] in "T ":
        return text[11:16] if text[:10] == today else text[:10] + " " + text[11:16]
    return text
