"""Article links on a list page without classes or ids: one click gives a rule for the whole list, and
rejecting a menu link keeps it (it used to fall to a positional path that selects the clicked link alone)."""

from __future__ import annotations

import re

import lxml.html

from xnews_gui.core.induction.candidates import positional_xpath
from xnews_gui.core.induction.selectors import induce_links
from xnews_gui.core.profile.rules import parse_html
from xnews_gui.demo import DemoSite

STORIES = [f"news/story-{1000 + i}.html" for i in range(10)]
MENU = ["/", "/about.html", "/contact.html"]
PAGE = ("<html><body><ul>" + "".join(f"<li><a href='{href}'>Menu {i}</a></li>" for i, href in enumerate(MENU))
        + "</ul><h1>Test News</h1><ul>"
        + "".join(f"<li><a href='{href}'>Story number {i} of the day</a></li>" for i, href in enumerate(STORIES))
        + "</ul><div><a href='/about.html'>About us</a></div></body></html>")


def selected(html: str, rule) -> list[str]:
    return [a.get("href") for a in parse_html(html).cssselect(rule.selector)] if rule.kind == "css" else \
        [a.get("href") for a in parse_html(html).xpath(rule.selector)]


def test_one_click_takes_the_list_and_a_rejected_menu_link_keeps_it():
    first = induce_links([(PAGE, "/html/body/ul[2]/li[1]/a")])[0]
    assert first.kind == "css" and set(STORIES) <= set(selected(PAGE, first))  # the whole list, not one link
    assert not [h for h in selected(PAGE, first) if h in MENU and re.search(first.allow[0], h)]  # the crawl skips them
    after_reject = induce_links([(PAGE, "/html/body/ul[2]/li[1]/a")], [(PAGE, "/html/body/ul[1]/li[2]/a")])
    assert after_reject and all(r.kind == "css" for r in after_reject)
    assert selected(PAGE, after_reject[0]) == STORIES, after_reject[0]  # the menu rejected: the stories' list
    both = induce_links([(PAGE, "/html/body/ul[2]/li[1]/a")], [(PAGE, "/html/body/ul[1]/li[2]/a"),
                                                              (PAGE, "/html/body/div/a")])
    assert selected(PAGE, both[0]) == STORIES


def strip_hooks(html: bytes) -> str:
    doc = lxml.html.document_fromstring(html)
    for el in doc.iter():
        if isinstance(el.tag, str):
            el.attrib.pop("class", None)
            el.attrib.pop("id", None)
    return lxml.html.tostring(doc, encoding="unicode")


def test_the_demo_home_page_without_classes_gives_every_headline_and_no_menu():
    site = DemoSite()
    raw = site.render("/")[2]
    stories = [a.get("href") for a in lxml.html.document_fromstring(raw).cssselect(".list-news h3 a")]
    menu = [a.get("href") for a in lxml.html.document_fromstring(raw).cssselect("nav a")]
    assert len(stories) >= 8 and menu
    page = strip_hooks(raw)
    doc = lxml.html.document_fromstring(page)
    first = next(a for a in doc.iter("a") if a.get("href") == stories[0] and a.getparent().tag == "h3")
    rules = induce_links([(page, positional_xpath(first))])
    got = selected(page, rules[0])
    assert rules[0].kind == "css" and set(stories) <= set(got) and not set(menu) & set(got), rules[0]
    assert all(re.search(rules[0].allow[0], h) for h in stories)
    nav_link = next(a for a in doc.iter("a") if a.get("href") == menu[0])
    rejected = induce_links([(page, positional_xpath(first))], [(page, positional_xpath(nav_link))])
    assert rejected[0].kind == "css" and set(stories) <= set(selected(page, rejected[0]))


def test_a_list_with_a_class_keeps_its_class_not_a_chain_of_tags():
    page = ("<html><body><ul class='menu'><li><h3><a href='/about.html'>About us here</a></h3></li></ul>"
            "<ul class='news'>" + "".join(f"<li><h3><a href='{h}'>Story {i}</a></h3></li>" for i, h in enumerate(STORIES))
            + "</ul></body></html>")
    rule = induce_links([(page, "/html/body/ul[2]/li[1]/h3/a")])[0]
    assert "news" in rule.selector and selected(page, rule) == STORIES, rule


def test_one_click_on_a_plain_page_still_holds_on_a_sibling_with_one_more_list_above():
    sibling = PAGE.replace("<ul>", "<ul><li><a href='/'>Home</a></li><li><a href='/sport.html'>Sport</a></li></ul><ul>", 1)
    rule = induce_links([(PAGE, "/html/body/ul[2]/li[1]/a")])[0]  # no rejection: no list numbers
    assert ":nth-of-type" not in rule.selector
    assert set(STORIES) <= {h for h in selected(sibling, rule) if re.search(rule.allow[0], h)}
