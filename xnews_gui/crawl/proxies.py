"""Proxies: for all crawls or per profile, kept in the data folder; a list is rotated through, and a proxy
that fails is set aside for a while (its requests go through the next one).

    config = ProxyConfig.load(data_dir)            # <data>/proxies.json, readable by the user only
    config.for_profile("vnexpress")                # the profile's own list, else the one for all
    proxies = ProxyList(urls, on_warning=print)    # what a crawl's fetcher rotates through
    proxies.pick()                                 # the next proxy not set aside ("" for none left)
    proxies.failed(url, "connection refused")      # set aside for SET_ASIDE_S, with one warning

A proxy is ``http://``, ``https://``, ``socks5://`` or ``socks5h://`` (the proxy resolves host names)
``[user:password@]host:port``. The file holds passwords: it is written 0600 (its folder 0700), and a
proxy is shown with its password masked (``mask``).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import quote, unquote, urlsplit

SCHEMES = ("http", "https", "socks5", "socks5h")
SET_ASIDE_S = 120.0
MAX_PROXIES = 100
MAX_FILE_BYTES = 256 * 1024


class ProxyError(ValueError):
    """A proxy address or file that cannot be used; one line."""


def check_proxy(url: str) -> str:
    """The proxy URL, checked (scheme, host, port); ProxyError says what is wrong."""
    url = str(url).strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # shown masked: an address that does not parse may hold a password all the same
        raise ProxyError(f"not a proxy address: {_masked_text(url)!r} ({exc})") from None
    if parts.scheme.lower() not in SCHEMES:
        raise ProxyError(f"{mask(url)!r}: a proxy is {', '.join(s + '://' for s in SCHEMES)}HOST:PORT")
    if not parts.hostname or port is None:
        raise ProxyError(f"{mask(url)!r}: a proxy needs a host and a port (e.g. socks5://127.0.0.1:1080)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ProxyError(f"{mask(url)!r}: a proxy address has no path")
    if any(c in url for c in "\r\n\t") or len(url) > 2000:
        raise ProxyError("a proxy address has no line breaks")
    host = parts.netloc.rsplit("@", 1)[-1]
    if " " in host:
        raise ProxyError(f"{mask(url)!r}: a host name has no spaces")
    if parts.username is None:
        return f"{parts.scheme.lower()}://{host}"
    # user and password percent-encoded (as libcurl reads them): a Vietnamese password goes out as typed
    secret = ":" + quote(unquote(parts.password), safe="") if parts.password is not None else ""
    return f"{parts.scheme.lower()}://{quote(unquote(parts.username), safe='')}{secret}@{host}"


_PASSWORD = re.compile(r"(://[^/@:\s]*:)[^@]*@")


def _masked_text(url: str) -> str:
    """``url`` with whatever stands between "user:" and "@" as ***, parsed or not."""
    return _PASSWORD.sub(r"\1***@", url)


def mask(url: str) -> str:
    """The proxy as it may be shown: its password as ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unreadable address)"
    if parts.password is None:
        return _masked_text(url)
    user = unquote(parts.username or "")
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{user}:***@{host}"


def proxies_path(data_dir: Path) -> Path:
    return Path(data_dir) / "proxies.json"


