"""A body is judged whole against the page's main text less what the profile's remove rules drop: a block
that induction learned is the site's (repeated on every page) is no more the article's text for the check
than for the body, so a clean body is not taken for a partial one and swapped for the main-text fallback."""

from __future__ import annotations

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.chain import FieldChain
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.core.profile.verify import ContentProfile

WORDS = "river council budget school harbour bridge station market festival report weather season".split()


def _prose(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed * 5 + i * 7) % len(WORDS)] + f"{seed}q{i % 9}" for i in range(words)).capitalize() + "."


STORY = [_prose(n, 30) for n in range(4)]
MORE = _prose(40, 45)
ABOUT = [_prose(50 + n, 40) for n in range(5)]


def _page() -> str:
    return ("<html><head><title>Council weighs the harbour plan - The Courier</title></head><body>"
            "<div><a href='/'>The Courier</a></div><article><h1>Council weighs the harbour plan</h1>"
            "<div class='story'>" + "".join(f"<p>{p}</p>" for p in STORY) + "</div>"
            f"<div class='more'><p>{MORE}</p></div>"
            "<div class='about'>" + "".join(f"<p>{p}</p>" for p in ABOUT) + "</div></article></body></html>")


def _profile(remove: tuple) -> Profile:
    expect = ContentProfile(chars=(100, 100000), words=(20, 20000), per_page=1)
    return Profile(name="courier", start_urls=("http://127.0.0.1/",),
                   fields={"title": Rule(kind="css", selector="h1", take="text", required=True),
                           "body": Rule(kind="css", selector="div.story", take="html", required=True)},
                   chains={"body": FieldChain(expect=expect)}, remove=remove)


def test_a_block_the_profile_removes_does_not_count_as_article_text_the_body_misses():
    art = extract(_page(), "http://127.0.0.1/a.html", _profile((Rule(kind="css", selector="div.about", take="html"),)))
    assert art.checks["body"] == [] and art.fallbacks == [], (art.checks, art.fallbacks)
    for paragraph in STORY:
        assert paragraph in art.body_text
    assert ABOUT[0] not in art.body_text


def test_without_the_remove_rule_the_same_body_is_judged_against_the_whole_main_text():
    art = extract(_page(), "http://127.0.0.1/a.html", _profile(()))
    assert art.checks["body"], "the page's main text holds far more than the story's block"
