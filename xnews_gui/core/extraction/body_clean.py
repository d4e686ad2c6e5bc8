"""What a body's elements hold that is not the article: the headline repeated, lists and boxes of teasers."""

from __future__ import annotations

from lxml import etree

from .html_text import holds
from ..text.text import normalize_space

_TEXT_WITH = etree.XPath("descendant::text()[contains(., $w)]")


def drop_headline(roots, title: str) -> bool:
    """The body does not repeat the headline: drop, inside the body's elements, the one whose text is the
    title (or a heading holding it after a kicker). Short titles are left alone (too easily matched)."""
    if len(title) < 12:
        return False
    word = max(title.split(), key=len)  # the rarest-looking word finds the few text nodes worth a look
    longest = len(title) + 80
    dropped = False
    for root in roots:
        for node in _TEXT_WITH(root, w=word):
            if not node.is_tail and len(node) > longest and len(normalize_space(node)) > longest:
                continue  # a paragraph: every element holding this text is longer than a headline
            el = node.getparent()
            in_root = el.getparent() is root if node.is_tail else el is root
            if in_root and " ".join(node.split()) == title:  # bare text (a sanitised-away <h1>): clear it
                if node.is_tail:
                    el.tail = " "
                else:
                    el.text = " "
                dropped = True
                continue
            if not isinstance(el.tag, str):  # the text follows a comment: it is the comment's parent's text
                el = el.getparent()
            while el is not None and el is not root and len(el) <= 6:  # a headline holds few children
                text = normalize_space(el.text_content())
                if len(text) > longest:
                    break
                if text == title or (el.tag in ("h1", "h2", "h3") and title in text):
                    if el.getparent() is not None:
                        el.drop_tree()
                        dropped = True
                    break
                el = el.getparent()
    return dropped


_LIST_BLOCKS = {"ul", "ol", "div", "section", "aside", "nav", "table", "dl", "footer", "header"}


def drop_link_lists(roots) -> bool:
    """Teaser lists inside the body ("Read also", related headlines): blocks whose text is mostly links."""
    dropped = False
    for root in roots:
        if not holds(root, "a"):
            continue
        whole = None  # the body's text length, measured once a list is found
        stack = [el for el in root if isinstance(el.tag, str) and holds(el, "a")]
        while stack:
            el = stack.pop()
            if el.tag in _LIST_BLOCKS:
                text = len(normalize_space(el.text_content()))
                if text >= 20:
                    links = sum(len(normalize_space(a.text_content())) for a in el.iter("a"))
                    if links > 0.5 * text or (links > 0.25 * text and _teaser_items(el) >= 3):
                        whole = whole or len(normalize_space(root.text_content()))
                        if text < 0.5 * whole:  # never most of the body (a link round-up stays whole)
                            el.drop_tree()
                            dropped = True
                            continue
            stack.extend(c for c in el if isinstance(c.tag, str) and holds(c, "a"))
    return dropped


def _teaser_items(block) -> int:
    """Items of a teaser box: its children that begin with a link (a linked headline, a line of text after it)."""
    count = 0
    for child in block:
        if isinstance(child.tag, str):
            first = next((d for d in child.iter() if isinstance(d.tag, str) and d is not child), None)
            count += first is not None and first.tag == "a" and not (child.text or "").strip()
    return count
