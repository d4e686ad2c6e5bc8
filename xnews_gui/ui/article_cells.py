"""What a row of the results table says: its six cells' texts (Site, Title, Topic, Date, Fetched,
Status) and their tooltips, from a row as the store reads it (``store.queries.ROW_COLUMNS``)."""

from __future__ import annotations

from typing import Callable

from ..core.text.topics import display_name
from ..store.queries import ROW_COLUMNS
from .dates import short_date, utc_to_local
from .topic_display import declined, topic_text

_C = {name: i for i, name in enumerate(ROW_COLUMNS)}


def source_note(updated_at, gone_at) -> str:
    """A row's tooltip line about its source: removed there (✕), or a changed version stored (↻)."""
    if gone_at:
        return f"\n✕ Removed at the source on {utc_to_local(gone_at)[:10]} (this copy is kept)"
    if updated_at:
        return f"\n↻ Updated {utc_to_local(updated_at)[:16]} (the earlier text is kept)"
    return ""


def cell_text(row: tuple, col: int, today: Callable[[], str]):
    """The text of column ``col``; ``today()``: today's date (ISO), for "Fetched" (the time alone today)."""
    if col == 0:
        return row[_C["profile"]]
    if col == 1:
        return row[_C["title"]]
    if col == 2:
        return topic_text(row[_C["category"]], row[_C["confidence"]], row[_C["user_label"]])
    if col == 3:
        return short_date(row[_C["published"]])
    if col == 4:
        return short_date(utc_to_local(row[_C["fetched_at"]]), today=today())
    if col == 5:
        parts = ["★" if row[_C["starred"]] else "", "" if row[_C["read"]] else "new",
                 "✕" if row[_C["gone_at"]] else "↻" if row[_C["updated_at"]] else ""]
        return " ".join(p for p in parts if p)
    return None


def cell_tooltip(row: tuple, col: int, no_topic_reason: Callable[[int], str]) -> str | None:
    """The tooltip of column ``col``; ``no_topic_reason(id)``: why the classifier gave the article no topic."""
    if col == 1:
        sources = row[_C["sources"]] or 1  # near-duplicates of the same story, this one included
        return row[_C["title"]] + (f"\nThe same story from {sources} sources" if sources > 1 else "") \
            + source_note(row[_C["updated_at"]], row[_C["gone_at"]])
    if col == 5 and (row[_C["updated_at"]] or row[_C["gone_at"]]):
        return source_note(row[_C["updated_at"]], row[_C["gone_at"]]).strip()
    if col == 2 and row[_C["user_label"]]:
        return f"{display_name(row[_C['user_label']])}: set by you"
    if col == 2 and declined(row[_C["category"]], row[_C["confidence"]]):
        return no_topic_reason(row[_C["id"]])
    if col == 2 and row[_C["confidence"]] is None:
        return "Not classified (there was no topic model when it was stored)"
    if col == 2 and row[_C["confidence"]] is not None:
        return f"{display_name(row[_C['category']])}: classifier confidence {row[_C['confidence']]:.0%}"
    return None
