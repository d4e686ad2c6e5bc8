"""Teaser cards the main-text extractor keeps beside a story ("Timeline", "Related"): each item a link to
another story whose headline the extractor took out of the link (``<li><a href=..></a><h3>..</h3>1 hour
ago</li>``). They are no body's text, neither the rules' (a click widened to the ``<article>``) nor the
fallback's: a news brief on a site of long stories stays the brief (flagged as shorter than the site's
stories), not the brief and six other stories' headlines. The list's heading goes with it."""

from __future__ import annotations

from html import escape

from tests.plain_site import make_stories
from xnews_gui.core.extraction.body_clean import drop_link_lists
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.html_text import fragment_text, parse_fragment
from xnews_gui.core.extraction.maintext import main_text_html
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.rules import parse_html

import re

STORIES = make_stories(seed=11)
OTHERS = STORIES[10:16]  # the stories the cards link to


def _cards() -> str:
    return "".join(f"<li><a href='/news/{i}'><div><h3>{escape(s.title)}</h3></div></a>{i + 1} hours ago"
                   f"<img src='/img/{i}.jpg' alt='{escape(s.title)}'></li>" for i, s in enumerate(OTHERS))


def page(story, paragraphs: int | None = None) -> str:
    """No class, no id; the timeline's cards inside the <article>, after the story (the site's stories are
    long: two of the made-up ones; a brief is its first ``paragraphs``)."""
    following = STORIES[(STORIES.index(story) + 20) % len(STORIES)]
    text = "".join(f"<p>{escape(p)}</p>" for p in (story.paragraphs + following.paragraphs)[:paragraphs])
    return (f"<!DOCTYPE html><html><head><title>{escape(story.title)}</title></head><body><div><a href='/'>Home</a>"
            f"</div><article><h1>{escape(story.title)}</h1><div>{text}</div><h2>Timeline</h2><ul>{_cards()}</ul>"
            f"</article><div>(c) 2026 The Courier</div></body></html>")


def test_the_extractor_keeps_the_cards_with_their_links_emptied():
    """The premise: without it the test below would not test the cards' drop."""
    out = main_text_html(page(STORIES[0], 1), "http://127.0.0.1/a.html")
    assert OTHERS[0].title in out
    assert len(re.findall(r'<a href="[^"]+"\s*/>', out)) == len(OTHERS)  # each card's link, emptied


def test_a_list_of_cards_leaves_the_text_and_a_list_of_linked_sentences_stays():
    story = STORIES[1]
    cards = parse_fragment(main_text_html(page(story), "http://127.0.0.1/b.html"))
    assert drop_link_lists([cards])
    text = fragment_text(cards)
    assert story.paragraphs[0] in text and story.paragraphs[-1] in text
    assert not any(s.title in text for s in OTHERS)
    assert "Timeline" not in text  # the list's heading went with it

    sources = "".join(f"<li><a href='/r/{i}'>Report {i}</a> {escape(p)}</li>" for i, p in enumerate(story.paragraphs))
    linked = parse_fragment(f"<div><p>{escape(story.paragraphs[0])}</p><h3>Sources</h3><ul>{sources}</ul></div>")
    assert not drop_link_lists([linked])  # a link begins each item, the item is a sentence of the story
    assert "Sources" in fragment_text(linked)

    few = "".join(f"<li><a href='/n/{i}'></a>{escape(p)}</li>" if i < 2 else f"<li>{escape(p)}</li>"
                  for i, p in enumerate(story.paragraphs))
    mostly_text = parse_fragment(f"<div><p>{escape(story.title)}</p><ul>{few}</ul></div>")
    assert not drop_link_lists([mostly_text])  # two empty links of six items: not a list of cards


def test_a_brief_stays_the_brief_and_says_it_is_short():
    clicked = page(STORIES[0])
    doc = parse_html(clicked)
    title, body = (element_xpath(doc.xpath(x)[0]) for x in ("//h1", "//article/div"))
    profile = induce_profile({"title": [(clicked, title)], "body": [(clicked, body)]},
                             siblings=[page(s) for s in STORIES[1:4]], name="courier",
                             start_url="http://127.0.0.1/")
    brief = STORIES[5]
    article = extract(page(brief, 2), "http://127.0.0.1/brief.html", profile)
    for paragraph in brief.paragraphs[:2]:
        assert paragraph in article.body_text
    assert not any(s.title in article.body_text for s in OTHERS)
    assert article.checks["body"], "a body shorter than the site's stories is flagged"
    assert not article.fallbacks
