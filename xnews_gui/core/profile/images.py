"""Which URL an ``<img>`` really shows: the one place that reads lazy-loading markup.

Pages that lazy-load put a ``data:`` placeholder (or nothing) in ``src`` and the
real address in ``data-src``, ``data-original``, ``srcset`` or a ``<picture>``'s
``<source srcset>``. The image field (``take: attr:src``) and the sanitizer both
ask ``image_source`` so they always agree.
"""

from __future__ import annotations

import re

_LAZY_ATTRS = ("data-src", "data-original", "data-lazy-src", "data-url", "data-hi-res-src", "data-full-src")
_SRCSET_ATTRS = ("srcset", "data-srcset", "data-lazy-srcset")
_CANDIDATE_SPLIT = re.compile(r",\s+")
_DESCRIPTOR = re.compile(r"^(\d+(?:\.\d+)?)([wx])$")


def best_srcset(srcset: str | None) -> str:
    """The largest candidate of a ``srcset`` (by width, else density), or ''."""
    if not srcset:
        return ""
    best, best_size = "", -1.0
    for part in _CANDIDATE_SPLIT.split(srcset.strip()):
        bits = part.split()
        if not bits or bits[0].startswith("data:"):
            continue
        size = 1.0
        if len(bits) > 1:
            m = _DESCRIPTOR.match(bits[-1])
            if m:
                size = float(m.group(1)) * (1.0 if m.group(2) == "w" else 1000.0)
        if size > best_size:
            best, best_size = bits[0].rstrip(","), size
    return best


def _usable(value: str | None) -> str:
    value = (value or "").strip()
    return "" if not value or value.startswith("data:") else value


def image_source(img) -> str:
    """The real image URL of an ``img`` element (as written, not made absolute), or ''.

    ``src`` wins unless it is missing or a ``data:`` placeholder; then the lazy
    attributes, then the best ``srcset`` candidate, then an enclosing
    ``<picture>``'s sources.
    """
    src = _usable(img.get("src"))
    if src:
        return src
    for attr in _LAZY_ATTRS:
        value = _usable(img.get(attr))
        if value:
            return value.split()[0]
    for attr in _SRCSET_ATTRS:
        value = best_srcset(img.get(attr))
        if value:
            return value
    # lxml's parser may nest the img inside an unclosed <source>: look two levels up
    for depth, anc in enumerate(img.iterancestors()):
        if depth > 1:
            break
        if anc.tag == "picture":
            for source in anc.iter("source"):
                value = best_srcset(source.get("srcset") or source.get("data-srcset"))
                if value:
                    return value
            break
    return ""
