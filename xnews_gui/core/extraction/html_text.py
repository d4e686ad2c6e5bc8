"""HTML to elements and text for extraction: pages parsed from their UTF-8 bytes, body fragments,
and a body's plain text with one paragraph per line."""

from __future__ import annotations

import re
import threading

import lxml.html
from lxml import etree

from ..profile.rules import XML_DECLARATION, parse_html
from ..text.text import normalize_space
from ..text.text import strip_control_chars_html


def _utf8_html_parser():
    """lxml.html's parser for UTF-8 bytes, with the element classes chosen in C: lxml.html's own
    lookup is a Python call for every element that Python touches (its form-field classes add
    only form helpers that extraction never uses)."""
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True)  # huge: 2048 levels, not 256 (see rules.py)
    parser.set_element_class_lookup(etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction, entity=lxml.html.HtmlEntity))
    return parser


_UTF8_HTML = _utf8_html_parser()


def parse_page(text: str, data: bytes, url: str):
    """``parse_html(text, url)``, given the UTF-8 bytes that lxml would otherwise make of the text."""
    if not data or text.isspace() or XML_DECLARATION.match(text):
        return parse_html(text, url)
    try:
        return lxml.html.document_fromstring(data, parser=_UTF8_HTML, base_url=url)
    except (etree.ParserError, ValueError):
        return parse_html(text, url)


# lxml's error log is its parser's: one parser per thread, so that the log read is this parse's
_PARSERS = threading.local()
_XML_DECL_BYTES = re.compile(rb"^\s*<\?xml[^>]*\?>", re.I)
_REFERENCE_BYTES = re.compile(rb"&#(?:[xX]0*[0-9a-fA-F]{1,6}|0*[0-9]{1,7});?")


def parse_fetched(page, url: str, references: bool = False):
    """``parse_page(page.text, page.utf8, url)`` for a ``core.text.encoding.FetchedHtml``, without decoding
    the page first when its bytes are a candidate: lxml parses them and reports invalid UTF-8 in its
    error log (tests/unit/test_fetched_html.py holds it to that); with nothing reported the page is
    valid UTF-8 and ``page.valid_utf8()`` is called, else the page is decoded to know. None when the
    page must take the text path (not a candidate, not valid UTF-8, or a page ``parse_page`` parses
    from its text: blank, an XML declaration). ``references``: None for a page holding a character
    reference to a control character too (``extract`` strips those from the text first)."""
    data = page.candidate
    if data is None:
        return None
    head = data.lstrip()  # the text's leading blanks, when the first other character is ASCII
    if not head or head[0] >= 0x80 or _XML_DECL_BYTES.match(data):
        return None
    if references and b"&" in data and b"&#" in data and any(not strip_control_chars_html(m.group().decode("ascii"))
                                            for m in _REFERENCE_BYTES.finditer(data)):
        return None
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = _utf8_html_parser()
    try:
        doc = lxml.html.document_fromstring(data, parser=parser, base_url=url)
    except (etree.ParserError, ValueError):
        return None
    if len(parser.error_log) == 0:
        page.valid_utf8()
        return doc
    return doc if page.utf8 is data else None  # decode_html_utf8 tells


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
