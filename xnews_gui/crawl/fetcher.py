"""HTTP fetching for the crawl, ``extract URL`` and the inspector: one libcurl client.

    fetcher = Fetcher(user_agent)
    page = fetcher.get("https://example.com/a.html")      # a one-off page: FetchResult or FetchError

libcurl (``curl_exchange``) does the transport: connections kept alive, TLS, chunked bodies,
gzip/deflate decoding, timeouts; it runs in C with the interpreter lock released, which makes
a page's fetch a fifth of what it cost in Python's HTTP stack. What no library does is ours:
every hop of a redirect goes through an optional ``gate`` (per-host politeness) and ``check``
(scope, robots), so a redirect never leads where the crawler may not go; caps on size (as
decoded), content type and total time; retries of failed connections and of 429/5xx answers,
honouring ``Retry-After``, with waits that a stop cuts short; and ``interrupt()`` (``sockets``),
which cuts the requests in flight so a stop or a pause takes effect at once.
"""

from __future__ import annotations

import re
import threading
import time
import urllib.request
from contextlib import nullcontext
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Callable
from urllib.parse import urljoin, urlsplit

from ..core.text.urls import is_allowed_scheme
from .conditional import NOT_MODIFIED, header_lines, validators
from .curl_exchange import Answer, Handles, TransportError, exchange
from .sockets import InFlight

HTML_TYPES = ("text/html", "application/xhtml+xml")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")  # no SVG: it can carry script
RETRY_STATUSES = (429, 500, 502, 503, 504)
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
ACCEPT = {"html": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
          "image": "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9", "any": "*/*",
          "sitemap": "application/xml,text/xml;q=0.9,*/*;q=0.5"}
# A request target urllib3 would send unchanged: only characters a path or query may carry, percent-escapes in upper case
_CLEAN_TARGET = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-F]{2})*")
# An http(s) URL of printable ASCII with a plain host[:port]: (scheme, netloc, path, "?query"). Without dot
# segments in its path, it goes out as it is; any other URL is normalised first (``parse_url``).
_ORIGIN = re.compile(r"(https?)://([A-Za-z0-9.-]+(?::[0-9]{1,5})?)(?=[/?#]|\Z)")
_PLAIN_URL = re.compile(r"(https?)://([A-Za-z0-9.-]+(?::[0-9]{1,5})?)(/[^\x00-\x20\x7f\\?#]*)?"
                        r"(\?[^\x00-\x20\x7f\\#]*)?(?:#[^\x00-\x20\x7f]*)?")


class FetchError(Exception):
    """A failed fetch; ``kind`` is one of: timeout, too_slow, connection, http_4xx, http_5xx,
    redirects, too_large, decompression_bomb, content_type, bad_url, robots, scope, stopped,
    interrupted (cut by ``Fetcher.interrupt()`` while the crawl goes on, e.g. paused: fetch it again),
    retry (with ``later=True``: try again in ``retry_after`` seconds; ``cause`` is what failed)."""

    def __init__(self, kind: str, message: str, status: int = 0, retry_after: float | None = None,
                 cause: str = ""):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after
        self.cause = cause


@dataclass
class FetchResult:
    url: str  # after redirects
    status: int
    content_type: str
    body: bytes
    redirects: list = field(default_factory=list)
    elapsed: float = 0.0
    attempts: int = 1  # tries of the last hop (1 + its retries)
    etag: str = ""  # the answer's validators, for a later conditional request (a revisit)
    last_modified: str = ""


@dataclass
class FetchLimits:
    connect_timeout: float = 5.0
    read_timeout: float = 10.0
    total_timeout: float = 30.0  # a whole response, so a slow drip cannot hold a worker
    max_bytes: int = 5 * 1024 * 1024
    max_image_bytes: int = 8 * 1024 * 1024
    max_sitemap_bytes: int = 50 * 1024 * 1024  # the sitemaps.org limit for one file
    max_redirects: int = 5
    retries: int = 2
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0


