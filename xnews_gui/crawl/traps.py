"""Spider-trap guards: per-crawl limits on what a link may lead to.

A calendar that always links to the next month, a session id or a sort order in every
query, relative links that nest a path into itself: each makes an endless supply of new
URLs, and a crawl without a depth limit would follow them for ever. ``TrapGuard.admit``
says whether a newly found link may be queued; the first time a guard refuses one it
returns a warning for the user (one per guard and host or pattern), later refusals are
only counted.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from urllib.parse import urlsplit

_DIGITS = re.compile(r"\d+")


class TrapGuard:
    def __init__(self, *, max_pages_per_host: int = 50_000, max_path_repeats: int = 3, max_query_params: int = 12,
                 max_query_variants: int = 1_000, max_list_pages_per_pattern: int = 500,
                 max_url_length: int = 2048):
        self.max_pages_per_host = max_pages_per_host
        self.max_path_repeats = max_path_repeats
        self.max_query_params = max_query_params
        self.max_query_variants = max_query_variants
        self.max_list_pages_per_pattern = max_list_pages_per_pattern
        self.max_url_length = max_url_length
        self._lock = threading.Lock()
        self._per_host: Counter = Counter()
        self._variants: dict[tuple[str, str], set[int]] = {}
        self._patterns: Counter = Counter()
        self._warned: set[tuple[str, str]] = set()
        self.refused: Counter = Counter()  # guard -> links refused
        self.warnings: list[str] = []

    def admit(self, url: str, kind: str) -> tuple[bool, str | None]:
        """(may queue ``url``, a warning to show or None); ``queued`` counts it once it is queued."""
        parts = urlsplit(url)
        host = parts.netloc
        if self.max_url_length and len(url) > self.max_url_length:
            return self._refuse("url_length", host, f"URLs longer than {self.max_url_length} characters on {host}")
        segments = [s for s in parts.path.split("/") if s]
        if self.max_path_repeats and segments:
            top, n = Counter(segments).most_common(1)[0]
            if n >= self.max_path_repeats:
                return self._refuse("path_repeats", host,
                                    f"links on {host} repeat the path segment '{top[:40]}' {n} times")
        if parts.query:
            if self.max_query_params and parts.query.count("&") + 1 > self.max_query_params:
                return self._refuse("query_params", host,
                                    f"links on {host} carry more than {self.max_query_params} query parameters")
        pattern = host + _DIGITS.sub("#", parts.path)
        with self._lock:
            if parts.query and self.max_query_variants:
                variants = self._variants.setdefault((host, parts.path), set())
                if len(variants) >= self.max_query_variants and hash(parts.query) not in variants:
                    return self._refuse_locked("query_variants", host + parts.path,
                                               f"more than {self.max_query_variants} query variants of "
                                               f"{host}{parts.path[:80]}")
            if kind == "list" and self.max_list_pages_per_pattern:
                if self._patterns[pattern] >= self.max_list_pages_per_pattern:
                    return self._refuse_locked("pattern", pattern,
                                               f"more than {self.max_list_pages_per_pattern} list pages like "
                                               f"{_DIGITS.sub('N', url)[:100]}")
            if self.max_pages_per_host and self._per_host[host] >= self.max_pages_per_host:
                return self._refuse_locked("pages_per_host", host,
                                           f"more than {self.max_pages_per_host} pages on {host}")
        return True, None

    def queued(self, url: str, kind: str) -> None:
        parts = urlsplit(url)
        with self._lock:
            self._per_host[parts.netloc] += 1
            if parts.query and self.max_query_variants:
                self._variants.setdefault((parts.netloc, parts.path), set()).add(hash(parts.query))
            if kind == "list":
                self._patterns[parts.netloc + _DIGITS.sub("#", parts.path)] += 1

    def _refuse(self, guard: str, key: str, message: str) -> tuple[bool, str | None]:
        with self._lock:
            return self._refuse_locked(guard, key, message)

    def _refuse_locked(self, guard: str, key: str, message: str) -> tuple[bool, str | None]:
        self.refused[guard] += 1
        if (guard, key) in self._warned:
            return False, None
        self._warned.add((guard, key))
        text = f"possible spider trap: {message}; such links are not followed"
        if len(self.warnings) < 50:
            self.warnings.append(text)
        return False, text
