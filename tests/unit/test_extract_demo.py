"""Extraction on the bundled demo site: every field right, images in place, ads removed."""

import lxml.html

from xnews_gui.core.extraction.extract import extract, html_to_text
from xnews_gui.core.profile.profile import Profile
from xnews_gui.demo import DemoSite

from ..conftest import PROFILES

BASE = "http://127.0.0.1:8765"


def demo():
    return Profile.from_json((PROFILES / "demo.json").read_text(encoding="utf-8"))


def test_every_demo_article_extracts_exactly():
    site, profile = DemoSite(), demo()
    for a in site.articles:
        status, ctype, body = site.render(a.path)
        art = extract(body, BASE + a.path, profile, content_type=ctype)
        assert art.ok, art.errors
        assert art.title == a.title
        assert art.summary == a.summary
        assert art.image == BASE + a.image
        assert art.author == a.author
        assert art.date == a.published.isoformat() + "+07:00"
        assert art.body_text.splitlines()[0] == a.paragraphs[0]
        assert "QUẢNG CÁO" not in art.body_text  # the remove rule dropped the ad
        assert art.images == [BASE + a.inline_image(n + 1) for n in range(len(a.inline_images))]


def test_inline_images_stay_where_they_stand():
    site, profile = DemoSite(), demo()
    a = site.articles[0]
    art = extract(site.render(a.path)[2], BASE + a.path, profile)
    root = lxml.html.fragment_fromstring(art.body_html, create_parent="div")
    sequence = [el.tag if el.tag == "img" else el.text_content()[:20] for el in root.iter("p", "img")]
    first_img = sequence.index("img")
    # the first inline image follows paragraph index a.inline_images[0]
    assert first_img == a.inline_images[0] + 1
    assert sequence[first_img - 1] == a.paragraphs[a.inline_images[0]][:20]


def test_missing_required_field_is_a_failed_extraction_with_reason():
    profile = demo()
    art = extract("<html><body><p>no title here</p></body></html>", BASE + "/x.htm", profile)
    assert not art.ok
    assert any(e.startswith("title: required field is empty") for e in art.errors)
    assert any(e.startswith("body: required field is empty") for e in art.errors)


def test_unsafe_body_is_sanitised():
    profile = demo()
    page = """<html><body><h1 class="article-title">T</h1><div class="article-body">
    <p onclick="steal()">Safe <a href="javascript:alert(1)">link</a></p>
    <img src="x.png" onerror="alert(1)"><script>alert(1)</script><iframe src="http://evil"></iframe>
    <style>p{}</style></div></body></html>"""
    art = extract(page, BASE + "/news/a-1.htm", profile)
    assert art.ok
    for bad in ("onclick", "javascript:", "onerror", "<script", "<iframe", "<style", "alert"):
        assert bad not in art.body_html
    assert '<img src="http://127.0.0.1:8765/news/x.png">' in art.body_html


def test_html_to_text_keeps_paragraphs_apart():
    assert html_to_text("<p>Một</p><p>Hai <b>ba</b></p><div>Bốn</div>") == "Một\nHai ba\nBốn"


def test_remove_rules_touch_the_body_only():
    page = """<html><body><h1 class="article-title">T</h1><div class="article-body">
    <p class="byline">Nguyễn Văn A</p><p>Nội dung chính.</p></div></body></html>"""
    profile = demo().with_field("author", demo().fields["author"].with_(selector="p.byline"))
    from xnews_gui.core.profile.rules import Rule

    profile = profile.with_(remove=(Rule(kind="css", selector="p.byline"),))
    art = extract(page, BASE + "/a-1.htm", profile)
    assert art.author == "Nguyễn Văn A"
    assert "Nguyễn Văn A" not in art.body_text and "Nội dung chính." in art.body_text
