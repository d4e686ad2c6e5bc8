"""A profile's cookies (a login, an accepted consent banner), kept in the data folder and sent by its
crawls; and how a crawl tells that a site has started answering with login pages.

    jar = CookieFile.load(cookies_path(data_dir, "vnexpress"))   # empty when there is none
    jar.header_for("https://vnexpress.net/abc.html")               # "a=1; b=2" (matching, unexpired)
    CookieFile.import_text(text)  ->  cookies from a cookies.txt (Netscape) or our JSON export

The file is ``<data>/cookies/<profile>.json``, readable by the user only (0600, its folder 0700): a
session cookie is a password. Cookies are sent, never learned from answers: what the user imported is
what goes out, until it expires.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

MAX_COOKIES = 300
MAX_FILE_BYTES = 1024 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class CookieError(ValueError):
    """Cookies that cannot be read; one line."""


@dataclass(frozen=True)
class Cookie:
    name: str
    value: str
    domain: str  # ".example.vn" (subdomains too) or "example.vn"
    path: str = "/"
    expires: float = 0  # Unix time; 0 = a session cookie (no expiry given)
    secure: bool = False

    def matches(self, host: str, path: str, https: bool, now: float) -> bool:
        if self.expires and self.expires < now:
            return False
        if self.secure and not https:
            return False
        domain = self.domain.lower().lstrip(".")
        if not (host == domain or (self.domain.startswith(".") and host.endswith("." + domain))):
            return False
        return path.startswith(self.path or "/")


def cookies_path(data_dir: Path, profile: str) -> Path:
    if not _NAME.match(profile):
        raise CookieError(f"not a profile name: {profile!r}")
    return Path(data_dir) / "cookies" / f"{profile}.json"


class CookieFile:
    def __init__(self, cookies=(), path: Path | None = None):
        self.cookies: list[Cookie] = list(cookies)[:MAX_COOKIES]
        self.path = path

    def __len__(self) -> int:
        return len(self.cookies)

    # --- reading and writing ----------------------------------------------------
    @classmethod
    def load(cls, path: Path) -> "CookieFile":
        path = Path(path)
        if not path.is_file():
            return cls(path=path)
        if path.stat().st_size > MAX_FILE_BYTES:
            raise CookieError(f"{path}: over {MAX_FILE_BYTES // 1024} KiB")
        return cls(cls.import_text(path.read_text(encoding="utf-8")), path)

    def save(self, path: Path | None = None) -> Path:
        """Write the file readable by the user only (created 0600 from the start, never wider)."""
        path = Path(path or self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump([asdict(c) for c in self.cookies], handle, ensure_ascii=False, indent=1)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
        self.path = path
        return path

    @staticmethod
    def import_text(text: str) -> list[Cookie]:
        """Cookies from our JSON list or from a browser's cookies.txt (Netscape format)."""
        stripped = text.lstrip()
        if stripped.startswith(("[", "{")):
            try:
                rows = json.loads(stripped)
            except ValueError as exc:
                raise CookieError(f"not a JSON list of cookies: {exc}") from None
            except RecursionError:
                raise CookieError("not a JSON list of cookies (nested too deeply)") from None
            if isinstance(rows, dict):  # Playwright's storage state: {"cookies": [...], "origins": [...]}
                rows = rows.get("cookies")
                if not isinstance(rows, list):
                    raise CookieError("a JSON object without a \"cookies\" list: expected a JSON list of cookies "
                                      "(as cookie-editor extensions export them) or a browser's cookies.txt")
            out = []
            _within_limit(len(rows) if isinstance(rows, list) else 0)
            for i, row in enumerate(rows):
                if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("name", "value", "domain")):
                    raise CookieError(f"cookie {i + 1}: needs name, value and domain (text)")
                expires = row.get("expires", row.get("expirationDate"))  # the extensions' name for it
                out.append(_checked(Cookie(row["name"], row["value"], row["domain"], str(row.get("path") or "/"),
                                           _expiry(expires, f"cookie {i + 1}"), bool(row.get("secure", False))),
                                    f"cookie {i + 1}"))
            if not out:
                raise CookieError("the JSON list holds no cookies")
            return out
        out = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("#HttpOnly_"):
                line = line[len("#HttpOnly_"):]
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 7:
                raise CookieError(f"line {number}: a cookies.txt line has 7 tab-separated fields")
            domain, _sub, path, secure, expires, name, value = parts
            out.append(_checked(Cookie(name, value, domain, path or "/", _expiry(expires, f"line {number}"),
                                       secure.upper() == "TRUE"), f"line {number}"))
        _within_limit(len(out))
        if not out:
            raise CookieError("no cookies found (expected a cookies.txt or a JSON list)")
        return out

    # --- use -------------------------------------------------------------------------
    def header_for(self, url: str, now: float | None = None) -> str:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        now = time.time() if now is None else now
        chosen = [c for c in self.cookies if c.matches(host, parts.path or "/", parts.scheme == "https", now)]
        chosen.sort(key=lambda c: -len(c.path))  # the most specific path first, as browsers send them
        return "; ".join(f"{c.name}={c.value}" for c in chosen)

    def summary(self, now: float | None = None) -> str:
        """One line for the user: how many, for which domains, when they expire."""
        if not self.cookies:
            return "no cookies"
        now = time.time() if now is None else now
        dated = [c.expires for c in self.cookies if c.expires]
        expired = sum(1 for e in dated if e < now)
        domains = sorted({c.domain.lstrip(".") for c in self.cookies})
        text = f"{len(self.cookies)} cookie{'s' if len(self.cookies) != 1 else ''} for {', '.join(domains[:3])}"
        if dated:
            first = datetime.fromtimestamp(min(e for e in dated if e >= now) if expired < len(dated) else max(dated),
                                           tz=timezone.utc)
            text += (f"; {expired} expired" if expired else "") + (
                f"; next expiry {first:%Y-%m-%d %H:%M} UTC" if expired < len(dated) else "; all expired")
        if len(dated) < len(self.cookies):
            text += f"; {len(self.cookies) - len(dated)} without expiry"
        return text


