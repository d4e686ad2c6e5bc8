"""The offline demo news site: generated deterministically from resources/demo_site.

Layout (root-relative links):
    /                              home: category nav, latest stories
    /<cat>/                        category page 1 (newest first)
    /<cat>/trang-<n>.htm           category page n >= 2
    /<cat>/<slug>-<id>.htm         article page
    /images/<name>.png             generated images
    /static/site.css, /robots.txt
    /sitemap.xml, /sitemap-<cat>.xml, /<cat>/rss.xml   sitemaps and feeds (see syndication.py)
    /js/, /js/<id>.htm             the same stories built by JavaScript only (see js_section.py)
    /xem-them/, /cuon/             list pages that load more by a "Xem thêm" button or by scrolling (load_more.py)
    /thanh-vien/, /thanh-vien/<id>.htm   members only: a login form without the session cookie (members.py)
    /dang-nhap/                         the login form (posting it sets the session cookie)
"""

from __future__ import annotations

import html
import json
import random
import re
import struct
import unicodedata
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from string import Template

from ..paths import RESOURCES
from . import js_section, load_more, members, prose, syndication

TEMPLATES = RESOURCES / "demo_site"
PAGE_SIZE = 5
# (section, round of a wire copy) -> round of the original, older (a higher round is older): a news
# agency's story that other desks ran again later, trimmed: true near-duplicates ("2 sources",
# "3 sources" in the Articles table); every other story of the demo is told once
WIRE_COPIES = {("thoi-su", 2): 7, ("the-gioi", 1): 9, ("the-gioi", 5): 9, ("kinh-doanh", 3): 8}
_WEEKDAYS = ["Thứ hai", "Thứ ba", "Thứ tư", "Thứ năm", "Thứ sáu", "Thứ bảy", "Chủ nhật"]


@dataclass(frozen=True)
class DemoArticle:
    id: int
    cat_slug: str
    cat_name: str
    topic: str
    title: str
    summary: str
    paragraphs: tuple[str, ...]
    inline_images: tuple[int, ...]  # paragraph indexes after which an image stands
    author: str
    published: datetime
    image: str
    story: int = 0  # id of the article that first told this story (its own id, or the original of a wire copy)

    @property
    def path(self) -> str:
        return f"/{self.cat_slug}/{slugify(self.title)}-{self.id}.htm"

    def inline_image(self, n: int) -> str:
        return f"/images/a{self.id}-{n}.png"


def slugify(text: str) -> str:
    text = unicodedata.normalize("NFD", text.replace("đ", "d").replace("Đ", "D"))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


