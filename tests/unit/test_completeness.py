"""A body or title that is not the whole field says so (core.extraction.completeness, in extract), on a site without
one class or id whose stories are split over sibling blocks (tests/plain_site.py)."""

from __future__ import annotations

import re

import pytest

from tests.plain_site import story_page
from xnews_gui.core.profile.chain import FieldChain
from xnews_gui.core.extraction.completeness import body_problems, text_beside, title_problems
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule, parse_html
from xnews_gui.core.profile.verify import ContentProfile

FIRST_BLOCK = Rule(kind="xpath", selector="//h1/following-sibling::div[2]", take="html", required=True)
ALL_BLOCKS = Rule(kind="xpath", selector="//h1/following-sibling::div[p]", take="html", required=True)
TITLE = Rule(kind="css", selector="h1", take="text", required=True)


@pytest.fixture(scope="module")
def stories():
    from tests.plain_site import make_stories

    return [s for s in make_stories() if s.layout == 1][:4]


def _profile(body: Rule, expect: bool = False) -> Profile:
    chains = {}
    if expect:
        chains["body"] = FieldChain(expect=ContentProfile(chars=(100, 100000), words=(20, 20000)))
    return Profile(name="plain", start_urls=("http://127.0.0.1/",), fields={"title": TITLE, "body": body},
                   chains=chains)


def _html(story):
    from tests.plain_site import make_stories

    return story_page(story, make_stories())


def test_a_body_of_one_block_of_a_split_story_says_how_much_of_the_article_it_covers(stories):
    for story in stories:
        article = extract(_html(story), "http://127.0.0.1" + story.path, _profile(FIRST_BLOCK))
        assert story.paragraphs[0] in article.body_text and story.paragraphs[3] not in article.body_text
        problems = article.checks["body"]
        assert problems and re.fullmatch(r"covers \d+% of the article's text", problems[0]), problems
        share = int(re.search(r"\d+", problems[0]).group())
        assert 20 <= share <= 45, problems  # two paragraphs of six


def test_with_a_content_profile_the_main_text_fills_the_body_and_says_why(stories):
    story = stories[0]
    article = extract(_html(story), "http://127.0.0.1" + story.path, _profile(FIRST_BLOCK, expect=True))
    assert all(p in article.body_text for p in story.paragraphs), article.body_text
    assert "Advertisement" not in article.body_text and "Related" not in article.body_text
    assert any("covers" in f and f.startswith("body: fallback") for f in article.fallbacks), article.fallbacks
    assert article.checks["body"]  # still flagged: the rules did not give it


def test_a_rule_taking_every_block_is_whole_and_not_flagged(stories):
    for story in stories:
        article = extract(_html(story), "http://127.0.0.1" + story.path, _profile(ALL_BLOCKS))
        assert all(p in article.body_text for p in story.paragraphs)
        assert article.checks["body"] == [] and article.checks["title"] == [] and article.fallbacks == []


def test_the_chain_moves_on_from_an_incomplete_rule(stories):
    story = stories[1]
    chain = FieldChain(fallbacks=(ALL_BLOCKS.with_(required=False),))
    profile = _profile(FIRST_BLOCK).with_field("body", FIRST_BLOCK, chain)
    article = extract(_html(story), "http://127.0.0.1" + story.path, profile)
    assert all(p in article.body_text for p in story.paragraphs) and article.checks["body"] == []


def test_text_beside_a_whole_body_leaves_out_related_stories(stories):
    doc = parse_html(_html(stories[0]))
    blocks = doc.xpath("//h1/following-sibling::div[p]")
    assert len(blocks) == 3
    assert text_beside(blocks) == 0  # the ad and the related box are not story
    assert text_beside(blocks[:1]) > 2 * len(" ".join(stories[0].paragraphs[:2])) * 0.9
    assert body_problems(blocks, " ".join(stories[0].paragraphs), None) == []


def test_a_title_that_is_not_the_pages_headline_is_doubtful(stories):
    doc = parse_html(_html(stories[0]))
    assert title_problems(stories[0].title, doc) == []
    doubt = title_problems("Most read", doc)  # a sidebar heading picked for the title
    assert doubt and "differs from the page's own headline" in doubt[0] and stories[0].title in doubt[0]


def test_a_body_mostly_made_of_other_text_does_not_hold_on_a_sibling():
    from collections import Counter

    from xnews_gui.core.extraction.completeness import tokens
    from xnews_gui.core.induction.induce_body import covering

    main = tokens("the river rose overnight and the bridge was closed to traffic until noon")
    whole = "The river rose overnight and the bridge was closed to traffic until noon."
    padded = whole + " Home World Business Sport Weather Contact About Jobs Shop Games Puzzles Newsletters " * 3
    ok, _ = covering([whole, padded, "The river rose."], [main, main, main])
    assert ok == [True, False, False]  # the whole story; the story inside a page of menus; a third of it
    assert covering([padded], [Counter()])[0] == [True]  # no main text to judge by
