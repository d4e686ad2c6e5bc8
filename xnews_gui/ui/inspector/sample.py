"""What the preview shows: a sample of the whole site's article pages, extracted, grouped by layout.

Article links come from the list page, from a few of the list pages its rules lead to (sections, next
pages) and from the site's sitemap (the profile's, else ``/sitemap.xml``), taken in turn from each
source so that a second template shows before a crawl. Each previewed page gets its layout (the
template's skeleton, ``core.induction.fingerprint.page_layout``): pages are grouped by it and each group's fill
is counted. No Qt here: it runs in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable
from urllib.parse import urlsplit

from ...core.extraction.extract import extract
from ...core.induction.fingerprint import page_layout, same_layout
from ...core.extraction.links import article_url, page_links
from ...core.profile.profile import FIELDS, Profile
from ...core.profile.rules import parse_html
from ...errors import describe
from .draft import short

LIST_PAGES = 4  # list pages read beside the first one (sections, next pages)
SITEMAP_ENTRIES = 2000  # sitemap entries looked at


@dataclass
class Sample:
    urls: list  # [(article url, where it was found)], in the order the preview reads them
    links: int  # article links on the first list page (what the crawl follows from it)
    sources: list = field(default_factory=list)  # where links were found: "list page", list page URLs, "sitemap"


def sample_articles(profile: Profile, list_url: str, fetch: Callable[[str], str], limit: int,
                    fetch_file: Callable[[str], bytes] | None = None,
                    aborted: Callable[[], bool] = lambda: False) -> Sample:
    """Up to ``limit`` article URLs, taken in turn from each source (the first list page first)."""
    first, lists = page_links(profile, fetch(list_url), list_url)
    sources: list[tuple[str, list]] = [("list page", first)]
    for url in lists[:LIST_PAGES]:
        if aborted():
            break
        try:
            found = page_links(profile, fetch(url), url)[0]
        except Exception:  # noqa: BLE001 (a list page that cannot be had: the others still count)
            continue
        if found:
            sources.append((url, found))
    if fetch_file is not None and not aborted():
        found = sitemap_articles(profile, list_url, fetch_file)
        if found:
            sources.append(("sitemap", found))
    return Sample(_in_turn(sources, limit), len(first), [name for name, _ in sources])


def _in_turn(sources, limit: int) -> list:
    """The first link of each source, then the second of each, ...: every part of the site shows."""
    out, seen = [], set()
    depth = 0
    while len(out) < limit and any(depth < len(links) for _, links in sources):
        for name, links in sources:
            if depth < len(links) and links[depth] not in seen and len(out) < limit:
                seen.add(links[depth])
                out.append((links[depth], name))
        depth += 1
    return out


def sitemap_articles(profile: Profile, list_url: str, fetch_file: Callable[[str], bytes]) -> list[str]:
    """Article URLs of the site's sitemap (an index: its first sitemap), spread over the whole list."""
    from ...crawl.sitemaps import SitemapError, parse_sitemap

    parts = urlsplit(list_url)
    roots = list(profile.sitemaps) or [f"{parts.scheme}://{parts.netloc}/sitemap.xml"]
    try:
        sitemap = parse_sitemap(fetch_file(roots[0]), max_entries=SITEMAP_ENTRIES)
        if sitemap.kind == "index" and sitemap.entries:
            sitemap = parse_sitemap(fetch_file(sitemap.entries[0].url), max_entries=SITEMAP_ENTRIES)
    except (SitemapError, Exception):  # noqa: BLE001 (no sitemap, or not one: the links still count)
        return []
    if sitemap.kind not in ("urlset", "text"):
        return []
    urls = [u for u in (article_url(profile, e.url) for e in sitemap.entries) if u]
    step = max(1, len(urls) // 8)  # spread over the list, from its end: old stories may keep an old template
    return urls[::-1][::step]


def layouts_of(pages: list[tuple[str, str]]) -> dict[str, str]:
    """{url: "A" | "B" | ...}: pages grouped by their template's skeleton, in the order met."""
    groups: list[frozenset] = []
    out = {}
    for url, html in pages:
        skeleton = page_layout(parse_html(html, url))
        for i, known in enumerate(groups):
            if same_layout(skeleton, known):
                out[url] = chr(ord("A") + i)
                break
        else:
            groups.append(skeleton)
            out[url] = chr(ord("A") + min(len(groups) - 1, 25))
    return out


def same_image_everywhere(rows) -> bool:
    """The image field gives one URL on every page (2+): a logo or a promotion, not the article's image."""
    values = [r.cells["image"].value for r in rows if "image" in r.cells and r.cells["image"].value]
    return len(values) >= 2 and len(set(values)) == 1


def image_outside(profile: Profile, html: str, url: str) -> bool:
    """The image the profile's image rule takes stands outside the article (the part of the page that holds
    its title and its body)."""
    from ...core.profile.rules import RuleError

    rules = {name: profile.fields.get(name) for name in ("image", "title", "body")}
    if any(r is None or r.kind not in ("css", "xpath") for r in rules.values()):
        return False
    doc = parse_html(html, url)
    try:
        found = {name: rule.select(doc)[:1] for name, rule in rules.items()}
    except RuleError:
        return False
    if not all(found.values()):
        return False
    image, title, body = found["image"][0], found["title"][0], found["body"][0]
    if image.tag in ("meta", "link"):
        return False  # the page's own declaration of its image (og:image): not a place on the page
    region = _common_ancestor(title, body)
    return region is not None and region.tag not in ("html", "body") and image is not region and \
        region not in image.iterancestors()


def _common_ancestor(a, b):
    above = [a, *a.iterancestors()]  # live references: lxml proxies stay the same objects
    for node in [b, *b.iterancestors()]:
        if any(node is x for x in above):
            return node
    return None


# --- the multi-page preview ---------------------------------------------------------
PREVIEW_FIELDS = FIELDS


@dataclass(frozen=True)
class PreviewCell:
    value: str
    state: str  # ok | empty | multiple | error | fails (a value that does not fit the field's content profile)
    problems: tuple = ()  # why it fails verification (Article.checks)


@dataclass(frozen=True)
class PreviewRow:
    url: str
    cells: dict  # field -> PreviewCell
    error: str = ""
    layout: str = ""  # "A", "B", ...: pages of one template share a letter
    source: str = ""  # where its link was found: "list page", a section or next page's URL, "sitemap"


IMAGE_SAME = "the same image on every page (a logo or a promotion, not the article's)"
IMAGE_OUTSIDE = "the image stands outside the article (not where its title and body are)"


def preview_row(profile: Profile, url: str, html: str, layout: str = "", source: str = "") -> PreviewRow:
    article = extract(html, url, profile)
    cells = {}
    for name in PREVIEW_FIELDS:
        if name not in profile.fields:
            continue
        value = article.value(name)
        failed = any(e.startswith(f"{name}:") and "required" not in e for e in article.errors)
        problems = tuple(p for p in article.checks.get(name) or () if p != "empty")
        if name == "image" and value and image_outside(profile, html, url):
            problems += (IMAGE_OUTSIDE,)
        state = ("error" if failed else "empty" if not value else "fails" if problems
                 else "multiple" if name in article.multiple else "ok")
        cells[name] = PreviewCell(short(value, 70), state, problems)
    return PreviewRow(url, cells, layout=layout, source=source)


def build_preview(profile: Profile, list_url: str, fetch: Callable[[str], str],
                  aborted: Callable[[], bool] = lambda: False, limit: int = 4,
                  fetch_file: Callable[[str], bytes] | None = None) -> tuple[list[PreviewRow], int]:
    """Fetch the list page, then up to ``limit`` article pages sampled over the site (its sections and
    next pages, the sitemap when ``fetch_file`` reads files), and extract each (runs in a worker).
    Returns the rows and how many article links the crawl would follow from the list page."""
    sample = sample_articles(profile, list_url, fetch, limit, fetch_file, aborted)
    rows, pages = [], []
    for url, source in sample.urls:
        if aborted():
            break
        try:
            html = fetch(url)
        except Exception as exc:  # one bad page must not hide the others
            rows.append(PreviewRow(url, {}, describe(exc), source=source))
            continue
        pages.append((url, html))
        rows.append(preview_row(profile, url, html, source=source))
    layouts = layouts_of(pages)
    rows = [replace(r, layout=layouts.get(r.url, "")) for r in rows]
    if same_image_everywhere(rows):
        rows = [replace(r, cells={**r.cells, "image": replace(r.cells["image"], state="fails",
                                                              problems=r.cells["image"].problems + (IMAGE_SAME,))})
                if "image" in r.cells and r.cells["image"].value else r for r in rows]
    return rows, sample.links


@dataclass(frozen=True)
class LayoutFill:
    """How well the rules fill one layout's pages."""

    layout: str
    pages: int
    ok: dict  # field -> pages where it is ok


def layout_fill(rows: list[PreviewRow], fields) -> list[LayoutFill]:
    out: dict[str, LayoutFill] = {}
    for row in rows:
        if row.error or not row.layout:
            continue
        fill = out.setdefault(row.layout, LayoutFill(row.layout, 0, {f: 0 for f in fields}))
        out[row.layout] = LayoutFill(fill.layout, fill.pages + 1,
                                     {f: fill.ok[f] + (row.cells.get(f) is not None and row.cells[f].state == "ok")
                                      for f in fields})
    return [out[k] for k in sorted(out)]


def fully_extracted(row: PreviewRow, profile: Profile) -> bool:
    """A page whose every field is ok - and only for a profile that has a title and a body."""
    return ("title" in profile.fields and "body" in profile.fields and bool(row.cells)
            and all(c.state == "ok" for c in row.cells.values()))
