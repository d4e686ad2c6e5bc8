"""One HTTP exchange on a libcurl handle (pycurl): the request goes out, the answer's head is
judged as soon as it is complete, and its body is read within the caps.

libcurl does the transport in C, with the interpreter lock released for the whole exchange:
connections kept alive per handle, TLS, chunked bodies, gzip/deflate decoding, timeouts. What is
ours is the judgement of the head (``judge``: a redirect, an error status, a content type or a
length the caller refuses ends the exchange before the body is read) and the caps on the body
as decoded (a decompression bomb stops at the cap). Redirects and retries are the caller's.
"""

from __future__ import annotations

import math
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import pycurl

from .sockets import InFlight

# libcurl's error codes, grouped by what the fetcher makes of them
_NOT_CONNECTED = {pycurl.E_COULDNT_RESOLVE_HOST, pycurl.E_COULDNT_CONNECT, pycurl.E_COULDNT_RESOLVE_PROXY}
_TLS = {pycurl.E_SSL_CONNECT_ERROR, pycurl.E_PEER_FAILED_VERIFICATION, pycurl.E_SSL_CERTPROBLEM,
        pycurl.E_SSL_CIPHER, pycurl.E_SSL_CACERT_BADFILE, pycurl.E_SSL_ISSUER_ERROR,
        pycurl.E_SSL_PINNEDPUBKEYNOTMATCH, pycurl.E_SSL_INVALIDCERTSTATUS}
_BAD_URL = {pycurl.E_URL_MALFORMAT, pycurl.E_UNSUPPORTED_PROTOCOL}  # before connecting (after: an answer not HTTP)
# CURLOPT_SUPPRESS_CONNECT_HEADERS (curl.h, libcurl >= 7.54), which pycurl has no name for: a proxy's answer to
# CONNECT is not given to the header callback, where it would be judged as the page's head
_SUPPRESS_CONNECT_HEADERS = getattr(pycurl, "SUPPRESS_CONNECT_HEADERS", 265)
_E_PROXY = 97  # CURLE_PROXY (libcurl >= 7.73): a SOCKS handshake failed; CURLINFO_PROXY_ERROR says why
# CURLproxycode values where the SOCKS proxy answered but the site beyond it did not (connection refused,
# general failure, host or network unreachable, TTL expired, the host name not resolved): not the proxy's fault
_SITE_BEYOND_PROXY = {19, 20, 21, 22, 24, 27}
BODY_BUFFER = 128 * 1024  # libcurl's largest read: a page that has arrived comes in one call
DISCARDED = 64 * 1024  # the body of a redirect or an error page is read past (keeping the connection) up to this


class TransportError(Exception):
    """An exchange that failed below HTTP: ``phase`` is "connect" (nothing was sent), "read" (the
    request went out, no complete answer head came back), "body" (the head came, the body broke)
    or "final" (not worth trying again: TLS, a malformed URL)."""

    def __init__(self, phase: str, kind: str, message: str, proxy_fault: bool = False):
        super().__init__(message)
        self.phase = phase
        self.kind = kind
        self.proxy_fault = proxy_fault  # the proxy itself failed (unreachable, refused the credentials)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]  # the last head's fields, names in lower case
    body: bytes = b""
    refused: Exception | None = None  # what ``judge`` said about the head, if it refused the body

    def header(self, name: str) -> str:
        return self.headers.get(name, "")


@dataclass
class _Reading:
    """The callbacks' state for one exchange (libcurl calls them with the head's lines, then the body)."""
    judge: Callable[[int, dict], object]
    cap: int
    total_timeout: float
    stop: threading.Event
    status: int = 0
    headers: dict = field(default_factory=dict)  # the answer's head, once complete
    fields: dict = field(default_factory=dict)  # the fields of the head being read
    head_done: bool = False
    verdict: object = None
    parts: list = field(default_factory=list)
    size: int = 0
    deadline: float = 0.0
    failure: Exception | None = None

    def on_header(self, line: bytes):
        if line.startswith(b"HTTP/"):  # a new head: an interim 1xx one came before it
            if self.head_done:  # a trailer
                return None
            parts = line.split(None, 2)
            self.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            self.fields = {}
            return None
        if line in (b"\r\n", b"\n"):
            if self.head_done or 100 <= self.status < 200:  # the end of the trailers or of an interim head
                return None
            self.head_done = True
            self.headers, self.fields = self.fields, {}  # fields after the head (trailers) are not the answer's
            self.deadline = time.monotonic() + self.total_timeout
            self.verdict = self.judge(self.status, self.headers)
            return -1 if isinstance(self.verdict, Exception) else None
        name, colon, value = line.decode("latin-1").partition(":")
        if colon:
            name = name.strip().lower()
            value = value.strip()
            known = self.fields.get(name)
            self.fields[name] = value if known is None or known == value else f"{known}, {value}"
        return None

    def on_body(self, chunk: bytes):
        self.size += len(chunk)
        if self.verdict == "skip":  # a redirect's or an error page's body: read past, not kept
            return None if self.size <= DISCARDED else 0
        if self.size > self.cap:
            encoded = self.headers.get("content-encoding", "").strip().lower() not in ("", "identity")
            self.failure = TransportError("body", "decompression_bomb", f"inflates past the {self.cap}-byte cap") \
                if encoded else TransportError("body", "too_large", f"body over the {self.cap}-byte cap")
            return 0
        self.parts.append(chunk)
        if time.monotonic() > self.deadline:
            self.failure = TransportError("body", "too_slow", f"body not complete after {self.total_timeout:g} s")
            return 0
        if self.stop.is_set():
            self.failure = TransportError("body", "stopped", "crawl stopped")
            return 0
        return None


