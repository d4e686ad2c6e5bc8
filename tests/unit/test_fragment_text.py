"""``core.extraction.html_text.fragment_text`` measures captions in the same walk that reads the text: text and
tree must be the ones of measuring each caption with text_content() and dropping them first."""

from __future__ import annotations

import lxml.html
from lxml import etree

from tests import extract_corpus as corpus
from tests.conftest import shared_data
from xnews_gui.core.text.encoding import decode_html
from xnews_gui.core.extraction.html_text import _BLOCKS, fragment_text, holds, parse_fragment
from xnews_gui.core.text.text import normalize_space
from xnews_gui.core.extraction.sanitize import sanitize_html


def reference(root) -> str:
    """The definition: captions dropped from the tree first when they are less than half the text."""
    if holds(root, "figcaption"):
        captions = list(root.iter("figcaption"))
        if 2 * sum(len(c.text_content()) for c in captions) < len(root.text_content()):
            for caption in captions:
                caption.drop_tree()
    parts = []
    for event, el in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        if event == "start":
            if el.tag in _BLOCKS and el.tag != "br":
                parts.append("\n")
            if el.text:
                parts.append(el.text)
        elif el is not root:
            if event == "end" and el.tag in _BLOCKS:
                parts.append("\n")
            if el.tail:
                parts.append(el.tail)
    return "\n".join(filter(None, map(normalize_space, "".join(parts).split("\n"))))


def same(html: str) -> bool:
    ours, theirs = parse_fragment(html), parse_fragment(html)
    if ours is None:
        return True
    assert fragment_text(ours) == reference(theirs), html[:300]
    assert etree.tostring(ours) == etree.tostring(theirs), html[:300]  # the same captions left the tree
    return "figcaption" in html


LONG = "Một đoạn văn bản dài của bài báo, đủ dài để là phần lớn của trang. " * 4
CASES = [
    f"<p>{LONG}</p><figure><img src='a.jpg'><figcaption>Ảnh: chú thích</figcaption></figure>tail<p>{LONG}</p>",
    "<figure><img src='a.jpg'><figcaption>" + LONG + "</figcaption></figure><p>short</p>",  # a photo story
    f"<p>{LONG}</p><figcaption>outer <figcaption>inner <b>bold</b></figcaption> after</figcaption> t",
    f"<figcaption>a<!-- c -->b<?pi x?>c</figcaption>tail<p>{LONG[:40]}</p>",
    "<figcaption>" + LONG[:120] + "</figcaption><p>" + LONG[:130] + "</p>",  # near half: both sides
    "<figcaption>" + LONG[:130] + "</figcaption><p>" + LONG[:120] + "</p>",
    f"<div><figure><figcaption>x</figcaption><img src='b.jpg'></figure>y<br>z</div><p>{LONG}</p>",
    "<figcaption></figcaption><figcaption> </figcaption>text",
    f"<p>{LONG}</p>",
    # a nested caption counts twice: 2 x 80 > 130 keeps the captions, counted once (80 < 130) it would not
    f"<div><figcaption><span><figcaption>{'x' * 40}</figcaption></span></figcaption></div><p>{'y' * 90}</p>",
]


def test_written_cases_match_the_definition():
    assert sum(same(html) for html in CASES) >= 8


def test_real_article_bodies_match_the_definition():
    with_captions = 0
    shared_data()  # the real pages: skip with the reason when absent
    for name, data in corpus.real_pages()[::2]:
        doc = lxml.html.document_fromstring(decode_html(data)[0].encode("utf-8"),
                                            parser=etree.HTMLParser(encoding="utf-8"))
        for container in doc.xpath("//article | //main | //*[@itemprop='articleBody'] | //body")[:3]:
            html = sanitize_html(lxml.html.tostring(container, encoding="unicode"), "http://example.test/")
            with_captions += same(html)
    assert with_captions > 20
