"""HTML to elements and text for extraction: pages parsed from their UTF-8 bytes, body fragments,
and a body's plain text with one paragraph per line."""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from .rules import _XML_DECL, normalize_space, parse_html


def _utf8_html_parser():
    """lxml.html's parser for UTF-8 bytes, with the element classes chosen in C: lxml.html's own
    lookup is a Python call for every element that Python touches (its form-field classes add
    only form helpers that extraction never uses)."""
    parser = etree.HTMLParser(encoding="utf-8")
    parser.set_element_class_lookup(etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction, entity=lxml.html.HtmlEntity))
    return parser


_UTF8_HTML = _utf8_html_parser()


def parse_page(text: str, data: bytes, url: str):
    """``parse_html(text, url)``, given the UTF-8 bytes that lxml would otherwise make of the text."""
    if not data or text.isspace() or _XML_DECL.match(text):
        return parse_html(text, url)
    try:
        return lxml.html.document_fromstring(data, parser=_UTF8_HTML, base_url=url)
    except (etree.ParserError, ValueError):
        return parse_html(text, url)


_BLOCKS = {"p", "div", "li", "h2", "h3", "h4", "h5", "h6", "blockquote", "figcaption", "tr", "pre", "br", "figure"}


def html_to_text(html: str) -> str:
    """Plain text with one paragraph per line."""
    if not html:
        return ""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return normalize_space(re.sub(r"<[^>]+>", " ", html))
    return fragment_text(root)


# "<html", "<body", "<!" or "<?": one regular expression scan, 6x cheaper than four "in" scans
_WHOLE_PAGE_MARK = re.compile(r"<(?:html|body|!|\?)")


def parse_fragment(html: str):
    """``lxml.html.fragment_fromstring(html, create_parent="div")`` (None where it fails), parsed from
    the UTF-8 bytes, the parsed <body> itself becoming the <div> (no move into a new document)."""
    if not html:
        return None
    if _WHOLE_PAGE_MARK.search(html) is None:
        try:
            doc = etree.fromstring(b"<html><body>" + html.encode("utf-8") + b"</body></html>", _UTF8_HTML)
        except (etree.ParserError, ValueError):  # UnicodeEncodeError too: a lone surrogate
            doc = None
        if doc is not None and doc.tag == "html" and len(doc) == 1 and doc[0].tag == "body":
            root = doc[0]
            root.tag = "div"
            if root.text is not None and not root.text.strip():  # as fragment_fromstring: no blank lead
                root.text = None
            return root
    try:
        return lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


def fragment_text(root) -> str:
    """``html_to_text`` on a parsed fragment (captions may be dropped from it).

    Image captions stay in the HTML, beside their images, but are not running
    text - unless they are most of the text (a photo story).
    """
    # root.text_content() with a line break at the start and end of each block (none after a <br>'s
    # start, none at the root's end), read in one walk instead of writing them into the tree; the
    # same walk measures the text and the captions' text (a nested caption's twice, as summing each
    # caption's text_content() does) and where each outermost caption's parts are
    parts: list[str] = []
    add = parts.append
    blocks = _BLOCKS
    captions = holds(root, "figcaption")
    depth = total = in_captions = first = 0
    spans: list[tuple[int, int]] = []
    for event, el in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event == "start":
            tag = el.tag  # read once: each read of .tag makes a new string
            if tag in blocks:
                if captions and tag == "figcaption":
                    if not depth:
                        first = len(parts)
                    depth += 1
                if tag != "br":
                    add("\n")
            text = el.text
            if text:
                add(text)
                if captions:
                    total += len(text)
                    in_captions += depth * len(text)
        elif el is not root:
            if event == "end":
                tag = el.tag
                if tag in blocks:
                    add("\n")
                    if captions and tag == "figcaption":
                        depth -= 1
                        if not depth:
                            spans.append((first, len(parts)))
            tail = el.tail
            if tail:
                add(tail)
                if captions:
                    total += len(tail)
                    in_captions += depth * len(tail)
    if captions and 2 * in_captions < total:
        for caption in list(root.iter("figcaption")):  # out of the tree too: their images are not the body's
            caption.drop_tree()
        for start, end in reversed(spans):  # each caption's parts but its tail
            del parts[start:end]
    return "\n".join(filter(None, map(normalize_space, "".join(parts).split("\n"))))


def holds(el, tag: str) -> bool:
    """``el.find(".//" + tag) is not None``, without ElementPath's Python machinery."""
    for _ in el.iterdescendants(tag):
        return True
    return False
