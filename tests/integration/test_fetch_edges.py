"""The fetcher at the edges of HTTP, against real servers on 127.0.0.1 that answer byte for byte what
odd or hostile sites send: bodies without a length, dropped connections, odd statuses and heads,
broken compression, unusual URLs, many threads cut at once, and what it holds (descriptors, memory)."""

from __future__ import annotations

import gc
import gzip
import os
import socket
import threading
import time
import tracemalloc
import zlib
from email.utils import formatdate

import pytest

from .test_fetch_reach import CERT, PROXY_VARS, Proxy, https_url, tls_site

from xnews_gui.crawl.cookies import Cookie, CookieFile
from xnews_gui.crawl.fetcher import FetchError, Fetcher, FetchLimits
from xnews_gui.crawl.politeness import HostGate

UA = "XNews-test/1"
PAGE = b"<html><body>tin</body></html>"


def head(status: str, *fields: str, length: int | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status}", *fields] + ([] if length is None else [f"Content-Length: {length}"])
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def page(*fields: str, body: bytes = PAGE) -> bytes:
    return head("200 OK", "Content-Type: text/html", *fields, length=len(body)) + body


class Raw:
    """A server whose answers are raw bytes: routes map a path to bytes (the connection is kept) or to
    a callable(conn) that writes its own answer and returns whether to keep the connection."""

    running: list[socket.socket] = []  # listening sockets, closed after each test

    def __init__(self, routes: dict, family=socket.AF_INET, host="127.0.0.1"):
        self.routes = routes
        self.requests: list[bytes] = []  # each request's head
        self.times: list[float] = []  # when each came in
        self.connections = 0
        self.sock = socket.socket(family)
        self.sock.bind((host, 0))
        self.sock.listen(64)
        Raw.running.append(self.sock)
        self.host = host if family == socket.AF_INET else f"[{host}]"
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.sock.getsockname()[1]}{path}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        pending = b""
        with conn:
            try:
                while True:
                    while b"\r\n\r\n" not in pending:
                        data = conn.recv(65536)
                        if not data:
                            return
                        pending += data
                    request, pending = pending.split(b"\r\n\r\n", 1)
                    self.requests.append(request)
                    self.times.append(time.monotonic())
                    route = self.routes.get(request.split(b" ")[1].decode("latin-1"), head("404 Not Found", length=0))
                    if callable(route):
                        if not route(conn):
                            return
                    else:
                        conn.sendall(route)
            except OSError:
                pass


FETCHERS: list[Fetcher] = []  # closed after each test


def new_fetcher(user_agent: str = UA, cookies=None, **limits) -> Fetcher:
    """A fetcher with these FetchLimits fields, closed after the test."""
    FETCHERS.append(Fetcher(user_agent, FetchLimits(**limits), cookies=cookies))
    return FETCHERS[-1]


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch):
    """No proxy from the machine's environment (the tests that are about one set it); fetchers and
    servers closed after."""
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    yield
    while FETCHERS:
        FETCHERS.pop().close()
    while Raw.running:
        Raw.running.pop().close()


def then_close(answer: bytes):
    return lambda conn: conn.sendall(answer)  # returns None: the connection is closed after it


@pytest.fixture
def fetcher():
    return new_fetcher(backoff_s=0.01, max_backoff_s=0.2)


def outcome(f: Fetcher, url: str, **kwargs):
    """The page's (status, body) or the failure's (kind, message); anything else raised fails the test."""
    try:
        result = f.fetch(url, **kwargs)
    except FetchError as exc:
        return exc.kind, str(exc)
    return result.status, result.body


# --- bodies and connections ----------------------------------------------------------------------

def test_bodies_until_close_connection_close_and_dropped_kept_alive_connections():
    served = set()

    def once_per_connection(conn):
        if conn in served:
            return False  # the kept-alive connection dropped just as the next request came: no answer
        served.add(conn)
        conn.sendall(page())
        return True

    server = Raw({"/http10": then_close(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + PAGE * 100),
                  "/close": then_close(page("Connection: close")),
                  "/dropped": then_close(page()),  # kept alive by its head, closed by the server after it
                  "/once": once_per_connection})
    f = new_fetcher(retries=0)  # none of ours: libcurl tries a dropped kept-alive connection again
    for path in ("/http10", "/close", "/close", "/dropped", "/dropped", "/once", "/once", "/once", "/http10"):
        assert outcome(f, server.url(path))[0] == 200, path
    assert outcome(f, server.url("/http10"))[1] == PAGE * 100
    assert len(server.requests) == 12 and len(served) == 3


