"""Conditional requests (RFC 9110 13.1): a revisit sends the stored copy's validators, and a
``304 Not Modified`` answer says the copy is still the page, without a body.

Only the two request headers below ever go out, each on one line: the values come from a stored
page's answer (untrusted) and, in a cluster, from the shared Redis database.
"""

from __future__ import annotations

NOT_MODIFIED = 304
CONDITIONS = ("If-None-Match", "If-Modified-Since")  # the request headers a revisit may add


def header_lines(conditions: dict | None) -> tuple[bytes, ...]:
    """The header lines of a conditional request: only these two names, printable values on one line."""
    lines = []
    for name in CONDITIONS:
        value = str((conditions or {}).get(name, "")).strip()
        if value and value.isprintable() and len(value) <= 512:
            lines.append(f"{name}: {value}".encode("latin-1", "replace"))
    return tuple(lines)


def validators(answer) -> tuple[str, str]:
    """(ETag, Last-Modified) of an answer (a ``curl_exchange.Answer``), for the next conditional request."""
    return answer.header("etag")[:512], answer.header("last-modified")[:128]
