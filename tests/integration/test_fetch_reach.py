"""What the fetcher does for users as they meet it, through its public API and real servers on 127.0.0.1:
HTTPS with the user's own certificate authorities, proxies from the environment, a stop or a pause that
cuts a request at once, retries, size caps, the headers a site sees, and redirects it must not follow."""

from __future__ import annotations

import gzip
import select
import socket
import ssl
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ..served import ServedInThread
from .crawl_helpers import Site, answer, html

from xnews_gui.crawl.cookies import Cookie, CookieFile
from xnews_gui.crawl.fetcher import ACCEPT, FetchError, Fetcher, FetchLimits

DATA = Path(__file__).resolve().parents[1] / "data"
CERT = DATA / "tls_localhost.pem"  # self-signed for 127.0.0.1 and localhost, a test key only
KEY = DATA / "tls_localhost.key"
UA = "XNews-test/1 (+mail@example.org)"
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy",
              "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def quick(site: Site) -> Site:
    """The site, whose shutdown at the end of its with-block takes 50 ms instead of up to 0.5 s."""
    site.thread = threading.Thread(target=site.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    return site


def failure(fetcher: Fetcher, url: str, **kwargs) -> FetchError:
    with pytest.raises(FetchError) as failed:
        fetcher.fetch(url, **kwargs)
    return failed.value


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch):
    """No proxy from the machine's environment: each test sets the ones it is about."""
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


# --- HTTPS --------------------------------------------------------------------------------------

def tls_site(routes: dict) -> Site:
    site = Site(routes)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(CERT, KEY)
    site.httpd.socket = context.wrap_socket(site.httpd.socket, server_side=True)
    return quick(site)


def https_url(site: Site, path: str) -> str:
    return f"https://127.0.0.1:{site.httpd.server_address[1]}{path}"


def test_an_https_page_is_fetched_when_ssl_cert_file_names_its_authority(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(CERT))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with tls_site({"/tin": html("<h1>Tin bảo mật</h1>")}) as site:
        fetcher = Fetcher(UA)
        try:
            page = fetcher.get(https_url(site, "/tin"))
        finally:
            fetcher.close()
    assert page.status == 200 and page.url == https_url(site, "/tin")
    assert page.content_type == "text/html; charset=utf-8" and "Tin bảo mật" in page.body.decode("utf-8")
    assert site.log[0][2]["User-Agent"] == UA