def test_answers_without_a_page_are_what_they_were(fetcher):
    server = Raw({"/204": head("204 No Content"), "/304": head("304 Not Modified"),
                  "/moved": page(body=PAGE).replace(b"200 OK", b"301 Moved"),  # no Location: its body is the page
                  "/choices": head("300 Multiple Choices", "Location: /moved", "Content-Type: text/html",
                                   length=len(PAGE)) + PAGE})
    assert outcome(fetcher, server.url("/204")) == ("content_type", "no content type and the body is not HTML")
    assert outcome(fetcher, server.url("/304"))[0] == "content_type"
    assert outcome(fetcher, server.url("/moved")) == (301, PAGE)
    assert outcome(fetcher, server.url("/choices")) == (300, PAGE)  # 300 is not followed


def test_locations_with_spaces_or_utf8_are_followed_as_browsers_read_them(fetcher):
    server = Raw({"/space": head("302 Found", "Location: /a b", length=0),
                  "/utf8": head("302 Found", "Location: /tin-tức".encode().decode("latin-1"), length=0),
                  "/latin": head("302 Found", "Location: /caf\xe9", length=0),
                  "/a%20b": page(), "/tin-t%E1%BB%A9c": page(), "/caf%C3%A9": page()})
    for path, target in (("/space", "/a b"), ("/utf8", "/tin-tức"), ("/latin", "/café")):
        result = fetcher.fetch(server.url(path))
        assert (result.status, result.url, result.redirects) == (200, server.url(target), [server.url(target)])
    assert [r.split(b" ")[1] for r in server.requests[1::2]] == [b"/a%20b", b"/tin-t%E1%BB%A9c", b"/caf%C3%A9"]


def test_redirects_from_http_to_https_and_back(fetcher, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(CERT))
    server = Raw({"/back": page()})
    with tls_site({"/secure": (302, {"Location": server.url("/back")}, b"")}) as site:
        server.routes["/go"] = head("301 Moved", f"Location: {https_url(site, '/secure')}", length=0)
        f = new_fetcher()
        result = f.fetch(server.url("/go"))
    assert result.status == 200 and result.redirects == [https_url(site, "/secure"), server.url("/back")]


def test_https_trusts_the_authorities_in_ssl_cert_dir_as_the_systems_store_is_trusted(tmp_path, monkeypatch):
    # a certificate directory as OpenSSL reads one (the system's /etc/ssl/certs): files named by subject hash
    (tmp_path / "88d0bdcb.0").write_bytes(CERT.read_bytes())  # openssl x509 -hash of the test certificate
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    with tls_site({"/tin": (200, {"Content-Type": "text/html"}, PAGE)}) as site:
        f = new_fetcher()
        assert outcome(f, https_url(site, "/tin")) == (200, PAGE)


# --- retries -------------------------------------------------------------------------------------

def test_retry_after_as_a_date_as_a_huge_number_or_unreadable():
    def busy_until_soon(conn):
        conn.sendall(head("503 Busy", f"Retry-After: {formatdate(time.time() + 1.5, usegmt=True)}", length=0))
        return True

    server = Raw({"/date": busy_until_soon,
                  "/huge": head("429 Too Many", "Retry-After: 99999999999", length=0),
                  "/unreadable": head("503 Busy", "Retry-After: \xb2", length=0)})
    f = new_fetcher(retries=1, backoff_s=0.01, max_backoff_s=0.6)
    started = time.monotonic()
    failed = pytest.raises(FetchError, f.fetch, server.url("/date")).value
    assert failed.kind == "http_5xx" and 0.4 < failed.retry_after <= 1.5 and time.monotonic() - started > 0.4
    started = time.monotonic()
    failed = pytest.raises(FetchError, f.fetch, server.url("/huge")).value
    assert failed.kind == "http_4xx" and failed.retry_after == 99999999999 and time.monotonic() - started < 5
    failed = pytest.raises(FetchError, f.fetch, server.url("/unreadable")).value  # the backoff instead
    assert (failed.kind, failed.status, failed.retry_after) == ("http_5xx", 503, None)
    assert [r.split(b" ")[1] for r in server.requests] == [b"/date"] * 2 + [b"/huge"] * 2 + [b"/unreadable"] * 2


