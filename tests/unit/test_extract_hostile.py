"""Hostile page content at extraction: control characters, foreign image URLs, a <base href>, bad dates."""

from __future__ import annotations

import pytest

from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile

URL = "http://news.test/thoi-su/bai-1.htm"


def profile(**fields) -> Profile:
    base = {"title": {"kind": "css", "selector": "h1"}, "body": {"kind": "css", "selector": "div.body", "take": "html"}}
    base.update(fields)
    return Profile.from_dict({"schema": 1, "name": "t", "start_urls": ["http://news.test/"], "fields": base})


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def test_control_characters_are_dropped_from_every_field():
    html = page("<h1>Tin\x01 nóng\x0b</h1><p class='by'>Tác\x1f giả</p><div class='body'><p>Đoạn\x02 một\x7f</p></div>")
    article = extract(html, URL, profile(author={"kind": "css", "selector": "p.by"}))
    assert article.title == "Tin nóng" and article.author == "Tác giả"
    assert "\x02" not in article.body_html and "\x7f" not in article.body_text and "Đoạn một" in article.body_text
    by_reference = extract(page("<h1>T</h1><div class='body'><p>a&#x1F;b&#1;c</p></div>"), URL, profile())
    assert "<p>abc</p>" in by_reference.body_html and by_reference.body_text == "abc"


@pytest.mark.parametrize("src", ["javascript:alert(1)", "file:///etc/passwd", "xnews://images/../../x",
                                 "data:image/png;base64,AAAA", "  JavaScript:alert(1)"])
def test_the_image_field_keeps_only_http_urls(src):
    html = page(f"<h1>T</h1><img class='lead' src='{src}'><div class='body'><p>x</p></div>")
    article = extract(html, URL, profile(image={"kind": "css", "selector": "img.lead", "take": "attr:src"}))
    assert article.image == ""


def test_image_urls_resolve_against_the_page_not_a_base_href():
    html = page("<h1>T</h1><img class='lead' src='lead.jpg'>"
                "<div class='body'><base href='http://evil.test/'><p>x</p><img src='in-body.jpg'></div>",
                head="<base href='http://evil.test/'>")
    article = extract(html, URL, profile(image={"kind": "css", "selector": "img.lead", "take": "attr:src"}))
    assert article.image == "http://news.test/thoi-su/lead.jpg"
    assert article.images == ["http://news.test/thoi-su/in-body.jpg"]
    assert "evil.test" not in article.body_html


@pytest.mark.parametrize("raw, stored", [("Thứ hai, 12/3/2024 08:30 (GMT+7)", "2024-03-12T08:30:00+07:00"),
                                         ("hôm qua lúc nào đó", ""), ("99/99/9999", ""), ("<script>", "")])
def test_dates_are_iso_or_nothing(raw, stored):
    html = page(f"<h1>T</h1><span class='d'>{raw.replace('<', '&lt;')}</span><div class='body'><p>x</p></div>")
    article = extract(html, URL, profile(date={"kind": "css", "selector": "span.d"}))
    assert article.date == stored


def test_a_comment_before_the_headline_copy_in_the_body_does_not_break_the_page():
    """The headline's copy inside the body follows an HTML comment: it is dropped like any other copy
    (the text after a comment belongs to the comment's parent), and the page extracts."""
    title = "Ministerin Raab leitet neuen Thinktank"
    html = page(f"<h1>{title}</h1><div class='body'><div><!-- kicker --> {title}</div>"
                "<p>Text über den Thinktank <!-- ad --> Ministerin und mehr.</p></div>")
    article = extract(html, URL, profile())
    assert article.ok and article.title == title
    assert article.body_text == "Text über den Thinktank Ministerin und mehr."
