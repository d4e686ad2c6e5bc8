"""Real proxy servers on 127.0.0.1 for the tests: an HTTP proxy (absolute-URI requests forwarded, CONNECT
tunnels) and a SOCKS5 proxy (RFC 1928 CONNECT; RFC 1929 user and password), each optionally asking for
credentials, each recording what went through it.

    with Proxy("http", user="u", password="p") as proxy:   # or Proxy("socks5")
        proxy.url        # "http://u:p@127.0.0.1:PORT" (user and password in it when asked)
        proxy.seen       # the targets asked for, in order ("GET http://127.0.0.1:8765/", "CONNECT host:443", ...)
"""

from __future__ import annotations

import base64
import select
import socket
import socketserver
import struct
import threading


def _relay(a: socket.socket, b: socket.socket) -> None:
    """Bytes both ways until either side closes."""
    sockets = [a, b]
    try:
        while True:
            ready, _, _ = select.select(sockets, [], [], 30)
            if not ready:
                return
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        return


def _read_head(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
        if len(data) > 65536:
            break
    return data


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


class Proxy:
    def __init__(self, kind: str = "http", user: str = "", password: str = "", hosts: dict | None = None):
        assert kind in ("http", "socks5")
        self.kind, self.user, self.password = kind, user, password
        self.hosts = dict(hosts or {})  # names only this proxy knows (a site reachable only through it)
        self.seen: list[str] = []
        self.refused = 0  # clients turned away for their credentials
        self._lock = threading.Lock()
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                try:
                    (proxy._http if proxy.kind == "http" else proxy._socks)(self.request)
                except (OSError, ConnectionError, ValueError, struct.error):
                    pass

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="test-proxy", daemon=True)

    @property
    def url(self) -> str:
        auth = f"{self.user}:{self.password}@" if self.user else ""
        return f"{self.kind}://{auth}127.0.0.1:{self.port}"

    def __enter__(self) -> "Proxy":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    def _note(self, what: str) -> None:
        with self._lock:
            self.seen.append(what)

    # --- HTTP proxy ------------------------------------------------------------------------
    def _http(self, client: socket.socket) -> None:
        head = _read_head(client)
        if not head:
            return
        top, _, rest = head.partition(b"\r\n")
        method, target, version = top.decode("latin-1").split(" ", 2)
        lines = rest.decode("latin-1").split("\r\n")
        if self.user:
            wanted = "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode()
            given = next((v.strip() for k, _, v in (ln.partition(":") for ln in lines)
                          if k.lower() == "proxy-authorization"), "")
            if given != wanted:
                with self._lock:
                    self.refused += 1
                client.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic "
                               b"realm=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
        self._note(f"{method} {target}")
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            try:
                upstream = socket.create_connection((self.hosts.get(host, host), int(port)), timeout=10)
            except OSError:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with upstream:
                _relay(client, upstream)
            return
        if not target.startswith("http://"):
            client.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            return
        hostport, _, path = target[len("http://"):].partition("/")
        host, _, port = hostport.partition(":")
        kept = [ln for ln in lines if ln and ln.split(":", 1)[0].lower() not in
                ("proxy-authorization", "proxy-connection", "connection")]
        request = f"{method} /{path} {version}\r\n" + "\r\n".join(kept + ["Connection: close"]) + "\r\n\r\n"
        with socket.create_connection((self.hosts.get(host, host), int(port or 80)), timeout=10) as upstream:
            upstream.sendall(request.encode("latin-1"))
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                client.sendall(data)

    # --- SOCKS5 ------------------------------------------------------------------------------
    def _socks(self, client: socket.socket) -> None:
        version, n = _recv_exact(client, 2)
        methods = _recv_exact(client, n)
        if version != 5:
            return
        if self.user:
            if 2 not in methods:
                client.sendall(b"\x05\xff")
                return
            client.sendall(b"\x05\x02")
            _, ulen = _recv_exact(client, 2)
            user = _recv_exact(client, ulen).decode()
            (plen,) = _recv_exact(client, 1)
            password = _recv_exact(client, plen).decode()
            if (user, password) != (self.user, self.password):
                with self._lock:
                    self.refused += 1
                client.sendall(b"\x01\x01")
                return
            client.sendall(b"\x01\x00")
        else:
            client.sendall(b"\x05\x00")
        _, command, _, kind = _recv_exact(client, 4)
        if kind == 1:
            host = socket.inet_ntoa(_recv_exact(client, 4))
        elif kind == 3:
            (length,) = _recv_exact(client, 1)
            host = _recv_exact(client, length).decode()
        else:
            client.sendall(b"\x05\x08\x00\x01" + b"\x00" * 6)
            return
        (port,) = struct.unpack(">H", _recv_exact(client, 2))
        if command != 1:
            client.sendall(b"\x05\x07\x00\x01" + b"\x00" * 6)
            return
        self._note(f"CONNECT {host}:{port}")
        try:
            upstream = socket.create_connection((self.hosts.get(host, host), port), timeout=10)
        except OSError:
            client.sendall(b"\x05\x05\x00\x01" + b"\x00" * 6)  # connection refused
            return
        client.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack(">H", 0))
        with upstream:
            _relay(client, upstream)


def dead_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