_PASSWORD = re.compile(rb"<input[^>]+type\s*=\s*[\"']?password", re.I)
_LOGIN_WORDS = re.compile(r"đăng nhập|dang-nhap|log ?in|sign ?in|signin|login", re.I)


def looks_like_login(text: str) -> bool:
    """A page that asks for a password (a login form) instead of showing an article."""
    head = text[:200_000]
    return bool(_PASSWORD.search(head.encode("utf-8", "ignore"))) and bool(_LOGIN_WORDS.search(head))


class LoginWatch:
    """Counts the article pages that answered with a login form; the crawl's log says so at the 1st,
    10th and 100th, its summary once with the final count."""

    def __init__(self, stats, emit):
        self.stats, self.emit = stats, emit
        self._lock = threading.Lock()
        self.pages = 0
        self.example = ""  # the first page that asked for a login

    def check(self, text: str, url: str) -> bool:
        """Whether this article page asks for a password (the site wants a login, or the cookies expired)."""
        if not looks_like_login(text):
            return False
        self.stats.add(login_pages=1)
        with self._lock:
            self.pages += 1
            count = self.pages
            if count == 1:
                self.example = url
        if count in (1, 10, 100):
            self.emit("log", {"message": f"WARNING: {login_message(count, url)}", "warning": True})
        return True

    def summary(self) -> list[str]:
        return [login_message(self.pages, self.example)] if self.example else []


def login_message(count: int, url: str) -> str:
    return (f"{count} article page{'s' if count > 1 else ''} answered with a login form (e.g. {url}): "
            "the site wants a login, or the profile's cookies have expired: log in in the Sites tab's "
            "browser and click 'Keep this login for crawls', or import fresh cookies (xnews cookies import)")


_LAST_SECOND = 253_402_300_799  # 9999-12-31 23:59:59 UTC: the last moment a date can show


def _expiry(value, where: str) -> float:
    """Seconds since the epoch; 0 for a session cookie (none given, or -1 as Playwright writes it).
    An expiry written in milliseconds (some browser extensions do) is read as such."""
    try:
        expiry = float(value or 0)
    except (TypeError, ValueError):
        raise CookieError(f"{where}: the expiry is not a number") from None
    if not math.isfinite(expiry) or expiry <= 0:
        return 0.0
    if expiry > _LAST_SECOND:
        if expiry / 1000 > _LAST_SECOND:
            raise CookieError(f"{where}: the expiry {value} is not a date (seconds or milliseconds since 1970)")
        expiry /= 1000
    return expiry


# a name is an HTTP token; a value, a domain and a path hold no control character and no ";" (a CR LF in a value
# went out as a header of its own on every request of the crawl), a domain and a path no space either
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_UNSAFE = re.compile(r"[\x00-\x20\x7f;]")
_UNSAFE_VALUE = re.compile(r"[\x00-\x1f\x7f;]")  # a space is no header break: browsers keep such values


def _checked(cookie: Cookie, where: str) -> Cookie:
    """The cookie, or CookieError naming where it is and what is wrong (never its value: a secret)."""
    if not _TOKEN.match(cookie.name):
        raise CookieError(f"{where}: its name is not a cookie name (letters, digits and !#$%&'*+.^_`|~- only)")
    if _UNSAFE_VALUE.search(cookie.value):
        raise CookieError(f"{where}: its value holds a control character or ';', which no cookie holds")
    if _UNSAFE.search(cookie.domain) or _UNSAFE.search(cookie.path):
        raise CookieError(f"{where}: its domain or path holds a control character, a space or ';'")
    return cookie


def _within_limit(count: int) -> None:
    if count > MAX_COOKIES:  # refused whole: keeping the first 300 dropped a login cookie without a word
        raise CookieError(f"the file holds {count} cookies, at most {MAX_COOKIES} are kept: export only the "
                          "site's cookies from the browser")
