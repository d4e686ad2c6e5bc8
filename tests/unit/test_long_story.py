"""A body longer than the stories the profile was made on is flagged only when the page's main text does not
say it is the story: a long read on a site of short stories is no false alarm; a body that took the reader
comments as well is not taken (the main text is, flagged)."""

from __future__ import annotations

from html import escape

from tests.plain_site import make_stories
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.rules import parse_html

STORIES = make_stories(seed=5)


def _page(title: str, paragraphs, comments=()) -> str:
    text = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    thread = ("<div class='comments'><h3>Comments</h3>"
              + "".join(f"<div class='comment'><b>Reader {i}</b><p>{escape(c)}</p></div>" for i, c in enumerate(comments))
              + "</div>") if comments else ""
    return (f"<!DOCTYPE html><html><head><title>{escape(title)} - The Courier</title></head><body>"
            f"<nav><a href='/'>Home</a> <a href='/towns/'>Towns</a> <a href='/farms/'>Farms</a></nav>"
            f"<article><h1>{escape(title)}</h1><div class='text'>{text}{thread}</div></article>"
            f"<footer>(c) 2026 The Courier</footer></body></html>")


def _profile():
    pages = [_page(s.title, s.paragraphs[:2]) for s in STORIES[:4]]  # short stories, about 500 characters
    doc = parse_html(pages[0])
    title, body = (element_xpath(doc.xpath(x)[0]) for x in ("//h1", "//div[@class='text']"))
    return induce_profile({"title": [(pages[0], title)], "body": [(pages[0], body)]}, siblings=pages[1:],
                          name="courier", start_url="http://127.0.0.1/")


def test_a_long_read_is_not_flagged_and_a_body_with_the_comments_is():
    profile = _profile()
    ceiling = profile.chains["body"].expect.chars[1]
    long_read = [p for s in STORIES[10:16] for p in s.paragraphs]
    article = extract(_page(STORIES[10].title, long_read), "http://127.0.0.1/long.html", profile)
    assert len(article.body_text) > ceiling, "the premise: longer than the profile expects"
    assert long_read[-1] in article.body_text
    assert article.checks["body"] == [] and not article.fallbacks

    comments = [p for s in STORIES[20:26] for p in s.paragraphs]
    story = STORIES[11]
    article = extract(_page(story.title, story.paragraphs[:3], comments), "http://127.0.0.1/c.html", profile)
    assert article.checks["body"] and any(f.startswith("body: fallback") for f in article.fallbacks)
    assert story.paragraphs[0] in article.body_text and comments[0] not in article.body_text  # the story alone
