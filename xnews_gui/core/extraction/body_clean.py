"""What a body's elements hold that is not the article: the headline repeated, lists and boxes of teasers,
the readers' comments below the story."""

from __future__ import annotations

import re

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
                    if links > 0.5 * text or (links > 0.25 * text and _teaser_items(el) >= 3) or _link_cards(el) >= 3:
                        whole = whole or len(normalize_space(root.text_content()))
                        if text < 0.5 * whole:  # never most of the body (a link round-up stays whole)
                            _drop_list_heading(el)
                            el.drop_tree()
                            dropped = True
                            continue
            stack.extend(c for c in el if isinstance(c.tag, str) and holds(c, "a"))
    return dropped


_SECTION_HEADINGS = ("h2", "h3", "h4", "h5", "h6")


def _drop_list_heading(block) -> None:
    """The short heading right above a teaser list ("Related", "Timeline") goes with it."""
    before = block.getprevious()
    if _short_heading(before):
        before.drop_tree()


def drop_removed(root, remove) -> None:
    """What a profile's remove rules select, each with its short heading when nothing of its section is left."""
    for rule in remove:
        for el in rule.select(root):
            if el.getparent() is None:
                continue
            before = _neighbour(el, forward=False)
            el.drop_tree()
            _drop_heading_left_empty(before)


def _drop_heading_left_empty(heading) -> None:
    """A short heading whose section a remove rule took (the heading of a list repeated on every page): what
    follows it now is a heading of its level or above, or the end of its block (the story not going on in
    the next one)."""
    if not _short_heading(heading):
        return
    after = _neighbour(heading, forward=True)
    if after is None:
        parent = heading.getparent()
        going_on = _neighbour(parent, forward=True) if parent is not None else None
        if going_on is not None and (going_on.tag == "p" or going_on.find(".//p") is not None):
            return  # a split story: its next block may be this heading's section
    elif not (after.tag in _SECTION_HEADINGS and after.tag <= heading.tag):  # "h2" <= "h3": same level or above
        return
    heading.drop_tree()


def _neighbour(el, forward: bool):
    """The element beside ``el``, past comments with no text after them (None at the end of its parent)."""
    node = el.getnext() if forward else el.getprevious()
    while node is not None and not isinstance(node.tag, str) and not (node.tail or "").strip():
        node = node.getnext() if forward else node.getprevious()
    return node


def _short_heading(el) -> bool:
    return (el is not None and el.tag in _SECTION_HEADINGS and not (el.tail or "").strip()
            and len(normalize_space(el.text_content())) <= 60)


def _leading_link(item):
    """The link an item begins with (no text before it), or None."""
    first = next((d for d in item.iter() if isinstance(d.tag, str) and d is not item), None)
    return first if first is not None and first.tag == "a" and not (item.text or "").strip() else None


def _teaser_items(block) -> int:
    """Items of a teaser box: its children that begin with a link (a linked headline, a line of text after it)."""
    return sum(_leading_link(child) is not None for child in block if isinstance(child.tag, str))


def _link_cards(block) -> int:
    """Items that begin with an empty link, when most items do: teaser cards whose headline the main-text
    extractor took out of their link (``<li><a href=..></a><h3>Headline</h3>1 hour ago</li>``)."""
    items = [c for c in block if isinstance(c.tag, str)]
    links = [_leading_link(child) for child in items]
    cards = sum(a is not None and bool(a.get("href")) and not a.text_content().strip() for a in links)
    return cards if 2 * cards > len(items) else 0


_COMMENT_WORDS = (r"comments|reader comments|kommentare|commentaires|comentarios|comentários|commenti|reacties|"
                  r"komentáře|komentarze|kommentarer|yorumlar|комментарии|bình luận|댓글|コメント|评论|留言")
_COMMENTS_HEADING = re.compile(
    rf"(?:\d+\s+)?(?:{_COMMENT_WORDS})(?:\s*\(\d+(?:\s+of\s+\d+)?\))?\s*:?"  # "Comments", "12 Comments", "Kommentare (3)"
    r"|\d+\s+(?:comments?|responses?|replies)\b.{0,40}"  # "1 Comment", "12 Responses to “...”"
    r"|(?:add|post|leave|write|show|view|read|join)\s+(?:a\s+|your\s+|all\s+|the\s+)?(?:\d+\s+)?"
    r"(?:comments?|reply|response|discussion)\b.{0,30}"  # "Add a Comment", "Leave a reply", "View all 12 comments"
    r"|(?:kommentar schreiben|laisser un commentaire|deja un comentario|deixe um comentário|lascia un commento)\b.{0,20}",
    re.I)
_HEADING_LONGEST = 60
_STORY_BEFORE = 0.25  # the comments begin after this share of the body's text at least (never its top) ...
_STORY_CHARS = 400  # ... and after this much text


def drop_comments(roots) -> bool:
    """The readers' comments below a story (a class-less page hides what marks them): from a short line that
    heads them ("Comments", "Add a Comment", "Kommentare (3)") to the body's end (the later of the body's
    elements too), when the story before it holds at least ``_STORY_BEFORE`` of the body's text. A link or a
    button ("Comments (3)" in a share bar) only points to them."""
    whole = None
    before = 0  # text of the body's elements before this one
    for i, root in enumerate(roots):
        for node in _OWN_TEXTS(root):  # one pass over the text: the heading's words come first
            if node.is_tail or len(node.strip()) > _HEADING_LONGEST or not _COMMENT_HINT.search(node):
                continue
            el = node.getparent()
            if el is root or not isinstance(el.tag, str):
                continue
            text = normalize_space(el.text_content())
            if len(text) > _HEADING_LONGEST or not _COMMENTS_HEADING.fullmatch(text):
                continue
            while el.getparent() is not root and normalize_space(el.getparent().text_content()) == text:
                el = el.getparent()  # the block the line stands in ("<div><a>Add a Comment</a></div>")
            if el.tag in _NOT_HEADINGS or len(el) > 3 or any(a.tag in ("a", "button") for a in el.iterancestors()):
                continue
            if whole is None:
                whole = sum(len(normalize_space(r.text_content())) for r in roots)
            if before + _text_before(root, el) < max(_STORY_BEFORE * whole, _STORY_CHARS):
                continue
            _drop_from(root, el)
            for later in roots[i + 1:]:
                later.clear()
            return True
        before += len(normalize_space(root.text_content()))
    return False


_OWN_TEXTS = etree.XPath("descendant::*/text()[normalize-space(.) != '']")
_COMMENT_HINT = re.compile(r"commen|komment|repl|respons|discuss|reacties|koment|yorum|коммент|bình|댓글|"
                           r"コメント|评论|留言", re.I)
_NOT_HEADINGS = {"a", "button", "td", "th", "caption", "option", "label"}


def _text_before(root, el) -> int:
    """Characters of text before ``el`` inside ``root`` (an ancestor's tail comes after it)."""
    ancestors = set(el.iterancestors())
    chars = 0
    for node in root.iter():
        if node is el:
            break
        if isinstance(node.tag, str):
            chars += len((node.text or "").strip())
        if node is not root and node not in ancestors:
            chars += len((node.tail or "").strip())
    return chars


def _drop_from(root, el) -> None:
    """Drops ``el`` and everything after it, up to the end of ``root``."""
    node = el
    while node is not root:
        parent = node.getparent()
        for later in list(node.itersiblings()):
            parent.remove(later)
        node.tail = None
        node = parent
    el.getparent().remove(el)
