"""Requests in flight that another thread can cut: a stop or a pause never waits for a
connect or read timeout.

Each exchange runs on one libcurl handle, whose sockets ``InFlight`` knows: libcurl reports
each socket it opens (before connecting it) and asks us to close it (``socket_opened``,
``socket_closing``). ``interrupt()`` shuts down the sockets of every handle in an exchange,
which wakes a thread blocked in ``recv()`` or in ``connect()`` (Linux drops a SYN_SENT socket);
a kept-alive connection is among its handle's sockets, so a request waiting on it is cut too.
"""

from __future__ import annotations

import os
import socket
import threading


class InFlight:
    def __init__(self):
        self._lock = threading.Lock()
        self._sockets: dict[int, set[int]] = {}  # handle id -> its open socket descriptors
        self._exchanges: dict[int, int] = {}  # thread id -> the handle of its current exchange
        self._cut: set[int] = set()  # threads whose exchange was interrupted

    def socket_opened(self, handle_id: int, fd: int) -> None:
        """A socket libcurl opened for a handle (before connecting it)."""
        with self._lock:
            self._sockets.setdefault(handle_id, set()).add(fd)
            cut = any(h == handle_id and t in self._cut for t, h in self._exchanges.items())
            if cut:
                _shutdown(fd)

    def socket_closing(self, handle_id: int, fd: int) -> None:
        """libcurl closes a socket: it is closed here, under the lock, so ``interrupt()`` never
        shuts down a descriptor that was closed and given to another file meanwhile."""
        with self._lock:
            self._sockets.get(handle_id, set()).discard(fd)
            os.close(fd)

    def begin(self, handle_id: int) -> None:
        """The current thread starts an exchange on that handle."""
        with self._lock:
            self._exchanges[threading.get_ident()] = handle_id

    def is_cut(self) -> bool:
        """Whether the current thread's exchange was interrupted (then it must not be retried)."""
        with self._lock:
            return threading.get_ident() in self._cut

    def end(self) -> bool:
        """Close the current exchange's entry; True if it was interrupted."""
        me = threading.get_ident()
        with self._lock:
            self._exchanges.pop(me, None)
            if me in self._cut:
                self._cut.discard(me)
                return True
        return False

    def interrupt(self) -> int:
        with self._lock:
            self._cut.update(self._exchanges)
            for handle_id in self._exchanges.values():
                for fd in self._sockets.get(handle_id, ()):
                    _shutdown(fd)
            return len(self._exchanges)


def _shutdown(fd: int) -> None:
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.detach()  # the descriptor stays libcurl's
