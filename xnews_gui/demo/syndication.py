"""The demo site's sitemaps and feeds, as a real news site serves them.

    /robots.txt                  ... Sitemap: <origin>/sitemap.xml
    /sitemap.xml                 sitemap index (children with lastmod)
    /sitemap-<cat>.xml           one Google News URL set per section (lastmod + news:publication_date)
    /sitemap-chuyen-muc.xml      the section pages and a partner's page (not articles of this site)
    /<cat>/rss.xml               RSS 2.0 per section (announced by <link rel="alternate"> on every page)

The partner's page lies on another host and the section pages are not articles: a crawl that reads
sitemaps or feeds must leave them out (scope and the article URL pattern).
"""

from __future__ import annotations

from email.utils import format_datetime
from html import escape
from datetime import timedelta, timezone

PARTNER_URL = "http://doi-tac.example/tin-lien-quan-9999.htm"
_TZ = timezone(timedelta(hours=7))
_SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
_NEWS = "http://www.google.com/schemas/sitemap-news/0.9"


def robots(origin: str) -> str:
    return f"User-agent: *\nDisallow: /private/\n\nSitemap: {origin}/sitemap.xml\n"


def _iso(when) -> str:
    return when.replace(tzinfo=_TZ).isoformat()


def sitemap_index(site, origin: str) -> str:
    rows = []
    for c in site.corpus["categories"]:
        newest = site.category_articles(c["slug"])[0].published
        rows.append(f"<sitemap><loc>{origin}/sitemap-{c['slug']}.xml</loc><lastmod>{_iso(newest)}</lastmod></sitemap>")
    rows.append(f"<sitemap><loc>{origin}/sitemap-chuyen-muc.xml</loc></sitemap>")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{_SM}">\n' + "\n".join(rows) + "\n</sitemapindex>\n"


def section_sitemap(site, slug: str, origin: str) -> str:
    rows = []
    for a in site.category_articles(slug):
        rows.append(f"<url><loc>{origin}{a.path}</loc><lastmod>{_iso(a.published)}</lastmod>"
                    f"<news:news><news:publication><news:name>Tin Nhanh</news:name><news:language>vi</news:language>"
                    f"</news:publication><news:publication_date>{_iso(a.published)}</news:publication_date>"
                    f"<news:title>{escape(a.title)}</news:title></news:news></url>")
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{_SM}" xmlns:news="{_NEWS}">\n'
            + "\n".join(rows) + "\n</urlset>\n")


def pages_sitemap(site, origin: str) -> str:
    rows = [f"<url><loc>{origin}/</loc></url>"]
    rows += [f"<url><loc>{origin}/{c['slug']}/</loc></url>" for c in site.corpus["categories"]]
    rows.append(f"<url><loc>{PARTNER_URL}</loc></url>")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{_SM}">\n' + "\n".join(rows) + "\n</urlset>\n"


def section_rss(site, slug: str, origin: str) -> str:
    name = next(c["name"] for c in site.corpus["categories"] if c["slug"] == slug)
    items = []
    for a in site.category_articles(slug):
        items.append(f"<item><title>{escape(a.title)}</title><link>{origin}{a.path}</link>"
                     f"<description>{escape(a.summary)}</description>"
                     f"<pubDate>{format_datetime(a.published.replace(tzinfo=_TZ))}</pubDate>"
                     f'<guid isPermaLink="true">{origin}{a.path}</guid></item>')
    if slug == site.corpus["categories"][0]["slug"]:  # a partner's story, as feeds often carry
        items.append(f"<item><title>Tin từ đối tác</title><link>{PARTNER_URL}</link></item>")
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
            f"<title>Tin Nhanh - {escape(name)}</title><link>{origin}/{slug}/</link>"
            f"<description>{escape(name)}</description>\n" + "\n".join(items) + "\n</channel></rss>\n")


def feed_links(site) -> str:
    """``<link rel="alternate">`` tags for every section's feed (in each page's head)."""
    return "\n".join(f'<link rel="alternate" type="application/rss+xml" title="{escape(c["name"])}" '
                     f'href="/{c["slug"]}/rss.xml">' for c in site.corpus["categories"])
