"""The preview sees the whole site: article pages from the list page, its sections and next pages and the
sitemap, grouped by layout, each layout's fill counted; "fully extracted" needs a title and a body; an image
that is the same on every page, or stands outside the article, is flagged. A real site on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.plain_site import PlainSite
from xnews_gui.core.profile.profile import LinkRule, Profile
from xnews_gui.core.profile.rules import Rule
from xnews_gui.ui.inspector.fetch import PageCache
from xnews_gui.ui.inspector.sample import (
    IMAGE_SAME, build_preview, fully_extracted, layout_fill, sample_articles,
)

TITLE = Rule(kind="xpath", selector="//h1 | //font[@size='5']/b", take="text", required=True)
BODY = Rule(kind="xpath", selector="//h1/following-sibling::div[p] | //table//td[p]", take="html", required=True)


@pytest.fixture(scope="module")
def site():
    with PlainSite() as served:
        yield served


@pytest.fixture
def cache():
    c = PageCache()
    yield c
    c.close()


def _profile(site, **fields) -> Profile:
    return Profile(name="plain", start_urls=(site.url,), allowed_domains=("127.0.0.1",),
                   articles=LinkRule(kind="css", selector="ul li a", allow=(r"/\d+\.html$",)),
                   lists=LinkRule(kind="xpath", selector="//body/div[1]/div/a | //a[.='Next page']"),
                   fields=fields)


def test_the_sample_takes_pages_from_the_sections_next_pages_and_the_sitemap(site, cache):
    profile = _profile(site, title=TITLE, body=BODY)
    sample = sample_articles(profile, site.url, cache.fetch, 8, cache.fetch_file)
    sources = [s for _, s in sample.urls]
    assert "list page" in sources and "sitemap" in sources
    assert any(s.startswith(site.url) and s != site.url for s in sources)  # a section's list page
    assert len(sample.urls) == 8 and sample.links == 6
    assert len({u for u, _ in sample.urls}) == 8


def test_rows_are_grouped_by_layout_and_each_layouts_fill_is_counted(site, cache):
    title_only = _profile(site, title=Rule(kind="css", selector="h1", take="text", required=True), body=BODY)
    rows, links = build_preview(title_only, site.url, cache.fetch, limit=8, fetch_file=cache.fetch_file)
    by_layout = {r.layout for r in rows}
    assert by_layout == {"A", "B"}, [(r.url, r.layout) for r in rows]
    stories = {site.url.rstrip("/") + s.path: s for s in site.stories}
    assert len({(r.layout, stories[r.url].layout) for r in rows}) == 2  # one letter per template
    fills = {f.layout: f for f in layout_fill(rows, ["title", "body"])}
    two = next(r.layout for r in rows if stories[r.url].layout == 2)
    assert fills[two].ok["title"] == 0 and fills[two].ok["body"] == fills[two].pages  # h1 only on layout 1
    assert not any(fully_extracted(r, title_only) for r in rows if r.layout == two)


def test_fully_extracted_needs_a_title_and_a_body(site, cache):
    no_body = _profile(site, title=TITLE)
    rows, _ = build_preview(no_body, site.url, cache.fetch, limit=4, fetch_file=cache.fetch_file)
    assert rows and all(c.state == "ok" for r in rows for c in r.cells.values())
    assert not any(fully_extracted(r, no_body) for r in rows)
    whole = _profile(site, title=TITLE, body=BODY)
    rows, _ = build_preview(whole, site.url, cache.fetch, limit=4, fetch_file=cache.fetch_file)
    assert all(fully_extracted(r, whole) for r in rows), [(r.url, r.cells) for r in rows]


def test_an_image_that_is_the_same_on_every_page_is_flagged(site, cache):
    logo = Rule(kind="css", selector="body img, body a", take="attr:href")  # the masthead's home link
    profile = _profile(site, title=TITLE, body=BODY, image=logo)
    rows, _ = build_preview(profile, site.url, cache.fetch, limit=4, fetch_file=cache.fetch_file)
    cells = [r.cells["image"] for r in rows]
    assert all(c.state == "fails" and IMAGE_SAME in c.problems for c in cells), cells
