"""What a child process writes to the app is read safely: a message of the wrong shape is skipped (it
raised in the Qt thread and left a crawl shown as running forever), an over-long line costs linear time
and bounded memory (it was quadratic: 14 s of the Qt thread for one 32 MB line), and the crawl's child
keeps its strings short (a page's 4 MB headline was one 4 MB line)."""

from __future__ import annotations

import json

from xnews_gui.services.crawl_child import MAX_EVENT_TEXT, _short
from xnews_gui.ui.child_lines import ChildLines


def lines(max_line: int = 1024 * 1024) -> ChildLines:
    return ChildLines("test child", {"state": str, "article": dict, "failed": dict, "review": list}, max_line)


def line(kind, data) -> bytes:
    return json.dumps({"kind": kind, "data": data}).encode() + b"\n"


def test_messages_of_the_wrong_shape_are_skipped_and_the_rest_read():
    reader = lines()
    chunk = (line("failed", "boom") + line("article", {"id": 1}) + b"not json\n" + line(5, {}) +
             line("log", {"message": "a kind not expected"}) + line("state", {"x": 1}) + line("state", "running") +
             b'{"kind": "article"}\n' + b"[" * 100_000 + b"\n" + line("review", [1, 2]) + line("failed", {"message": "m"}))
    assert reader.feed(chunk) == [("article", {"id": 1}), ("state", "running"), ("review", [1, 2]),
                                  ("failed", {"message": "m"})]


def test_a_message_split_over_chunks_is_read_once_whole():
    reader, data = lines(), line("article", {"id": 7, "title": "Tiêu đề"})
    got = []
    for i in range(0, len(data), 3):
        got += reader.feed(data[i:i + 3])
    assert got == [("article", {"id": 7, "title": "Tiêu đề"})]


def test_an_over_long_line_is_skipped_in_bounded_memory_and_the_next_one_read():
    reader = lines(max_line=4 * 1024 * 1024)
    huge = line("article", {"title": "x" * (32 * 1024 * 1024)})
    got, most_held = [], 0
    for i in range(0, len(huge), 65536):  # as a pipe delivers it; each chunk is split alone (linear time)
        got += reader.feed(huge[i:i + 65536])
        most_held = max(most_held, reader._pending_bytes)
    got += reader.feed(line("article", {"id": 2}))
    assert got == [("article", {"id": 2})]
    assert most_held <= 4 * 1024 * 1024 and reader._pending_bytes == 0


def test_the_crawl_child_cuts_long_strings_in_its_events():
    event = {"id": 1, "title": "H" * 4_000_000, "nested": {"why": ["w" * 10_000]}, "n": 3}
    short = _short(event)
    assert len(short["title"]) == MAX_EVENT_TEXT + 1 and short["title"].endswith("\u2026")
    assert len(short["nested"]["why"][0]) == MAX_EVENT_TEXT + 1 and short["id"] == 1 and short["n"] == 3
    assert _short({"title": "short"}) == {"title": "short"}


def test_an_over_long_line_that_arrives_in_one_read_is_skipped_too():
    reader = lines(max_line=1024)
    big = line("article", {"title": "x" * 5000})
    assert reader.feed(big + line("article", {"id": 3})) == [("article", {"id": 3})]
    assert reader.feed(big[:600]) == [] and reader.feed(big[600:]) == []  # begun short, ended long
