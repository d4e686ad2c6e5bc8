"""Where a text stands on the page: the element holding the main-text extractor's paragraphs.

The extractor's text is cut loose from the page. Found on the page again, it can be mended by what the page
shows around it: on a layout no rule knows, a story split over sibling blocks is read by the extractor as
one block (its siblings of the same kind are joined to it); readers' comments whose heading the extractor
dropped are found under that heading (and left out).
"""

from __future__ import annotations

import copy

from .body_clean import drop_comments
from ..text.text import normalize_space

_KEY = 50  # characters of a paragraph's start that name it
_MIN_PARAGRAPH = 40
_LEAVES = ("p", "li", "td", "div", "dd", "blockquote", "pre", "span", "font")
KEEP_BEFORE = 0.5  # the comments cut from an extracted text are at most this share of it
_BUDGET = 6000  # elements read on the page, at most (bounded time on any page)


def _key(text: str) -> str:
    text = normalize_space(text)
    return text[:_KEY] if len(text) >= _MIN_PARAGRAPH else ""


def _start(el) -> str:
    """``_key`` of the element's text, reading only its first few hundred characters (a page's outer blocks
    hold all of its text: reading it whole for each of them would cost the page's size times its depth)."""
    parts, read = [], 0
    for piece in el.itertext():
        parts.append(piece)
        read += len(piece)
        if read >= 4 * _KEY:
            text = normalize_space("".join(parts))
            if len(text) > _KEY:
                return text[:_KEY]
    return _key("".join(parts))


def paragraph_keys(root) -> set[str]:
    """The starts of the fallback text's paragraphs (those of 40+ characters)."""
    keys = set()
    for el in root.iter("p", "li", "blockquote", "pre", "td"):
        key = _key(el.text_content())
        if key:
            keys.add(key)
    return keys


def text_block(doc, keys: set[str]):
    """The smallest element of ``doc`` holding the paragraphs named by ``keys`` (the innermost element
    whose text starts as each one does; at least two found), or None."""
    if not keys:
        return None
    found, budget = [], _BUDGET
    for el in doc.iter(*_LEAVES):
        budget -= 1
        if budget < 0:
            return None
        if _start(el) in keys:
            above = set(el.iterancestors())
            found = [f for f in found if f not in above]  # the innermost one
            found.append(el)
    if len(found) < 2:
        return None
    return _common_ancestor(found)


def _page_keys(el) -> set[str]:
    keys = set()
    for leaf in el.iter(*_LEAVES):
        key = _start(leaf)
        if key:
            keys.add(key)
    return keys


def drop_page_comments(root, block) -> bool:
    """Drops from the extracted text ``root`` the paragraphs that, on the page, stand under a readers'
    comments heading inside ``block`` (the extractor keeps the comments' text of a page whose markup does
    not say what they are, but not the heading that says it)."""
    place = copy.deepcopy(block)
    if not drop_comments([place]):
        return False
    comments = _page_keys(block) - _page_keys(place)
    paragraphs = [(el, len(el.text_content())) for el in root.iter("p", "li", "blockquote", "pre")]
    under = [(el, n) for el, n in paragraphs if _key(el.text_content()) in comments]
    # the story comes first: a "heading" above most of the text is a menu's or a teaser's line, not the
    # comments' (the block found may hold much more than the story: the page's columns, its menus)
    if not under or sum(n for _, n in under) > KEEP_BEFORE * sum(n for _, n in paragraphs):
        return False
    for el, _ in under:
        if el.getparent() is not None:
            el.getparent().remove(el)  # its tail is whitespace between the extractor's paragraphs
    return True


def _common_ancestor(elements):
    path = [elements[0], *elements[0].iterancestors()]
    for el in elements[1:]:
        ancestors = {el, *el.iterancestors()}
        while path and path[0] not in ancestors:
            path.pop(0)
    return path[0] if path else None
