"""A story that only the page's scripts hold: pages built in the browser (Next.js, React Query, Nuxt...) ship
their article as HTML inside a JavaScript or JSON string ("\\u003cp\\u003e..."), and the raw page's body has
none of it. The longest such HTML fragment with story paragraphs is the body the page would show; nothing is
run, the strings are only decoded.
"""

from __future__ import annotations

import json
import re

import lxml.html
from lxml import etree

from .completeness import story_chars

_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)
# a quoted string long enough to hold a story, with escaped markup in it
_STRING = re.compile(r'"((?:[^"\\\n]|\\.){400,})"', re.S)
_MARKUP = re.compile(r"\\u003c[pP][\s>\\]|<[pP][\s>]")
_PLACEHOLDER = re.compile(r"\$\$[A-Z][A-Z0-9_]*\$\$")  # an ad slot's marker ("$$ARTICLEAD$$")
_SCRIPT_BUDGET = 4_000_000  # characters of script text read, at most (bounded time on any page)
_STRINGS = 200  # strings decoded, at most
MIN_STORY = 400  # characters of story paragraphs the fragment must hold


def script_story_html(page_html: str) -> str:
    """The HTML fragment in the page's scripts with the most story text (at least ``MIN_STORY``
    characters of paragraphs), or ''."""
    if not page_html or "<script" not in page_html.lower():
        return ""
    best, best_chars = "", MIN_STORY - 1
    budget, decoded = _SCRIPT_BUDGET, 0
    for match in _SCRIPT.finditer(page_html):
        script = match.group(1)
        if len(script) < 400:
            continue
        if budget <= 0 or decoded >= _STRINGS:
            break
        script = script[:budget]
        budget -= len(script)
        for found in _STRING.finditer(script):
            literal = found.group(1)
            if not _MARKUP.search(literal):
                continue
            decoded += 1
            if decoded > _STRINGS:
                break
            html = _decoded(literal)
            chars = _story_chars(html) if html else 0
            if chars > best_chars:
                best, best_chars = html, chars
    return best


def _decoded(literal: str) -> str:
    try:
        text = json.loads(f'"{literal}"')
    except ValueError:  # a JavaScript string JSON does not read (\x41, \'): not worth guessing
        return ""
    return _PLACEHOLDER.sub("", text) if isinstance(text, str) else ""


def _story_chars(html: str) -> int:
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (ValueError, etree.ParserError):
        return 0
    return story_chars(root, 6, [2000])