class Fetcher:
    def __init__(self, user_agent: str, limits: FetchLimits | None = None,
                 stop: threading.Event | None = None, cookies=None, proxies=None):
        self.limits = limits = limits or FetchLimits()
        self.proxies = proxies  # crawl.proxies.ProxyList: rotated through (instead of the environment's)
        self.cookies = cookies  # crawl.cookies.CookieFile: the profile's cookies, sent where they match
        self.stop = stop or threading.Event()
        self.user_agent = user_agent
        self._in_flight = InFlight()
        common = [f"User-Agent: {user_agent}", "Accept-Language: vi,en;q=0.8"]
        # per request kind; as bytes, UTF-8 (a user agent or a cookie with Vietnamese letters), as browsers send cookies
        self._headers = {kind: [line.encode() for line in common + [f"Accept: {accept}"]]
                         for kind, accept in ACCEPT.items()}
        # proxies from the environment, read once (as urllib does)
        self._proxies = {scheme: url for scheme, url in urllib.request.getproxies().items()
                         if scheme in ("http", "https")}
        self._handles = Handles(self._in_flight, connect_timeout=limits.connect_timeout,
                                read_timeout=limits.read_timeout, total_timeout=limits.total_timeout)

    def close(self) -> None:
        self._handles.close()

    def interrupt(self) -> int:
        """Cut the requests in flight (from any thread); they fail as "stopped" when the stop
        event is set, else as "interrupted". Returns how many there were."""
        return self._in_flight.interrupt()

    def get(self, url: str, *, accept: str = "html", check: Callable[[str], None] | None = None) -> FetchResult:
        """One page (or image, or any file with accept="any"), as the crawler would fetch it: same
        user agent, headers, caps and retries; ``check(url)`` runs on every hop."""
        return self.fetch(url, accept=accept, check=check)

    def fetch(self, url: str, *, accept: str = "html", gate=None, check: Callable[[str], None] | None = None,
              tried: int = 0, later: bool = False, conditions: dict | None = None) -> FetchResult:
        """``tried``: the retries this request had already (its ``Request.tries``). ``later``: a retry that
        has to wait (a Retry-After, a backoff) is not waited for here, holding a thread and the host's
        slot: FetchError("retry", retry_after=seconds) says when to try again (a crawl reschedules it).
        ``conditions``: If-None-Match / If-Modified-Since of a stored copy (other names are ignored), sent
        to ``url`` itself (not to where it redirects); a 304 answer comes back as a result without a body."""
        started = time.monotonic()
        redirects: list[str] = []
        seen = {url}
        extra = header_lines(conditions)
        while True:
            try:
                allowed = is_allowed_scheme(url)
            except ValueError as exc:  # urlsplit refuses it (an unclosed IPv6 bracket)
                raise FetchError("bad_url", f"invalid URL: {exc}: {url[:200]}") from None
            if not allowed:
                raise FetchError("bad_url", f"not an http(s) URL: {url}")
            if check:
                check(url)
            with gate.slot(origin(url)[1]) if gate else nullcontext() as sent:
                status, ctype, body, location, validators, attempts = self._exchange(
                    url, accept, sent, tried, later, extra if not redirects else ())
            if location is None:
                return FetchResult(url, status, ctype, body, redirects, time.monotonic() - started, attempts,
                                   *validators)
            try:
                target = urljoin(url, location)
            except ValueError as exc:
                raise FetchError("bad_url", f"invalid redirect: {exc}: {location[:200]}") from None
            if target in seen:
                raise FetchError("redirects", f"redirect loop at {target}")
            if len(redirects) >= self.limits.max_redirects:
                raise FetchError("redirects", f"more than {self.limits.max_redirects} redirects")
            redirects.append(target)
            seen.add(target)
            url = target

    def _exchange(self, url: str, accept: str, sent=None, tried: int = 0, later: bool = False, extra=()):
        """One request, tried again after a failed connection or a 429/5xx answer: (status, content
        type, body, redirect location or None, (etag, last modified), tries). ``sent()`` is called whenever
        the request goes out (the politeness gate's clock); ``extra``: more header lines (bytes)."""
        if self.stop.is_set():
            raise FetchError("stopped", "crawl stopped")
        target = request_url(url)
        headers = self._headers.get(accept) or self._headers["any"]
        if extra:
            headers = headers + list(extra)
        cookie = self.cookies.header_for(url) if self.cookies else ""
        if cookie:
            headers = headers + [f"Cookie: {cookie}".encode()]
        cap = {"image": self.limits.max_image_bytes, "sitemap": self.limits.max_sitemap_bytes}.get(
            accept, self.limits.max_bytes)
        handle = self._handles.take()
        self._in_flight.begin(id(handle))
        try:
            result = self._tries(handle, target, headers, accept, cap, sent, tried, later, bool(extra))
        except FetchError:
            if self._in_flight.end():
                raise self._cut() from None
            raise
        except BaseException:
            self._in_flight.end()
            raise
        finally:
            self._handles.give(handle)
        if self._in_flight.end():  # cut while reading: the body may be short
            raise self._cut()
        return result

    def _tries(self, handle, url: str, headers: list[bytes], accept: str, cap: int, sent, tried: int = 0,
               later: bool = False, conditional: bool = False):
        limits = self.limits
        tries = {"connect": tried, "read": tried, "status": tried}
        failures = tried
        judge = _judge(accept, cap)
        rotation = self.proxies
        proxy = self._rotated(later) if rotation is not None else (self._proxy_for(url) if self._proxies else None)
        while True:
            try:
                answer = exchange(handle, url, headers, cap=cap, total_timeout=limits.total_timeout,
                                  judge=judge, stop=self.stop, on_send=sent, proxy=proxy)
            except TransportError as exc:
                if exc.kind == "stopped" or self.stop.is_set():
                    raise FetchError("stopped", "crawl stopped") from None
                if rotation is not None and exc.proxy_fault:  # not the page's try: the next proxy, at once
                    rotation.failed(proxy, str(exc))
                    proxy = self._rotated(later)
                    continue
                if exc.phase not in tries or tries[exc.phase] >= limits.retries:
                    raise FetchError(exc.kind, str(exc)) from None
                tries[exc.phase] += 1
                failures += 1
                self._wait(_backoff(failures, limits), later, exc.kind, str(exc))
                continue
            status = answer.status
            if rotation is not None and status == 407:
                rotation.failed(proxy, "HTTP 407: it wants other credentials")
                proxy = self._rotated(later)
                continue
            if status in RETRY_STATUSES and tries["status"] < limits.retries:
                tries["status"] += 1
                failures += 1
                wait = _retry_after(answer.header("retry-after"))
                kind = "http_5xx" if status >= 500 else "http_4xx"
                self._wait(_backoff(failures, limits) if wait is None else wait, later, kind, f"HTTP {status}", status)
                continue
            return *_outcome(answer, accept, conditional), failures + 1

    def _rotated(self, later: bool) -> str:
        """The next proxy of the rotation; when every one is set aside, the request waits for the first
        back (``later``: handed back to be tried then, so nothing is lost) or fails."""
        proxy = self.proxies.pick()
        if proxy:
            return proxy
        wait = self.proxies.wait_s()
        if later:
            raise FetchError("retry", f"every proxy is set aside; tried again in {wait:.0f} s",
                             retry_after=max(wait, 1.0), cause="connection")
        raise FetchError("connection", f"every proxy is set aside for {wait:.0f} s more (see the warnings)")

    def _proxy_for(self, url: str) -> str:
        """The proxy from the environment for this URL, "" where none applies (``no_proxy``)."""
        scheme, netloc = origin(url)
        proxy = self._proxies.get(scheme.lower(), "")
        host = netloc.rsplit("@", 1)[-1]
        if proxy and urllib.request.proxy_bypass(host if host.endswith("]") else host.rsplit(":", 1)[0]):
            return ""
        return proxy

    def _wait(self, wait: float, later: bool, cause: str, message: str, status: int = 0) -> None:
        """Before a retry: none needed, waited for here, or (``later``) handed back to the caller."""
        if later and wait > 0:
            wait = min(wait, self.limits.max_backoff_s)
            raise FetchError("retry", f"{message}; tried again in {wait:g} s", status, retry_after=wait, cause=cause)
        self._pause(wait)

    def _pause(self, wait: float) -> None:
        """The wait before trying again, ended at once by a stop and within a quarter second by
        ``interrupt()`` (a pause); an interrupted exchange is not tried again."""
        deadline = time.monotonic() + min(max(wait, 0.0), self.limits.max_backoff_s)
        while not self._in_flight.is_cut():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if self.stop.wait(min(left, 0.25)):
                raise FetchError("stopped", "crawl stopped")
        raise FetchError("interrupted", "request interrupted")

    def _cut(self) -> FetchError:
        if self.stop.is_set():
            return FetchError("stopped", "crawl stopped")
        return FetchError("interrupted", "request interrupted")


