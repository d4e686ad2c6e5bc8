"""The preview's "fully extracted" count says what holds the other pages back: "0 of 8 article pages fully
extracted" with Title and Body ✓ on every page left a newcomer guessing (an Author rule matched the byline and
the sidebar's authors)."""

from __future__ import annotations

from xnews_gui.core.profile.profile import Profile
from xnews_gui.ui.inspector.preview import _fully
from xnews_gui.ui.inspector.sample import PreviewCell, PreviewRow

PROFILE = Profile.from_dict({"schema": 1, "name": "tv", "start_urls": ["http://a.test/"], "fields": {
    "title": {"kind": "css", "selector": "h1", "take": "text", "required": True},
    "body": {"kind": "css", "selector": "div.entry", "take": "html", "required": True},
    "author": {"kind": "css", "selector": "a.n", "take": "text"}}})


def row(author_state: str) -> PreviewRow:
    return PreviewRow("http://a.test/1", {"title": PreviewCell("A", "ok"), "body": PreviewCell("B", "ok"),
                                          "author": PreviewCell("Zachary Roth", author_state)})


def test_the_count_names_the_field_that_holds_pages_back():
    rows = [row("multiple")] * 7 + [row("ok")]
    assert _fully(rows, PROFILE) == ("1 of 8 article pages fully extracted \u2014 Author matches several elements "
                                     "(the first one is taken) on 7")
    assert _fully([row("ok")] * 3, PROFILE) == "3 of 3 article pages fully extracted"