class DemoSite:
    """All pages of the demo site, rendered on demand; same seed -> same bytes."""

    def __init__(self, per_category: int = 12, seed: int = 7, second_template: bool = False):
        self.per_category = per_category
        self.seed = seed
        # a redesign in progress: every third article in another layout (h2 headline, lazy lead
        # image, JSON-LD metadata, share/newsletter boxes inside the body)
        self.second_template = second_template
        self.corpus = json.loads((TEMPLATES / "corpus.json").read_text(encoding="utf-8"))
        self.stories = prose.load()
        self._t = {name: Template((TEMPLATES / f"{name}.html").read_text(encoding="utf-8"))
                   for name in ("layout", "article", "article_v2", "listing", "item")}

    # --- content -----------------------------------------------------------
    @cached_property
    def articles(self) -> list[DemoArticle]:
        rng = random.Random(self.seed)
        out: list[DemoArticle] = []
        stories: dict[tuple[str, int], dict] = {}  # written ahead: an original that a newer wire copy needs
        told: set[tuple[str, str]] = set()
        start = datetime(2026, 11, 28, 18, 0)
        sections = self.corpus["categories"]
        n = 0
        for i in range(self.per_category):
            for c, cat in enumerate(sections):
                n += 1
                original = WIRE_COPIES.get((cat["slug"], i))
                if original is not None and original < self.per_category:
                    if (cat["slug"], original) not in stories:
                        stories[(cat["slug"], original)] = self._story(rng, cat, told)
                    told_first = stories[(cat["slug"], original)]
                    desk = sum(1 for k, v in WIRE_COPIES.items() if v == original and k[0] == cat["slug"] and k[1] < i)
                    story = {**told_first, "title": f"{told_first['place']}: {told_first['headline']}",
                             "author": self.stories["wire"]["author"],
                             "paragraphs": prose.wire_copy(told_first["paragraphs"], self.stories, told_first["place"],
                                                           desk),
                             "story": 1000 + original * len(sections) + c + 1}
                else:
                    story = stories.pop((cat["slug"], i), None) or self._story(rng, cat, told)
                    story["story"] = 1000 + n
                paragraphs = story["paragraphs"]
                inline = tuple(sorted(rng.sample(range(1, len(paragraphs) - 1), k=1 + (n % 2))))
                out.append(DemoArticle(
                    id=1000 + n, cat_slug=cat["slug"], cat_name=cat["name"], topic=cat["topic"],
                    title=story["title"], summary=story["summary"], paragraphs=paragraphs, inline_images=inline,
                    author=story["author"],
                    published=start - timedelta(hours=3 * n + rng.randint(0, 2), minutes=rng.randint(0, 59)),
                    image=f"/images/a{1000 + n}-0.png", story=story["story"],
                ))
        return out

    def _story(self, rng: random.Random, cat: dict, told: set[tuple[str, str]]) -> dict:
        """One story of a section: a headline not told before, its lede, text and author."""
        for _ in range(100):  # a headline not used yet, while there are some left
            subject, action = rng.choice(cat["subjects"]), rng.choice(cat["actions"])
            if (subject, action) not in told:
                break
        told.add((subject, action))
        places = self.stories["categories"][cat["slug"]].get("places", self.corpus["places"])
        place = rng.choice(places)
        headline = f"{subject[0].upper()}{subject[1:]} {action}"
        slots = prose.article_slots(rng, self.stories, cat["slug"], subject, action, place, places)
        return {"headline": headline, "place": place, "title": f"{headline} tại {place}",
                "summary": prose.summary(rng, slots), "paragraphs": prose.paragraphs(rng, self.stories, cat["slug"], slots),
                "author": rng.choice(self.corpus["authors"])}

    def stories_told_twice(self) -> list[set[str]]:
        """Paths of the articles that tell one story (a wire copy with its original), per story."""
        told: dict[int, set[str]] = {}
        for a in self.articles:
            told.setdefault(a.story, set()).add(a.path)
        return [paths for paths in told.values() if len(paths) > 1]

    def category_articles(self, slug: str) -> list[DemoArticle]:
        return sorted((a for a in self.articles if a.cat_slug == slug), key=lambda a: a.published, reverse=True)

    @cached_property
    def _by_path(self) -> dict[str, DemoArticle]:
        return {a.path: a for a in self.articles}

    # --- rendering -----------------------------------------------------------
    def render(self, path: str, origin: str = "http://127.0.0.1:8765", cookies: str = "") -> tuple[int, str, bytes]:
        """(status, content type, body) for a request path; ``origin`` is what absolute URLs
        (sitemaps, feeds) start with; ``cookies`` the request's Cookie header (members' pages)."""
        path = path.split("?", 1)[0].split("#", 1)[0] or "/"
        if path in ("/", "/index.html"):
            return self._html(self.home())
        if path == "/robots.txt":
            return 200, "text/plain; charset=utf-8", syndication.robots(origin).encode()
        if path == "/thanh-vien/":
            return self._html(members.listing(self))
        if path == members.LOGIN_PATH:
            return self._html(members.login_page(self))
        m = re.fullmatch(r"/thanh-vien/(\d+)\.htm", path)
        if m and any(a.id == int(m.group(1)) for a in members.stories(self)):
            if not members.logged_in(cookies):
                return self._html(members.login_page(self))
            return self._html(self.article_page(next(a for a in self.articles if a.id == int(m.group(1)))))
        if path == "/js/":
            return self._html(js_section.listing(self))
        m = re.fullmatch(r"/(xem-them|cuon)/(?:trang-(\d+)\.htm)?", path)
        if m:
            text = load_more.section_page(self, m.group(1)) if m.group(2) is None else \
                load_more.fragment(self, m.group(1), int(m.group(2)))
            if text is not None:
                return self._html(text)
        m = re.fullmatch(r"/js/(\d+)\.htm", path)
        if m and any(a.id == int(m.group(1)) for a in self.articles):
            return self._html(js_section.article_shell(self, next(a for a in self.articles if a.id == int(m.group(1)))))
        syndicated = self._syndication(path, origin)
        if syndicated is not None:
            return 200, syndicated[0], syndicated[1].encode("utf-8")
        if path == "/static/site.css":
            return 200, "text/css; charset=utf-8", (TEMPLATES / "site.css").read_bytes()
        m = re.fullmatch(r"/images/([a-z0-9-]+)\.png", path)
        if m:
            return 200, "image/png", make_png(m.group(1))
        if path in self._by_path:
            return self._html(self.article_page(self._by_path[path]))
        m = re.fullmatch(r"/([a-z-]+)/(?:trang-(\d+)\.htm)?", path)
        if m and any(c["slug"] == m.group(1) for c in self.corpus["categories"]):
            page = int(m.group(2) or 1)
            body = self.category_page(m.group(1), page)
            if body is not None:
                return self._html(body)
        return 404, "text/html; charset=utf-8", self.page_layout("Không tìm thấy", "<h2>404 — Không tìm thấy trang</h2>").encode()

    def _syndication(self, path: str, origin: str) -> tuple[str, str] | None:
        slugs = [c["slug"] for c in self.corpus["categories"]]
        if path == "/sitemap.xml":
            return "application/xml", syndication.sitemap_index(self, origin)
        if path == "/sitemap-chuyen-muc.xml":
            return "application/xml", syndication.pages_sitemap(self, origin)
        m = re.fullmatch(r"/sitemap-([a-z-]+)\.xml", path)
        if m and m.group(1) in slugs:
            return "application/xml", syndication.section_sitemap(self, m.group(1), origin)
        m = re.fullmatch(r"/([a-z-]+)/rss\.xml", path)
        if m and m.group(1) in slugs:
            return "application/rss+xml; charset=utf-8", syndication.section_rss(self, m.group(1), origin)
        return None

    def _html(self, text: str) -> tuple[int, str, bytes]:
        return 200, "text/html; charset=utf-8", text.encode("utf-8")

    def _nav(self) -> str:
        return "\n".join(
            f'<li class="menu-item"><a href="/{c["slug"]}/">{html.escape(c["name"])}</a></li>'
            for c in self.corpus["categories"]
        )

    def page_layout(self, title: str, content: str, meta: str = "") -> str:
        latest = sorted(self.articles, key=lambda a: a.published, reverse=True)[:5]
        most_read = "".join(f'<li><a href="{a.path}">{html.escape(a.title)}</a></li>' for a in latest)
        meta = f"{meta}\n{syndication.feed_links(self)}" if meta else syndication.feed_links(self)
        return self._t["layout"].substitute(page_title=html.escape(title), meta=meta, nav=self._nav(),
                                            content=content, most_read=most_read)

    def list_item(self, a: DemoArticle) -> str:
        return self._t["item"].substitute(url=a.path, thumb=a.image, title=html.escape(a.title),
                                          summary=html.escape(a.summary))

    def home(self) -> str:
        latest = sorted(self.articles, key=lambda a: a.published, reverse=True)[:8]
        content = self._t["listing"].substitute(heading="Tin mới nhất", items="\n".join(map(self.list_item, latest)),
                                                pagination="")
        return self.page_layout("Trang chủ", content)

    def pages_of(self, slug: str) -> int:
        return max(1, -(-len(self.category_articles(slug)) // PAGE_SIZE))

    def category_page(self, slug: str, page: int) -> str | None:
        items = self.category_articles(slug)
        pages = self.pages_of(slug)
        if page < 1 or page > pages:
            return None
        chunk = items[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        name = next(c["name"] for c in self.corpus["categories"] if c["slug"] == slug)
        links = []
        if page > 1:
            prev = f"/{slug}/" if page == 2 else f"/{slug}/trang-{page - 1}.htm"
            links.append(f'<a class="prev" href="{prev}">‹ Trang trước</a>')
        links.append(f'<span class="current">Trang {page}/{pages}</span>')
        if page < pages:
            links.append(f'<a class="next" href="/{slug}/trang-{page + 1}.htm">Trang sau ›</a>')
        pagination = f'<nav class="pagination">{"".join(links)}</nav>'
        content = self._t["listing"].substitute(heading=html.escape(name), items="\n".join(map(self.list_item, chunk)),
                                                pagination=pagination)
        return self.page_layout(name if page == 1 else f"{name} - trang {page}", content)

    def uses_second_template(self, a: DemoArticle) -> bool:
        return self.second_template and a.id % 3 == 0

    def article_page(self, a: DemoArticle) -> str:
        if self.uses_second_template(a):
            return self._article_v2(a)
        parts = []
        ads = self.corpus["ads_in_body"]
        for i, p in enumerate(a.paragraphs):
            parts.append(f"    <p>{html.escape(p)}</p>")
            if i in a.inline_images:
                n = a.inline_images.index(i) + 1
                parts.append(f'    <figure class="inline-image"><img src="{a.inline_image(n)}" alt="Ảnh minh họa {n}">'
                             f"<figcaption>Ảnh minh họa {n}</figcaption></figure>")
            if i == 1:
                parts.append(f'    <div class="ads">{html.escape(ads[a.id % len(ads)])}</div>')
        related = [b for b in self.category_articles(a.cat_slug) if b.id != a.id][:3]
        iso = a.published.isoformat() + "+07:00"
        vn_date = f"{_WEEKDAYS[a.published.weekday()]}, {a.published:%d/%m/%Y, %H:%M} (GMT+7)"
        meta = (f'<meta property="og:title" content="{html.escape(a.title)}">\n'
                f'<meta property="og:image" content="{a.image}">\n'
                f'<meta property="og:description" content="{html.escape(a.summary)}">\n'
                f'<meta property="article:published_time" content="{iso}">')
        content = self._t["article"].substitute(
            cat_slug=a.cat_slug, cat_name=html.escape(a.cat_name), title=html.escape(a.title),
            author=html.escape(a.author), iso_date=iso, vn_date=vn_date, summary=html.escape(a.summary),
            image=a.image, caption=f"Ảnh: {html.escape(a.author)}", body="\n".join(parts),
            related="".join(f'<li><a href="{b.path}">{html.escape(b.title)}</a></li>' for b in related),
        )
        return self.page_layout(a.title, content, meta)

    def _article_v2(self, a: DemoArticle) -> str:
        parts = []
        for i, p in enumerate(a.paragraphs):
            parts.append(f"    <p>{html.escape(p)}</p>")
            if i in a.inline_images:
                n = a.inline_images.index(i) + 1
                parts.append(f'    <img class="inline" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" '
                             f'data-src="{a.inline_image(n)}" alt="Ảnh minh họa {n}">')
        related = [b for b in self.category_articles(a.cat_slug) if b.id != a.id][:3]
        iso = a.published.isoformat() + "+07:00"
        vn_date = f"{_WEEKDAYS[a.published.weekday()]}, {a.published:%d/%m/%Y, %H:%M} (GMT+7)"
        ld = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": a.title,
              "datePublished": iso, "author": {"@type": "Person", "name": a.author}, "image": a.image,
              "description": a.summary}
        meta = ('<script type="application/ld+json">' + json.dumps(ld, ensure_ascii=False).replace("</", "<\\/")
                + "</script>")
        content = self._t["article_v2"].substitute(
            cat_slug=a.cat_slug, cat_name=html.escape(a.cat_name), title=html.escape(a.title),
            author=html.escape(a.author), iso_date=iso, vn_date=vn_date, summary=html.escape(a.summary),
            image=a.image, body="\n".join(parts),
            related="".join(f'<li><a href="{b.path}">{html.escape(b.title)}</a></li>' for b in related),
        )
        return self.page_layout(a.title, content, meta)


_PALETTE = [(159, 34, 78), (31, 119, 180), (44, 160, 44), (255, 127, 14), (148, 103, 189), (23, 190, 207)]


def make_png(name: str, width: int = 160, height: int = 90) -> bytes:
    """A small deterministic PNG: two colour bands chosen from the name."""
    h = zlib.crc32(name.encode())
    top, bottom = _PALETTE[h % len(_PALETTE)], _PALETTE[(h >> 8) % len(_PALETTE)]
    rows = b"".join(b"\x00" + bytes(top if y < height // 2 else bottom) * width for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def dump(site: DemoSite, folder: Path) -> int:
    """Write every page to ``folder`` (for offline inspection); returns the count."""
    paths = ["/", "/robots.txt"] + [a.path for a in site.articles]
    for c in site.corpus["categories"]:
        paths.append(f"/{c['slug']}/")
        paths += [f"/{c['slug']}/trang-{p}.htm" for p in range(2, site.pages_of(c["slug"]) + 1)]
    for p in paths:
        status, _, body = site.render(p)
        target = folder / (p.strip("/") or "index.html")
        if p.endswith("/") and p != "/":
            target = target / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    return len(paths)
