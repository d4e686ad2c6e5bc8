"""induce_profile: clicks on one page + unlabeled siblings -> a profile that works on the site's other pages."""

from __future__ import annotations

import html as htmlmod
import re
import statistics
from collections import Counter

import pytest
import requests

from tests.conftest import shared_data
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import element_text, parse_html
from xnews_gui.core.text.text import normalize_space
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.demo.server import DemoServer
from xnews_gui.demo.site import DemoSite


@pytest.fixture(scope="module")
def two_template_site():
    site = DemoSite(second_template=True)
    with_server = DemoServer(site=site).start()
    try:
        yield site, with_server.url.rstrip("/")
    finally:
        with_server.stop()


def _get(url: str) -> str:
    return requests.get(url, timeout=10).text


def test_two_template_site_one_click_on_a_paragraph(two_template_site):
    site, base = two_template_site
    old = [a for a in site.articles if not site.uses_second_template(a)]
    new = [a for a in site.articles if site.uses_second_template(a)]
    clicked = _get(base + old[0].path)
    doc = parse_html(clicked)
    title_xpath = element_xpath(doc.xpath("//h1")[0])
    one_paragraph = element_xpath(doc.xpath("//div[@class='article-body']/p[2]")[0])
    siblings = [_get(base + a.path) for a in (old[1], new[0], old[2])]
    notes: list[str] = []
    profile = induce_profile({"title": [(clicked, title_xpath)], "body": [(clicked, one_paragraph)]},
                             siblings=siblings, name="demo2", start_url=base + "/", notes=notes)
    assert any("widened" in n for n in notes), notes
    # the profile survives its own JSON (schema 2) and says what the fields look like
    profile = Profile.from_json(profile.to_json())
    assert profile.chains["title"].expect is not None and profile.chains["body"].fingerprint["tag"]
    for article in old[3:8] + new[1:6]:
        got = extract(_get(base + article.path), base + article.path, profile)
        assert got.title == article.title, (article.path, profile.rules_for("title"))
        for paragraph in article.paragraphs:
            assert normalize_space(paragraph) in got.body_text.replace("\n", " ")
        assert "Chia sẻ" not in got.body_text and "Đăng ký bản tin" not in got.body_text
        assert "Đọc thêm" not in got.body_text and "Tin liên quan" not in got.body_text
        assert got.checks["title"] == [] and got.checks["body"] == [], got.checks
        assert got.fallbacks == []
        assert all(not src.startswith("data:") for src in got.images)


def test_unknown_field_and_missing_element_are_clear_errors():
    html = "<html><body><h1>A title here</h1></body></html>"
    with pytest.raises(ValueError, match="unknown field 'headline'"):
        induce_profile({"headline": [(html, "/html/body/h1")]})
    with pytest.raises(ValueError, match="not in the page"):
        induce_profile({"title": [(html, "/html/body/h2")]})


# --- real pages: CleanPortalEval (several pages per site) ------------------------------
def _same(text: str) -> str:
    return normalize_space(htmlmod.unescape(text)).translate(str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014", "''\"\"--"))


