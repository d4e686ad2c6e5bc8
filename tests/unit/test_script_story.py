"""A page built in the browser ships its story as HTML in a script string: where the raw page's body has no
story, the body comes from there, flagged as such (the user is told to mark the profile render), instead of
an empty required field; nothing in the scripts is run, and a page of scripts costs bounded time."""

from __future__ import annotations

import json
import time

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.extraction.script_story import script_story_html
from xnews_gui.core.profile.chain import FieldChain
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.core.profile.verify import ContentProfile

STORY = [f"The harbour council met on day {n} to weigh the bridge repair, the budget and the school plan, "
         f"and the mayor said the record storm of the season had delayed the work by {n} weeks." for n in range(8)]


def _escaped(html: str) -> str:
    """As Next.js writes it: a JSON string whose markup is \\u003c-escaped."""
    return json.dumps(html).replace("<", "\\u003c").replace(">", "\\u003e")[1:-1]


def _page(script_story: str, visible: str = "") -> str:
    return ("<html><head><title>Council weighs the harbour plan</title></head><body>"
            "<nav><a href='/'>Home</a> <a href='/world'>World</a></nav><h1>Council weighs the harbour plan</h1>"
            f"<div id='article-section'>{visible}</div>"
            "<script>self.__next_f.push([1,\"" + script_story + "\"])</script>"
            "<script>window.__cfg = {\"theme\": \"dark\", \"tracking\": \"" + "x" * 600 + "\"};</script>"
            "</body></html>")


def _profile() -> Profile:
    expect = ContentProfile(chars=(200, 100000), words=(40, 20000), per_page=1)
    return Profile(name="herald", start_urls=("http://127.0.0.1/",),
                   fields={"title": Rule(kind="css", selector="h1", take="text", required=True),
                           "body": Rule(kind="css", selector="#article-section div.body", take="html", required=True)},
                   chains={"body": FieldChain(expect=expect)})


def test_a_story_only_the_scripts_hold_fills_the_body_and_says_where_it_came_from():
    story_html = "".join(f"<p>{p}</p>" for p in STORY)
    art = extract(_page(_escaped("<div class='body'>" + story_html + "</div>$$ARTICLEAD$$")),
                  "http://127.0.0.1/a.html", _profile())
    for paragraph in STORY:
        assert paragraph in art.body_text
    assert "$$ARTICLEAD$$" not in art.body_text and "tracking" not in art.body_text
    assert not art.errors
    assert any("page's scripts" in f and "render" in f for f in art.fallbacks), art.fallbacks
    assert art.checks["body"], "a body from outside the rules is never silently fine"


def test_without_a_story_in_the_scripts_the_empty_body_stays_an_error():
    menu = "<p>Subscribe</p><ul>" + "".join(f"<li><p><a href='/s{n}'>Section number {n} of the site</a></p></li>"
                                          for n in range(30)) + "</ul>"
    art = extract(_page(_escaped(menu)), "http://127.0.0.1/a.html", _profile())
    assert art.body_text == ""
    assert any(e.startswith("body: required field is empty") for e in art.errors), art.errors


def test_the_scripts_are_read_only_when_the_page_itself_has_no_story():
    visible = "<div class='other'>" + "".join(f"<p>{p}</p>" for p in STORY[:5]) + "</div>"
    hidden = _escaped("<p>" + "A different story held only by the scripts, long enough to count. " * 12 + "</p>")
    art = extract(_page(hidden, visible=visible), "http://127.0.0.1/a.html", _profile())
    assert STORY[0] in art.body_text and "different story" not in art.body_text
    assert not any("page's scripts" in f for f in art.fallbacks)


def test_hostile_scripts_cost_bounded_time_and_run_nothing():
    broken = "\\x41\\'" + "\\u003cp\\u003e" + "word " * 300  # JavaScript escapes JSON does not read
    many = "".join("<script>var s=\"" + "\\u003cp\\u003e" + "y" * 500 + "\";</script>" for _ in range(2000))
    page = _page(broken) + many + "<script>" + "\"" + "\\u003cp>" + "z" * 2_000_000 + "\"</script>"
    started = time.perf_counter()
    found = script_story_html(page)
    assert time.perf_counter() - started < 5
    assert "word" not in found and "z" * 100 not in found  # undecodable, and past the budget of script read
