"""`extract FILE_OR_URL`: one article page through a profile, printed as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import requests

from .. import __version__
from ..core.files import MAX_PAGE_BYTES, read_file
from .common import CliError, profile_argument

MAX_FETCH_BYTES = 10 * 1024 * 1024


def register(sub) -> None:
    x = sub.add_parser("extract", help="extract one article page and print it as JSON")
    x.add_argument("--profile", required=True, help="profile name (stored) or a profile JSON file")
    x.add_argument("--url", help="the page's URL when reading a file (to make links absolute)")
    x.add_argument("source", metavar="FILE_OR_URL")
    x.set_defaults(func=cmd_extract, needs_db=True)


def fetch(url: str, timeout: float = 20.0) -> tuple[bytes, str]:
    """GET an HTML page (http/https only, size-capped); (body, content type)."""
    from ..core.urls import UrlError, canonical

    try:
        canonical(url)
    except UrlError as exc:
        raise CliError(str(exc)) from None
    try:
        with requests.get(url, timeout=timeout, stream=True,
                          headers={"User-Agent": f"XNews/{__version__} (+offline news reader)"}) as resp:
            resp.raise_for_status()
            ctype = resp.headers.get("Content-Type", "")
            if ctype and "html" not in ctype.lower() and "xml" not in ctype.lower():
                raise CliError(f"{url} is not an HTML page (Content-Type: {ctype})")
            body = b""
            for chunk in resp.iter_content(65536):
                body += chunk
                if len(body) > MAX_FETCH_BYTES:
                    raise CliError(f"{url} is larger than {MAX_FETCH_BYTES // (1024 * 1024)} MB")
            return body, ctype
    except requests.RequestException as exc:
        raise CliError(f"cannot fetch {url}: {exc}") from None


def cmd_extract(args) -> int:
    from ..core.extract import extract

    profile = profile_argument(args.profile, args.store)
    source = args.source
    if source.lower().startswith(("http://", "https://")):
        html, ctype = fetch(source)
        url = source
    else:
        path = Path(source)
        html, ctype = read_file(path, MAX_PAGE_BYTES, "page"), None
        url = args.url or path.resolve().as_uri()
    article = extract(html, url, profile, content_type=ctype)
    print(json.dumps(article.to_dict(), ensure_ascii=False, indent=2))
    if not article.ok:
        print("extraction failed: " + "; ".join(article.errors), file=sys.stderr)
        return 1
    return 0
