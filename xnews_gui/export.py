"""Export stored articles (repo.article_dict dicts) for reading or processing elsewhere. Qt-free.

    export_articles(articles, "epub", Path("news.epub"), store)

jsonl / csv  data, one article per line / row (bodies as text and sanitised HTML)
rss / atom   a feed file with the full sanitised body as content
html         one standalone file, images embedded as data: URIs
epub         an EPUB 3 book, one chapter per article, images inside
Images come from the local cache (the store's image index and folder); an image
that is not cached is left out rather than fetched.

Topics are named as the app shows them, with their accents ("Văn hóa"). Exported text is untrusted
page text: control characters are dropped (the XML
formats stay valid XML) and CSV cells that a spreadsheet would run as a formula
(starting with = + - @ TAB CR) are quoted, as OWASP advises. A file is written
only to a regular file, through ``<name>.part``, every write and the final flush
checked; a ``.part`` left by a killed export is removed by the next one.
"""

from __future__ import annotations

import base64
import csv
import json
import os
import stat
import uuid
import zipfile
from datetime import datetime, timezone
from email.utils import format_datetime
from html import escape
from pathlib import Path
from typing import Callable
from xml.etree import ElementTree as ET

import lxml.html
from lxml import etree

from .core.extraction.sanitize import sanitize_html
from .core.text.text import strip_control_chars
from .core.text.topics import display_name

FORMATS = {
    "jsonl": "JSON Lines (*.jsonl)",
    "csv": "CSV (*.csv)",
    "rss": "RSS 2.0 feed (*.xml *.rss)",
    "atom": "Atom feed (*.atom *.xml)",
    "html": "Standalone HTML (*.html)",
    "epub": "EPUB book (*.epub)",
}
CSV_COLUMNS = ["id", "profile", "url", "title", "summary", "image", "author", "date", "fetched_at",
               "category", "confidence", "read", "starred", "body_text", "updated_at", "gone_at"]
ImageLookup = Callable[[str], "tuple[bytes, str] | None"]  # image URL -> (bytes, content type)


class ExportError(RuntimeError):
    pass


def export_articles(articles: list[dict], fmt: str, out: Path, store=None,
                    *, title: str = "XNews export", image_lookup: ImageLookup | None = None,
                    feed_id: str = "") -> Path:
    """Write ``articles`` to ``out`` in ``fmt`` (one of FORMATS); returns the path written. ``feed_id``: an
    Atom feed's id, for a feed written again and again (a watch's: readers know it as one feed)."""
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out} is a folder: give the name of the file to write")
    if not out.parent.is_dir():
        raise ExportError(f"cannot write {out}: the folder {out.parent} does not exist")
    tmp = out.with_name(out.name + ".part")
    for path in (out, tmp):
        _only_regular(path)
    try:
        tmp.unlink(missing_ok=True)  # left by an export that was killed
    except OSError as exc:
        raise ExportError(f"cannot write {out}: {exc.strerror or exc}") from None
    if image_lookup is None:
        image_lookup = cached_image_lookup(store) if store is not None else (lambda _url: None)
    articles = [clean_article(a) for a in articles]
    try:
        if fmt == "jsonl":
            _jsonl(articles, tmp)
        elif fmt == "csv":
            _csv(articles, tmp)
        elif fmt == "rss":
            _rss(articles, tmp, title)
        elif fmt == "atom":
            _atom(articles, tmp, title, feed_id)
        elif fmt == "html":
            _html(articles, tmp, title, image_lookup)
        else:
            _epub(articles, tmp, title, image_lookup)
        _sync(tmp)
        _only_regular(out)  # still: it may have been replaced while we wrote
        tmp.replace(out)
    except OSError as exc:
        raise ExportError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return out


def _only_regular(path: Path) -> None:
    """Refuse a target that exists and is not a regular file: a device, a pipe, a socket."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise ExportError(f"cannot write {path}: it is not a regular file (a device, a pipe or a socket); "
                          "exports are written to regular files only")


def _sync(path: Path) -> None:
    """Flush the written file to the disk: a full disk or a quota shows up here, not after the rename."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def clean_article(a: dict) -> dict:
    """The article as exported: control characters dropped from every text value, and its topic named as
    the app shows it ("Văn hóa", not the classifier's label "Van hoa")."""
    out = {k: strip_control_chars(v) if isinstance(v, str) else v for k, v in a.items()}
    if out.get("category"):
        out["category"] = display_name(out["category"])
    return out


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


