"""HTTP fetching: one shared requests.Session, caps, retries, safe decompression.

Every HTTP exchange (redirect hops and retries included) goes through an
optional ``gate`` (per-host politeness) and an optional ``check`` (scope,
robots) so a redirect can never lead the crawler where it may not go.

Requests go through the session's adapter and its urllib3 connection pools;
plain (unproxied, ASCII) URLs are sent straight to the pool, which skips
requests' per-request layers (header/cookie/settings merging, response
wrapping) that cost as much CPU as the exchange itself. ``interrupt()`` shuts
down the sockets of the requests in flight, so a stop or a pause never waits
for a connect or read timeout.
"""

from __future__ import annotations

import email.utils
import socket
import threading
import time
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import (ConnectTimeoutError, LocationValueError, NewConnectionError, ProtocolError,
                                ReadTimeoutError)
from urllib3.exceptions import TimeoutError as Urllib3Timeout
from urllib3.util.connection import allowed_gai_family
from urllib3.util.timeout import _DEFAULT_TIMEOUT

from ..core.urls import is_allowed_scheme

HTML_TYPES = ("text/html", "application/xhtml+xml")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")  # no SVG: it can carry script
RETRY_STATUSES = (429, 500, 502, 503, 504)
_CHUNK = 64 * 1024


class FetchError(Exception):
    """A failed fetch; ``kind`` is one of: timeout, too_slow, connection, http_4xx, http_5xx,
    redirects, too_large, decompression_bomb, content_type, bad_url, robots, scope, stopped,
    interrupted (cut by ``Fetcher.interrupt()`` while the crawl goes on, e.g. paused: fetch it again)."""

    def __init__(self, kind: str, message: str, status: int = 0, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after


@dataclass
class FetchResult:
    url: str  # after redirects
    status: int
    content_type: str
    body: bytes
    redirects: list = field(default_factory=list)
    elapsed: float = 0.0
    attempts: int = 1


@dataclass
class FetchLimits:
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    total_timeout: float = 30.0  # a whole response, so a slow drip cannot hold a worker
    max_bytes: int = 5 * 1024 * 1024
    max_image_bytes: int = 8 * 1024 * 1024
    max_redirects: int = 5
    retries: int = 2
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0


class _InFlight:
    """The socket each thread is using for its current exchange, so another thread can cut it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._socks: dict[int, socket.socket | None] = {}
        self._cut: set[int] = set()

    def begin(self) -> None:
        with self._lock:
            self._socks[threading.get_ident()] = None

    def attach(self, sock: socket.socket) -> None:
        """The socket the current exchange waits on (a new one before it connects, or a reused one)."""
        me = threading.get_ident()
        with self._lock:
            if me not in self._socks:
                return
            self._socks[me] = sock
            cut = me in self._cut
        if cut:
            _shutdown(sock)

    def end(self) -> bool:
        """Close the current exchange's entry; True if it was interrupted."""
        me = threading.get_ident()
        with self._lock:
            self._socks.pop(me, None)
            if me in self._cut:
                self._cut.discard(me)
                return True
        return False

    def interrupt(self) -> int:
        with self._lock:
            socks = list(self._socks.values())
            self._cut.update(self._socks)
        for sock in socks:
            if sock is not None:
                _shutdown(sock)
        return len(socks)


def _shutdown(sock: socket.socket) -> None:
    # shutdown() wakes a thread blocked in recv() or in a connect() (Linux: SYN_SENT is dropped)
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _connection_classes(in_flight: _InFlight):
    """urllib3 pool classes whose connections report their sockets to ``in_flight``."""

    class _Interruptible:
        def _new_conn(self):  # urllib3's create_connection, with the socket reported before it connects
            host, port = self._dns_host, self.port
            if host.startswith("["):
                host = host.strip("[]")
            err: OSError | None = None
            try:
                infos = socket.getaddrinfo(host, port, allowed_gai_family(), socket.SOCK_STREAM)
            except socket.gaierror as exc:
                raise urllib3.exceptions.NameResolutionError(self.host, self, exc) from exc
            for af, socktype, proto, _, sa in infos:
                sock = None
                try:
                    sock = socket.socket(af, socktype, proto)
                    in_flight.attach(sock)
                    for opt in self.socket_options or ():
                        sock.setsockopt(*opt)
                    if self.timeout is not _DEFAULT_TIMEOUT:
                        sock.settimeout(self.timeout)
                    if self.source_address:
                        sock.bind(self.source_address)
                    sock.connect(sa)
                    return sock
                except socket.timeout as exc:
                    if sock is not None:
                        sock.close()
                    raise ConnectTimeoutError(
                        self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})") from exc
                except OSError as exc:
                    err = exc
                    if sock is not None:
                        sock.close()
            raise NewConnectionError(self, f"Failed to establish a new connection: {err or 'no address'}")

        def request(self, *args, **kwargs):
            if self.sock is not None:  # a kept-alive connection: the wait for the answer is on this socket
                in_flight.attach(self.sock)
            return super().request(*args, **kwargs)

    class Conn(_Interruptible, HTTPConnection):
        pass

    class SConn(_Interruptible, HTTPSConnection):
        pass

    class Pool(HTTPConnectionPool):
        ConnectionCls = Conn

    class SPool(HTTPSConnectionPool):
        ConnectionCls = SConn

    return {"http": Pool, "https": SPool}


