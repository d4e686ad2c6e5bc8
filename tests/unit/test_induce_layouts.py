"""induce_profile on the layouts that used to fail in silence: no class or id anywhere, a story split over
sibling blocks, a second template in 2005 tables (tests/plain_site.py). A click always gives a title and a
body; the first-paragraph click gives the whole story."""

from __future__ import annotations

import pytest

from tests.plain_site import make_stories, story_page
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.metadata import learn_title_suffix
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import parse_html
from xnews_gui.core.induction.selectors import element_xpath, induce_profile

STORIES = make_stories()
ONE = [s for s in STORIES if s.layout == 1]
TWO = [s for s in STORIES if s.layout == 2]


def _page(story) -> str:
    return story_page(story, STORIES)


def _clicks(story, body_xpath: str):
    html = _page(story)
    doc = parse_html(html)
    title = doc.xpath("//h1")[0] if story.layout == 1 else doc.xpath("//font[@size='5']/b")[0]
    return {"title": [(html, element_xpath(title))], "body": [(html, body_xpath)]}, doc


def _check(profile, stories):
    profile = Profile.from_json(profile.to_json())  # as saved
    for story in stories:
        got = extract(_page(story), "http://127.0.0.1" + story.path, profile)
        assert got.title == story.title, (story.path, profile.rules_for("title"))
        for paragraph in story.paragraphs:
            assert paragraph in got.body_text, (story.path, [r.selector for r in profile.rules_for("body")])
        assert "Advertisement" not in got.body_text and "Related" not in got.body_text and "Most read" \
            not in got.body_text, got.body_text
        assert got.checks["body"] == [] and got.checks["title"] == [] and got.fallbacks == [], got.checks


@pytest.mark.parametrize("click", ["first paragraph", "container"])
def test_a_click_on_a_split_story_without_classes_gives_the_whole_story(click):
    clicked = ONE[0]
    html = _page(clicked)
    doc = parse_html(html)
    first = doc.xpath("//p")[0]
    assert first.text == clicked.paragraphs[0]
    target = first if click == "first paragraph" else first.getparent().getparent()
    clicks, _ = _clicks(clicked, element_xpath(target))
    notes: list[str] = []
    profile = induce_profile(clicks, siblings=[_page(s) for s in (ONE[1], ONE[2], TWO[0])], name="plain",
                             start_url="http://127.0.0.1/", notes=notes)
    assert "title" in profile.fields and "body" in profile.fields, notes
    if click == "first paragraph":
        assert any("split over 3 sibling blocks" in n for n in notes), notes
    _check(profile, ONE[3:9] + TWO[1:4])


def test_a_2005_table_page_without_hooks_gets_a_title_and_a_body():
    clicked = TWO[0]
    html = _page(clicked)
    doc = parse_html(html)
    cell = doc.xpath("//p")[0].getparent()
    clicks, _ = _clicks(clicked, element_xpath(doc.xpath("//p")[0]))
    profile = induce_profile(clicks, siblings=[_page(s) for s in TWO[1:4]], name="plain",
                             start_url="http://127.0.0.1/")
    assert cell.tag == "td"
    _check(profile, TWO[4:8])


def test_the_title_chain_ends_with_the_pages_title_less_the_sites_affix():
    clicked = ONE[0]
    html = _page(clicked)
    first = element_xpath(parse_html(html).xpath("//p")[0])
    clicks, _ = _clicks(clicked, first)
    profile = induce_profile(clicks, siblings=[_page(s) for s in ONE[1:4]], start_url="http://127.0.0.1/")
    last = profile.rules_for("title")[-1]
    assert (last.kind, last.selector) == ("css", "title")
    # a page where the headline element is gone: the <title> gives the headline, the site's name left out
    story = ONE[5]
    page = _page(story).replace(f"<h1>{story.title}</h1>", "")
    got = extract(page, "http://127.0.0.1" + story.path, profile)
    assert got.title == story.title


def test_a_site_affix_before_the_headline_is_learned_too():
    post = learn_title_suffix([("Rain closes the river road", "Courier: Rain closes the river road"),
                               ("Farm prices rise again", "Courier: Farm prices rise again")])
    import re

    assert re.match(post, "Courier: Bridge repair delayed").group(1) == "Bridge repair delayed"
    assert re.match(post, "Courier: School term starts - extra").group(1).startswith("School term starts")


def test_an_element_deep_under_ancestors_without_hooks_still_gets_a_rule():
    """Twelve bare divs deep (no class, id or landmark within reach): the path from <body> is the rule."""
    def page(n: int) -> str:
        deep = "<div>" * 12 + f"<span>Headline number {n} of a deep page</span>" + "</div>" * 12
        menu = "<div><span>Home</span> <span>World</span></div>"  # the page's first spans are not it
        return f"<html><head><title>x</title></head><body>{menu}{deep}<p>text {n}</p></body></html>"

    html = page(1)
    xpath = element_xpath(parse_html(html).xpath("//span")[2])
    profile = induce_profile({"title": [(html, xpath)]}, siblings=[page(2), page(3)])
    assert "title" in profile.fields, profile
    assert extract(page(7), "http://127.0.0.1/7", profile).title == "Headline number 7 of a deep page"