def _gold(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    blocks = re.split(r"<(h|p|l)>", text)
    pairs = [(blocks[i], _same(blocks[i + 1])) for i in range(1, len(blocks) - 1, 2)]
    headline = next((b for t, b in pairs if t == "h"), "")
    return headline, " ".join(b for t, b in pairs if b != headline)


def _tokens(text):
    return Counter(t.lower() for t in re.findall(r"\w+", text))


def _f1(pred, gold):
    common = sum((pred & gold).values())
    if not common:
        return 0.0
    p, r = common / sum(pred.values()), common / sum(gold.values())
    return 2 * p * r / (p + r)


@pytest.mark.slow
@pytest.mark.parametrize("site", ["tv.msnbc.com_news", "blogs.wsj.com_brussels", "bbc.co.uk_news"])
def test_cleanportaleval_profile_from_one_click_and_three_siblings(site):
    base = shared_data("cleanportaleval")
    stems = sorted(p.stem for p in (base / "input").glob(f"{site}_*.html"))
    pages = []
    for stem in stems:
        headline, body = _gold(base / "GoldStandard" / f"{stem}.txt")
        if headline and body:
            pages.append(((base / "input" / f"{stem}.html").read_text(encoding="utf-8", errors="replace"),
                          headline, _tokens(body)))
    raw, headline, gold = pages[0]
    doc = parse_html(raw)
    title_el = next(el for el in doc.iter("h1", "h2", "span", "a", "div") if _same(element_text(el)) == headline)
    body_el = max(doc.iter("div", "td", "article"), key=lambda el: _f1(_tokens(element_text(el)), gold))
    profile = induce_profile({"title": [(raw, element_xpath(title_el))], "body": [(raw, element_xpath(body_el))]},
                             siblings=[p[0] for p in pages[1:4]], name="cpe", start_url="http://example.test/")
    titles, bodies = [], []
    for html, want, want_body in pages[4:]:
        got = extract(html, "http://example.test/x", profile)
        titles.append(_same(got.title) == want)
        bodies.append(_f1(_tokens(got.body_text), want_body))
    assert sum(titles) / len(titles) >= 0.9
    assert statistics.median(bodies) >= 0.9


# --- details that decide real sites ----------------------------------------------------------
def _article(n: int, teaser_cards: int = 0) -> str:
    cards = "".join(f"<article class='card'><div>Other story {n}-{i} <a href='/o{i}'>read</a></div></article>"
                    for i in range(teaser_cards))
    paragraphs = "".join(f"<div data-dot='mol-paragraph'>Paragraph {i} of story {n} says something long enough "
                         f"to count as article text, with detail {n * i}.</div>" for i in range(6))
    return (f"<html><head><meta property='og:title' content='Story number {n} is here | Site | 01.02.2024'></head>"
            f"<body><article class='h_f7'><h1 class='a_Xy'>Story number {n} is here</h1>"
            f"<div class='h_bZ' data-dot='ogm-article-content'>{paragraphs}"
            f"<div class='h_gU' data-dot='mol-document-links'><a href='/x'>Related: another story</a></div></div>"
            f"</article>{cards}</body></html>")


def test_stable_data_hooks_beat_minified_classes_and_boxes_inside_the_body_go():
    clicked = _article(1)
    doc = parse_html(clicked)
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(doc.xpath("//div[@class='h_bZ']")[0]))]},
                             siblings=[_article(2, 3), _article(3, 2), _article(4, 4)])
    body = profile.fields["body"].selector
    assert "data-dot" in body and "h_bZ" not in body, body
    other = extract(_article(9, 5), "http://example.test/9", profile)
    assert "Paragraph 5 of story 9" in other.body_text
    assert "Related: another story" not in other.body_text and "Other story" not in other.body_text
    assert other.title == "Story number 9 is here"


def test_og_title_anchor_drops_the_site_suffix():
    page = _article(5).replace("<h1 class='a_Xy'>Story number 5 is here</h1>", "")
    from xnews_gui.core.extraction.metadata import ANCHORS

    assert ANCHORS["title"][1].apply(page) == ["Story number 5 is here"]


@pytest.mark.parametrize("name, generated", [("h_gU", True), ("e_j", True), ("share_bar__AIZAa", True),
                                             ("article__headline", False), ("story-title", False)])
def test_minified_and_css_module_names_are_not_hooks(name, generated):
    from xnews_gui.core.induction.candidates import is_generated

    assert is_generated(name) is generated


# --- titles: the headline's copies, metadata that adds a kicker, site tails in og:title ------------
def _news(n: int, headline: str, *, breadcrumb: str = "", og: str = "", jsonld: str = "", new_layout=False) -> str:
    meta = f"<meta property='og:title' content=\"{og}\">" if og else ""
    if jsonld:
        meta += f'<script type="application/ld+json">{{"@type": "NewsArticle", "headline": "{jsonld}"}}</script>'
    paragraphs = "".join(f"<p>Paragraph {i} of story {n} tells what happened, with enough words to be read.</p>"
                         for i in range(5))
    crumbs = f"<nav><ul><li><a href='/'>Home</a></li><li><h1>{breadcrumb}</h1></li></ul></nav>" if breadcrumb else ""
    head = (f"<div class='next-head'><h2><span class='kicker'>Kicker {n}</span>{headline}</h2></div>" if new_layout
            else f"<h2 class='story-headline'>{headline}</h2>")
    return (f"<html><head>{meta}</head><body>{crumbs}<article>{head}<div class='story-text'>{paragraphs}</div>"
            f"</article></body></html>")


def _induced(clicked: str, title_xpath: str, siblings, notes=None):
    doc = parse_html(clicked)
    body = element_xpath(doc.xpath("//div[@class='story-text']")[0])
    return induce_profile({"title": [(clicked, title_xpath)], "body": [(clicked, body)]}, siblings=siblings,
                          notes=notes)