def test_a_page_says_how_many_tries_its_last_hop_took():
    served = set()

    def busy_once(conn):
        conn.sendall(page() if served else head("503 Busy", length=0))
        served.add(conn)
        return True

    server = Raw({"/busy-once": busy_once, "/moved": head("302 Found", "Location: /busy-once", length=0)})
    f = new_fetcher(backoff_s=0.01)
    assert f.fetch(server.url("/moved")).attempts == 2
    assert f.fetch(server.url("/busy-once")).attempts == 1


def test_a_tls_handshake_that_never_ends_is_a_connect_timeout_quickly():
    server = Raw({})  # speaks no TLS: it waits for an HTTP head that never comes
    f = new_fetcher(connect_timeout=0.3, read_timeout=5, retries=0)
    started = time.monotonic()
    assert outcome(f, server.url("/").replace("http:", "https:")) == ("timeout", "no answer in time: ConnectTimeout")
    assert time.monotonic() - started < 3


def test_interrupt_cuts_the_wait_a_retry_after_asks_for():
    server = Raw({"/busy": head("503 Busy", "Retry-After: 20", length=0)})
    f = new_fetcher()
    threading.Timer(0.3, f.interrupt).start()
    started = time.monotonic()
    assert outcome(f, server.url("/busy"))[0] == "interrupted"
    assert time.monotonic() - started < 5 and len(server.requests) == 1


# --- heads ---------------------------------------------------------------------------------------

def test_odd_heads_give_the_page_or_one_clear_line(fetcher):
    many = b"".join(b"X-%d: y\r\n" % i for i in range(6000))
    server = Raw({"/many": page().replace(b"\r\n\r\n", b"\r\n" + many + b"\r\n", 1),
                  "/long": page(f"X-Long: {'a' * 200_000}"),
                  "/no-colon": page("this line has no colon"),
                  "/two-types": page("Content-Type: text/html"),
                  "/continue": head("100 Continue") + page(),
                  "/trailers": head("200 OK", "Content-Type: text/html", "Transfer-Encoding: chunked")
                  + b"%x\r\n%s\r\n0\r\n" % (len(PAGE), PAGE)
                  + b"Content-Type: application/pdf\r\nContent-Length: 99999999\r\n\r\n"})
    for path in ("/many", "/long", "/no-colon"):
        kind, message = outcome(fetcher, server.url(path))
        assert kind == "connection" and "\n" not in message and len(message) < 300, (path, message)
    assert outcome(fetcher, server.url("/two-types")) == (200, PAGE)
    assert outcome(fetcher, server.url("/continue")) == (200, PAGE)
    trailed = fetcher.fetch(server.url("/trailers"))  # fields after the body do not change the answer
    assert (trailed.content_type, trailed.body) == ("text/html", PAGE)


def test_compressed_bodies_decoded_or_refused_clearly(fetcher):
    raw = zlib.compressobj(wbits=-15)
    server = Raw({"/gzip": page("Content-Encoding: gzip", body=gzip.compress(PAGE)),
                  "/zlib": page("Content-Encoding: deflate", body=zlib.compress(PAGE)),
                  "/raw-deflate": page("Content-Encoding: deflate", body=raw.compress(PAGE) + raw.flush()),
                  "/corrupt": page("Content-Encoding: gzip"),
                  "/unknown": page("Content-Encoding: xz")})
    for path in ("/gzip", "/zlib", "/raw-deflate"):
        assert outcome(fetcher, server.url(path)) == (200, PAGE), path
    kind, message = outcome(fetcher, server.url("/corrupt"))
    assert kind == "connection" and message.startswith("corrupt compressed body")
    assert outcome(fetcher, server.url("/unknown"))[0] == "connection"


