"""HTTP fetching for the crawl, ``extract URL`` and the inspector: one urllib3 client.

    fetcher = Fetcher(user_agent)
    page = fetcher.get("https://example.com/a.html")      # a one-off page: FetchResult or FetchError

urllib3 does the work: connection pools, retries (``Retry``: timeouts, connection
errors, 429 and 5xx, ``Retry-After`` honoured), redirect locations, and bounded
decompression of gzip/deflate bodies. What no library does is ours: every hop of a
redirect goes through an optional ``gate`` (per-host politeness) and ``check`` (scope,
robots), so a redirect never leads where the crawler may not go; caps on size, content
type and total time; waits between retries that a stop cuts short; and ``interrupt()``
(``sockets``), which cuts the requests in flight so a stop or a pause takes effect at once.
"""

from __future__ import annotations

import re
import threading
import time
import urllib.request
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urljoin, urlsplit

import urllib3
from urllib3.exceptions import (ConnectTimeoutError, DecodeError, HTTPError, LocationValueError, MaxRetryError,
                                NewConnectionError, ProtocolError, ReadTimeoutError)
from urllib3.util import parse_url

from ..core.urls import is_allowed_scheme
from .sockets import InFlight, pool_classes

HTML_TYPES = ("text/html", "application/xhtml+xml")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")  # no SVG: it can carry script
RETRY_STATUSES = (429, 500, 502, 503, 504)
ACCEPT = {"html": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
          "image": "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9", "any": "*/*"}
_CHUNK = 256 * 1024  # a read takes all a page has sent so far: each read is a trip through the GIL
# An http(s) URL of printable ASCII with a plain host[:port]: (scheme, netloc, path, "?query"). Without dot
# segments in its path, urllib3's request target for it is path + "?query" (tested against parse_url).
_ORIGIN = re.compile(r"(https?)://([A-Za-z0-9.-]+(?::[0-9]{1,5})?)(?=[/?#]|\Z)")
_PLAIN_URL = re.compile(r"(https?)://([A-Za-z0-9.-]+(?::[0-9]{1,5})?)(/[^\x00-\x20\x7f\\?#]*)?"
                        r"(\?[^\x00-\x20\x7f\\#]*)?(?:#[^\x00-\x20\x7f]*)?")


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


def _retry_class(stop: threading.Event, max_wait: float, in_flight: InFlight):
    class StopAwareRetry(urllib3.Retry):
        """urllib3's Retry, whose waits (backoff, Retry-After) end at once when the crawl stops;
        an interrupted exchange is not tried again."""

        def sleep(self, response=None) -> None:
            if in_flight.is_cut():
                raise FetchError("interrupted", "request interrupted")
            wait = self.get_retry_after(response) if response is not None and self.respect_retry_after_header \
                else None
            if wait is None:
                wait = self.get_backoff_time()
            if stop.wait(min(max(wait, 0.0), max_wait)):
                raise FetchError("stopped", "crawl stopped")

    return StopAwareRetry