class Fetcher:
    def __init__(self, user_agent: str, limits: FetchLimits | None = None, pool_size: int = 16,
                 stop: threading.Event | None = None):
        self.limits = limits or FetchLimits()
        self.stop = stop or threading.Event()
        self.session = requests.Session()
        # proxies from the environment are read once here, not on every request (a hot-path cost)
        self.session.proxies.update(requests.utils.get_environ_proxies("http://example.com/") or {})
        self.session.trust_env = False
        self._in_flight = _InFlight()
        adapter = HTTPAdapter(pool_connections=pool_size, pool_maxsize=pool_size, max_retries=0)
        adapter.poolmanager.pool_classes_by_scheme = _connection_classes(self._in_flight)
        self._pools = adapter.poolmanager
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers.update({
            "User-Agent": user_agent,
            "Accept-Encoding": "gzip, deflate",
            "Accept-Language": "vi,en;q=0.8",
        })
        self._direct = not self.session.proxies  # a proxy goes the whole requests way
        self._headers = {**self.session.headers, "Connection": "keep-alive"}
        self._timeout = urllib3.Timeout(connect=self.limits.connect_timeout, read=self.limits.read_timeout)

    def close(self) -> None:
        self.session.close()

    def interrupt(self) -> int:
        """Cut the requests in flight (from any thread); they fail as "stopped" when the stop
        event is set, else as "interrupted". Returns how many there were."""
        return self._in_flight.interrupt()

    def fetch(self, url: str, *, accept: str = "html", gate=None,
              check: Callable[[str], None] | None = None) -> FetchResult:
        """GET with retries on timeouts, connection errors, 5xx and 429 (Retry-After honoured)."""
        limits = self.limits
        attempt = 0
        while True:
            try:
                result = self._follow(url, accept, gate, check)
                result.attempts = attempt + 1
                return result
            except FetchError as exc:
                retryable = exc.kind in ("timeout", "connection") or exc.status in RETRY_STATUSES
                if not retryable or attempt >= limits.retries:
                    raise
                wait = exc.retry_after if exc.retry_after is not None else limits.backoff_s * (2 ** attempt)
                attempt += 1
                if self.stop.wait(min(max(wait, 0.0), limits.max_backoff_s)):
                    raise FetchError("stopped", "crawl stopped") from None

    def _follow(self, url: str, accept: str, gate, check) -> FetchResult:
        started = time.monotonic()
        redirects: list[str] = []
        seen = {url}
        while True:
            if not is_allowed_scheme(url):
                raise FetchError("bad_url", f"not an http(s) URL: {url}")
            if check:
                check(url)
            host = urlsplit(url).netloc
            with gate.slot(host) if gate else nullcontext():
                status, ctype, body, location = self._exchange(url, accept)
            if location is None:
                return FetchResult(url, status, ctype, body, redirects, time.monotonic() - started)
            target = urljoin(url, location)
            if target in seen:
                raise FetchError("redirects", f"redirect loop at {target}")
            if len(redirects) >= self.limits.max_redirects:
                raise FetchError("redirects", f"more than {self.limits.max_redirects} redirects")
            redirects.append(target)
            seen.add(target)
            url = target

    def _exchange(self, url: str, accept: str):
        """One request: (status, content type, body, redirect location or None)."""
        if self.stop.is_set():
            raise FetchError("stopped", "crawl stopped")
        self._in_flight.begin()
        try:
            result = self._exchange_once(url, accept)
        except FetchError:
            if self._in_flight.end():
                raise self._cut() from None
            raise
        except BaseException:
            self._in_flight.end()
            raise
        if self._in_flight.end():  # cut while reading: the body may be short
            raise self._cut()
        return result

    def _cut(self) -> FetchError:
        if self.stop.is_set():
            return FetchError("stopped", "crawl stopped")
        return FetchError("interrupted", "request interrupted")

    def _exchange_once(self, url: str, accept: str):
        limits = self.limits
        accept_header = ("text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" if accept == "html"
                         else "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9" if accept == "image"
                         else "*/*")
        if self._direct and url.isascii() and not any(c in url for c in " \t\r\n"):
            resp = self._open(url, accept_header)
            raw = resp
        else:
            resp = self._open_with_requests(url, accept_header)
            raw = resp.raw
        try:
            status = resp.status_code if raw is not resp else resp.status
            ctype = resp.headers.get("Content-Type", "")
            if 300 <= status < 400 and resp.headers.get("Location"):
                return status, ctype, b"", resp.headers["Location"]
            if status >= 400:
                kind = "http_5xx" if status >= 500 else "http_4xx"
                raise FetchError(kind, f"HTTP {status}", status=status,
                                 retry_after=_retry_after(resp.headers.get("Retry-After")))
            mime = ctype.split(";", 1)[0].strip().lower()
            cap = limits.max_image_bytes if accept == "image" else limits.max_bytes
            if accept == "html" and mime and mime not in HTML_TYPES:
                raise FetchError("content_type", f"not HTML: {mime}")
            if accept == "image" and mime not in IMAGE_TYPES:
                raise FetchError("content_type", f"not an accepted image type: {mime or '(none)'}")
            length = resp.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > cap:
                raise FetchError("too_large", f"Content-Length {length} over the {cap}-byte cap")
            body = self._read(raw, cap)
            if accept == "html" and not mime and not body.lstrip()[:1] == b"<":
                raise FetchError("content_type", "no content type and the body is not HTML")
            return status, ctype, body, None
        finally:
            resp.close()
            if raw is resp:
                resp.release_conn()  # back to the pool (a connection closed above reconnects)

    def _open(self, url: str, accept_header: str):
        """GET straight through the adapter's urllib3 pool: (a urllib3 response, body unread)."""
        parts = urlsplit(url)
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        try:
            pool = self._pools.connection_from_url(url)
            return pool.urlopen("GET", target, headers={**self._headers, "Accept": accept_header},
                                redirect=False, retries=False, preload_content=False, decode_content=False,
                                timeout=self._timeout, assert_same_host=False, release_conn=False)
        except NewConnectionError as exc:  # a subclass of ConnectTimeoutError: test it first
            raise FetchError("connection", f"connection failed: {_short(exc)}") from None
        except Urllib3Timeout as exc:
            raise FetchError("timeout", f"no answer in time: {_timeout_name(exc)}") from None
        except (LocationValueError, ValueError) as exc:
            raise FetchError("bad_url", f"invalid URL: {_short(exc)}") from None
        except (ProtocolError, urllib3.exceptions.HTTPError, OSError) as exc:
            raise FetchError("connection", f"connection failed: {_short(exc)}") from None

    def _open_with_requests(self, url: str, accept_header: str):
        limits = self.limits
        try:
            return self.session.get(url, headers={"Accept": accept_header}, stream=True, allow_redirects=False,
                                    timeout=(limits.connect_timeout, limits.read_timeout))
        except requests.Timeout as exc:
            raise FetchError("timeout", f"no answer in time: {exc.__class__.__name__}") from None
        except (requests.ConnectionError, ProtocolError) as exc:
            raise FetchError("connection", f"connection failed: {_short(exc)}") from None
        except (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                requests.exceptions.InvalidSchema, ValueError) as exc:
            raise FetchError("bad_url", f"invalid URL: {_short(exc)}") from None

    def _read(self, raw, cap: int) -> bytes:
        """Read at most ``cap`` decoded bytes from a urllib3 response, within the total time limit;
        inflate safely."""
        encoding = raw.headers.get("Content-Encoding", "").strip().lower()
        inflater = _Inflater(encoding) if encoding in ("gzip", "x-gzip", "deflate") else None
        deadline = time.monotonic() + self.limits.total_timeout
        parts: list[bytes] = []
        size = received = 0
        try:
            while True:
                chunk = raw.read1(_CHUNK, decode_content=False)
                if not chunk:
                    break
                received += len(chunk)
                if inflater:
                    chunk = inflater.feed(chunk, cap - size + 1)
                    if size + len(chunk) > cap:
                        raise FetchError("decompression_bomb",
                                         f"inflates past the {cap}-byte cap from {received} bytes")
                elif received > cap:
                    raise FetchError("too_large", f"body over the {cap}-byte cap")
                size += len(chunk)
                parts.append(chunk)
                if time.monotonic() > deadline:
                    raise FetchError("too_slow", f"body not complete after {self.limits.total_timeout:g} s")
                if self.stop.is_set():
                    raise FetchError("stopped", "crawl stopped")
        except ReadTimeoutError:
            raise FetchError("timeout", "read timed out") from None
        except (ProtocolError, requests.ConnectionError, OSError) as exc:
            raise FetchError("connection", f"connection broken: {_short(exc)}") from None
        except zlib.error as exc:
            raise FetchError("connection", f"corrupt {encoding} body: {exc}") from None
        return b"".join(parts)


class _Inflater:
    """gzip/deflate with a cap on the output of every call (gzip-bomb guard)."""

    def __init__(self, encoding: str):
        self._raw_fallback = encoding == "deflate"
        self._obj = zlib.decompressobj(16 + zlib.MAX_WBITS if encoding != "deflate" else zlib.MAX_WBITS)
        self._started = False

    def feed(self, data: bytes, max_out: int) -> bytes:
        try:
            out = self._obj.decompress(data, max_out)
        except zlib.error:
            if self._raw_fallback and not self._started:  # servers that send raw deflate
                self._raw_fallback = False
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
                out = self._obj.decompress(data, max_out)
            else:
                raise
        self._started = True
        if self._obj.unconsumed_tail:  # hit max_out: more output is pending
            out += b"\0"
        return out


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _timeout_name(exc: Exception) -> str:
    # the names requests gives them, as before
    return "ConnectTimeout" if isinstance(exc, ConnectTimeoutError) else "ReadTimeout"


def _short(exc: Exception) -> str:
    text = str(exc) or exc.__class__.__name__
    return text if len(text) < 200 else text[:197] + "..."