def test_a_redirect_or_an_error_whose_unwanted_body_is_corrupt_is_still_followed_or_reported(fetcher):
    server = Raw({"/moved": head("301 Moved", "Location: /here", "Content-Encoding: gzip", length=len(PAGE)) + PAGE,
                  "/missing": head("404 Not Found", "Content-Encoding: gzip", length=len(PAGE)) + PAGE,
                  "/here": page()})
    assert outcome(fetcher, server.url("/moved")) == (200, PAGE)
    assert outcome(fetcher, server.url("/missing")) == ("http_4xx", "HTTP 404")


def test_an_answer_that_is_not_http_is_a_connection_failure_not_a_bad_url(fetcher):
    server = Raw({"/09": then_close(PAGE), "/garbage": then_close(b"HTTP/1.1 abc\r\n\r\n")})
    for path in ("/09", "/garbage"):
        assert outcome(fetcher, server.url(path))[0] == "connection", path


def test_a_user_agent_or_a_cookie_with_vietnamese_letters_goes_out_as_utf8():
    server = Raw({"/tin": page()})
    jar = CookieFile([Cookie("ten", "Nguyễn", "127.0.0.1", "/")])
    f = new_fetcher("XNews/1; +Tòa soạn", cookies=jar)
    assert outcome(f, server.url("/tin")) == (200, PAGE)
    assert "\r\nUser-Agent: XNews/1; +Tòa soạn\r\n".encode() in server.requests[0]
    assert server.requests[0].endswith("\r\nCookie: ten=Nguyễn".encode())


# --- URLs ----------------------------------------------------------------------------------------

def test_unusual_urls_go_out_normalised_or_fail_as_bad_urls(fetcher):
    server = Raw({"/a%20b": page(), "/frag": page(), "/auth": page(), "/" + "x" * 100_000: page(),
                  "/to-bad-host": head("302 Found", "Location: http://[::1/", length=0)})
    assert outcome(fetcher, server.url("/a b")) == (200, PAGE)
    assert outcome(fetcher, server.url("/frag#part two")) == (200, PAGE)
    assert outcome(fetcher, server.url("/" + "x" * 100_000)) == (200, PAGE)
    assert outcome(fetcher, server.url("/auth").replace("://", "://ai:mat%20khau@")) == (200, PAGE)
    assert b"\r\nAuthorization: Basic YWk6bWF0IGtoYXU=" in server.requests[-1]  # as curl and browsers send it
    assert [r.split(b" ")[1][:6] for r in server.requests] == [b"/a%20b", b"/frag", b"/xxxxx", b"/auth"]
    for url in ("http://127.0.0.1:99999/", "http://[::1/", "http://a b/", server.url("/to-bad-host")):
        kind, message = outcome(fetcher, url)
        assert kind == "bad_url" and "\n" not in message, (url, message)


def test_an_international_host_goes_out_in_idna(fetcher, monkeypatch):
    proxy = Raw({"http://xn--tintc-ye2b.vn/trang": page()})  # a proxy sees the absolute URL: nothing resolved
    monkeypatch.setenv("http_proxy", proxy.url(""))
    f = new_fetcher()
    assert outcome(f, "http://tintức.vn/trang") == (200, PAGE)
    assert proxy.requests[0].startswith(b"GET http://xn--tintc-ye2b.vn/trang HTTP/1.1\r\nHost: xn--tintc-ye2b.vn")


def test_an_ipv6_literal_host(fetcher):
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    assert outcome(fetcher, Raw({"/v6": page()}, family=socket.AF_INET6, host="::1").url("/v6")) == (200, PAGE)


def test_an_https_image_through_a_proxy_is_judged_by_its_own_head_not_the_proxys(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(CERT))
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
    with Proxy() as proxy, tls_site({"/anh.png": (200, {"Content-Type": "image/png"}, png)}) as site:
        monkeypatch.setenv("https_proxy", proxy.url)
        f = new_fetcher()
        image = f.fetch(https_url(site, "/anh.png"), accept="image")
    assert (image.status, image.body) == (200, png) and proxy.log[0][0] == "CONNECT"


# --- threads, descriptors, memory --------------------------------------------------------------------