def test_an_https_page_whose_certificate_nobody_vouches_for_is_refused(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with tls_site({"/tin": html("<h1>Tin</h1>")}) as site:
        fetcher = Fetcher(UA)
        try:
            error = failure(fetcher, https_url(site, "/tin"))
        finally:
            fetcher.close()
    assert error.kind == "connection" and "certif" in str(error).lower()
    assert site.log == []  # no request was sent over the untrusted connection


# --- proxies from the environment ---------------------------------------------------------------

class Proxy(ServedInThread):
    """A forward proxy: answers absolute-URL GETs itself, tunnels CONNECT to the named host."""

    def __init__(self):
        self.log: list[tuple[str, str, dict]] = []  # (method, target, headers)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                proxy.log.append(("GET", self.path, dict(self.headers)))
                answer(self, html(f"<p>qua proxy: {self.path}</p>"))

            def do_CONNECT(self):  # noqa: N802
                proxy.log.append(("CONNECT", self.path, dict(self.headers)))
                host, port = self.path.rsplit(":", 1)
                upstream = socket.create_connection((host, int(port)), timeout=5)
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                with upstream:
                    ends = [self.connection, upstream]
                    while True:
                        ready, _, _ = select.select(ends, [], [], 5)
                        if not ready:
                            return
                        for end in ready:
                            data = end.recv(65536)
                            if not data:
                                return
                            (upstream if end is self.connection else self.connection).sendall(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


def test_http_proxy_from_the_environment_carries_the_request(monkeypatch):
    target = "http://127.0.0.1:9/tin?id=1"  # nothing listens there: only the proxy can answer
    with Proxy() as proxy:
        monkeypatch.setenv("http_proxy", proxy.url)
        fetcher = Fetcher(UA)
        try:
            page = fetcher.get(target)
        finally:
            fetcher.close()
    assert page.status == 200 and f"qua proxy: {target}" in page.body.decode("utf-8")
    assert [(method, url) for method, url, _ in proxy.log] == [("GET", target)]
    assert proxy.log[0][2]["User-Agent"] == UA and proxy.log[0][2]["Accept"] == ACCEPT["html"]


def test_no_proxy_naming_the_host_goes_direct(monkeypatch):
    with Proxy() as proxy, quick(Site({"/tin": html("<p>trực tiếp</p>")})) as site:
        monkeypatch.setenv("http_proxy", proxy.url)
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        fetcher = Fetcher(UA)
        try:
            page = fetcher.get(site.url + "/tin")
        finally:
            fetcher.close()
    assert "trực tiếp" in page.body.decode("utf-8")
    assert proxy.log == [] and site.paths() == ["/tin"]


def test_https_proxy_from_the_environment_tunnels_to_the_site(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(CERT))
    with Proxy() as proxy, tls_site({"/tin": html("<h1>Tin qua đường hầm</h1>")}) as site:
        monkeypatch.setenv("https_proxy", proxy.url)
        fetcher = Fetcher(UA)
        try:
            page = fetcher.get(https_url(site, "/tin"))
        finally:
            fetcher.close()
    assert "Tin qua đường hầm" in page.body.decode("utf-8")
    assert [(method, target) for method, target, _ in proxy.log] == [
        ("CONNECT", f"127.0.0.1:{site.httpd.server_address[1]}")]
    assert site.paths() == ["/tin"] and site.log[0][2]["User-Agent"] == UA


# --- interrupt: a stop or a pause never waits for a timeout ------------------------------------

class Stall:
    """A route that takes the request and then holds it (before its headers, or after part of its
    body) until the test ends; ``asked`` is set once the request is in."""

    def __init__(self, part_body: bool):
        self.part_body = part_body
        self.asked = threading.Event()
        self.release = threading.Event()
        self.ports: list[int] = []

    def __call__(self, h):
        self.ports.append(h.client_address[1])
        if self.part_body:
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", "100000")
            h.end_headers()
            h.wfile.write(b"<html><body>" + b"x" * 1000)
            h.wfile.flush()
        h.close_connection = True
        self.asked.set()
        self.release.wait(10)


def cut_when_asked(fetcher: Fetcher, stall: Stall, stop: threading.Event | None) -> list[int]:
    """0.3 s after the request is in, interrupt() from another thread (the crawl stopping first if
    ``stop`` is given); the counts interrupt() returned."""
    counts: list[int] = []

    def cut():
        if stall.asked.wait(5):
            time.sleep(0.3)
            if stop is not None:
                stop.set()
            counts.append(fetcher.interrupt())

    threading.Thread(target=cut, daemon=True).start()
    return counts


@pytest.mark.parametrize("kept_alive,part_body,stopped", [
    (False, False, False), (False, True, False), (True, False, False), (True, True, False), (False, False, True)],
    ids=["no-answer", "half-a-body", "kept-alive-no-answer", "kept-alive-half-a-body", "stopped"])
def test_interrupt_cuts_a_request_at_once_and_the_fetcher_goes_on(kept_alive, part_body, stopped):
    stall = Stall(part_body)
    stop = threading.Event()
    ports: list[int] = []

    def ok(h):
        ports.append(h.client_address[1])
        answer(h, html("<p>ok</p>"))

    with quick(Site({"/ok": ok, "/stall": stall})) as site:
        fetcher = Fetcher(UA, FetchLimits(read_timeout=20, total_timeout=30, retries=2), stop=stop)
        try:
            if kept_alive:
                fetcher.get(site.url + "/ok")
            counts = cut_when_asked(fetcher, stall, stop if stopped else None)
            started = time.monotonic()
            error = failure(fetcher, site.url + "/stall")
            took = time.monotonic() - started
            if not stopped:  # a pause ends: the same fetcher fetches again
                assert fetcher.get(site.url + "/ok").body == b"<html><body><p>ok</p></body></html>"
        finally:
            stall.release.set()
            fetcher.close()
    assert error.kind == ("stopped" if stopped else "interrupted") and took < 3 and counts == [1]
    assert site.paths().count("/stall") == 1  # an interrupted request is not tried again
    if kept_alive:
        assert stall.ports == ports[:1]  # the stalled request went out on the kept-alive connection


# --- retries --------------------------------------------------------------------------------------

def reset(h) -> None:
    h.close_connection = True
    h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    h.connection.close()


def first_then_page(first):
    """A route whose first answer is ``first(h)`` and every later one a page; it logs the times."""
    calls: list[float] = []

    def route(h):
        calls.append(time.monotonic())
        if len(calls) == 1:
            first(h)
        else:
            answer(h, html("<p>lần sau</p>"))
    return route, calls


BUSY = (503, {"Retry-After": "1"}, b"")


def test_a_503_with_retry_after_is_waited_out_then_the_page_comes():
    route, calls = first_then_page(lambda h: answer(h, BUSY))
    with quick(Site({"/busy": route})) as site:
        fetcher = Fetcher(UA, FetchLimits(retries=1, backoff_s=0.01, max_backoff_s=5))
        try:
            page = fetcher.get(site.url + "/busy")
        finally:
            fetcher.close()
    assert page.status == 200 and b"l\xe1\xba\xa7n sau" in page.body
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.9 and page.elapsed >= 0.9


def test_a_503_every_time_fails_with_its_status_and_retry_after():
    with quick(Site({"/down": BUSY})) as site:
        fetcher = Fetcher(UA, FetchLimits(retries=1, backoff_s=0.01, max_backoff_s=0.05))
        try:
            error = failure(fetcher, site.url + "/down")
        finally:
            fetcher.close()
    assert (error.kind, error.status, error.retry_after) == ("http_5xx", 503, 1)
    assert site.paths() == ["/down", "/down"]  # the first try and one retry


def test_a_connection_reset_once_is_retried():
    route, calls = first_then_page(reset)
    with quick(Site({"/flaky": route})) as site:
        fetcher = Fetcher(UA, FetchLimits(retries=1, backoff_s=0.01))
        try:
            page = fetcher.get(site.url + "/flaky")
        finally:
            fetcher.close()
    assert page.status == 200 and len(calls) == 2


# --- caps -----------------------------------------------------------------------------------------

def chunked(h) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/html")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    part = b"<p>" + b"a" * 9993 + b"</p>"
    for _ in range(30):  # 300 KB, no Content-Length
        h.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
    h.wfile.write(b"0\r\n\r\n")


BOMB = gzip.compress(b"<html><body>" + b"\0" * 3_000_000, 9)  # ~3 KB on the wire


def test_a_chunked_body_over_the_cap_is_too_large_and_a_gzip_bomb_is_caught():
    routes = {"/chunked": chunked,
              "/bomb": (200, {"Content-Type": "text/html", "Content-Encoding": "gzip"}, BOMB)}
    with quick(Site(routes)) as site:
        fetcher = Fetcher(UA, FetchLimits(max_bytes=100_000, retries=0))
        try:
            kinds = [failure(fetcher, site.url + path).kind for path in routes]
        finally:
            fetcher.close()
    assert kinds == ["too_large", "decompression_bomb"]


@pytest.mark.parametrize("accept,ctype,limits", [
    ("html", "text/html", FetchLimits(max_bytes=1000, read_timeout=20, retries=0)),
    ("image", "image/png", FetchLimits(max_image_bytes=1000, read_timeout=20, retries=0))])
def test_a_content_length_over_the_cap_is_refused_without_waiting_for_the_body(accept, ctype, limits):
    release = threading.Event()

    def promise(h):  # says 50 MB and sends none of it
        h.send_response(200)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(50_000_000))
        h.end_headers()
        h.wfile.flush()
        h.close_connection = True
        release.wait(10)

    with quick(Site({"/big": promise})) as site:
        fetcher = Fetcher(UA, limits)
        try:
            started = time.monotonic()
            error = failure(fetcher, site.url + "/big", accept=accept)
            took = time.monotonic() - started
        finally:
            release.set()
            fetcher.close()
    assert error.kind == "too_large" and took < 3


# --- the request as the site sees it ---------------------------------------------------------------

def test_each_kind_of_request_says_what_it_accepts_and_asks_for_compression():
    routes = {"/page": html("<p>trang</p>"), "/pic": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n"),
              "/file": (200, {"Content-Type": "application/octet-stream"}, b"\0\1")}
    with quick(Site(routes)) as site:
        fetcher = Fetcher(UA)
        try:
            for path, accept in (("/page", "html"), ("/pic", "image"), ("/file", "any")):
                fetcher.fetch(site.url + path, accept=accept)
        finally:
            fetcher.close()
    sent = {path: headers for _, path, headers in site.log}
    assert sent["/page"]["Accept"] == ACCEPT["html"] and "text/html" in ACCEPT["html"]
    assert sent["/pic"]["Accept"] == ACCEPT["image"] and "image/png" in ACCEPT["image"]
    assert sent["/file"]["Accept"] == "*/*"
    for headers in sent.values():
        assert headers["User-Agent"] == UA and "gzip" in headers["Accept-Encoding"]
        assert headers["Accept-Language"].startswith("vi") and "Cookie" not in headers


def test_the_profiles_cookies_go_where_they_match():
    jar = CookieFile([Cookie("sid", "abc123", "127.0.0.1", "/"),
                      Cookie("member", "1", "127.0.0.1", "/thanh-vien"),
                      Cookie("secure_only", "s", "127.0.0.1", "/", secure=True),
                      Cookie("elsewhere", "x", "example.org", "/"),
                      Cookie("old", "o", "127.0.0.1", "/", expires=time.time() - 60)])
    routes = {"/tin": html("<p>tin</p>"), "/thanh-vien/1": html("<p>riêng</p>")}
    with quick(Site(routes)) as site:
        fetcher = Fetcher(UA, cookies=jar)
        try:
            for path in routes:
                fetcher.get(site.url + path)
        finally:
            fetcher.close()
    cookies = {path: headers.get("Cookie") for _, path, headers in site.log}
    assert cookies == {"/tin": "sid=abc123", "/thanh-vien/1": "member=1; sid=abc123"}  # longer path first


# --- redirects ---------------------------------------------------------------------------------------

def test_relative_redirects_are_followed_from_where_they_were_given():
    routes = {"/muc/con/dau": (302, {"Location": "tiep"}, b""),
              "/muc/con/tiep": (301, {"Location": "../cuoi?trang=2"}, b""),
              "/muc/cuoi?trang=2": html("<p>đích</p>")}
    with quick(Site(routes)) as site:
        fetcher = Fetcher(UA)
        try:
            page = fetcher.get(site.url + "/muc/con/dau")
        finally:
            fetcher.close()
    assert page.url == site.url + "/muc/cuoi?trang=2" and "đích" in page.body.decode("utf-8")
    assert page.redirects == [site.url + "/muc/con/tiep", site.url + "/muc/cuoi?trang=2"]


def test_redirects_away_from_http_in_loops_or_too_many_are_refused():
    routes = {"/ftp": (302, {"Location": "ftp://127.0.0.1/tin.txt"}, b""),
              "/file": (302, {"Location": "file:///etc/passwd"}, b""),
              "/loop": (302, {"Location": "/loop"}, b"")}
    routes.update({f"/hop{i}": (302, {"Location": f"/hop{i + 1}"}, b"") for i in range(5)})
    with quick(Site(routes)) as site:
        fetcher = Fetcher(UA, FetchLimits(max_redirects=3))
        try:
            kinds = {path: failure(fetcher, site.url + path).kind for path in ("/ftp", "/file", "/loop", "/hop0")}
        finally:
            fetcher.close()
    assert kinds == {"/ftp": "bad_url", "/file": "bad_url", "/loop": "redirects", "/hop0": "redirects"}
    assert site.paths().count("/loop") == 1 and "/hop4" not in site.paths()
