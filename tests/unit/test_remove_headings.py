"""A block a profile's remove rule takes (a related list, a "most read" box the siblings repeat) takes its
short heading with it when nothing of its section is left: the body does not end with "Timeline". A
heading whose section goes on after the removed block (an ad between a heading and its paragraphs) stays."""

from __future__ import annotations

from tests.unit.test_teaser_cards import OTHERS, STORIES, page
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import parse_html

URL = "http://127.0.0.1/a.html"


def _profile(remove: list[str]) -> Profile:
    return Profile.from_dict({"schema": 2, "name": "t", "start_urls": ["http://127.0.0.1/"],
                              "fields": {"title": {"rules": [{"kind": "css", "selector": "h1", "take": "text"}]},
                                         "body": {"rules": [{"kind": "css", "selector": "article", "take": "html"}]}},
                              "remove": [{"kind": "css", "selector": s} for s in remove]})


def _page(inner: str) -> str:
    return f"<html><body><article><h1>A council votes on the bridge</h1>{inner}</article></body></html>"


STORY = "".join(f"<p>{p}</p>" for p in STORIES[0].paragraphs)


def test_an_induced_remove_rule_takes_the_list_and_its_heading():
    clicked = page(STORIES[0])
    doc = parse_html(clicked)
    title, body = (element_xpath(doc.xpath(x)[0]) for x in ("//h1", "//article/div"))
    profile = induce_profile({"title": [(clicked, title)], "body": [(clicked, body)]},
                             siblings=[page(s) for s in STORIES[1:4]], name="courier", start_url="http://127.0.0.1/")
    assert profile.remove, "the premise: the timeline repeated on every sibling is a remove rule"
    article = extract(page(STORIES[6]), URL, profile)
    assert STORIES[6].paragraphs[-1] in article.body_text
    assert not any(s.title in article.body_text for s in OTHERS)
    assert "Timeline" not in article.body_text


def test_headings_of_removed_boxes_go_and_a_heading_whose_text_goes_on_stays():
    html = _page(f"{STORY}<h2>Background</h2><div class='ad'>Advertisement: buy now</div>"
                 f"<p>The bridge was built in 1911 and closed twice since.</p>"
                 f"<h3>Most read</h3><ul class='top'><li>One</li></ul><ul class='top'><li>Two</li></ul>"
                 f"<h3>Related</h3><div class='rel'>Three other stories</div>")
    article = extract(html, URL, _profile(["div.ad", "ul.top", "div.rel"]))
    text = article.body_text
    assert "Background" in text and "built in 1911" in text  # its section goes on after the ad
    assert "Advertisement" not in text
    assert "Most read" not in text and "Related" not in text  # nothing of their sections is left
    assert text.rstrip().endswith("closed twice since.")


def test_a_heading_above_a_removed_block_with_text_after_it_stays():
    html = _page(f"{STORY}<h2>What comes next</h2><div class='share'>Share this</div>The vote is on Monday.")
    text = extract(html, URL, _profile(["div.share"])).body_text
    assert "What comes next" in text and "The vote is on Monday." in text


def test_a_subsection_after_the_removed_block_keeps_its_parent_heading_and_comments_do_not_hide_a_heading():
    html = _page(f"{STORY}<h2>Background</h2><div class='ad'>Advertisement</div><h3>Early years</h3>"
                 f"<p>The first bridge was wooden.</p>"
                 f"<h3>Related</h3><!-- related box --><div class='rel'>Three other stories</div><!-- end -->")
    text = extract(html, URL, _profile(["div.ad", "div.rel"])).body_text
    assert "Background" in text and "Early years" in text  # its section goes on in a subsection
    assert "Related" not in text  # the comments beside the box hide nothing


def test_a_heading_at_the_end_of_a_split_storys_block_stays():
    html = (f"<html><body><h1>A council votes on the bridge</h1><div class='part'>{STORY}<h2>Next steps</h2>"
            f"<div class='ad'>Advertisement</div></div><div class='part'><p>The council meets again in May to "
            f"decide on the money for the repair of the old bridge.</p></div></body></html>")
    profile = Profile.from_dict({"schema": 2, "name": "t", "start_urls": ["http://127.0.0.1/"],
                                 "fields": {"title": {"rules": [{"kind": "css", "selector": "h1", "take": "text"}]},
                                            "body": {"rules": [{"kind": "css", "selector": "div.part", "take": "html"}],
                                                     "expect": {"chars": [100, 100000], "per_page": 2}}},
                                 "remove": [{"kind": "css", "selector": "div.ad"}]})
    text = extract(html, URL, profile).body_text
    assert "Next steps" in text and "meets again in May" in text and "Advertisement" not in text
