"""The one fetcher: a one-off page is fetched as the crawler fetches (user agent, caps, per-hop checks)."""

from __future__ import annotations

import gzip
import zlib

import pytest
import urllib3

from .crawl_helpers import Site, answer, html

from xnews_gui.crawl.fetcher import FetchError, Fetcher, FetchLimits


def test_get_fetches_one_page_with_the_user_agent_and_checks_every_hop():
    routes = {"/old": (301, {"Location": "/new"}, b""), "/new": html("<h1>Trang mới</h1>"),
              "/away": (302, {"Location": "http://localhost:9/elsewhere"}, b"")}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test/1 (+mail@example.org)")
        hops = []
        try:
            page = fetcher.get(site.url + "/old", check=hops.append)
            assert page.url == site.url + "/new" and page.redirects == [site.url + "/new"]
            assert "Trang mới" in page.body.decode("utf-8") and page.content_type.startswith("text/html")
            assert hops == [site.url + "/old", site.url + "/new"]

            def same_host_only(url):
                if not url.startswith(site.url):
                    raise FetchError("scope", f"outside: {url}")

            with pytest.raises(FetchError) as refused:
                fetcher.get(site.url + "/away", check=same_host_only)
            assert refused.value.kind == "scope"
        finally:
            fetcher.close()
    agents = {h.get("User-Agent") for _, p, h in site.log}
    assert agents == {"XNews-test/1 (+mail@example.org)"}
    assert "/elsewhere" not in site.paths()


def test_get_refuses_what_the_crawler_refuses():
    routes = {"/pdf": (200, {"Content-Type": "application/pdf"}, b"%PDF-1.4"),
              "/big": html("x" * 5000)}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test", FetchLimits(max_bytes=1000))
        try:
            kinds = []
            for path in ("/pdf", "/big"):
                with pytest.raises(FetchError) as failed:
                    fetcher.get(site.url + path)
                kinds.append(failed.value.kind)
        finally:
            fetcher.close()
    assert kinds == ["content_type", "too_large"]



def _answer(status: int, headers: dict, body: bytes, ports: list):
    def answer(h):
        ports.append(h.client_address[1])
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        if "Transfer-Encoding" in headers:  # chunked, in pieces smaller than a socket read
            h.end_headers()
            for i in range(0, len(body), 7000):
                part = body[i:i + 7000]
                h.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            h.wfile.write(b"0\r\n\r\n")
            return
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
    return answer


def test_bodies_arrive_whole_plain_compressed_or_chunked_on_one_kept_alive_connection():
    page = ("<html><body>" + "".join(f"<p>Đoạn {i}: tin tức hôm nay</p>" for i in range(12000))
            + "</body></html>").encode("utf-8")  # ~400 KB: more than any one socket read
    small = "<html><body><h1>Tin nhỏ</h1></body></html>".encode("utf-8")
    html_type = {"Content-Type": "text/html; charset=utf-8"}
    ports: list[int] = []
    sent = {"/plain": ({}, page), "/small": ({}, small), "/gzip": ({"Content-Encoding": "gzip"}, gzip.compress(page)),
            "/deflate": ({"Content-Encoding": "deflate"}, zlib.compress(small)),
            "/chunked": ({"Transfer-Encoding": "chunked"}, page)}
    routes = {path: _answer(200, {**html_type, **headers}, body, ports) for path, (headers, body) in sent.items()}
    with Site(routes) as site:
        fetcher = Fetcher("XNews-test")
        try:
            for _ in range(2):
                bodies = {path: fetcher.get(site.url + path).body for path in routes}
                assert bodies == {"/plain": page, "/small": small, "/gzip": page, "/deflate": small,
                                  "/chunked": page}
        finally:
            fetcher.close()
    assert len(ports) == 10 and len(set(ports)) == 1  # one connection, kept alive: nothing read past a body


def test_requests_go_out_with_the_targets_urllib3_would_send_and_the_fetchers_headers():
    """A plain URL goes out as it is; any other is normalised as urllib3 does (dot segments, characters a
    request line cannot carry). Every request carries the user agent, Accept, Accept-Encoding, Accept-Language."""
    tails = ["/a/b-1.htm", "/a?x=1&y=%2f", "/a?", "/a#frag", "/a//b", "/%zz", "/a%7e", "/a'b(c)*!$,+",
             '/a"b<c>d', "/a|b{c}^d`e", "/a?x#y?z", "/a/./b", "/a/../b", "/đường", "", "?q=1"]
    with Site({}) as site:
        fetcher = Fetcher("XNews-test")
        try:
            for tail in tails:
                with pytest.raises(FetchError):  # 404
                    fetcher.get(site.url + tail, accept="any")
        finally:
            fetcher.close()
        ours = site.log[:]
        site.log.clear()
        manager = urllib3.PoolManager()
        for tail in tails:
            manager.urlopen("GET", site.url + tail, redirect=False).release_conn()
        manager.clear()
        theirs = site.log[:]
    assert [path for _, path, _ in ours] == [path for _, path, _ in theirs]
    assert [path for _, path, _ in ours][:4] == ["/a/b-1.htm", "/a?x=1&y=%2F", "/a?", "/a"]
    for _, _, headers in ours:
        assert headers["User-Agent"] == "XNews-test" and headers["Accept"] == "*/*"
        assert "gzip" in headers["Accept-Encoding"] and headers["Accept-Language"] == "vi,en;q=0.8"


def test_a_body_shorter_than_its_content_length_is_a_broken_connection_not_a_page():
    def short(h):
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", "100000")
        h.end_headers()
        h.wfile.write(b"<html><body>" + b"x" * 50000)
        h.wfile.flush()
        h.close_connection = True

    with Site({"/short": short, "/whole": html("<p>whole</p>")}) as site:
        fetcher = Fetcher("XNews-test", FetchLimits(retries=0))
        try:
            with pytest.raises(FetchError) as failed:
                fetcher.get(site.url + "/short")
            assert failed.value.kind == "connection"
            assert fetcher.get(site.url + "/whole").body.endswith(b"<p>whole</p></body></html>")
        finally:
            fetcher.close()


def test_closing_the_fetcher_during_a_fetch_neither_fails_nor_cuts_it_and_an_interrupt_still_can():
    """The inspector closes its fetcher while a worker may still be fetching: the close succeeds, the
    fetch in flight goes on to its end (here cut by interrupt()), and a later fetch still works."""
    import threading
    import time as clock

    release = threading.Event()

    def stall(h):
        release.wait(10)
        answer(h, html("<p>late</p>"))

    with Site({"/stall": stall, "/ok": html("<p>ok</p>")}) as site:
        fetcher = Fetcher("XNews-test", FetchLimits(read_timeout=20, retries=0))
        outcome = []

        def fetch():
            try:
                outcome.append(fetcher.get(site.url + "/stall"))
            except FetchError as exc:
                outcome.append(exc)

        worker = threading.Thread(target=fetch)
        worker.start()
        clock.sleep(0.3)
        fetcher.close()
        assert worker.is_alive()
        started = clock.monotonic()
        assert fetcher.interrupt() == 1
        worker.join(5)
        release.set()
        assert not worker.is_alive() and clock.monotonic() - started < 2
        assert isinstance(outcome[0], FetchError) and outcome[0].kind == "interrupted"
        assert b"<p>ok</p>" in fetcher.get(site.url + "/ok").body
        fetcher.close()
