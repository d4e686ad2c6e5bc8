"""One page fetched the way the crawler fetches it (for `extract URL`, a profile's self-test URL
and the inspector's raw HTML).

The crawler's ``Fetcher``: the same user agent, headers, size cap, content-type rules,
redirect limit and retries; robots.txt and the profile's scope are the crawl's business,
not a page the user names.
"""

from __future__ import annotations

from ..core.text.urls import UrlError, canonical
from ..crawl.engine import DEFAULT_USER_AGENT
from ..crawl.fetcher import Fetcher, FetchError, FetchResult


class PageError(RuntimeError):
    """A page that could not be fetched as HTML: one line for the user."""


def fetch_page(url: str, user_agent: str = DEFAULT_USER_AGENT) -> tuple[bytes, str, str]:
    """GET an HTML page: (body, content type, URL after redirects); PageError when it can't."""
    fetcher = Fetcher(user_agent)
    try:
        result = fetch_html(fetcher, url)
    finally:
        fetcher.close()
    return result.body, result.content_type, result.url


def fetch_html(fetcher: Fetcher, url: str) -> FetchResult:
    """One HTML page through ``fetcher`` (a one-off one, or the inspector's long-lived one);
    PageError with one line for the user when it can't."""
    try:
        canonical(url)
    except UrlError as exc:
        raise PageError(str(exc)) from None
    try:
        return fetcher.get(url, accept="html")
    except FetchError as exc:
        if exc.kind == "content_type":
            raise PageError(f"{url} is not an HTML page ({exc})") from None
        raise PageError(f"cannot fetch {url}: {exc}") from None
