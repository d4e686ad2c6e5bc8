"""Exporters: every format parses back, images travel inside HTML and EPUB, nothing is fetched."""

from __future__ import annotations

import csv
import json
import zipfile
from xml.etree import ElementTree as ET

import lxml.etree
import lxml.html
import pytest

from xnews_gui.demo.site import make_png
from xnews_gui.export import FORMATS, ExportError, export_articles

PNG = make_png("export")
ARTICLES = [
    {"id": 1, "profile": "demo", "url": "http://news.test/a-1.htm", "title": "Hà Nội <mưa> & gió",
     "summary": "Tóm tắt", "image": "http://news.test/lead.png", "author": "Quốc Bảo",
     "date": "2026-11-28T14:55:00+07:00", "fetched_at": "2026-11-28T08:00:00", "category": "Thời sự",
     "confidence": 0.8, "body_text": "Đoạn một", "read": False, "starred": True,
     "body_html": '<p>Đoạn một<br>tiếp</p><script>alert(1)</script><img src="http://news.test/in.png" onerror="x()">'
                  '<img src="http://news.test/not-cached.png"><p>a &amp; b</p>'},
    {"id": 2, "profile": "demo", "url": "http://news.test/b-2.htm", "title": "Second", "summary": "",
     "image": "", "author": "", "date": "", "fetched_at": "2026-11-29T08:00:00", "category": None,
     "confidence": None, "body_text": "x", "body_html": "plain text body", "read": True, "starred": False},
]


def lookup(url):
    return (PNG, "image/png") if url in ("http://news.test/lead.png", "http://news.test/in.png") else None


def export(tmp_path, fmt, name=None):
    return export_articles(ARTICLES, fmt, tmp_path / (name or f"out.{fmt}"), image_lookup=lookup)