CSV_CELL_LIMIT = 32_767  # characters a spreadsheet cell holds (Excel, LibreOffice)


def csv_cell(value):
    """A cell a spreadsheet shows as text: one starting like a formula gets a leading apostrophe (OWASP);
    one longer than a cell holds is cut where it says so (the JSON-lines export keeps the whole text)."""
    if not isinstance(value, str):
        return value
    if value.startswith(_FORMULA_START):
        value = "'" + value
    if len(value) > CSV_CELL_LIMIT:
        note = f" […cut: {len(value):,} characters; the JSON-lines export has them all]"
        value = value[: CSV_CELL_LIMIT - len(note)] + note
    return value


def cached_image_lookup(store) -> ImageLookup:
    """Images from a ``Store``'s cache (its index and images folder)."""
    from .paths import image_file

    def lookup(url: str):
        rec = store.image_record(url)
        if rec is None or not rec.sha256 or rec.error:
            return None
        try:
            return image_file(store.images_root, rec.sha256, rec.content_type).read_bytes(), rec.content_type
        except OSError:
            return None

    return lookup


# --- data -------------------------------------------------------------------------------
def write_jsonl(articles, stream) -> None:
    for a in articles:
        stream.write(json.dumps(clean_article(a), ensure_ascii=False, default=str) + "\n")


