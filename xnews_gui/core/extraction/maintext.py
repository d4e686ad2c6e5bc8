"""The main-text fallback: when a profile's body chain yields nothing plausible on a page.

trafilatura (Apache-2.0) is the reference main-text extractor. It is only asked
when the clicked rules fail, and the article says so (``Article.fallbacks``).
"""

from __future__ import annotations

import logging

_log = logging.getLogger(__name__)


def available() -> bool:
    try:
        import trafilatura  # noqa: F401
    except Exception:  # missing, or its own imports broken
        return False
    return True


def main_text_html(html: str, url: str | None = None, precise: bool = True) -> str:
    """The page's main text as simple HTML (paragraphs, headings, images), or ''. ``precise``: rather less
    than anything that may not be the article (the fallback's body); else the whole of it, for estimating how
    much of the article a body holds (the precise mode leaves out parts of some stories)."""
    if not html or not available():
        return ""
    import trafilatura

    try:
        out = trafilatura.extract(html, url=url, output_format="html", include_images=True, include_links=True,
                                  include_comments=False, include_tables=True, favor_precision=precise)
    except Exception as exc:  # a third-party parser on untrusted input: never let it crash a crawl
        _log.debug("main-text fallback failed on %s: %s", url, exc)
        return ""
    return out or ""
