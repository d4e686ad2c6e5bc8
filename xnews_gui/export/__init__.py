"""Export stored articles (repo.article_dict dicts) for reading or processing elsewhere. Qt-free.

    export_articles(articles, "epub", Path("news.epub"), store)

jsonl / csv  data, one article per line / row (bodies as text and sanitised HTML)
rss / atom   a feed file with the full sanitised body as content
html         one standalone file, images embedded as data: URIs  (these two: books.py)
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

import csv
import json
import os
import stat
import uuid
from datetime import datetime, timezone
from email.utils import format_datetime
from pathlib import Path
from typing import Callable
from xml.etree import ElementTree as ET

from ..core.extraction.sanitize import sanitize_html
from ..core.text.text import strip_control_chars
from ..core.text.topics import display_name
from .books import ImageLookup, write_epub, write_html

FORMATS = {
    "jsonl": "JSON Lines (*.jsonl)",
    "csv": "CSV (*.csv)",
    "rss": "RSS 2.0 feed (*.xml *.rss)",
    "atom": "Atom feed (*.atom *.xml)",
    "html": "Standalone HTML (*.html)",
    "epub": "EPUB book (*.epub)",
}
SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".rss": "rss", ".atom": "atom",
            ".html": "html", ".htm": "html", ".epub": "epub"}  # ".xml" is either feed: the format chosen says which
NAMES = {"jsonl": "JSON Lines", "csv": "CSV", "rss": "RSS", "atom": "Atom", "html": "HTML", "epub": "EPUB"}
CSV_COLUMNS = ["id", "profile", "url", "title", "summary", "image", "author", "date", "fetched_at",
               "category", "confidence", "read", "starred", "body_text", "updated_at", "gone_at"]


class ExportError(RuntimeError):
    pass


def format_for(out: Path, chosen: str | None = None) -> str | None:
    """The format a file name asks for: the one its suffix names (``.xml``: ``chosen`` when it is a feed,
    else RSS), else ``chosen``; None when neither says."""
    suffix = Path(out).suffix.lower()
    if suffix == ".xml":
        return chosen if chosen in ("rss", "atom") else "rss"
    return SUFFIXES.get(suffix, chosen)


def check_target(out) -> Path:
    """``out`` as a file an export may write, else ExportError saying why (a folder, a missing folder)."""
    out = Path(out)
    if out.is_dir():
        raise ExportError(f"{out} is a folder: give the name of the file to write")
    if not out.parent.is_dir():
        why = "is a file, not a folder" if out.parent.exists() else "does not exist"
        raise ExportError(f"cannot write {out}: {out.parent} {why}")
    return out


def export_articles(articles: list[dict], fmt: str, out: Path, store=None,
                    *, title: str = "XNews export", image_lookup: ImageLookup | None = None,
                    feed_id: str = "") -> Path:
    """Write ``articles`` to ``out`` in ``fmt`` (one of FORMATS); returns the path written. ``feed_id``: an
    Atom feed's id, for a feed written again and again (a watch's: readers know it as one feed)."""
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if image_lookup is None:
        image_lookup = cached_image_lookup(store) if store is not None else (lambda _url: None)
    articles = [clean_article(a) for a in articles]

    def write(tmp: Path) -> None:
        if fmt == "jsonl":
            _jsonl(articles, tmp)
        elif fmt == "csv":
            _csv(articles, tmp)
        elif fmt == "rss":
            _rss(articles, tmp, title)
        elif fmt == "atom":
            _atom(articles, tmp, title, feed_id)
        elif fmt == "html":
            write_html(articles, tmp, title, image_lookup)
        else:
            write_epub(articles, tmp, title, image_lookup)

    return write_through_part(out, write)


def write_text(out, text: str) -> Path:
    """A text file (a profile's JSON, an xnews.conf) written the way an export is (``write_through_part``)."""
    return write_through_part(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_through_part(out, write: Callable[[Path], None]) -> Path:
    """``write(tmp)`` into ``<out>.part``, flushed to the disk, then renamed to ``out``: only a regular file
    is written (a pipe would hang the writer, a device be overwritten), and a failed or killed write
    leaves ``out`` as it was. ExportError says why it could not be written."""
    out = check_target(out)
    if out.is_symlink():  # write through the link (a dotfile kept elsewhere), never replace the link itself
        out = check_target(Path(os.path.realpath(out)))
    tmp = out.with_name(out.name + ".part")
    for path in (out, tmp):
        _only_regular(path)
    try:
        tmp.unlink(missing_ok=True)  # left by an export that was killed
        write(tmp)
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
    from ..paths import image_file

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
