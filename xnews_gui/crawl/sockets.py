"""Requests in flight that another thread can cut: a stop or a pause never waits for a
connect or read timeout.

``InFlight`` knows the socket each thread's current exchange waits on; ``interrupt()``
shuts them down, which wakes a thread blocked in ``recv()`` or in ``connect()`` (Linux
drops a SYN_SENT socket). urllib3 has no public hook between creating a socket and
connecting it, so the pool's connection class creates it itself (``_new_conn``, the one
urllib3 internal left) and reports it first; a kept-alive connection reports its socket
when a request goes out on it (``request``, public).
"""

from __future__ import annotations

import http.client
import queue
import socket
import threading
import time

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError


class InFlight:
    def __init__(self):
        self._lock = threading.Lock()
        self._socks: dict[int, socket.socket | None] = {}
        self._cut: set[int] = set()
        self._on_send: dict[int, object] = {}

    def begin(self, on_send=None) -> None:
        """A new exchange of this thread; ``on_send()`` is called each time its request goes out."""
        me = threading.get_ident()
        with self._lock:
            self._socks[me] = None
            if on_send is not None:
                self._on_send[me] = on_send

    def sending(self) -> None:
        callback = self._on_send.get(threading.get_ident())
        if callback is not None:
            callback()

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

    def is_cut(self) -> bool:
        """Whether the current thread's exchange was interrupted (then it must not be retried)."""
        with self._lock:
            return threading.get_ident() in self._cut

    def end(self) -> bool:
        """Close the current exchange's entry; True if it was interrupted."""
        me = threading.get_ident()
        with self._lock:
            self._socks.pop(me, None)
            self._on_send.pop(me, None)
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
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


RESPONSE_BUFFER = 128 * 1024  # http.client's default is 8 KiB: a page then takes two more syscalls


class _Response(http.client.HTTPResponse):
    """http.client's response, reading the socket in larger pieces: the headers' first read takes
    the whole of a page that has arrived, not its first 8 KiB (each socket call is a trip through
    the interpreter lock, which the parse thread is waiting for)."""

    def __init__(self, sock, *args, **kwargs):
        super().__init__(_BigBuffer(sock), *args, **kwargs)


class _BigBuffer:
    __slots__ = ("_sock",)

    def __init__(self, sock):
        self._sock = sock

    def makefile(self, mode):
        return self._sock.makefile(mode, buffering=RESPONSE_BUFFER)


class IdleConnections:
    """A pool's idle connections, last in first out (urllib3's ``QueueCls``: ``queue.LifoQueue`` by
    default, whose every get and put goes through two Python-level Conditions). A get waits only
    when the pool blocks (``block=True``; the crawl's pools don't); a put never waits (urllib3 puts
    with ``block=False`` and counts on ``queue.Full``)."""

    def __init__(self, maxsize: int = 0):
        self.maxsize = maxsize
        self._items: list = []
        self._lock = threading.Lock()
        self._waiting = 0
        self._put = threading.Condition(self._lock)

    def qsize(self) -> int:
        return len(self._items)

    def get(self, block: bool = True, timeout: float | None = None):
        with self._lock:
            if self._items:
                return self._items.pop()
            if block:
                deadline = None if timeout is None else time.monotonic() + timeout
                self._waiting += 1
                try:
                    while not self._items:
                        left = None if deadline is None else deadline - time.monotonic()
                        if left is not None and left <= 0:
                            break
                        self._put.wait(left)
                finally:
                    self._waiting -= 1
                if self._items:
                    return self._items.pop()
        raise queue.Empty

    def put(self, item, block: bool = True, timeout: float | None = None) -> None:
        with self._lock:
            if 0 < self.maxsize <= len(self._items):
                raise queue.Full
            self._items.append(item)
            if self._waiting:
                self._put.notify()


def pool_classes(in_flight: InFlight) -> dict:
    """urllib3 pool classes (``PoolManager.pool_classes_by_scheme``) whose connections report
    their sockets to ``in_flight``."""

    class _Reporting:
        def _new_conn(self):
            host = self.host.strip("[]")
            try:
                infos = socket.getaddrinfo(host, self.port, 0, socket.SOCK_STREAM)
            except socket.gaierror as exc:
                raise NameResolutionError(self.host, self, exc) from exc
            err: OSError | None = None
            for af, socktype, proto, _, address in infos:
                sock = socket.socket(af, socktype, proto)
                in_flight.attach(sock)  # before connect(): a stop cuts a connect that hangs
                try:
                    for option in self.socket_options or ():
                        sock.setsockopt(*option)
                    if isinstance(self.timeout, (int, float)):
                        sock.settimeout(self.timeout)
                    if self.source_address:
                        sock.bind(self.source_address)
                    sock.connect(address)
                    return sock
                except socket.timeout as exc:
                    sock.close()
                    raise ConnectTimeoutError(self, f"Connection to {self.host} timed out") from exc
                except OSError as exc:
                    err = exc
                    sock.close()
            raise NewConnectionError(self, f"Failed to establish a new connection: {err or 'no address'}")

        def request(self, *args, **kwargs):
            if self.sock is not None:  # a kept-alive connection: the wait for the answer is on this socket
                in_flight.attach(self.sock)
            try:
                return super().request(*args, **kwargs)
            finally:
                in_flight.sending()  # politeness counts the gap between requests from here

    class Conn(_Reporting, HTTPConnection):
        response_class = _Response

    class SConn(_Reporting, HTTPSConnection):
        response_class = _Response

    class Pool(HTTPConnectionPool):
        ConnectionCls = Conn
        QueueCls = IdleConnections

    class SPool(HTTPSConnectionPool):
        ConnectionCls = SConn
        QueueCls = IdleConnections

    return {"http": Pool, "https": SPool}