@dataclass
class ProxyConfig:
    """``everywhere``: the proxies of every crawl; ``profiles``: a profile's own (which then replace them)."""

    everywhere: list[str] = field(default_factory=list)
    profiles: dict[str, list[str]] = field(default_factory=dict)

    def for_profile(self, name: str) -> tuple[list[str], str]:
        """(the proxies a crawl of this profile goes through, "profile" | "all" | "")."""
        own = self.profiles.get(name)
        if own:
            return list(own), "profile"
        return list(self.everywhere), ("all" if self.everywhere else "")

    def set(self, urls: list[str], profile: str | None = None) -> None:
        checked = list(dict.fromkeys(check_proxy(u) for u in urls))
        if len(checked) > MAX_PROXIES:
            raise ProxyError(f"at most {MAX_PROXIES} proxies")
        if profile is None:
            self.everywhere = checked
        elif checked:
            self.profiles[profile] = checked
        else:
            self.profiles.pop(profile, None)

    @classmethod
    def load(cls, data_dir: Path) -> "ProxyConfig":
        path = proxies_path(data_dir)
        if not path.is_file():
            return cls()
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ProxyError(f"{path}: over {MAX_FILE_BYTES // 1024} KiB")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ProxyError(f"{path} is not a proxies file: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("all", []), list) \
                or not isinstance(data.get("profiles", {}), dict):
            raise ProxyError(f"{path}: expected {{\"all\": [...], \"profiles\": {{NAME: [...]}}}}")
        config = cls()
        config.set([str(u) for u in data.get("all", [])])
        for name, urls in data.get("profiles", {}).items():
            if not isinstance(urls, list):
                raise ProxyError(f"{path}: the proxies of {name!r} are not a list")
            config.set([str(u) for u in urls], str(name))
        return config

    def save(self, data_dir: Path) -> Path:
        """Write the file readable by the user only (created 0600, never wider), through a rename."""
        path = proxies_path(data_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".part")
        tmp.unlink(missing_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"all": self.everywhere, "profiles": self.profiles}, fh, ensure_ascii=False, indent=2)
        tmp.replace(path)
        return path


class ProxyList:
    """The proxies one crawl rotates through (any thread): each request takes the next one not set aside."""

    def __init__(self, urls, *, set_aside_s: float = SET_ASIDE_S, on_warning: Callable[[str], None] | None = None,
                 clock=time.monotonic):
        self.urls = [check_proxy(u) for u in urls]
        if not self.urls:
            raise ProxyError("a proxy list needs at least one proxy")
        self.set_aside_s = set_aside_s
        self.on_warning = on_warning or (lambda message: None)
        self.on_change: Callable[[str], None] | None = None  # the proxy to use now changed (the render pool's)
        self._clock = clock
        self._lock = threading.Lock()
        self._next = 0
        self._aside: dict[str, float] = {}  # proxy -> when it may be used again
        self.failures: dict[str, int] = {}

    def pick(self) -> str:
        """The next usable proxy, round robin; "" when every one is set aside (``wait_s`` says how long)."""
        with self._lock:
            now = self._clock()
            for _ in range(len(self.urls)):
                url = self.urls[self._next % len(self.urls)]
                self._next += 1
                if self._aside.get(url, 0.0) <= now:
                    self._aside.pop(url, None)
                    return url
        return ""

    def current(self) -> str:
        """The first usable proxy (for what cannot rotate per request: the render pool)."""
        with self._lock:
            now = self._clock()
            return next((u for u in self.urls if self._aside.get(u, 0.0) <= now), "")

    def wait_s(self) -> float:
        with self._lock:
            return max(0.0, min(self._aside.values(), default=0.0) - self._clock())

    def failed(self, url: str, reason: str) -> None:
        """The proxy itself failed (unreachable, refused the credentials): set it aside, say so once."""
        with self._lock:
            if self._aside.get(url, 0.0) > self._clock():
                return  # set aside already (another request through it failed meanwhile)
            self._aside[url] = self._clock() + self.set_aside_s
            self.failures[url] = self.failures.get(url, 0) + 1
            left = sum(1 for u in self.urls if self._aside.get(u, 0.0) <= self._clock())
        where = f"{left} other prox{'ies' if left != 1 else 'y'} take{'s' if left == 1 else ''} its requests" if left \
            else "no proxy is left: requests wait for the first one back"
        self.on_warning(f"proxy {mask(url)} failed ({reason}): set aside for {self.set_aside_s:g} s; {where}")
        if self.on_change is not None:
            self.on_change(self.current())
