"""Lazy images: the image field and the sanitized body pick the same real URL (one helper)."""

import pytest

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.images import best_srcset
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.core.extraction.sanitize import sanitize_html

PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAAAAACw="


@pytest.mark.parametrize("attrs, want", [
    (f'src="{PLACEHOLDER}" data-src="/real.jpg"', "http://site.test/real.jpg"),
    (f'src="{PLACEHOLDER}" data-original="/orig.jpg"', "http://site.test/orig.jpg"),
    (f'src="{PLACEHOLDER}" srcset="/s.jpg 320w, /m.jpg 640w, /l.jpg 1280w"', "http://site.test/l.jpg"),
    ('data-srcset="/a.jpg 1x, /b.jpg 2x"', "http://site.test/b.jpg"),
    ('src="/plain.jpg" data-src="/other.jpg"', "http://site.test/plain.jpg"),
])
def test_image_field_and_sanitized_body_agree_on_lazy_images(attrs, want):
    page = f"<html><body><h1>T</h1><div class='body'><p>Text.</p><img class='lead' {attrs}></div></body></html>"
    profile = Profile(name="lazy", start_urls=("http://site.test/",), fields={
        "title": Rule(selector="h1"),
        "image": Rule(selector="img.lead", take="attr:src"),
        "body": Rule(selector="div.body", take="html"),
    })
    article = extract(page, "http://site.test/a.html", profile)
    assert article.image == want
    assert article.images == [want]
    assert "data:" not in article.body_html


def test_placeholder_only_gives_no_image_rather_than_the_placeholder():
    page = f"<html><body><img class='lead' src='{PLACEHOLDER}'></body></html>"
    assert Rule(selector="img.lead", take="attr:src").apply(page) == [""]


def test_picture_source_is_used_when_the_img_has_none():
    html = '<picture><source srcset="/p-800.webp 800w, /p-1600.webp 1600w"><img src=""></picture>'
    assert 'src="http://site.test/p-1600.webp"' in sanitize_html(html, "http://site.test/")


def test_noscript_fallback_image_replaces_a_bare_placeholder():
    html = f'<p>a</p><img src="{PLACEHOLDER}"><noscript><img src="/real.jpg"></noscript><p>b</p>'
    out = sanitize_html(html, "http://site.test/")
    assert out.count("<img") == 1 and 'src="http://site.test/real.jpg"' in out


def test_best_srcset_candidate():
    assert best_srcset("a.jpg 100w, b.jpg 300w, c.jpg 200w") == "b.jpg"
    assert best_srcset("") == ""


def test_text_body_keeps_text_after_inline_script_for_both_takes():
    page = "<html><body><h1>T</h1><div class='b'>foo<script>x()</script>bar<style>.a{}</style>baz</div></body></html>"
    for take in ("html", "text"):
        profile = Profile(name="s", start_urls=("http://site.test/",),
                          fields={"title": Rule(selector="h1"), "body": Rule(selector="div.b", take=take)})
        assert extract(page, "http://site.test/a", profile).body_text == "foo bar baz"