def test_jsonl_and_csv(tmp_path):
    lines = export(tmp_path, "jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["title"] for x in lines] == ["Hà Nội <mưa> & gió", "Second"]
    rows = list(csv.DictReader(export(tmp_path, "csv").open(encoding="utf-8-sig")))
    assert rows[0]["author"] == "Quốc Bảo" and rows[1]["url"] == "http://news.test/b-2.htm"


def test_rss_and_atom_parse(tmp_path):
    rss = ET.parse(export(tmp_path, "rss")).getroot()
    items = rss.findall("channel/item")
    assert rss.tag == "rss" and len(items) == 2
    assert items[0].findtext("title") == "Hà Nội <mưa> & gió"
    content = items[0].findtext("{http://purl.org/rss/1.0/modules/content/}encoded")
    assert "Đoạn một" in content and "<script" not in content and "onerror" not in content
    assert items[0].findtext("{http://purl.org/dc/elements/1.1/}creator") == "Quốc Bảo"
    atom = ET.parse(export(tmp_path, "atom")).getroot()
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = atom.findall("a:entry", ns)
    assert len(entries) == 2 and entries[0].find("a:link", ns).get("href") == "http://news.test/a-1.htm"


def test_standalone_html_embeds_cached_images_only(tmp_path):
    html = export(tmp_path, "html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 2  # lead + inline; the uncached one is dropped
    assert "http://news.test/not-cached.png" not in html and "<script" not in html
    assert "Hà Nội &lt;mưa&gt; &amp; gió" in html


def test_epub_is_a_valid_zip_book(tmp_path):
    path = export(tmp_path, "epub")
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        assert infos[0].filename == "mimetype" and infos[0].compress_type == zipfile.ZIP_STORED
        assert z.read("mimetype") == b"application/epub+zip"
        container = ET.fromstring(z.read("META-INF/container.xml"))
        opf_path = container.find(".//{urn:oasis:names:tc:opendocument:xmlns:container}rootfile").get("full-path")
        opf = ET.fromstring(z.read(opf_path))
        ns = {"o": "http://www.idpf.org/2007/opf"}
        hrefs = [i.get("href") for i in opf.findall("o:manifest/o:item", ns)]
        for href in hrefs:  # everything in the manifest is in the zip, every XHTML file is well-formed XML
            data = z.read(f"OEBPS/{href}")
            if href.endswith(".xhtml"):
                lxml.etree.fromstring(data)
        assert sum(h.startswith("images/") for h in hrefs) == 2
        assert len(opf.findall("o:spine/o:itemref", ns)) == 2
        chapter = z.read("OEBPS/a1.xhtml").decode()
        assert 'src="images/img' in chapter and "<script" not in chapter


def test_a_lead_image_that_is_not_cached_leaves_no_empty_figure(tmp_path):
    article = dict(ARTICLES[0], image="http://news.test/lead-not-cached.png")
    path = export_articles([article], "epub", tmp_path / "b.epub", image_lookup=lookup)
    with zipfile.ZipFile(path) as z:
        chapter = z.read("OEBPS/a1.xhtml").decode()
    assert "<figure" not in chapter and 'src="images/img' in chapter  # the inline image that is cached stays
    html = export_articles([article], "html", tmp_path / "b.html", image_lookup=lookup).read_text(encoding="utf-8")
    assert "<figure" not in html


def test_unknown_format(tmp_path):
    with pytest.raises(ExportError):
        export(tmp_path, "docx")
    assert set(FORMATS) == {"jsonl", "csv", "rss", "atom", "html", "epub"}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_names_the_topic_with_its_accents(tmp_path, fmt):
    """The classifier's label "Van hoa" is exported as the app shows it: "Văn hóa" (a topic of the user's own
    stays as typed)."""
    articles = [dict(ARTICLES[1], id=7, category="Van hoa"), dict(ARTICLES[1], id=8, category="Ẩm thực")]
    out = export_articles(articles, fmt, tmp_path / f"topics.{fmt}", image_lookup=lookup)
    raw = out.read_bytes()
    text = raw.decode("utf-8-sig") if fmt != "epub" else "".join(
        zipfile.ZipFile(out).read(n).decode("utf-8") for n in zipfile.ZipFile(out).namelist() if n.endswith("xhtml"))
    assert "Văn hóa" in text and "Ẩm thực" in text and "Van hoa" not in text
    if fmt == "csv":
        assert [r["category"] for r in csv.DictReader(out.open(encoding="utf-8-sig"))] == ["Văn hóa", "Ẩm thực"]


ENGLISH = dict(ARTICLES[1], id=3, title="Council approves the new budget",
               body_text="The city council said on Monday that it has approved the budget for the coming year, "
                         "which will fund new schools and repairs to the roads that were damaged by the floods.")
JAPANESE = dict(ARTICLES[1], id=4, title="新しい経済対策", body_text="日本の首相は十三日、東京で記者会見を開き、新しい経済対策を発表した。" * 3)
VIETNAMESE = dict(ARTICLES[0], body_text="Sáng nay, Hà Nội có mưa lớn khiến nhiều tuyến phố ngập sâu, người dân "
                                         "phải dắt xe qua những đoạn đường bị ngập và giao thông ùn tắc kéo dài.")


def epub_languages(path) -> tuple[str, list[str]]:
    with zipfile.ZipFile(path) as z:
        opf = lxml.etree.fromstring(z.read("OEBPS/content.opf"))
        book = opf.findtext("{*}metadata/{http://purl.org/dc/elements/1.1/}language")
        chapters = sorted(n for n in z.namelist() if n.startswith("OEBPS/a"))
        return book, [lxml.etree.fromstring(z.read(n)).get("{http://www.w3.org/XML/1998/namespace}lang")
                      for n in chapters]


def test_an_e_book_says_the_language_its_articles_are_written_in(tmp_path):
    """Not Vietnamese for every book: a reader picks fonts (Han characters differ in Japanese and Chinese),
    hyphenation and a voice by it."""
    assert epub_languages(export_articles([ENGLISH, ENGLISH], "epub", tmp_path / "en.epub")) == ("en", ["en", "en"])
    assert epub_languages(export_articles([VIETNAMESE], "epub", tmp_path / "vi.epub")) == ("vi", ["vi"])
    mixed = export_articles([ENGLISH, JAPANESE], "epub", tmp_path / "mixed.epub")
    assert epub_languages(mixed) == ("und", ["en", "ja"])
    html = lxml.html.fromstring(export_articles([ENGLISH, JAPANESE], "html", tmp_path / "m.html").read_bytes())
    assert html.get("lang") == "und" and [a.get("lang") for a in html.iter("article")] == ["en", "ja"]
