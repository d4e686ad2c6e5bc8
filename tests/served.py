"""A test HTTP server run in a thread for the length of a ``with`` block."""

from __future__ import annotations


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
