"""The reading bundles of an export: one standalone HTML file (images embedded as data: URIs) and an
EPUB 3 book (one chapter per article, images inside). Each article's body is sanitised again and its
images resolved through an ``ImageLookup``: an image the lookup does not have is left out, never fetched."""

from __future__ import annotations

import base64
import uuid
import zipfile
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Callable

import lxml.html
from lxml import etree

from ..core.extraction.sanitize import sanitize_html
from ..core.text.language import language_of

ImageLookup = Callable[[str], "tuple[bytes, str] | None"]  # image URL -> (bytes, content type)


_CSS = ("body{font:17px/1.6 Georgia,serif;max-width:720px;margin:2em auto;padding:0 1em;color:#222}"
        "h1{font:700 26px/1.25 sans-serif}.meta{color:#666;font:14px sans-serif}.summary{font-weight:600}"
        "img{max-width:100%;height:auto}article{margin-bottom:3em;border-bottom:1px solid #ddd;padding-bottom:2em}"
        "nav li{margin:.3em 0}")


def _rewrite_images(html: str, lead: str, resolve: Callable[[str], "str | None"], xhtml: bool) -> str:
    """Sanitised body (+ lead image) with each cached image's src resolved; others dropped."""
    body = sanitize_html(html)
    try:
        root = lxml.html.fragment_fromstring(body or "<p></p>", create_parent="div")
    except (etree.ParserError, ValueError):
        root = lxml.html.fragment_fromstring("<p></p>", create_parent="div")
    if lead and lead not in {img.get("src") for img in root.iter("img")}:
        fig = lxml.html.Element("figure")
        etree.SubElement(fig, "img", src=lead, alt="")
        root.insert(0, fig)
        if root.text:
            fig.tail, root.text = root.text, None
    for img in list(root.iter("img")):
        local = resolve(img.get("src") or "")
        if local:
            img.set("src", local)
            img.set("alt", img.get("alt") or "")
        else:
            img.drop_tree()
    for fig in list(root.iter("figure")):  # a figure whose image is not cached is left empty: not shown at all
        if fig.find(".//img") is None and not "".join(fig.itertext()).strip():
            fig.drop_tree()
    for a in root.iter("a"):
        for attr in ("rel",):
            a.attrib.pop(attr, None)
    if xhtml:
        return (escape(root.text) if root.text else "") + "".join(
            etree.tostring(child, encoding="unicode", method="xml") for child in root)
    return (escape(root.text) if root.text else "") + "".join(
        lxml.html.tostring(child, encoding="unicode") for child in root)


def _meta_line(a: dict) -> str:
    parts = [escape(x) for x in (a.get("profile"), a.get("author"), (a.get("date") or "")[:16].replace("T", " "),
                                  a.get("category")) if x]
    return " · ".join(parts)


def _languages(articles) -> tuple[list[str], str]:
    """Each article's language ("" = not plain) and the book's: the one every plain article shares, else
    "und" (undetermined): a reader then picks fonts and hyphenation per article, never by a wrong tag."""
    each = [language_of(" ".join(filter(None, (a.get("title"), a.get("body_text"))))) for a in articles]
    known = set(filter(None, each))
    return each, known.pop() if len(known) == 1 else "und"


def _lang(code: str, xhtml: bool) -> str:
    return (f' xml:lang="{code}" lang="{code}"' if xhtml else f' lang="{code}"') if code else ""


def write_html(articles, path: Path, title: str, lookup: ImageLookup) -> None:
    def resolve(url: str) -> str | None:
        got = lookup(url) if url else None
        if not got:
            return None
        data, ctype = got
        return f"data:{ctype or 'image/png'};base64,{base64.b64encode(data).decode('ascii')}"

    each, book = _languages(articles)
    parts = [f"<!DOCTYPE html>\n<html lang=\"{book}\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1><nav><ol>"]
    parts += [f'<li><a href="#a{i}">{escape(a.get("title") or "")}</a></li>' for i, a in enumerate(articles)]
    parts.append("</ol></nav>")
    for i, a in enumerate(articles):
        parts.append(
            f'<article id="a{i}"{_lang(each[i], False)}><h1>{escape(a.get("title") or "")}</h1><p class="meta">{_meta_line(a)}</p>'
            + (f'<p class="summary">{escape(a["summary"])}</p>' if a.get("summary") else "")
            + _rewrite_images(a.get("body_html") or "", a.get("image") or "", resolve, xhtml=False)
            + f'<p class="meta">Source: <a href="{escape(a.get("url") or "")}">{escape(a.get("url") or "")}</a></p>'
            "</article>")
    parts.append("</body></html>\n")
    path.write_text("".join(parts), encoding="utf-8")


