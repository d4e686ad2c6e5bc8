"""A story longer or shorter than the ones clicked is not flagged for its length alone when the page's main
text (an estimate independent of the rules) says the body is the whole article and nothing but it; a body
of the wrong length that the main text does not vouch for keeps its flag."""

from __future__ import annotations

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.chain import FieldChain
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.core.profile.verify import ContentProfile

WORDS = "river council budget school harbour bridge station market festival report weather season".split()


def _prose(seed: int) -> str:
    return " ".join(WORDS[(seed * 5 + i * 7) % len(WORDS)] + f"{seed}w{i % 11}" for i in range(35)).capitalize() + "."


def _page(paragraphs: list[str], aside: str = "") -> str:
    return ("<html><head><title>Council weighs the harbour plan - The Courier</title></head><body>"
            "<div><a href='/'>The Courier</a> <a href='/news'>News</a></div><article>"
            "<h1>Council weighs the harbour plan</h1><div class='story'>"
            + "".join(f"<p>{p}</p>" for p in paragraphs) + f"</div>{aside}</article></body></html>")


def _profile() -> Profile:
    # learned on stories of 4-6 paragraphs: ~1,100-1,700 characters, a range of 275-6,800
    expect = ContentProfile.learn([" ".join(_prose(n) for n in range(k)) for k in (4, 5, 6)], "body")
    return Profile(name="courier", start_urls=("http://127.0.0.1/",),
                   fields={"title": Rule(kind="css", selector="h1", take="text", required=True),
                           "body": Rule(kind="css", selector="div.story", take="html", required=True)},
                   chains={"body": FieldChain(expect=expect)})


def test_a_long_read_the_main_text_vouches_for_is_not_flagged_for_its_length():
    profile = _profile()
    long_read = [_prose(n) for n in range(40)]
    assert profile.chains["body"].expect.problems(" ".join(long_read)), "the length alone is out of range"
    art = extract(_page(long_read), "http://127.0.0.1/a.html", profile)
    assert art.checks["body"] == [] and art.fallbacks == [], (art.checks, art.fallbacks)
    assert long_read[-1] in art.body_text


def test_a_body_of_the_wrong_length_the_main_text_does_not_vouch_for_keeps_its_flag():
    aside = "<div class='more'>" + "".join(f"<p>{_prose(100 + n)}</p>" for n in range(8)) + "</div>"
    art = extract(_page([_prose(1)[:120]], aside=aside), "http://127.0.0.1/a.html", _profile())
    assert art.checks["body"], art.body_text