class Fetcher:
    def __init__(self, user_agent: str, limits: FetchLimits | None = None, pool_size: int = 16,
                 stop: threading.Event | None = None, cookies=None):
        self.limits = limits = limits or FetchLimits()
        self.cookies = cookies  # crawl.cookies.CookieFile: the profile's cookies, sent where they match
        self.stop = stop or threading.Event()
        self.user_agent = user_agent
        self._in_flight = InFlight()
        headers = {"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate", "Accept-Language": "vi,en;q=0.8"}
        self._headers = {kind: {**headers, "Accept": accept} for kind, accept in ACCEPT.items()}  # per request kind
        self._num_pools = max(10, pool_size)
        self._pools = urllib3.PoolManager(num_pools=self._num_pools, maxsize=pool_size, headers=headers)
        self._pools.pool_classes_by_scheme = pool_classes(self._in_flight)
        self._host_pools: dict[tuple[str, str], object] = {}  # (scheme, netloc) -> the manager's pool for it
        # proxies from the environment, read once (a hot-path cost otherwise)
        self._proxies = {scheme: urllib3.ProxyManager(url, num_pools=10, maxsize=pool_size, headers=headers)
                         for scheme, url in urllib.request.getproxies().items() if scheme in ("http", "https")}
        self._timeout = urllib3.Timeout(connect=limits.connect_timeout, read=limits.read_timeout)
        self._retry = _retry_class(self.stop, limits.max_backoff_s, self._in_flight)(
            total=None, connect=limits.retries, read=limits.retries, status=limits.retries, other=0,
            redirect=0, raise_on_redirect=False, status_forcelist=RETRY_STATUSES, raise_on_status=False,
            backoff_factor=limits.backoff_s, backoff_max=limits.max_backoff_s, respect_retry_after_header=True)

    def close(self) -> None:
        self._host_pools.clear()
        self._pools.clear()
        for manager in self._proxies.values():
            manager.clear()

    def interrupt(self) -> int:
        """Cut the requests in flight (from any thread); they fail as "stopped" when the stop
        event is set, else as "interrupted". Returns how many there were."""
        return self._in_flight.interrupt()

    def get(self, url: str, *, accept: str = "html", check: Callable[[str], None] | None = None) -> FetchResult:
        """One page (or image, or any file with accept="any"), as the crawler would fetch it: same
        user agent, headers, caps and retries; ``check(url)`` runs on every hop."""
        return self.fetch(url, accept=accept, check=check)

    def fetch(self, url: str, *, accept: str = "html", gate=None,
              check: Callable[[str], None] | None = None) -> FetchResult:
        started = time.monotonic()
        redirects: list[str] = []
        seen = {url}
        while True:
            if not is_allowed_scheme(url):
                raise FetchError("bad_url", f"not an http(s) URL: {url}")
            if check:
                check(url)
            with gate.slot(origin(url)[1]) if gate else nullcontext() as sent:
                status, ctype, body, location = self._exchange(url, accept, sent)
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

    def _exchange(self, url: str, accept: str, sent=None):
        """One request (urllib3 retries it): (status, content type, body, redirect location or None).
        ``sent()`` is called whenever the request goes out (the politeness gate's clock)."""
        if self.stop.is_set():
            raise FetchError("stopped", "crawl stopped")
        self._in_flight.begin(sent)
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
        resp = self._open(url, accept)
        try:
            status = resp.status
            ctype = resp.headers.get("Content-Type", "")
            location = resp.get_redirect_location()
            if location:
                return status, ctype, b"", location
            if status >= 400:
                kind = "http_5xx" if status >= 500 else "http_4xx"
                raise FetchError(kind, f"HTTP {status}", status=status, retry_after=self._retry_after(resp))
            mime = ctype.split(";", 1)[0].strip().lower()
            cap = self.limits.max_image_bytes if accept == "image" else self.limits.max_bytes
            if accept == "html" and mime and mime not in HTML_TYPES:
                raise FetchError("content_type", f"not HTML: {mime}")
            if accept == "image" and mime not in IMAGE_TYPES:
                raise FetchError("content_type", f"not an accepted image type: {mime or '(none)'}")
            length = resp.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > cap:
                raise FetchError("too_large", f"Content-Length {length} over the {cap}-byte cap")
            body = self._read(resp, cap)
            if accept == "html" and not mime and not body.lstrip()[:1] == b"<":
                raise FetchError("content_type", "no content type and the body is not HTML")
            return status, ctype, body, None
        except BaseException:
            resp.close()  # not read to its end: the connection is not reused
            raise
        finally:
            resp.release_conn()

    def _retry_after(self, resp) -> float | None:
        try:
            return self._retry.get_retry_after(resp)
        except HTTPError:  # an unreadable Retry-After
            return None

    def _open(self, url: str, accept: str):
        """GET through the pool (retries included): a urllib3 response, body unread."""
        manager = self._pools
        if self._proxies:
            scheme, host = urlsplit(url)[:2]
            if scheme in self._proxies and not urllib.request.proxy_bypass(host.rsplit(":", 1)[0]):
                manager = self._proxies[scheme]
        try:
            headers = self._headers.get(accept) or self._headers["any"]
            cookie = self.cookies.header_for(url) if self.cookies else ""
            if cookie:
                headers = {**headers, "Cookie": cookie}
            plain = plain_target(url) if manager is self._pools else None
            if plain is not None:
                # the host's pool directly: what PoolManager.urlopen does, without parsing the URL again
                # and building the pool's key on every request
                key, target = plain
                return self._host_pool(url, key).urlopen(
                    "GET", target, headers=headers, redirect=False, assert_same_host=False,
                    retries=self._retry, preload_content=False, timeout=self._timeout)
            return manager.urlopen("GET", url, headers=headers,
                                   redirect=False, retries=self._retry, preload_content=False,
                                   timeout=self._timeout)
        except MaxRetryError as exc:  # retries spent: why the last one failed
            raise _failure(exc.reason) from None
        except (LocationValueError, ValueError) as exc:
            raise FetchError("bad_url", f"invalid URL: {_short(exc)}") from None
        except (HTTPError, OSError) as exc:
            raise _failure(exc) from None

    def _host_pool(self, url: str, key: tuple[str, str]):
        pool = self._host_pools.get(key)
        if pool is None:
            parsed = parse_url(url)
            pool = self._pools.connection_from_host(parsed.host, port=parsed.port, scheme=parsed.scheme)
            if len(self._host_pools) >= self._num_pools:
                self._host_pools.clear()  # as many as the manager keeps (it does not close those it drops)
            self._host_pools[key] = pool
        return pool

    def _read(self, resp, cap: int) -> bytes:
        """At most ``cap`` bytes of body (decoded: urllib3 inflates a bounded amount per read),
        within the total time limit."""
        encoded = resp.headers.get("Content-Encoding", "").strip().lower() not in ("", "identity")
        deadline = time.monotonic() + self.limits.total_timeout
        parts: list[bytes] = []
        size = 0
        try:
            while True:
                # a plain body is not "decoded": urllib3's decoded-body buffer would copy each chunk twice
                chunk = resp.read1(_CHUNK, decode_content=encoded)
                if not chunk:
                    break
                size += len(chunk)
                if size > cap:
                    if encoded:
                        raise FetchError("decompression_bomb", f"inflates past the {cap}-byte cap")
                    raise FetchError("too_large", f"body over the {cap}-byte cap")
                parts.append(chunk)
                if not encoded and resp.closed:  # its Content-Length read: no read only to be told so
                    break
                if time.monotonic() > deadline:
                    raise FetchError("too_slow", f"body not complete after {self.limits.total_timeout:g} s")
                if self.stop.is_set():
                    raise FetchError("stopped", "crawl stopped")
        except ReadTimeoutError:
            raise FetchError("timeout", "read timed out") from None
        except DecodeError as exc:
            raise FetchError("connection", f"corrupt compressed body: {_short(exc)}") from None
        except (ProtocolError, HTTPError, OSError) as exc:
            raise FetchError("connection", f"connection broken: {_short(exc)}") from None
        return b"".join(parts)