class Handles:
    """A fetcher's libcurl handles, set up once; an exchange takes one and gives it back (each keeps
    its own connections alive). ``interrupt`` reaches them through ``in_flight``."""

    def __init__(self, in_flight: InFlight, *, connect_timeout: float, read_timeout: float, total_timeout: float):
        self._in_flight = in_flight
        self._lock = threading.Lock()
        self._free: list = []
        self._closed = False
        self._connect_ms = max(1, int(connect_timeout * 1000))
        self._stall_s = max(1, math.ceil(read_timeout))  # libcurl counts a stall in whole seconds
        # a last resort: libcurl's own limit on the whole exchange (the body's limit is checked as it comes)
        self._whole_ms = int((connect_timeout + read_timeout + total_timeout) * 1000) + 1000
        self._ca_file, self._ca_dir = _trusted()

    def take(self):
        with self._lock:
            if self._free:
                return self._free.pop()
        return self._new()

    def give(self, handle) -> None:
        with self._lock:
            if self._closed:
                handle.close()
            else:
                self._free.append(handle)

    def close(self) -> None:
        """Close the idle handles now, and those in an exchange when it ends (libcurl refuses to close
        a handle in use)."""
        with self._lock:
            self._closed = True
            handles, self._free = self._free, []
        for handle in handles:
            handle.close()

    def _new(self):
        handle = pycurl.Curl()
        key = id(handle)
        in_flight = self._in_flight

        def opened(fd: int, purpose: int) -> int:
            in_flight.socket_opened(key, fd)
            return pycurl.SOCKOPT_OK

        def closing(fd: int) -> int:
            in_flight.socket_closing(key, fd)
            return 0

        handle.setopt(pycurl.NOSIGNAL, 1)
        handle.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        handle.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
        handle.setopt(pycurl.FOLLOWLOCATION, 0)
        handle.setopt(pycurl.ACCEPT_ENCODING, "gzip, deflate")
        handle.setopt(pycurl.BUFFERSIZE, BODY_BUFFER)
        handle.setopt(pycurl.CONNECTTIMEOUT_MS, self._connect_ms)
        handle.setopt(pycurl.LOW_SPEED_LIMIT, 1)
        handle.setopt(pycurl.LOW_SPEED_TIME, self._stall_s)
        handle.setopt(pycurl.TIMEOUT_MS, self._whole_ms)
        handle.setopt(pycurl.SOCKOPTFUNCTION, opened)
        handle.setopt(pycurl.CLOSESOCKETFUNCTION, closing)
        if self._ca_file:
            handle.setopt(pycurl.CAINFO, self._ca_file)
        if self._ca_dir:
            handle.setopt(pycurl.CAPATH, self._ca_dir)
        handle.setopt(pycurl.PROXY, "")  # no proxy from the environment but the one ``exchange`` is given
        handle.setopt(_SUPPRESS_CONNECT_HEADERS, 1)
        return handle


def _trusted() -> tuple[str | None, str | None]:
    """The certificate authorities TLS trusts (a file, a directory), as Python's ssl module and urllib3
    trust them: ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` when set, else the system's store (with the
    authorities a user or a company added to it); certifi's bundle where the system has no file."""
    paths = ssl.get_default_verify_paths()  # None for what does not exist
    if paths.cafile is not None:
        return paths.cafile, paths.capath
    try:
        import certifi
    except ImportError:
        return None, paths.capath
    return certifi.where(), paths.capath


