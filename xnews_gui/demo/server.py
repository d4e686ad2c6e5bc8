"""Serve the demo site on 127.0.0.1 (a thread, or in the foreground for the CLI)."""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import members
from .site import DemoSite


class _Handler(BaseHTTPRequestHandler):
    site: DemoSite
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, ctype, body = self.site.render(self.path, self._origin(), self.headers.get("Cookie", ""))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802  (the members' login form, the one form of the site)
        path = self.path.split("?", 1)[0]
        length = min(int(self.headers.get("Content-Length") or 0), members.MAX_FORM_BYTES)
        body = self.rfile.read(length) if length > 0 else b""
        if path.rstrip("/") != members.LOGIN_PATH.rstrip("/"):
            status, headers, body = 405, [], b""
        else:
            status, headers, body = members.login(self.site, body)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _origin(self) -> str:
        host, port = self.server.server_address[:2]
        asked = self.headers.get("Host", "")
        if asked and re.fullmatch(r"[A-Za-z0-9.\-]+(:\d{1,5})?", asked):  # the name the visitor used
            return f"http://{asked}"
        return f"http://{host}:{port}"

    def log_message(self, format, *args) -> None:  # keep the console quiet
        pass


class DemoServer:
    """``with DemoServer() as srv: srv.url`` serves the site in a background thread."""

    def __init__(self, port: int = 0, site: DemoSite | None = None, host: str = "127.0.0.1"):
        handler = type("DemoHandler", (_Handler,), {"site": site or DemoSite()})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> "DemoServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="demo-site", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        try:
            self.httpd.serve_forever()
        finally:
            self.httpd.server_close()

    def __enter__(self) -> "DemoServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