def _judge(accept: str, cap: int):
    """What to do with an answer once its head is in: None (read the body), "skip" (a redirect or an
    error status: its body is not wanted) or a FetchError (refused: the body is never read)."""

    def judge(status: int, headers: dict):
        if status in REDIRECT_STATUSES and headers.get("location"):
            return "skip"
        if status == NOT_MODIFIED or status >= 400:
            return "skip"
        mime = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if accept == "html" and mime and mime not in HTML_TYPES:
            return FetchError("content_type", f"not HTML: {mime}")
        if accept == "image" and mime not in IMAGE_TYPES:
            return FetchError("content_type", f"not an accepted image type: {mime or '(none)'}")
        length = headers.get("content-length", "")
        if length.isdecimal() and int(length) > cap:
            return FetchError("too_large", f"Content-Length {length} over the {cap}-byte cap")
        return None

    return judge


def _outcome(answer: Answer, accept: str, conditional: bool = False):
    status, ctype = answer.status, answer.header("content-type")
    if answer.refused is not None:
        raise answer.refused
    checked = validators(answer)
    location = answer.header("location") if status in REDIRECT_STATUSES else ""
    if location:
        return status, ctype, b"", _as_browsers_read(location), checked
    if status == NOT_MODIFIED and conditional:  # the stored copy is still the page: nothing to read
        return status, ctype, b"", None, checked
    if status >= 400:
        kind = "http_5xx" if status >= 500 else "http_4xx"
        raise FetchError(kind, f"HTTP {status}", status=status, retry_after=_retry_after(answer.header("retry-after")))
    body = answer.body
    if accept == "html" and not ctype.split(";", 1)[0].strip() and not body.lstrip()[:1] == b"<":
        raise FetchError("content_type", "no content type and the body is not HTML")
    return status, ctype, body, None, checked


