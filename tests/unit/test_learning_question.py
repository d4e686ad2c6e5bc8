"""The question Save asks when the rules learned from the site give other values: it shows where the two
values part. A walkthrough saw "before: Tief verborgen unter dem dichten Dach…" and "after:" the same 90
characters, and could not choose."""

from __future__ import annotations

from xnews_gui.ui.inspector.learning import where_they_differ

STORY = "Tief verborgen unter dem dichten Dach des Regenwaldes kommen verborgene Städte ans Licht. " * 4


def test_two_bodies_that_start_alike_are_shown_from_where_they_part():
    before, after = where_they_differ(STORY + "Mehr zum Thema: Fotostrecke, Impressum.", STORY)
    assert before != after
    assert before.startswith("(57 words) \u2026 ") and "Mehr zum Thema" in before
    assert after.startswith("(52 words) \u2026 ") and "Mehr zum Thema" not in after


def test_a_change_in_the_middle_and_an_empty_value():
    before, after = where_they_differ(STORY + "Alte Fassung. " + STORY, STORY + "Neue Fassung. " + STORY)
    assert "Alte Fassung" in before and "Neue Fassung" in after
    assert where_they_differ("Ein Titel", "") == ("(2 words) Ein Titel", "(empty)")
    assert where_they_differ("Kurz", "Kurz und mehr") == ("(1 word) Kurz", "(3 words) Kurz und mehr")
