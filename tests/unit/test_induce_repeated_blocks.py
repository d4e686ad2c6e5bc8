"""A block that stands inside the story's container on every page of a class-less site (a newsletter plug, a
sign-off) is the site's, not the story's: induction learns it from the siblings and drops it by its text, as
it drops a repeated block with a class by its class."""

from __future__ import annotations

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.induction.selectors import element_xpath, induce_profile
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import parse_html

PLUG = "Get the Courier's morning letter: the harbour, the council and the weather, every day at seven."
SIGN_OFF = ("The Courier is read in every harbour town of the coast. Letters to the editor are welcome and may be "
            "shortened; write to the desk with your name and your town, and tell us what we missed this week.")
WORDS = "river council budget school harbour bridge station market festival report weather season".split()


def _story(n: int) -> tuple[str, list[str]]:
    paragraphs = [" ".join(WORDS[(n + i + k) % len(WORDS)] + f"{n}x{i}" for k in range(30)).capitalize() + "."
                  for i in range(3 + n % 3)]
    return f"Story number {n} of the harbour", paragraphs


def _page(n: int) -> str:
    title, paragraphs = _story(n)
    story = "".join(f"<p>{p}</p>" for p in paragraphs)
    return ("<html><head><title>" + title + " - The Courier</title></head><body><div><div><a href='/'>The Courier"
            "</a></div><div><div><h1>" + title + "</h1></div><div>" + story + f"<div>{PLUG}</div>"
            f"<div><span>{SIGN_OFF}</span></div></div></div></div></body></html>")


def test_a_block_repeated_on_every_page_of_a_class_less_site_is_dropped_by_its_text():
    html = _page(0)
    doc = parse_html(html)
    container = doc.xpath("//p")[0].getparent()
    profile = induce_profile({"title": [(html, element_xpath(doc.xpath("//h1")[0]))],
                              "body": [(html, element_xpath(container))]},
                             siblings=[_page(n) for n in (1, 2, 3)], name="courier", start_url="http://127.0.0.1/")
    profile = Profile.from_json(profile.to_json())  # as saved
    assert any("normalize-space" in r.selector for r in profile.remove), profile.remove
    for n in (4, 5, 6):
        art = extract(_page(n), f"http://127.0.0.1/{n}.html", profile)
        for paragraph in _story(n)[1]:
            assert paragraph in art.body_text
        assert "morning letter" not in art.body_text and "Letters to the editor" not in art.body_text, art.body_text
