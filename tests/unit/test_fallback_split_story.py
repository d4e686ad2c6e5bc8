"""A page of a layout no rule knows, its story split over two sibling blocks: the fallback body is the whole
story (the main-text extractor reads the first block alone), flagged as a fallback."""

from __future__ import annotations

from html import escape

from tests.plain_site import make_stories
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.maintext import main_text_html
from xnews_gui.core.extraction.text_place import paragraph_keys, text_block
from xnews_gui.core.extraction.html_text import parse_fragment
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.rules import parse_html

STORIES = make_stories(seed=5)
_SHARE = ("<div class='share'>Share this page <ul><li><a href='/d'>Delicious</a></li><li><a href='/f'>Facebook</a>"
          "</li><li><a href='/t'>Twitter</a></li></ul></div>")


def _frame(story, main: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{escape(story.title)}</title></head><body>"
            f"<div class='top'><a href='/'>Home</a> <a href='/news/'>News</a></div><div class='wrap'>{main}</div>"
            f"<div class='foot'>(c) 2026 The Courier</div></body></html>")


def first_layout(story) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return _frame(story, f"<h1>{escape(story.title)}</h1><div class='story-body'>{paragraphs}</div>")


def second_layout(story) -> str:
    """The story in two blocks of one kind, an advertisement between them; the headline in the first."""
    first = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs[:4])
    rest = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs[4:])
    return _frame(story, f"<div class='t2-story-body'><span class='date'>5 April 2013 Last updated at 11:05 GMT"
                         f"</span>{_SHARE}<h1>{escape(story.title)}</h1>{first}</div>"
                         f"<div class='t2-ad-slot'>Advertisement</div><div class='t2-story-body'>{rest}</div>")


def _profile():
    clicked = first_layout(STORIES[0])
    doc = parse_html(clicked)
    title, body = (element_xpath(doc.xpath(x)[0]) for x in ("//h1", "//div[@class='story-body']"))
    return induce_profile({"title": [(clicked, title)], "body": [(clicked, body)]},
                          siblings=[first_layout(s) for s in STORIES[1:4]], name="courier",
                          start_url="http://127.0.0.1/")


def test_the_main_text_extractor_alone_reads_one_block():
    """What the fallback mends (if the extractor read both blocks, the test below would prove nothing)."""
    story = STORIES[5]
    text = main_text_html(second_layout(story), "http://127.0.0.1/news/5.html")
    assert story.paragraphs[0][:60] in text and story.paragraphs[5][:60] not in text


def test_a_split_story_on_an_unknown_layout_is_joined_by_the_fallback():
    profile = _profile()
    assert [r.selector for r in profile.rules_for("body")][0] == "div.story-body"
    for story in STORIES[5:9]:
        article = extract(second_layout(story), f"http://127.0.0.1/news/{story.id}.html", profile)
        for paragraph in story.paragraphs:
            assert paragraph in article.body_text, (story.id, article.body_text[:200])
        assert "Advertisement" not in article.body_text
        assert any("the story's 2 sibling blocks joined" in f for f in article.fallbacks), article.fallbacks
        assert article.checks["body"], "a body from outside the rules is flagged"


def test_the_known_layout_is_left_to_its_rules():
    profile = _profile()
    article = extract(first_layout(STORIES[6]), "http://127.0.0.1/news/6.html", profile)
    assert article.fallbacks == [] and article.checks["body"] == []
    assert all(p in article.body_text for p in STORIES[6].paragraphs)


def test_the_text_is_found_on_the_page_as_its_smallest_holder():
    story = STORIES[7]
    doc = parse_html(second_layout(story))
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs[:4])
    block = text_block(doc, paragraph_keys(parse_fragment(paragraphs)))
    assert block is not None and block.get("class") == "t2-story-body"
    assert block.getnext().get("class") == "t2-ad-slot"
    assert text_block(doc, paragraph_keys(parse_fragment("<p>" + "not on the page " * 5 + "</p>"))) is None
