"""A body's expected size is learned from what the remove rules leave of the clicked container, not from its
raw text. A container that also holds a block the siblings repeat (a standing notice, another story's
preview, a book list: what the remove rules take out) has raw text several times the story's; learned from
it, every ordinary story of the site was "too short", and a main-text fallback twice as long (the story and
the notice) replaced the right body. Where the remove rules take the story itself (written in a form), the
raw sizes stay, so the lost body is flagged."""

from __future__ import annotations

from html import escape

from tests.plain_site import make_stories
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.induction.induce import plausible as plausible_body
from xnews_gui.core.induction.induce_body import values_after_removes
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.rules import Rule, element_text, parse_html

STORIES = make_stories(seed=23)
# the same on every page, inside the story's container: the paper's standing notice to its readers
NOTICE = "".join(f"<p>{escape(p)}</p>" for s in STORIES[30:34] for p in s.paragraphs)


def page(story) -> str:
    """No class, no id: the story's paragraphs and the standing notice stand in one container."""
    text = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return (f"<!DOCTYPE html><html><head><title>{escape(story.title)}</title></head><body><div><a href='/'>Home"
            f"</a> <a href='/news/'>News</a></div><div><h1>{escape(story.title)}</h1><div>{text}</div>"
            f"<div><h3>To our readers</h3>{NOTICE}</div></div><div>(c) 2026 The Courier</div></body></html>")


def test_an_ordinary_story_is_not_short_for_the_notice_its_container_held_at_the_click():
    clicked = page(STORIES[0])
    doc = parse_html(clicked)
    container = doc.xpath("//h1")[0].getparent()  # the click on the whole of it
    assert len(container.text_content()) > 4 * len(" ".join(STORIES[0].paragraphs))  # the premise
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(container))]},
                             siblings=[page(s) for s in STORIES[1:4]], name="courier", start_url="http://127.0.0.1/")
    for story in STORIES[5:9]:
        article = extract(page(story), f"http://127.0.0.1/{story.id}.html", profile)
        assert all(p in article.body_text for p in story.paragraphs)
        assert STORIES[30].paragraphs[0] not in article.body_text
        assert article.checks["body"] == [] and article.fallbacks == [], (article.checks, article.fallbacks)
    assert profile.chains["body"].expect.chars[0] <= len(" ".join(STORIES[5].paragraphs))


def form_page(story) -> str:
    """The story written in a ``<form>`` inside the clicked container (a speed-reading widget's text, an
    ASP.NET page's part): induction takes a form for a sign-up box, unless it holds the story."""
    text = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return (f"<!DOCTYPE html><html><head><title>{escape(story.title)}</title></head><body><div><a href='/'>Home"
            f"</a></div><div><h1>{escape(story.title)}</h1><div>By the desk</div><form action='/read'>{text}</form>"
            f"<form action='/subscribe'>Get the Courier's letter: <input name='mail'><button>Sign up</button></form>"
            f"</div><div>(c) 2026 The Courier</div></body></html>")


def test_a_story_written_in_a_form_is_no_sign_up_box():
    clicked = form_page(STORIES[0])
    doc = parse_html(clicked)
    container = doc.xpath("//h1")[0].getparent()
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(container))]},
                             siblings=[form_page(s) for s in STORIES[1:4]], name="courier",
                             start_url="http://127.0.0.1/")
    article = extract(form_page(STORIES[6]), "http://127.0.0.1/6.html", profile)
    assert all(p in article.body_text for p in STORIES[6].paragraphs)
    assert "Sign up" not in article.body_text and "letter" not in article.body_text  # the sign-up form goes
    assert article.checks["body"] == [] and article.fallbacks == [], (article.checks, article.fallbacks)


def test_remove_rules_that_take_a_pages_story_leave_its_raw_size():
    """Where what the remove rules leave is not plausible beside the clicked page, a page's size is its raw
    text's, so that a body they empty on a page of the site is flagged as short, never learned as normal."""
    docs = [parse_html(form_page(s)) for s in STORIES[:3]]
    body, story_form = Rule(kind="xpath", selector="//h1/.."), Rule(kind="css", selector="form")

    def plausible(value, reference):
        return plausible_body("body", value, reference)

    raw = [element_text(d.xpath("//h1/..")[0]) for d in docs]
    assert [len(v) for v in values_after_removes([body], [story_form], docs, plausible)] == [len(v) for v in raw]
    sign_up = Rule(kind="xpath", selector="//form[@action='/subscribe']")
    left = values_after_removes([body], [sign_up], docs, plausible)
    assert all(0 < len(v) < len(r) and "Sign up" not in v for v, r in zip(left, raw))
