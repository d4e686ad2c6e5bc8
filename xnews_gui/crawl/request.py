"""The crawl's one request type, on the desktop and in the cluster.

    req = Request("https://site/a.html", "article", depth=1, referrer="https://site/", priority=0.8)
    Request.from_dict(req.to_dict()) == req     # whole: every field, every kind and flag

The desktop frontier (``frontier``, ``state``), the Redis frontier and the Scrapy spider
(``scale``) all carry this type, so a request comes back from any of them as it went in
(a sitemap stays a sitemap, a start page keeps its flags). ``from_dict`` reads outside data
(the shared Redis database): anything unexpected is refused with a ValueError, never run.

``tries`` and ``not_before`` (epoch seconds) are how a retry waits without holding a fetch
thread or a host: the downloader answers a 429/5xx with the same request one try further on,
not before its time, and the scheduler holds it back until then. ``headers`` are extra request
headers (room for a revisit's If-None-Match / If-Modified-Since); ``extra`` carries what a
transport keeps between tries (Scrapy's redirect counters), JSON values only.

Standard library only: the worker wheel ships this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

KINDS = ("start", "list", "article", "sitemap", "feed", "image")
LISTING = ("start", "list")  # pages whose links are followed
SOURCES = ("sitemap", "feed")  # documents that list article URLs
# flags: what a request asks beyond its kind
FLAGS = ("links", "feeds", "dont_filter", "revisit", "now")  # now: a revisit asked for this moment ("Fetch again")
_MAX_TEXT = 64 * 1024  # a URL, referrer or anchor longer than this is not a request of ours


@dataclass(slots=True)
class Request:
    url: str  # canonical
    kind: str = "list"
    depth: int = 0
    referrer: str = ""  # the page it was found on (a sitemap, a feed, a list page)
    anchor: str = ""  # the link's text (importance order)
    priority: float = 0.0  # higher first (best-first orders; the cluster's queue order)
    profile: str = ""
    flags: frozenset = frozenset()
    tries: int = 0  # fetches of it that failed and asked to be tried again
    not_before: float = 0.0  # epoch seconds; 0 = now
    headers: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    seq: int = 0  # discovery order in one frontier (not carried: each frontier numbers its own)

    @property
    def listing(self) -> bool:
        return self.kind in LISTING

    def retry(self, wait_s: float, now: float) -> "Request":
        """The same request one try further on, not before ``now + wait_s``."""
        return Request(self.url, self.kind, self.depth, self.referrer, self.anchor, self.priority, self.profile,
                       self.flags, self.tries + 1, now + max(0.0, wait_s), dict(self.headers), dict(self.extra),
                       self.seq)

    def to_dict(self) -> dict:
        out = {"url": self.url, "kind": self.kind, "depth": self.depth, "priority": self.priority}
        for name in ("referrer", "anchor", "profile", "tries", "not_before", "headers", "extra"):
            value = getattr(self, name)
            if value:
                out[name] = value
        if self.flags:
            out["flags"] = sorted(self.flags)
        return out

    def extras(self) -> dict | None:
        """What ``to_dict`` holds beyond url, kind, depth, referrer, anchor and priority (the desktop's
        crawl state keeps those in columns), or None when there is nothing more."""
        if not (self.flags or self.tries or self.not_before or self.headers or self.extra or self.profile):
            return None
        full = self.to_dict()
        return {k: v for k, v in full.items()
                if k in ("profile", "flags", "tries", "not_before", "headers", "extra")}

    @classmethod
    def from_dict(cls, data) -> "Request":
        if not isinstance(data, dict):
            raise ValueError("not a request: expected an object")
        url = _text(data, "url", required=True)
        kind = data.get("kind", "list")
        if kind not in KINDS:
            raise ValueError(f"not a request kind: {str(kind)[:40]!r}")
        flags = data.get("flags", [])
        if not isinstance(flags, list) or any(f not in FLAGS for f in flags):
            raise ValueError(f"unknown request flags: {str(flags)[:80]}")
        headers = data.get("headers", {})
        if not isinstance(headers, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in headers.items()):
            raise ValueError("request headers must be text")
        extra = data.get("extra", {})
        if not isinstance(extra, dict):
            raise ValueError("request extra must be an object")
        return cls(url, kind, _int(data, "depth"), _text(data, "referrer"), _text(data, "anchor"),
                   _number(data, "priority"), _text(data, "profile"), frozenset(flags), _int(data, "tries"),
                   _number(data, "not_before"), dict(headers), dict(extra))


def _text(data: dict, name: str, required: bool = False) -> str:
    value = data.get(name, "")
    if not isinstance(value, str) or (required and not value) or len(value) > _MAX_TEXT:
        raise ValueError(f"request {name}: expected text")
    return value


def _int(data: dict, name: str) -> int:
    value = data.get(name, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1_000_000:
        raise ValueError(f"request {name}: expected a small whole number")
    return value


def _number(data: dict, name: str) -> float:
    value = data.get(name, 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"request {name}: expected a number")
    return float(value)
