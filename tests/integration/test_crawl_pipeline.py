"""The item pipeline: articles classified in batches by a model loaded while the crawl starts;
images fetched only from http(s) URLs resolved against the article's own URL."""

from __future__ import annotations

import threading
import time

from .crawl_helpers import Site, html, list_page, make_profile

from xnews_gui.core.text import text
from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink


class _BatchModel:
    def __init__(self):
        self.batches: list[int] = []
        self.cut: list[bool] = []
        self.threads: set[str] = set()

    def predict(self, text):
        raise AssertionError("the pipeline classifies in batches")

    def predict_many(self, texts, pieces=None):
        self.cut.append(pieces == [text.pieces(t) for t in texts])  # each text cut once, by the pipeline
        self.batches.append(len(texts))
        self.threads.add(threading.current_thread().name)
        return [("Thể thao" if "bóng" in t else "Kinh tế", 0.9) for t in texts]


def _article(n: int) -> tuple:
    topic = "bóng đá" if n % 2 else "chứng khoán"
    return html(f"<h1 class='title'>Bài {n}</h1><div class='body'><p>Tin {topic} số {n}.</p></div>")


def test_articles_are_classified_in_batches_by_a_model_loaded_in_the_background(tmp_path):
    routes = {"/": list_page([f"/a{n}.htm" for n in range(40)])}
    routes.update({f"/a{n}.htm": _article(n) for n in range(40)})
    model = _BatchModel()
    loads = []
    sink = MemorySink()
    with Site(routes) as site:
        def loader():  # finishes only once the crawl has fetched an article page: it loads in the background
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not any(p.startswith("/a") for p in site.paths()):
                time.sleep(0.01)
            loads.append(any(p.startswith("/a") for p in site.paths()))
            return model

        summary = Crawler(make_profile(site.url + "/", concurrency=4), sink, state_dir=tmp_path,
                          options=CrawlOptions(fetch_images=False), classifier=loader).run()
    assert summary["articles"] == 40 and loads == [True]
    assert sum(model.batches) == 40 and len(model.batches) < 40 and all(model.cut)
    assert model.threads == {"xnews-crawl-pipeline"}
    by_title = {a["article"].title: a["category"] for a in sink.articles}
    assert by_title["Bài 1"] == "Thể thao" and by_title["Bài 2"] == "Kinh tế"


def test_a_broken_model_loader_leaves_the_section_topic(tmp_path):
    routes = {"/": list_page(["/a1.htm"]), "/a1.htm": _article(1)}
    events = []

    def loader():
        raise ValueError("not a model")

    sink = MemorySink()
    with Site(routes) as site:
        summary = Crawler(make_profile(site.url + "/"), sink, state_dir=tmp_path, classifier=loader,
                          options=CrawlOptions(fetch_images=False), on_event=events.append).run()
    assert summary["articles"] == 1 and sink.articles[0]["confidence"] is None
    assert any("not a model" in e.data.get("message", "") for e in events if e.kind == "log")


PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4"
       b"\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")


def test_a_base_href_in_the_body_does_not_move_images_to_another_host(tmp_path):
    with Site({}) as other:
        body = (f"<h1 class='title'>Ảnh</h1><div class='body'><base href='{other.url}/'>"
                "<p>Có ảnh <img src='pic.png'> <img src='javascript:alert(1)'> <img src='file:///etc/passwd'></p></div>")
        routes = {"/": list_page(["/news/a1.htm"]), "/news/a1.htm": html(body),
                  "/news/pic.png": (200, {"Content-Type": "image/png"}, PNG)}
        sink = MemorySink(image_root=tmp_path / "images")
        with Site(routes) as site:
            summary = Crawler(make_profile(site.url + "/"), sink, state_dir=tmp_path).run()
    assert summary["articles"] == 1 and summary["images"] == 1
    assert other.paths() == []  # the other host was never asked for anything
    assert [i["url"] for i in sink.images] == [site.url + "/news/pic.png"]
    assert "/news/pic.png" in site.paths()


def test_fetch_threads_only_fetch_and_one_thread_parses(tmp_path, monkeypatch):
    """Pages (and images) are fetched by the fetch threads; every page is parsed by the one parse thread."""
    from xnews_gui.crawl.downloader import Downloader
    from xnews_gui.crawl.parse import PageParser

    seen: dict[str, set[str]] = {"parse": set(), "page": set(), "image": set()}

    def recording(cls, name, what):
        original = getattr(cls, name)

        def wrapper(*args, **kwargs):
            seen[what].add(threading.current_thread().name)
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, wrapper)

    recording(PageParser, "list_page", "parse")
    recording(PageParser, "article_page", "parse")
    recording(Downloader, "page", "page")
    recording(Downloader, "image", "image")
    routes = {"/": list_page([f"/news/a{n}.htm" for n in range(12)]),
              **{f"/news/p{n}.png": (200, {"Content-Type": "image/png"}, PNG) for n in range(12)},
              **{f"/news/a{n}.htm": html(f"<h1 class='title'>Bài {n}</h1><div class='body'><p>Tin {n}."
                                         f"<img src='p{n}.png'></p></div>") for n in range(12)}}
    sink = MemorySink(image_root=tmp_path / "images")
    with Site(routes) as site:
        summary = Crawler(make_profile(site.url + "/", concurrency=4), sink, state_dir=tmp_path).run()
    assert summary["articles"] == 12 and summary["images"] == 12
    assert seen["parse"] == {"xnews-crawl-parse"}
    fetchers = seen["page"] | seen["image"]
    assert fetchers and all(name.startswith("xnews-crawl-") and name[len("xnews-crawl-"):].isdigit()
                            for name in fetchers)


def test_the_last_batch_is_written_without_waiting_for_company(tmp_path, monkeypatch):
    """Once every other page is over nothing more can join the pipeline's batch: the crawl hurries it
    instead of letting it wait out its gathering time (here an hour)."""
    from xnews_gui.crawl import pipeline

    monkeypatch.setattr(pipeline, "GATHER_S", 3600.0)
    routes = {"/": list_page([f"/a{n}.htm" for n in range(10)])}
    routes.update({f"/a{n}.htm": _article(n) for n in range(10)})
    sink = MemorySink()
    summaries = []
    with Site(routes) as site:
        crawler = Crawler(make_profile(site.url + "/", concurrency=4), sink, state_dir=tmp_path,
                          options=CrawlOptions(fetch_images=False))
        run = threading.Thread(target=lambda: summaries.append(crawler.run()), daemon=True)
        run.start()
        run.join(timeout=60)
        assert not run.is_alive(), "the last batch waits out its gathering time"
    assert summaries and summaries[0]["status"] == "finished" and summaries[0]["articles"] == 10
    assert len(sink.articles) == 10