def origin(url: str) -> tuple[str, str]:
    """urlsplit(url)[:2] (scheme, netloc), without splitting a plain http(s) URL (tested against urlsplit)."""
    plain = _ORIGIN.match(url)
    if plain is not None:
        return plain.group(1, 2)
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def plain_target(url: str) -> tuple[tuple[str, str], str] | None:
    """((scheme, netloc), request target) of a URL whose request target urllib3's ``PoolManager`` would
    take unchanged from it (http(s), printable ASCII, a plain host[:port], no dot segment); else None."""
    plain = _PLAIN_URL.fullmatch(url) if url.isascii() else None
    if plain is None:
        return None
    scheme, netloc, path, query = plain.groups()
    if path and "/." in path:
        return None
    return (scheme, netloc), (path or "/") + (query or "")


def _failure(exc) -> FetchError:
    if isinstance(exc, FetchError):
        return exc
    if isinstance(exc, NewConnectionError):  # a subclass of ConnectTimeoutError: test it first
        return FetchError("connection", f"connection failed: {_short(exc)}")
    if isinstance(exc, ConnectTimeoutError):
        return FetchError("timeout", "no answer in time: ConnectTimeout")
    if isinstance(exc, ReadTimeoutError):
        return FetchError("timeout", "no answer in time: ReadTimeout")
    return FetchError("connection", f"connection failed: {_short(exc)}")


def _short(exc: Exception) -> str:
    text = str(exc) or exc.__class__.__name__
    return text if len(text) < 200 else text[:197] + "..."
