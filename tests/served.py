"""A test HTTP server run in a thread for the length of a ``with`` block."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer


class ServedInThread:
    """Mixin: the class sets ``self.httpd`` (an ``http.server`` server) and ``self.thread`` (running its
    ``serve_forever``); ``with`` starts the thread and shuts the server down after."""

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class FolderServer(ServedInThread):
    """A folder's files over HTTP on 127.0.0.1 (``url`` ends in "/"), as a small static site serves them."""

    def __init__(self, folder):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="folder-site", daemon=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