def _as_browsers_read(location: str) -> str:
    """A Location sent as UTF-8 (head lines are read as Latin-1) read as UTF-8, as browsers and requests do."""
    if location.isascii():
        return location
    try:
        return location.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:  # Latin-1 indeed
        return location


def _backoff(failures: int, limits: FetchLimits) -> float:
    """No wait before the first retry, then ``backoff_s`` doubling (as urllib3's Retry counts it)."""
    if failures <= 1:
        return 0.0
    return min(limits.max_backoff_s, limits.backoff_s * 2 ** (failures - 1))


def _retry_after(value: str) -> float | None:
    """Seconds a ``Retry-After`` asks for (a number or an HTTP date), None when absent or unreadable."""
    value = value.strip()
    if not value:
        return None
    if value.isdecimal():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def request_url(url: str) -> str:
    """The URL as it goes out: a plain one unchanged (without its fragment), any other normalised as
    urllib3 does (dot segments removed, characters a request line cannot carry percent-encoded, an
    international host in IDNA)."""
    plain = plain_target(url)
    if plain is not None and _CLEAN_TARGET.fullmatch(plain[1]):
        (scheme, netloc), target = plain
        return f"{scheme}://{netloc}{target}"
    from urllib3.exceptions import LocationParseError  # imported when first needed: a fifth of a crawl's start-up
    from urllib3.util import parse_url

    try:
        parsed = parse_url(url)
    except (LocationParseError, ValueError) as exc:
        raise FetchError("bad_url", f"invalid URL: {_short(exc)}") from None
    if not parsed.host:
        raise FetchError("bad_url", f"invalid URL: no host in {url[:200]}")
    netloc = parsed.host if parsed.port is None else f"{parsed.host}:{parsed.port}"
    if parsed.auth:
        netloc = f"{parsed.auth}@{netloc}"
    return f"{parsed.scheme}://{netloc}{parsed.request_uri}"


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


def _short(exc: Exception) -> str:
    text = str(exc) or exc.__class__.__name__
    return text if len(text) < 200 else text[:197] + "..."