def exchange(handle, url: str, headers: list[bytes], *, cap: int, total_timeout: float,
             judge: Callable[[int, dict], object], stop: threading.Event, on_send=None,
             proxy: str | None = None) -> Answer:
    """GET ``url`` on ``handle``: the answer, or TransportError. ``judge(status, headers)`` sees the
    head first and returns None (read the body), "skip" (read past a small body, keep none of it)
    or an exception (stop now: the answer carries it as ``refused``). ``on_send()`` is called each
    time the request has been written to its socket. ``proxy``: the proxy URL to go through ("" for
    none); None leaves the handle's."""
    reading = _Reading(judge, cap, total_timeout, stop)
    handle.setopt(pycurl.URL, url)
    handle.setopt(pycurl.HTTPHEADER, headers)
    handle.setopt(pycurl.HEADERFUNCTION, reading.on_header)
    handle.setopt(pycurl.WRITEFUNCTION, reading.on_body)
    if on_send is not None:  # told when the request's head has been written (libcurl's debug report)
        handle.setopt(pycurl.VERBOSE, 1)
        handle.setopt(pycurl.DEBUGFUNCTION, lambda kind, _: on_send() if kind == pycurl.INFOTYPE_HEADER_OUT else None)
    if proxy is not None:
        handle.setopt(pycurl.PROXY, proxy)
    try:
        handle.perform()
    except pycurl.error as exc:
        reading.parts.clear()
        code, message = exc.args[0], str(exc.args[1]) if len(exc.args) > 1 else ""
        if reading.failure is not None:
            raise reading.failure from None
        if isinstance(reading.verdict, Exception):
            return Answer(reading.status, reading.headers, b"", refused=reading.verdict)
        if reading.verdict == "skip":  # a body not wanted, read past or broken (corrupt, cut): the head is the answer
            return Answer(reading.status, reading.headers)
        error = _transport_error(handle, code, message, reading)
        error.proxy_fault = bool(proxy) and _proxy_fault(handle, code)
        raise error from None
    finally:
        if on_send is not None:
            handle.setopt(pycurl.VERBOSE, 0)
            handle.unsetopt(pycurl.DEBUGFUNCTION)
    if reading.verdict == "skip":
        return Answer(reading.status, reading.headers)
    body = b"".join(reading.parts)
    reading.parts.clear()  # the handle's callbacks hold ``reading`` until its next exchange
    return Answer(reading.status, reading.headers, body)


def _proxy_fault(handle, code: int) -> bool:
    """Whether an exchange through a proxy failed at the proxy itself: it could not be reached or resolved,
    or it refused the credentials (SOCKS, or 407 to CONNECT); not when it answered that the site could not be."""
    if code == pycurl.E_COULDNT_RESOLVE_PROXY:
        return True
    if code == _E_PROXY:
        return handle.getinfo(pycurl.PROXY_ERROR) not in _SITE_BEYOND_PROXY
    if handle.getinfo(pycurl.HTTP_CONNECTCODE) == 407:
        return True
    # no connection to anything (a connection to the proxy sets its address)
    return code in (pycurl.E_COULDNT_CONNECT, pycurl.E_OPERATION_TIMEDOUT) and not handle.getinfo(pycurl.PRIMARY_IP)


def _transport_error(handle, code: int, message: str, reading: _Reading) -> TransportError:
    short = message if len(message) < 200 else message[:197] + "..."
    # whether this exchange's request went out (the times are set before a URL is even parsed, and a
    # connection kept alive has no connect time)
    sent = handle.getinfo(pycurl.REQUEST_SIZE) > 0
    if code in _BAD_URL and not sent:
        return TransportError("final", "bad_url", f"invalid URL: {short}")
    if code in _TLS:
        return TransportError("final", "connection", f"connection failed: {short}")
    if reading.head_done:  # the body broke off
        if code == pycurl.E_OPERATION_TIMEDOUT:
            return TransportError("body", "timeout", "read timed out")
        if code == pycurl.E_BAD_CONTENT_ENCODING:
            return TransportError("body", "connection", f"corrupt compressed body: {short}")
        return TransportError("body", "connection", f"connection broken: {short}")
    if code == pycurl.E_OPERATION_TIMEDOUT:
        if sent:
            return TransportError("read", "timeout", "no answer in time: ReadTimeout")
        return TransportError("connect", "timeout", "no answer in time: ConnectTimeout")
    if code in _NOT_CONNECTED or not sent:
        return TransportError("connect", "connection", f"connection failed: {short}")
    return TransportError("read", "connection", f"connection failed: {short}")
