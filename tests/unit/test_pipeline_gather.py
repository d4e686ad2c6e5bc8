"""The item pipeline's gather: its thread sleeps until the batch is full, its gathering time is up,
the crawl hurries it or closes it; entries leave in the order they came."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from xnews_gui.core.text import text
from xnews_gui.crawl import pipeline
from xnews_gui.crawl.request import Request
from xnews_gui.crawl.pipeline import BATCH, ItemPipeline, ModelSource, PageItem


class _Sink:
    def __init__(self):
        self.batches: list[tuple[list, list]] = []  # (article urls, page urls) per write
        self.body_pieces: list = []  # per write
        self.written = threading.Event()
        self.released = False

    def write_batch(self, articles, pages, failures, images, body_pieces=None):
        self.batches.append(([a.url for a, _, _, _ in articles], [p[0] for p in pages]))
        self.body_pieces.append(body_pieces)
        self.written.set()
        return [(n, True) for n, _ in enumerate(articles)]

    def release(self):
        self.released = True


def _item(n: int, body: str = "b") -> PageItem:
    url = f"http://site.test/a{n}.htm"
    item = PageItem(Request(url, "article"), url, 200, "text/html", "utf-8", "")
    item.article = SimpleNamespace(url=url, title=f"t{n}", summary="", body_text=body)
    return item


@pytest.fixture
def stage():
    sink, stored = _Sink(), []
    stage = ItemPipeline(sink, ModelSource(None, on_error=print), on_stored=lambda item, outcome: stored.append(item.url),
                         on_error=lambda *a: None)
    stage.start()
    yield stage, sink, stored
    stage.close()


def test_a_full_batch_is_written_at_once(stage, monkeypatch):
    monkeypatch.setattr(pipeline, "GATHER_S", 3600.0)
    stage, sink, stored = stage
    for n in range(BATCH + 3):
        stage.article(_item(n))
    assert sink.written.wait(60), "a full batch waits out its gathering time"
    assert [len(a) for a, _ in sink.batches[:1]] == [BATCH]
    assert sink.batches[0][0] == [f"http://site.test/a{n}.htm" for n in range(BATCH)]


def test_a_gather_takes_what_comes_until_hurried(stage, monkeypatch):
    monkeypatch.setattr(pipeline, "GATHER_S", 3600.0)
    stage, sink, stored = stage
    stage.page("http://site.test/list.htm", 200)
    for n in range(3):
        stage.article(_item(n))
    stage.page("http://site.test/list2.htm", 200)
    assert not sink.written.wait(0.2)  # still gathering
    stage.hurry()
    assert sink.written.wait(60)
    assert sink.batches == [([f"http://site.test/a{n}.htm" for n in range(3)],
                             ["http://site.test/list.htm", "http://site.test/list2.htm"])]
    assert stored == [f"http://site.test/a{n}.htm" for n in range(3)]


def test_close_writes_everything_queued_in_batches_then_releases_the_sink(monkeypatch):
    monkeypatch.setattr(pipeline, "GATHER_S", 3600.0)
    sink, stored = _Sink(), []
    stage = ItemPipeline(sink, ModelSource(None, on_error=print), on_stored=lambda item, outcome: stored.append(item.url),
                         on_error=lambda *a: None, max_articles_queued=3 * BATCH)
    for n in range(2 * BATCH + 5):  # queued before the thread starts: taken in order, BATCH at a time
        stage.article(_item(n))
    stage.page("http://site.test/last.htm", 200)
    stage.start()
    stage.close()
    assert [len(a) for a, _ in sink.batches] == [BATCH, BATCH, 5]
    assert stored == [f"http://site.test/a{n}.htm" for n in range(2 * BATCH + 5)]
    assert sink.batches[-1][1] == ["http://site.test/last.htm"] and sink.released



class _Model:
    def predict(self, text):
        return "Thời sự", 0.5

    def predict_many(self, texts, pieces=None):
        return [("Thời sự", 0.5)] * len(texts)


@pytest.mark.parametrize("model", [_Model(), None])
def test_the_sink_gets_each_body_as_the_classifier_cut_it(model):
    """With a model, the sink gets each article's body as ``core.text.pieces`` (cut once, for the
    classifier and the signature); without one, None for each (the sink cuts the bodies itself)."""
    sink = _Sink()
    stage = ItemPipeline(sink, ModelSource(model, on_error=print), on_stored=lambda item, outcome: None,
                         on_error=lambda *a: None)
    bodies = ["Hà Nội\nmùa thu", "", None, "giá\u00a0xăng  tăng\r\n"]
    for n, body in enumerate(bodies):
        stage.article(_item(n, body))
    stage.start()
    stage.close()
    expected = [text.pieces(body or "") for body in bodies] if model else [None] * len(bodies)
    assert sink.body_pieces == [expected]
