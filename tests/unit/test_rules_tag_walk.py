"""css rules of the form ``tag`` and ``tag.class`` select by lxml's tree walk instead of XPath
(``core.profile.css_walk.TagWalk``): the elements and their order must be the ones cssselect's XPath gives."""

from __future__ import annotations

import lxml.html
import pytest
from lxml import etree

from tests import extract_corpus as corpus
from tests.conftest import shared_data
from xnews_gui.core.text.encoding import decode_html
from xnews_gui.core.profile.css_walk import TagWalk
from xnews_gui.core.profile.rules import Rule, css_to_xpath

PAGE = """<html><body class="lead"><div class="lead">1<p class=" lead ">2</p></div>
<p class="leader">no: a longer word</p><p class="x\tlead\ny">3 (TAB, LF)</p><p class="x\rlead">4 (CR)</p>
<p class="x\x0blead">no: VT is no XML whitespace</p><p class="x\u00a0lead">no: nbsp</p><p class="x\x0clead">no: FF</p>
<p class="LEAD">no: case</p><P CLASS="lead">5 (the parser lower-cases)</P><p class="">no</p><p>no</p>
<!-- <p class="lead">no: a comment</p> --><div><div class="a lead b">6</div></div><h1 class="lead">7</h1></body></html>"""

SELECTORS = ["p.lead", "div.lead", "body.lead", "h1.lead", "p", "div", "h1", "body", "html", "span", "p.leader",
             "p.x", "div.a", "div.b", "a.lead", "div p", "div.lead p.lead", "body div", "div div", "div div.lead",
             "body.lead div p", "html body h1.lead", "div.lead div"]


def xpath(selector: str, doc) -> list:
    return [el for el in etree.XPath(css_to_xpath(selector))(doc) if isinstance(el, etree._Element)]


@pytest.mark.parametrize("selector", SELECTORS)
def test_the_walk_selects_what_the_xpath_selects(selector):
    walk = TagWalk.of(selector, css_to_xpath(selector))
    assert walk is not None
    doc = lxml.html.document_fromstring(PAGE)
    fragment = lxml.html.fragment_fromstring("<p class='lead'>a</p><div class='lead'><p class='lead'>b</p></div>",
                                             create_parent="div")
    for context in (doc, doc.getroottree(), doc.find("body"), fragment):
        assert walk(context) == xpath(selector, context), selector
    assert Rule(kind="css", selector=selector).select(doc) == xpath(selector, doc)


def test_the_words_are_the_ones_xpath_splits_at():
    doc = lxml.html.document_fromstring(PAGE)
    assert [el.text.split()[0] for el in TagWalk.of("p.lead", css_to_xpath("p.lead"))(doc)] == ["2", "3", "4", "5"]


def test_other_selectors_keep_xpath():
    for selector in (".lead", "p .lead", "p.lead.x", "p#lead", "P.lead", "p.lead > a", "p, div", " p", "p.-x",
                     "p.le\\:ad", "p[class]", "*", "div  p", "div > p", "div p ", "div * p"):
        assert TagWalk.of(selector, css_to_xpath(selector)) is None, selector


def test_real_pages_select_the_same():
    selectors = ["p", "div", "a", "h1", "h2", "img", "span", "li", "time", "article", "section", "figure",
                 "p.description", "h1.title-detail", "span.date", "div.content", "div.article", "p.Normal",
                 "div.story-body", "p.introduction", "h1.story-header", "div.entry-content", "a.link", "div p", "div div",
                 "article p", "div.content p", "ul li a", "div div a", "figure img", "section div p", "li a"]
    shared_data()  # the real pages: skip with the reason when absent
    pages = corpus.real_pages()[::3]
    assert len(pages) > 100
    matched = 0
    for name, html in pages:
        doc = lxml.html.document_fromstring(decode_html(html)[0].encode("utf-8"),
                                            parser=etree.HTMLParser(encoding="utf-8"))
        for selector in selectors:
            found = TagWalk.of(selector, css_to_xpath(selector))(doc)
            assert found == xpath(selector, doc), (name, selector)
            matched += len(found)
    assert matched > 10000
