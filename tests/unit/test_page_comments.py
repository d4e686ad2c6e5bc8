"""Readers' comments the main-text extractor keeps while it drops their heading (a page whose markup does not
say what they are): the heading is found on the page, and what stands under it is neither the fallback
body nor the estimate of the article's text a body is judged against."""

from __future__ import annotations

from html import escape

from tests.plain_site import make_stories
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.html_text import parse_fragment
from xnews_gui.core.extraction.maintext import main_text_html
from xnews_gui.core.extraction.text_place import drop_page_comments, paragraph_keys, text_block
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.rules import parse_html

STORIES = make_stories(seed=9)
COMMENTS = [
    "Ah well, just as crazy as ever. Some things never change, they just get old and tired of it all.",
    "Has anyone noticed that the council never answers the question about the bridge repairs and the budget?",
    "Coming back down to earth, let us get the road plan passed and then we can tackle the school problem!",
    "The festival was better last year when the choir sang by the river and the market stayed open late.",
    "I wrote to the mayor about the bus fares twice and never heard back from anyone at the town hall.",
]


def _frame(story, main: str) -> str:
    return (f"<!DOCTYPE html><html><head><title>{escape(story.title)}</title></head><body><div><a href='/'>Home"
            f"</a></div><div><div>{main}</div></div><div>(c) 2026 The Courier</div></body></html>")


def with_comments(story, comments=COMMENTS) -> str:
    """No class, no id: the comments under an "Add a Comment" form and a "Comments (N of N)" heading."""
    text = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    entries = "".join(f"<div>3:25 pm July 3, 2013 reader{i} wrote :</div><p>{escape(c)}</p>"
                      for i, c in enumerate(comments))
    n = len(comments)
    return _frame(story, f"<h1>{escape(story.title)}</h1><div>{text}</div>"
                         f"<div><h3>Add a Comment</h3><form><div>Name</div><input name='n'><div>We welcome "
                         f"thoughtful comments from readers.</div><textarea></textarea></form></div>"
                         f"<div><h3>Comments ({n} of {n})</h3><a href='/all'>View all Comments</a>{entries}</div>")


def other_layout(story) -> str:
    text = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    return _frame(story, f"<h1>{escape(story.title)}</h1><div class='story-body'>{text}</div>")


def _induce(layout, body_xpath: str):
    clicked = layout(STORIES[0])
    doc = parse_html(clicked)
    title, body = (element_xpath(doc.xpath(x)[0]) for x in ("//h1", body_xpath))
    return induce_profile({"title": [(clicked, title)], "body": [(clicked, body)]},
                          siblings=[layout(s) for s in STORIES[1:4]], name="courier", start_url="http://127.0.0.1/")


def _story_only(article, story):
    for paragraph in story.paragraphs:
        assert paragraph in article.body_text, article.body_text[:300]
    assert not any(c[:40] in article.body_text for c in COMMENTS), article.body_text[-400:]


def test_the_extractor_keeps_the_comments_and_drops_their_heading():
    """What is mended (were the heading kept, the body's own comments cut would do it)."""
    text = main_text_html(with_comments(STORIES[5]), "http://127.0.0.1/5.html")
    assert COMMENTS[0][:40] in text and "Comments (" not in text and "Add a Comment" not in text


def test_the_fallback_body_leaves_the_comments_out():
    profile = _induce(other_layout, "//div[@class='story-body']")
    for story in STORIES[5:8]:
        article = extract(with_comments(story), f"http://127.0.0.1/{story.id}.html", profile)
        assert any(f.startswith("body: fallback (main-text extractor") for f in article.fallbacks), article.fallbacks
        _story_only(article, story)


def second_template(story, comments=COMMENTS) -> str:
    """The site's second template: the comments in lists whose classes do not say "comment" to the extractor."""
    text = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    entries = "".join(f"<li class='t2-entry'><ul class='t2-units'><li class='t2-unit'><div>3:25 pm July 3, 2013 "
                      f"reader{i} wrote :</div><div class='t2-text'><p>{escape(c)}</p></div></li></ul></li>"
                      for i, c in enumerate(comments))
    n = len(comments)
    return _frame(story, f"<div class='t2-page'><h1>{escape(story.title)}</h1><div class='t2-story'>{text}</div>"
                         f"<div class='t2-posts'><h3>Comments ({n} of {n})</h3><a href='/all'>View all Comments</a>"
                         f"<ul class='t2-list'>{entries}</ul></div></div>")


def test_a_right_body_is_not_judged_against_the_comments():
    """The second template's rule gives the story; its text is estimated without the comments, so the body
    is not called incomplete ("covers 59% of the article's text") and replaced by the extractor's text."""
    first, second = other_layout(STORIES[0]), second_template(STORIES[1])
    clicks = {"title": [(first, element_xpath(parse_html(first).xpath("//h1")[0])),
                        (second, element_xpath(parse_html(second).xpath("//h1")[0]))],
              "body": [(first, element_xpath(parse_html(first).xpath("//div[@class='story-body']")[0])),
                       (second, element_xpath(parse_html(second).xpath("//div[@class='t2-story']")[0]))]}
    profile = induce_profile(clicks, siblings=[other_layout(STORIES[2]), second_template(STORIES[3])],
                             name="courier", start_url="http://127.0.0.1/")
    for story in STORIES[5:8]:
        article = extract(second_template(story, COMMENTS * 2), f"http://127.0.0.1/{story.id}.html", profile)
        assert article.checks["body"] == [] and article.fallbacks == [], (article.checks, article.fallbacks)
        _story_only(article, story)


def test_a_comments_line_above_most_of_the_text_cuts_nothing():
    """A wide block (the page's columns) with a menu line "Read comments on mobile Web" between a teaser and
    the story: what stands under it is most of the extracted text, so it is not the comments."""
    story = STORIES[9]
    teaser = "The Post Most: most-viewed stories, videos and galleries in the past two hours. " * 6
    paragraphs = "".join(f"<p>{escape(p)}</p>" for p in story.paragraphs)
    page = parse_html(_frame(story, f"<div><p>{teaser}</p><ul><li>Read comments on mobile Web</li></ul>"
                                    f"<div>{paragraphs}</div></div>"))
    extracted = parse_fragment(f"<p>{teaser}</p>{paragraphs}")
    block = text_block(page, paragraph_keys(extracted))
    assert block is not None and block.xpath(".//li")
    assert not drop_page_comments(extracted, block)
    assert all(p in extracted.text_content() for p in story.paragraphs)
    # the same line below the story heads what follows it
    page = parse_html(_frame(story, f"<div><div>{paragraphs}</div><ul><li>Read comments on mobile Web</li></ul>"
                                    f"<p>{escape(COMMENTS[0])}</p><p>{escape(COMMENTS[1])}</p></div>"))
    extracted = parse_fragment(paragraphs + f"<p>{escape(COMMENTS[0])}</p><p>{escape(COMMENTS[1])}</p>")
    assert drop_page_comments(extracted, text_block(page, paragraph_keys(extracted)))
    assert COMMENTS[0][:40] not in extracted.text_content() and story.paragraphs[-1] in extracted.text_content()
