"""Canonical URLs, crawl scope and the schemes a crawl may ever touch."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urljoin, urlparse, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

ALLOWED_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_INDEX_PAGES = ("index.html", "index.htm", "index.php", "default.aspx", "default.asp")


class UrlError(ValueError):
    """A URL the crawler must not (or cannot) fetch."""


def is_allowed_scheme(url: str) -> bool:
    url = url.strip()
    # "http(s)://" and nothing urlsplit would refuse (a bracket of an IPv6 host, a non-ASCII host): no parse
    head = url[:8].lower()
    if head == "https://" or head[:7] == "http://":
        if url.isascii() and "[" not in url and "]" not in url:
            return True
    return urlsplit(url).scheme.lower() in ALLOWED_SCHEMES


# A URL that is already plain: lower-case http(s) host of letters/digits/hyphens (not one a URL parser
# reads as an IPv4 number, e.g. "127.1" or "0x7f"), an optional port, a path of unreserved characters
# without dot segments, no query, no fragment. Its canonical form needs no parsing (tested against it).
_PLAIN_URL = re.compile(r"(https?)://([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::([1-9][0-9]{0,4}))?(/[A-Za-z0-9._~/-]*)?")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_DOTTED_QUAD = re.compile(r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])")


def _plain_canonical(url: str) -> str | None:
    m = _PLAIN_URL.fullmatch(url)
    if m is None:
        return None
    scheme, host, port, path = m.groups()
    if _NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]) and not _DOTTED_QUAD.fullmatch(host):
        return None
    if path and "/." in path:
        return None
    if port:
        if int(port) > 65535:
            return None
        if int(port) == _DEFAULT_PORTS[scheme]:
            port = None
    path = path or "/"
    last = path.rsplit("/", 1)[-1]
    if last.lower() in _INDEX_PAGES:
        path = path[: -len(last)]
    return f"{scheme}://{host}:{port}{path}" if port else f"{scheme}://{host}{path}"


def canonical(url: str) -> str:
    """Canonical form: lower-case scheme/host, no fragment, no default port,
    no trailing index page, percent-encoding normalised, query sorted."""
    plain = _plain_canonical(url)
    if plain is not None:
        return plain
    url = safe_url_string(url.strip())
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise UrlError(f"scheme {parts.scheme or '(none)'!r} is not allowed (only http and https): {url}")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise UrlError(f"no host in URL: {url}")
    port = parts.port if parts.port and parts.port != _DEFAULT_PORTS[scheme] else None
    netloc = f"[{host}]" if ":" in host else host
    if port:
        netloc = f"{netloc}:{port}"
    path = parts.path or "/"
    last = path.rsplit("/", 1)[-1]
    if last.lower() in _INDEX_PAGES:
        path = path[: -len(last)]
    url = urlunsplit((scheme, netloc, path, parts.query, ""))
    return canonicalize_url(url, keep_fragments=False)


def absolute(base: str | None, href: str | None) -> str:
    if not href:
        return ""
    href = href.strip()
    if base:
        try:
            return join_url(base, href)
        except ValueError:
            return href
    return href


# A root-relative path that urljoin returns as origin + path: no "//", no dot segment, no query,
# fragment, parameters, backslash, whitespace or control character (urllib drops or rewrites those).
_PLAIN_PATH = re.compile(r"/[^?#;\\\s\x00-\x1f\x7f]*")
_DOT_SEGMENT = re.compile(r"/\.\.?(?:/|$)")


def join_url(base_url: str, link: str) -> str:
    """``urllib.parse.urljoin(base_url, link)``; a plain root-relative path (an article's images and
    links, mostly) is joined without urllib's five parse/unparse steps."""
    if link[:1] == "/" and "//" not in link and _PLAIN_PATH.fullmatch(link) and not _DOT_SEGMENT.search(link):
        origin = _origin(base_url)
        if origin:
            return origin + link
    return urljoin(base_url, link)


# "http(s)://" and a plain host[:port] up to the end or a "/", "?" or "#": urlparse's scheme and netloc
_PLAIN_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?=[/?#]|\Z)")


def _origin(base_url: str) -> str:
    """'scheme://netloc' of an http(s) base URL, as urljoin puts it before a root-relative path; ''
    for any other base. Read off a plain URL without parsing it: the base is most often the page's
    own URL, a new one for every page."""
    plain = _PLAIN_ORIGIN.match(base_url)
    if plain is not None:
        return plain.group()
    return _parsed_origin(base_url)


@lru_cache(maxsize=256)
def _parsed_origin(base_url: str) -> str:
    parts = urlparse(base_url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def in_scope(url: str, allowed_domains) -> bool:
    """True if the URL's host is one of the domains or a subdomain of one."""
    if not is_allowed_scheme(url):
        return False
    if not allowed_domains:
        return True
    host = host_of(url)
    for domain in allowed_domains:
        domain = domain.lower().lstrip(".")
        if host == domain or host.endswith("." + domain):
            return True
    return False
