"""A click on a page of another layout adds an alternative to the field's chain; it never replaces the rules
that work on the first layout. Save learns each click on its own page and reports the values it would
change where the rules gave good ones (no display: the draft and the learning step as the inspector uses them)."""

from __future__ import annotations

from tests.plain_site import make_stories, story_page
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.rules import Rule, parse_html
from xnews_gui.core.induction.selectors import element_xpath
from xnews_gui.ui.inspector.draft import Draft, induce_job
from xnews_gui.ui.inspector.site_rules import changes, learn, merge, site_job

BASE = "http://plain.test"
STORIES = make_stories()
ONE = [s for s in STORIES if s.layout == 1]
TWO = [s for s in STORIES if s.layout == 2]


def _pick(draft: Draft, key: str, story, xpath_of) -> object:
    html = story_page(story, STORIES)
    job = draft.add_pick(key, BASE + story.path, html, element_xpath(xpath_of(parse_html(html))), False)
    draft.apply_induced(job, induce_job(job))
    return job


def _first_paragraph(doc):
    return doc.xpath("//p")[0]


def _draft() -> Draft:
    draft = Draft.new("plain", BASE + "/")
    _pick(draft, "title", ONE[0], lambda d: d.xpath("//h1")[0])
    _pick(draft, "body", ONE[0], _first_paragraph)
    return draft


def _value(profile, story, key="body") -> str:
    return extract(story_page(story, STORIES), BASE + story.path, profile).value(key)


def test_a_body_click_on_another_layout_is_added_after_the_rule_of_the_first():
    draft = Draft.new("plain", BASE + "/")
    _pick(draft, "body", ONE[0], lambda d: d.xpath("//p")[0].getparent().getparent())  # the story's column
    first = draft.profile.fields["body"]
    job = _pick(draft, "body", TWO[0], lambda d: d.xpath("//p")[0].getparent())  # the table cell
    assert job.mode == "alternative"
    rules = draft.profile.rules_for("body")
    assert rules[0] == first and len(rules) == 2, rules  # the first layout's rule stays first
    # each clicked page gets what was clicked on it
    assert ONE[0].paragraphs[0] in _value(draft.profile, ONE[0])
    assert TWO[0].paragraphs[0] in _value(draft.profile, TWO[0])


def test_a_second_title_click_on_another_layout_keeps_the_h1_rule():
    draft = _draft()
    _pick(draft, "title", TWO[0], lambda d: d.xpath("//font[@size='5']/b")[0])
    assert draft.profile.rules_for("title")[0].selector == "h1"
    assert _value(draft.profile, ONE[3], "title") == ONE[3].title
    assert _value(draft.profile, TWO[3], "title") == TWO[3].title


def test_save_learns_each_click_on_its_page_and_the_chain_serves_both_layouts():
    draft = _draft()
    _pick(draft, "body", TWO[0], _first_paragraph)
    pages = {BASE + s.path: story_page(s, STORIES) for s in (ONE[1], ONE[2], TWO[1])}
    job = site_job(draft, pages)
    assert {u for u, _ in job.groups} == {BASE + ONE[0].path, BASE + TWO[0].path}
    learned, notes, changed = learn(job)
    assert changed == []  # the picked paragraphs were never whole bodies: nothing good is lost
    merge(draft, job, learned)
    for story in ONE[4:8] + TWO[2:5]:
        got = extract(story_page(story, STORIES), BASE + story.path, draft.profile)
        assert all(p in got.body_text for p in story.paragraphs), (story.path, draft.profile.rules_for("body"))
        assert got.checks["body"] == [] and not got.fallbacks


def test_learning_that_would_change_good_values_says_which():
    draft = _draft()
    pages = {BASE + s.path: story_page(s, STORIES) for s in (ONE[1], ONE[2])}
    job = site_job(draft, pages)
    learned, _, _ = learn(job)
    wrong = learned.with_field("title", Rule(kind="css", selector="b", take="text", required=True))  # "Related"
    found = changes(job, wrong)
    assert found and {c.field for c in found} == {"title"}
    assert all(c.before != c.after and c.after == "Related" for c in found), found