_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg"}


def write_epub(articles, path: Path, title: str, lookup: ImageLookup) -> None:
    book_id = f"urn:uuid:{uuid.uuid4()}"
    images: dict[str, tuple[str, bytes, str]] = {}  # url -> (file name, bytes, type)

    def resolve(url: str) -> str | None:
        if url in images:
            return images[url][0]
        got = lookup(url) if url else None
        if not got or (got[1] or "").split(";")[0] not in _EXT:  # EPUB core media types only
            return None
        data, ctype = got
        ctype = ctype.split(";")[0]
        name = f"images/img{len(images) + 1}.{_EXT[ctype]}"
        images[url] = (name, data, ctype)
        return name

    each, book = _languages(articles)
    chapters = []
    for i, a in enumerate(articles, 1):
        body = _rewrite_images(a.get("body_html") or "", a.get("image") or "", resolve, xhtml=True)
        chapters.append((f"a{i}.xhtml", a.get("title") or f"Article {i}", _xhtml(
            a.get("title") or "", each[i - 1] or book,
            f'<h1>{escape(a.get("title") or "")}</h1><p class="meta">{_meta_line(a)}</p>'
            + (f'<p class="summary">{escape(a["summary"])}</p>' if a.get("summary") else "")
            + body + f'<p class="meta">Source: {escape(a.get("url") or "")}</p>')))

    nav = _xhtml(title, book, "<nav epub:type=\"toc\" id=\"toc\"><h1>" + escape(title) + "</h1><ol>"
                 + "".join(f'<li><a href="{name}">{escape(t)}</a></li>' for name, t, _ in chapters)
                 + "</ol></nav>")
    modified = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    manifest = ['<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
                '<item id="css" href="style.css" media-type="text/css"/>']
    manifest += [f'<item id="c{i}" href="{name}" media-type="application/xhtml+xml"/>'
                 for i, (name, _, _) in enumerate(chapters, 1)]
    manifest += [f'<item id="i{i}" href="{name}" media-type="{ctype}"/>'
                 for i, (name, _, ctype) in enumerate(images.values(), 1)]
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(1, len(chapters) + 1))
    opf = ('<?xml version="1.0" encoding="utf-8"?>\n'
           '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid" '
           f'xml:lang="{book}">'
           '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="bookid">{book_id}</dc:identifier><dc:title>{escape(title)}</dc:title>'
           f'<dc:language>{book}</dc:language><dc:creator>XNews</dc:creator>'
           f'<meta property="dcterms:modified">{modified}</meta></metadata>'
           f'<manifest>{"".join(manifest)}</manifest><spine>{spine}</spine></package>')
    container = ('<?xml version="1.0" encoding="utf-8"?>\n'
                 '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                 '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                 '</rootfiles></container>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", container, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/nav.xhtml", nav, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/style.css", _CSS, compress_type=zipfile.ZIP_DEFLATED)
        for name, _, text in chapters:
            z.writestr(f"OEBPS/{name}", text, compress_type=zipfile.ZIP_DEFLATED)
        for name, data, _ in images.values():
            z.writestr(f"OEBPS/{name}", data, compress_type=zipfile.ZIP_STORED)


def _xhtml(title: str, lang: str, body: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
            f'{_lang(lang, True)}>'
            f'<head><meta charset="utf-8"/><title>{escape(title)}</title>'
            '<link rel="stylesheet" type="text/css" href="style.css"/></head>'
            f"<body>{body}</body></html>")
