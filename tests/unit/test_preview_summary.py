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


def test_where_the_sample_came_from_names_only_the_sources_it_has():
    from xnews_gui.ui.inspector.preview import _of

    def rows(*sources):
        return [PreviewRow(f"http://a.test/{n}", {}, source=s) for n, s in enumerate(sources)]

    # the list page links to no article: every page came from its sections ("from the list page" was said too)
    assert _of(rows(*["http://a.test/s1", "http://a.test/s2", "http://a.test/s3", "http://a.test/s4"]), 0) == \
        "4 pages from 4 section or next pages; the list page links to 0 articles"
    assert _of(rows("list page", "http://a.test/s1", "sitemap"), 5) == \
        "3 pages from the list page, 1 section or next page and the sitemap; the list page links to 5 articles"
    assert _of(rows("list page", "list page"), 2) == "2 article links on the list page"