def test_a_headline_clicked_in_the_breadcrumb_is_taken_from_the_article():
    # the breadcrumb repeats the headline on the clicked page, but carries a shorter SEO title elsewhere
    clicked = _news(1, "Storm closes the harbour for a day", breadcrumb="Storm closes the harbour for a day")
    siblings = [_news(n, f"Long headline number {n} of the day", breadcrumb=f"SEO title {n}") for n in (2, 3, 4)]
    notes: list[str] = []
    profile = _induced(clicked, "/html/body/nav/ul/li[2]/h1", siblings, notes)
    assert any("inside navigation" in n for n in notes), notes
    other = _news(7, "Ferries run again after the storm", breadcrumb="Harbour: ferries back")
    assert extract(other, "http://example.test/7", profile).title == "Ferries run again after the storm"


def test_an_anchor_equal_to_the_click_beats_one_that_adds_a_kicker():
    pages = [_news(n, f"Headline {n} about the harbour", og=f"Headline {n} about the harbour",
                   jsonld=f"Kicker {n}: Headline {n} about the harbour") for n in range(1, 5)]
    profile = _induced(pages[0], "/html/body/article/h2", pages[1:])
    # a page of a new layout: the clicked rule finds nothing, the anchors take over
    other = _news(9, "Headline 9 about the harbour", og="Headline 9 about the harbour",
                  jsonld="Kicker 9: Headline 9 about the harbour", new_layout=True)
    assert extract(other, "http://example.test/9", profile).title == "Headline 9 about the harbour"


def test_the_tail_a_site_appends_to_og_title_is_learned_from_its_pages():
    pages = [_news(n, f"Headline {n} about the harbour", og=f"Headline {n} about the harbour-Politicsㅣ The Daily")
             for n in range(1, 5)]
    profile = _induced(pages[0], "/html/body/article/h2", pages[1:])
    other = _news(9, "x", og="Ferries run again-after the storm-Politicsㅣ The Daily").replace(
        "<h2 class='story-headline'>x</h2>", "")
    assert extract(other, "http://example.test/9", profile).title == "Ferries run again-after the storm"


def _with_header(n: int) -> str:
    paragraphs = "".join(f"<p>Paragraph {i} of story {n} tells what happened at the harbour, in enough words.</p>"
                         for i in range(4))
    return (f"<html><body><div class='story'><span class='dateline'>{n} April 2013 Last updated at 10:0{n} GMT</span>"
            f"<span class='byline'>By Reporter {n}, Harbour correspondent</span>"
            f"<h1>Headline number {n} of the harbour story</h1>{paragraphs}"
            f"<span class='cross-head'>What comes next</span>{paragraphs}</div></body></html>")


def test_dateline_and_byline_before_the_first_paragraph_are_not_body():
    clicked = _with_header(1)
    doc = parse_html(clicked)
    notes: list[str] = []
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(doc.xpath("//div[@class='story']")[0]))]},
                             siblings=[_with_header(n) for n in (2, 3, 4)], notes=notes)
    assert any("before the first paragraph" in n for n in notes), notes
    got = extract(_with_header(7), "http://example.test/7", profile)
    assert "Last updated" not in got.body_text and "Reporter 7" not in got.body_text
    assert "What comes next" in got.body_text  # a subheading between paragraphs is the article's
    assert got.body_text.count("Paragraph 3 of story 7") == 2


def _div_paragraphs(n: int) -> str:
    paragraphs = "".join(f"<div class='para'>Part {i} of story {n}: the harbour reopened after the storm.</div>"
                         for i in range(6))
    return (f"<html><body><div class='story'><h1>Headline number {n} of the harbour story</h1>{paragraphs}"
            f"<p>Copyright notice of the harbour paper, all rights reserved in {n}.</p></div></body></html>")


def test_paragraphs_written_as_divs_are_not_taken_for_a_byline():
    clicked = _div_paragraphs(1)
    doc = parse_html(clicked)
    profile = induce_profile({"title": [(clicked, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(clicked, element_xpath(doc.xpath("//div[@class='story']")[0]))]},
                             siblings=[_div_paragraphs(n) for n in (2, 3, 4)])
    assert not any("para" in r.selector for r in profile.remove), profile.remove
    got = extract(_div_paragraphs(7), "http://example.test/7", profile)
    assert "Part 5 of story 7" in got.body_text and "Part 0 of story 7" in got.body_text and not got.fallbacks
