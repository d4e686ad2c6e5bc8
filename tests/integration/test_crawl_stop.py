"""Stop and pause take effect within about a second even when requests hang: a server that
accepts a connection and never answers, and one that is slow to accept connections at all."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from .crawl_helpers import Site, make_profile

from xnews_gui.crawl import CrawlOptions, Crawler, MemorySink


def crawler_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("xnews-crawl")]


class Silent:
    """A route that reads the request and never answers (until the test ends)."""

    def __init__(self):
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, handler):
        self.calls += 1
        self.release.wait(30)


class NoAccept:
    """A listening socket whose backlog fills and which never accepts: the first connections wait
    for an answer, the next ones wait to connect."""

    def __enter__(self) -> "NoAccept":
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __exit__(self, *exc) -> None:
        self.sock.close()


def _start(crawler: Crawler) -> tuple[threading.Thread, dict]:
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(crawler.run()), name="test-crawl-run")
    thread.start()
    return thread, result


def _stop_quickly(crawler: Crawler, thread: threading.Thread, result: dict) -> None:
    started = time.monotonic()
    crawler.stop()
    assert time.monotonic() - started < 0.5  # stop() itself does not wait
    thread.join(1.5)
    assert not thread.is_alive(), "run() still going 1.5 s after stop()"
    assert time.monotonic() - started < 1.5
    assert result["status"] == "stopped"
    assert not crawler_threads()


def _wait_for(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.parametrize("obey_robots", [True, False])
def test_stop_while_the_server_never_answers(tmp_path, obey_robots):
    silent = Silent()
    routes = {"/": silent, "/robots.txt": silent, "/a": silent, "/b": silent}
    with Site(routes) as site:
        try:
            profile = make_profile(site.url + "/", concurrency=3)
            profile = profile.with_(start_urls=(site.url + "/", site.url + "/a", site.url + "/b"))
            crawler = Crawler(profile, MemorySink(), state_dir=tmp_path,
                              options=CrawlOptions(obey_robots=obey_robots))  # default 5 s / 10 s timeouts
            thread, result = _start(crawler)
            _wait_for(lambda: silent.calls >= 1 and crawler.stats["busy"] >= 1)
            time.sleep(0.2)
            _stop_quickly(crawler, thread, result)
            assert result["errors"] == 0  # a stopped request is not a failure: it stays queued
        finally:
            silent.release.set()


def test_stop_while_the_server_is_slow_to_accept(tmp_path):
    with NoAccept() as server:
        profile = make_profile(server.url + "/", concurrency=4)
        profile = profile.with_(start_urls=tuple(f"{server.url}/{p}" for p in ("", "a", "b", "c", "d", "e")))
        crawler = Crawler(profile, MemorySink(), state_dir=tmp_path, options=CrawlOptions(obey_robots=False))
        thread, result = _start(crawler)
        _wait_for(lambda: crawler.stats["busy"] == 4)
        time.sleep(0.5)  # the first requests wait for an answer, the later ones to connect
        _stop_quickly(crawler, thread, result)
        assert result["errors"] == 0


def test_pause_cuts_a_hanging_request_and_resume_asks_again(tmp_path):
    silent = Silent()
    with Site({"/": silent}) as site:
        try:
            crawler = Crawler(make_profile(site.url + "/"), MemorySink(), state_dir=tmp_path,
                              options=CrawlOptions(obey_robots=False))
            thread, result = _start(crawler)
            _wait_for(lambda: silent.calls == 1)
            paused = time.monotonic()
            crawler.pause()
            _wait_for(lambda: crawler.stats["busy"] == 0, timeout=1.5)
            assert time.monotonic() - paused < 1.2
            assert crawler.stats["queue"] == 1  # back in the frontier, not failed
            crawler.resume()
            _wait_for(lambda: silent.calls == 2)  # asked again
            _stop_quickly(crawler, thread, result)
            assert result["errors"] == 0
        finally:
            silent.release.set()


def test_the_page_limit_fetches_and_stores_that_many_pages(tmp_path):
    """--max-pages N: N pages fetched and recorded; the pages in flight when the limit is reached
    are not cut (they were, and a limit of 1 then gave no page at all)."""
    articles = [f"/a{i}" for i in range(10)]

    def slow_article(handler):
        time.sleep(0.3)  # still in flight when another fetch thread sees the limit
        title = handler.path.strip("/")
        body = f"<html><body><h1 class='title'>Bài {title}</h1><div class='body'><p>Nội dung {title}.</p></div>"
        data = (body + "</body></html>").encode("utf-8")
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    links = "".join(f"<a class='art' href='{a}'>{a}</a>" for a in articles)
    routes = {"/": (200, {"Content-Type": "text/html"}, f"<html><body>{links}</body></html>"),
              **{a: slow_article for a in articles}}
    with Site(routes) as site:
        for limit in (1, 4):
            sink = MemorySink()
            summary = Crawler(make_profile(site.url + "/"), sink, state_dir=tmp_path / f"crawl{limit}",
                              options=CrawlOptions(max_pages=limit, concurrency=4, fetch_images=False)).run()
            assert summary["status"] == "limit" and summary["pages"] == limit
            assert len(sink.pages) == limit and not any(p["error"] for p in sink.pages)
            assert len(sink.articles) == limit - 1  # the list page, then its first articles
