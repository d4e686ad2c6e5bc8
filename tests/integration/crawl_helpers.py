"""A scriptable HTTP site on 127.0.0.1 for crawler tests, with a request log."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from xnews_gui.core.profile.profile import Profile

from ..served import ServedInThread


def answer(handler: BaseHTTPRequestHandler, route: tuple) -> None:
    """Send a (status, headers, body) route as the handler's response."""
    status, headers, body = route
    if isinstance(body, str):
        body = body.encode("utf-8")
    handler.send_response(status)
    for k, v in headers.items():
        handler.send_header(k, v)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Site(ServedInThread):
    """routes: path -> (status, headers, body) or a callable(handler) that answers itself."""

    def __init__(self, routes: dict):
        self.routes = dict(routes)
        self.log: list[tuple[float, str, dict]] = []  # (monotonic time, path, headers)
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                with site._lock:
                    site.log.append((time.monotonic(), self.path, dict(self.headers)))
                    site.active += 1
                    site.max_active = max(site.max_active, site.active)
                try:
                    route = site.routes.get(self.path)
                    if route is None:
                        route = (404, {"Content-Type": "text/html"}, b"<html><body>not found</body></html>")
                    if callable(route):
                        route(self)
                        return
                    answer(self, route)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with site._lock:
                        site.active -= 1

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.log]

    def times(self, predicate=lambda p: True) -> list[float]:
        return [t for t, p, _ in self.log if predicate(p)]


def html(body: str, status: int = 200, **headers) -> tuple:
    return status, {"Content-Type": "text/html; charset=utf-8", **headers}, f"<html><body>{body}</body></html>"


def article_page(title: str, text: str = "Nội dung bài viết.") -> tuple:
    return html(f"<h1 class='title'>{title}</h1><div class='body'><p>{text} {title}</p></div>")


def list_page(articles=(), lists=(), extra: str = "") -> tuple:
    links = "".join(f"<a class='art' href='{a}'>{a}</a>" for a in articles)
    links += "".join(f"<a class='list' href='{a}'>{a}</a>" for a in lists)
    return html(links + extra)


def make_profile(start: str, **crawl) -> Profile:
    settings = {"strategy": "bfs", "delay_s": 0.0, "concurrency": 1, "max_depth": 0}
    settings.update(crawl)
    return Profile.from_dict({
        "schema": 1, "name": "testsite", "start_urls": [start], "allowed_domains": ["127.0.0.1"],
        "links": {"articles": {"kind": "css", "selector": "a.art"}, "lists": {"kind": "css", "selector": "a.list"}},
        "fields": {"title": {"kind": "css", "selector": "h1.title", "take": "text", "required": True},
                   "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}},
        "crawl": settings,
    })