def write_csv(articles, stream) -> None:
    writer = csv.DictWriter(stream, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for a in articles:
        a = clean_article(a)
        writer.writerow({k: csv_cell(a.get(k, "")) for k in CSV_COLUMNS})


def _jsonl(articles, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        write_jsonl(articles, f)


def _csv(articles, path: Path) -> None:
    with open(path, "w", encoding="utf-8-sig", newline="") as f:  # BOM: spreadsheets read the diacritics right
        write_csv(articles, f)


# --- feeds ------------------------------------------------------------------------------
def _when(a: dict) -> datetime:
    for key in ("date", "fetched_at"):
        value = a.get(key) or ""
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            continue
        return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    return datetime.now(timezone.utc)


def _updated(a: dict) -> datetime:
    """When the article last changed: the changed version's storing time, else its date."""
    if a.get("updated_at"):
        try:
            when = datetime.fromisoformat(str(a["updated_at"]).replace("Z", "+00:00"))
            return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    return _when(a)


def _rss(articles, path: Path, title: str) -> None:
    rss = ET.Element("rss", version="2.0", attrib={"xmlns:content": "http://purl.org/rss/1.0/modules/content/",
                                                   "xmlns:atom": "http://www.w3.org/2005/Atom"})
    channel = ET.SubElement(rss, "channel")
    ET.SubElement(channel, "title").text = title
    ET.SubElement(channel, "link").text = "https://github.com/xnews"
    ET.SubElement(channel, "description").text = f"{len(articles)} articles exported from XNews"
    ET.SubElement(channel, "lastBuildDate").text = format_datetime(datetime.now(timezone.utc))
    for a in articles:
        item = ET.SubElement(channel, "item")
        ET.SubElement(item, "title").text = a.get("title") or ""
        ET.SubElement(item, "link").text = a.get("url") or ""
        ET.SubElement(item, "guid", isPermaLink="true").text = a.get("url") or ""
        ET.SubElement(item, "pubDate").text = format_datetime(_when(a))
        if a.get("updated_at"):  # RSS 2.0 has no element for it: Atom's, as feeds usually carry it
            ET.SubElement(item, "atom:updated").text = _updated(a).isoformat(timespec="seconds")
        if a.get("author"):
            ET.SubElement(item, "dc_creator").text = a["author"]
        if a.get("category"):
            ET.SubElement(item, "category").text = a["category"]
        ET.SubElement(item, "description").text = a.get("summary") or ""
        ET.SubElement(item, "content:encoded").text = sanitize_html(a.get("body_html") or "")
    for item in rss.iter("dc_creator"):  # RSS has no author name element; use the usual Dublin Core one
        item.tag = "dc:creator"
    rss.set("xmlns:dc", "http://purl.org/dc/elements/1.1/")
    ET.ElementTree(rss).write(path, encoding="utf-8", xml_declaration=True)


def _atom(articles, path: Path, title: str, feed_id: str = "") -> None:
    ns = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", ns)
    feed = ET.Element(f"{{{ns}}}feed")
    ET.SubElement(feed, f"{{{ns}}}title").text = title
    ET.SubElement(feed, f"{{{ns}}}id").text = feed_id or f"urn:uuid:{uuid.uuid4()}"
    ET.SubElement(feed, f"{{{ns}}}updated").text = datetime.now(timezone.utc).isoformat(timespec="seconds")
    author = ET.SubElement(feed, f"{{{ns}}}author")
    ET.SubElement(author, f"{{{ns}}}name").text = "XNews"
    for a in articles:
        entry = ET.SubElement(feed, f"{{{ns}}}entry")
        ET.SubElement(entry, f"{{{ns}}}title").text = a.get("title") or ""
        ET.SubElement(entry, f"{{{ns}}}id").text = a.get("url") or f"urn:xnews:{a.get('id')}"
        ET.SubElement(entry, f"{{{ns}}}link", href=a.get("url") or "")
        ET.SubElement(entry, f"{{{ns}}}updated").text = _updated(a).isoformat(timespec="seconds")
        ET.SubElement(entry, f"{{{ns}}}published").text = _when(a).isoformat(timespec="seconds")
        if a.get("author"):
            ET.SubElement(ET.SubElement(entry, f"{{{ns}}}author"), f"{{{ns}}}name").text = a["author"]
        if a.get("category"):
            ET.SubElement(entry, f"{{{ns}}}category", term=a["category"])
        if a.get("summary"):
            ET.SubElement(entry, f"{{{ns}}}summary").text = a["summary"]
        ET.SubElement(entry, f"{{{ns}}}content", type="html").text = sanitize_html(a.get("body_html") or "")
    ET.ElementTree(feed).write(path, encoding="utf-8", xml_declaration=True)


# --- reading bundles ----------------------------------------------------------------------
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
        fig = etree.Element("figure")
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


def _html(articles, path: Path, title: str, lookup: ImageLookup) -> None:
    def resolve(url: str) -> str | None:
        got = lookup(url) if url else None
        if not got:
            return None
        data, ctype = got
        return f"data:{ctype or 'image/png'};base64,{base64.b64encode(data).decode('ascii')}"

    parts = [f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1><nav><ol>"]
    parts += [f'<li><a href="#a{i}">{escape(a.get("title") or "")}</a></li>' for i, a in enumerate(articles)]
    parts.append("</ol></nav>")
    for i, a in enumerate(articles):
        parts.append(
            f'<article id="a{i}"><h1>{escape(a.get("title") or "")}</h1><p class="meta">{_meta_line(a)}</p>'
            + (f'<p class="summary">{escape(a["summary"])}</p>' if a.get("summary") else "")
            + _rewrite_images(a.get("body_html") or "", a.get("image") or "", resolve, xhtml=False)
            + f'<p class="meta">Source: <a href="{escape(a.get("url") or "")}">{escape(a.get("url") or "")}</a></p>'
            "</article>")
    parts.append("</body></html>\n")
    path.write_text("".join(parts), encoding="utf-8")


_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg"}


def _epub(articles, path: Path, title: str, lookup: ImageLookup) -> None:
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

    chapters = []
    for i, a in enumerate(articles, 1):
        body = _rewrite_images(a.get("body_html") or "", a.get("image") or "", resolve, xhtml=True)
        chapters.append((f"a{i}.xhtml", a.get("title") or f"Article {i}", _xhtml(
            a.get("title") or "",
            f'<h1>{escape(a.get("title") or "")}</h1><p class="meta">{_meta_line(a)}</p>'
            + (f'<p class="summary">{escape(a["summary"])}</p>' if a.get("summary") else "")
            + body + f'<p class="meta">Source: {escape(a.get("url") or "")}</p>')))

    nav = _xhtml(title, "<nav epub:type=\"toc\" id=\"toc\"><h1>" + escape(title) + "</h1><ol>"
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
           '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid" xml:lang="vi">'
           '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="bookid">{book_id}</dc:identifier><dc:title>{escape(title)}</dc:title>'
           f'<dc:language>vi</dc:language><dc:creator>XNews</dc:creator>'
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


def _xhtml(title: str, body: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="vi">'
            f'<head><meta charset="utf-8"/><title>{escape(title)}</title>'
            '<link rel="stylesheet" type="text/css" href="style.css"/></head>'
            f"<body>{body}</body></html>")