def test_many_threads_cut_at_once_and_a_close_meanwhile_leave_a_working_fetcher():
    def slow_page(conn):
        time.sleep(0.005)
        conn.sendall(page(body=PAGE * 2000))
        return True

    server = Raw({f"/{i}": slow_page for i in range(40)})
    f = Fetcher(UA)
    kinds: list[str] = []
    unexpected: list[BaseException] = []

    def crawl():
        for i in range(40):
            try:
                kinds.append(outcome(f, server.url(f"/{i}"))[0])
            except BaseException as exc:  # noqa: BLE001 (what the test is about)
                unexpected.append(exc)

    threads = [threading.Thread(target=crawl) for _ in range(16)]
    for t in threads:
        t.start()
    for _ in range(3):
        time.sleep(0.1)
        f.interrupt()
    f.close()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads) and unexpected == []
    assert len(kinds) == 640 and set(kinds) <= {200, "interrupted"} and "interrupted" in kinds
    assert outcome(f, server.url("/0")) == (200, PAGE * 2000)


def open_fds(at_most: int) -> int:
    """The process's open descriptors, given up to 2 s to fall to ``at_most`` (the servers' ends of the
    connections close in their own threads)."""
    deadline = time.monotonic() + 2
    while len(os.listdir("/proc/self/fd")) > at_most and time.monotonic() < deadline:
        time.sleep(0.02)
    return len(os.listdir("/proc/self/fd"))


def test_connections_cut_refused_or_redirected_do_not_leak_descriptors():
    server = Raw({"/pdf": page("Content-Type: application/pdf", body=b"%PDF" + b"x" * 100_000),
                  "/huge": head("200 OK", "Content-Type: text/html", length=9_000_000) + b"x" * 100_000,
                  "/moved": head("302 Found", "Location: /page", length=100_000) + b"x" * 100_000,
                  "/cut": then_close(head("200 OK", "Content-Type: text/html", length=1000) + b"<html>"),
                  "/page": page()})
    before = len(os.listdir("/proc/self/fd"))
    f = Fetcher(UA, FetchLimits(retries=0))
    for _ in range(100):
        for path in ("/pdf", "/huge", "/moved", "/cut"):
            outcome(f, server.url(path))
    assert open_fds(before + 8) <= before + 8  # a kept-alive connection or two
    f.close()
    assert open_fds(before) <= before
    assert server.connections > 300


@pytest.mark.parametrize("framing", ["plain", "chunked", "gzip"])
def test_a_body_over_the_cap_holds_no_more_than_the_cap_and_nothing_after(framing):
    body = b"<html>" + b"p" * 12_000_000
    fields = {"plain": (), "chunked": ("Transfer-Encoding: chunked",), "gzip": ("Content-Encoding: gzip",)}[framing]
    payload = gzip.compress(body, 1) if framing == "gzip" else body
    if framing == "chunked":
        payload = b"".join(b"%x\r\n%s\r\n" % (len(payload[i:i + 65536]), payload[i:i + 65536])
                           for i in range(0, len(payload), 65536)) + b"0\r\n\r\n"
    answer = head("200 OK", "Content-Type: text/html", *fields, length=None if framing != "gzip" else len(payload))
    server = Raw({"/big": then_close(answer + payload)})
    f = Fetcher(UA, FetchLimits(max_bytes=3_000_000))
    tracemalloc.start()
    try:
        for _ in range(2):  # the second fetch on the same handle, while the first is gone
            kind, _ = outcome(f, server.url("/big"))
            assert kind == ("decompression_bomb" if framing == "gzip" else "too_large")
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        f.close()
    assert peak < 3_000_000 + 1_000_000 and held < 200_000


# --- the politeness clock -----------------------------------------------------------------------

def test_the_host_delay_counts_from_each_request_sent_retries_and_redirect_hops_included():
    server = Raw({"/busy": head("503 Busy", length=0), "/moved": head("302 Found", "Location: /page", length=0),
                  "/page": page()})
    gate = HostGate(delay_s=0.3)
    f = new_fetcher(retries=1, backoff_s=0.01)
    assert pytest.raises(FetchError, f.fetch, server.url("/busy"), gate=gate).value.kind == "http_5xx"
    assert f.fetch(server.url("/moved"), gate=gate).status == 200
    sent = server.times
    assert len(sent) == 4 and sent[1] - sent[0] < 0.25  # the retry goes at once, in the same turn
    assert sent[2] - sent[1] >= 0.28 and sent[3] - sent[2] >= 0.28  # counted from the retry, then per hop
