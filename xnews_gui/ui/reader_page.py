"""One stored article -> the reader's HTML page. Qt-free, so it is tested without a display.

The stored body is sanitised already; it is treated as untrusted anyway: sanitised
again, every image pointed at the local cache (or a placeholder), and the page carries
a Content-Security-Policy that forbids scripts and every non-local load.
"""

from __future__ import annotations

from html import escape
from typing import Callable

import lxml.html
from lxml import etree

from ..core.extraction.sanitize import sanitize_html
from ..core.text.language import language_of
from ..core.text.topics import display_name
from ..paths import RESOURCES

SCHEME = "xnews"
HOST = "reader"
ORIGIN = f"{SCHEME}://{HOST}"
MISSING_IMAGE = f"{ORIGIN}/static/missing.svg"
CSP = (f"default-src 'none'; img-src {SCHEME}:; style-src 'unsafe-inline'; "
       "script-src 'none'; object-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'")
CSS_FILE = RESOURCES / "reader" / "reader.css"

ImageSource = Callable[[str], "str | None"]  # original image URL -> local URL, or None if not cached


def reader_css() -> str:
    try:
        return CSS_FILE.read_text(encoding="utf-8")
    except OSError:
        return ""


def rewrite_images(html: str, local_src: ImageSource) -> str:
    """Point every <img> at the local cache; an image that is not cached shows a placeholder."""
    if not html:
        return ""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return ""
    for img in root.iter("img"):
        src = img.get("src") or ""
        local = local_src(src) if src.startswith(("http://", "https://")) else None
        img.set("src", local or MISSING_IMAGE)
        if not local:
            img.set("class", "missing")
            img.set("title", f"Image not in the offline cache: {src}"[:300])
    out = (root.text or "") and escape(root.text)
    return out + "".join(lxml.html.tostring(child, encoding="unicode") for child in root)


def build_page(article: dict, local_src: ImageSource, css: str | None = None) -> str:
    """The full HTML document for one article dict (repo.article_dict keys)."""
    body = sanitize_html(article.get("body_html") or "")
    body = rewrite_images(body, local_src)
    meta = []
    if article.get("author"):
        meta.append(f'<span class="author">{escape(article["author"])}</span>')
    if article.get("date"):
        meta.append(f'<time>{escape(_nice_date(article["date"]))}</time>')
    category = article.get("user_label") or article.get("category")
    if article.get("topic_note") and not category:
        meta.append(f'<span class="category none" title="{escape(article["topic_note"])}">—</span>')
    elif category:
        conf = article.get("confidence")
        label = escape(display_name(category)) + (f" <small>{conf:.0%}</small>" if conf is not None and not article.get("user_label") else "")
        meta.append(f'<span class="category">{label}</span>')
    lead_image = ""
    image = article.get("image") or ""
    if image and image not in _srcs(article.get("body_html") or ""):
        local = local_src(image) if image.startswith(("http://", "https://")) else None
        if local:
            lead_image = f'<figure class="lead"><img src="{escape(local)}" alt=""></figure>'
    url = article.get("url") or ""
    source = (f'<p class="source">Source: <a href="{escape(url)}">{escape(_short(url))}</a></p>'
              if url.startswith(("http://", "https://")) else "")
    summary = f'<p class="summary">{escape(article["summary"])}</p>' if article.get("summary") else ""
    notices = "".join(f'<p class="notice {kind}">{escape(text)}</p>' for kind, text in notices_for(article))
    # the language picks the fonts of Han characters (Japanese, Chinese), hyphenation and a voice
    lang = language_of(" ".join(filter(None, (article.get("title"), article.get("body_text")))))
    html_tag = f'<html lang="{lang}">' if lang else "<html>"
    return (
        f"<!DOCTYPE html>\n{html_tag}<head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(article.get('title') or '')}</title>"
        f"<style>{css if css is not None else reader_css()}</style></head>\n"
        f'<body><article><header><p class="site">{escape(article.get("profile") or "")}</p>'
        f'<h1>{escape(article.get("title") or "")}</h1>'
        f'<p class="meta">{" · ".join(meta)}</p></header>\n'
        f"{notices}{summary}{lead_image}\n<div class=\"body\">{body}</div>\n{source}</article></body></html>"
    )


def notices_for(article: dict) -> list[tuple[str, str]]:
    """What the reader says above an article about its source: an earlier version shown, a copy whose
    source removed it, a changed version that replaced the first one. (class, text) pairs."""
    out = []
    earlier = article.get("earlier_of")  # this page shows an earlier version: {"number", "at", "reason", "of"}
    if earlier:
        out.append(("earlier", f"Earlier version {earlier['number']} of {earlier['of']}, replaced "
                               f"{_local(earlier['at'])} ({earlier['reason']}). The current text is one click "
                               "away: Versions ▸ Current version."))
    if article.get("gone_at"):
        out.append(("gone", f"Removed at the source on {_local(article['gone_at'])[:10]}: this copy was kept "
                            "and stays readable here."))
    if article.get("updated_at") and not earlier:
        versions = article.get("versions") or 0
        more = (f" {versions} earlier version{'s' if versions != 1 else ''} kept: Versions in the toolbar."
                if versions else "")
        out.append(("updated", f"Updated {_local(article['updated_at'])}.{more}"))
    return out


def _local(value) -> str:
    """A stored UTC time as local 'YYYY-MM-DD HH:MM'."""
    from .dates import utc_to_local

    return utc_to_local(value)[:16]


def empty_page(message: str, css: str | None = None) -> str:
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<style>{css if css is not None else reader_css()}</style></head>"
        f'<body><p class="empty">{escape(message)}</p></body></html>'
    )


def _srcs(html: str) -> set[str]:
    from ..core.extraction.sanitize import image_urls

    return set(image_urls(html))


def _nice_date(value: str) -> str:
    if len(value) >= 16 and value[4] == "-" and value[10] in "T ":
        return value[:10] + " " + value[11:16]
    return value


def _short(url: str) -> str:
    return url if len(url) <= 80 else url[:77] + "…"
