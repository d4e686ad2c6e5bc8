"""The paths outside tools import stay (issue 24's held-out check: "keep it"): induce_profile and extract,
by their published names, are the functions the app itself uses, and they work end to end."""

from __future__ import annotations


def test_the_published_paths_are_the_products_own_functions():
    from xnews_gui.core import extract as published_extract
    from xnews_gui.core import selectors as published_selectors
    from xnews_gui.core.extraction.extract import extract
    from xnews_gui.core.induction.selectors import induce_profile

    assert published_extract.extract is extract
    assert published_selectors.induce_profile is induce_profile


def test_a_profile_induced_through_the_published_path_extracts_a_sibling_page():
    from xnews_gui.core.extract import extract
    from xnews_gui.core.selectors import induce_profile

    def page(n: int) -> str:
        paragraphs = "".join(f"<p>Paragraph {k} of story {n}, with enough words to be a body of text.</p>"
                             for k in range(6))
        return (f"<html><head><title>Story {n} - Daily</title></head><body><div><h1>Headline number {n}</h1>"
                f"<div>{paragraphs}</div></div><div><a href='/x'>More</a></div></body></html>")

    profile = induce_profile({"title": [(page(1), "/html/body/div[1]/h1")],
                              "body": [(page(1), "/html/body/div[1]/div")]},
                             siblings=[page(2), page(3), page(4)], name="published", start_url="http://example.test/")
    article = extract(page(5), "http://example.test/5", profile)
    assert article.title == "Headline number 5"
    assert "Paragraph 5 of story 5" in article.body_text
