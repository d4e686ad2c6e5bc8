"""The legacy xnews.conf format: import gives markers rules that really extract; round trip; errors."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import shared_data
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.text.urls import absolute
from xnews_gui.core.profile.xnews_conf import ConfError, parse_conf, to_conf

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "tests" / "data" / "xnews.conf"
VN_DIR = ("fundus-parser-test-data", "test_data", "vn")
VN_URL = "https://vnexpress.net/dau-bung-keo-dai-phat-hien-ung-thu-lymphoma-ruot-non-4954454.html"


def _vn_page() -> tuple[bytes, dict]:
    page = shared_data(*VN_DIR, "VnExpress_2025_10_22.html.gz")
    truth = json.loads(shared_data(*VN_DIR, "VnExpress.json").read_text(encoding="utf-8"))["V1"]
    return gzip.decompress(page.read_bytes()), truth


def _f1(a: str, b: str) -> float:
    ta, tb = Counter(re.findall(r"\w+", a.lower())), Counter(re.findall(r"\w+", b.lower()))
    common = sum((ta & tb).values())
    if not common:
        return 0.0
    p, r = common / sum(ta.values()), common / sum(tb.values())
    return 2 * p * r / (p + r)


@pytest.fixture(scope="module")
def profiles() -> list[Profile]:
    return parse_conf(CONF.read_text(encoding="utf-8"))


def test_import_gives_markers_profiles(profiles):
    assert [p.name for p in profiles] == ["vnexpress.net", "dantri.com.vn", "vnexpress.net-2"]
    for p in profiles:
        assert p.fields["body"].kind == "markers" and p.fields["body"].required
        assert p.fields["title"].kind == "markers" and p.fields["title"].required
        assert {p.fields[n].kind for n in ("summary", "author")} == {"markers"}
        # every imported profile is a valid profile (JSON round trip through the validator)
        assert Profile.from_json(p.to_json()) == p
    vn = profiles[0]
    assert vn.start_urls == ("https://vnexpress.net/",)
    assert vn.allowed_domains == ("vnexpress.net",)
    assert vn.fields["body"].start == ('<article class="fck_detail',)
    assert vn.fields["body"].end == ('<p class="Normal" style="text-align:right;">', "</article>")
    # a lone start fragment (dantri's author) ends at its own tag's close
    assert profiles[1].fields["author"].end == ("</div>",)


def test_imported_markers_really_extract_the_vnexpress_page(profiles):
    html, truth = _vn_page()
    article = extract(html, VN_URL, profiles[0])
    assert article.ok, article.errors
    assert article.title == truth["title"]
    assert article.summary == truth["body"]["summary"][0]
    assert article.author == truth["authors"][0]
    paragraphs = [p for s in truth["body"]["sections"] for p in s["paragraphs"]]
    assert _f1(article.body_text, "\n".join(paragraphs)) >= 0.97
    # the body starts with the first paragraph and stops before the author line
    assert article.body_text.startswith(paragraphs[0][:40])
    assert truth["authors"][0] not in article.body_text
    # the lazy-loaded inline image is kept, absolute, between paragraphs 2 and 3
    expected = {v["url"].split("?")[0] for v in truth["images"][0]["versions"]}
    assert [u.split("?")[0] for u in article.images] == sorted(expected)[:1]
    body = article.body_html
    assert body.index(paragraphs[1][:30]) < body.index("<img") < body.index(paragraphs[3][:30])
    assert "<script" not in body and "data:image" not in body


LIST_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>VnExpress</title></head><body>
<nav><a href="/suc-khoe">Sức khỏe</a> <a href="https://vnexpress.net/the-thao">Thể thao</a></nav>
<article class="item-news"><h3 class="title-news"><a href="https://vnexpress.net/bai-mot-4954001.html">Bài một</a></h3>
  <p class="description"><a href="https://vnexpress.net/bai-mot-4954001.html">Tóm tắt</a></p></article>
<article class="item-news"><h3 class="title-news"><a href="/bai-hai-4954002.html">Bài hai</a></h3></article>
<article class="item-news"><h2 class="title-news"><a href="https://vnexpress.net/bai-ba-4954003.html">Bài ba</a></h2></article>
<article class="item-news"><h3 class="title-news"><a href="https://quangcao.example.com/km-1.html">Quảng cáo</a></h3></article>
<div class="sidebar"><a class="title-news-other" href="https://vnexpress.net/khac-4954999.html">Khác</a></div>
</body></html>"""


def _article_links(profile: Profile, html: str, base: str) -> list[str]:
    rule = profile.articles
    links = []
    for href in rule.as_rule().apply(html, base):
        url = absolute(base, href)
        if rule.accepts(url) and url not in links:
            links.append(url)
    return links


def test_imported_link_markers_find_article_links(profiles):
    links = _article_links(profiles[0], LIST_PAGE, "https://vnexpress.net/")
    assert links == [
        "https://vnexpress.net/bai-mot-4954001.html",
        "https://vnexpress.net/bai-hai-4954002.html",
        "https://vnexpress.net/bai-ba-4954003.html",
    ]


def test_url_only_link_marker_and_class_with_spaces(profiles):
    page = """<html><body><div class="folder-topnews fl"><a href="/GL/Kinh-doanh/2010/05/3BA1.html">A</a></div>
    <a class="link-topnews" href="http://vnexpress.net/GL/Xa-hoi/2010/05/3BA2.html">B</a>
    <a class="link-topnews" href="http://other.example.org/GL/x.html">C</a>
    <a href="http://vnexpress.net/GL/Home/">home (no marker)</a></body></html>"""
    links = _article_links(profiles[2], page, "http://vnexpress.net/GL/Home/")
    assert links == ["http://vnexpress.net/GL/Kinh-doanh/2010/05/3BA1.html",
                     "http://vnexpress.net/GL/Xa-hoi/2010/05/3BA2.html"]


def test_round_trip_parse_export_parse(profiles):
    text, skipped = to_conf(profiles)
    assert skipped == []
    again = parse_conf(text)
    assert again == profiles
    assert to_conf(again)[0] == text
    assert text.splitlines()[0] == "3"


def test_round_trip_keeps_a_marker_with_an_apostrophe():
    conf = "1\nhttps://example.vn/\n~data-kind=\"tin's\"~\n~<div class=\"body\">~\n~</div>~\n~<h1>~\n\n\n"
    first = parse_conf(conf)
    assert parse_conf(to_conf(first)[0]) == first


def test_export_skips_css_profiles_with_a_reason():
    demo = Profile.from_json((REPO / "profiles" / "demo.json").read_text(encoding="utf-8"))
    text, skipped = to_conf([demo])
    assert text == "" and skipped and "demo" in skipped[0]


@pytest.mark.parametrize("text, message", [
    ("3\n" + CONF.read_text(encoding="utf-8").split("\n", 1)[1].split("\n\n")[0] + "\n",
     r"announces 3 source\(s\).*only"),
    ("2\nhttps://a.vn/\n~class=\"t\"~\n~<div>~\n~</div>~\n~<h1>~</h1>~\n\n~x~\nhttps://b.vn/\n\n\n\n\n\n\n\n",
     r"line 9: expected a blank line after source 1"),
    ("1\nvnexpress.net\n~class=\"t\"~\n~<div>~\n~</div>~\n~<h1>~</h1>~\n\n\n\n", r"source 1 \(line 2\): the seed must be an http\(s\) URL"),
    ("one\nhttps://a.vn/\n", r"line 1: expected the number of sources"),
    ("", r"line 1: expected the number of sources"),
    ("1\nhttps://a.vn/\n~notamarker~\n~<div>~\n~</div>~\n~<h1>~\n\n\n\n", r"source 1.*neither a URL nor an attribute"),
    ("1\nhttps://a.vn/\n\x00\x01\x02\n\n\n\n\n\n\n", r"binary"),
])
def test_errors_are_clear(text, message):
    with pytest.raises(ConfError, match=message):
        parse_conf(text)


def _cli(tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "main.py"), "--data-dir", str(tmp_path / "home"), *args],
                          capture_output=True, text=True, timeout=60, cwd=REPO)


def test_cli_imports_and_exports(tmp_path):
    done = _cli(tmp_path, "import-conf", str(CONF))
    assert done.returncode == 0, done.stderr
    assert "vnexpress.net" in done.stdout and "dantri.com.vn" in done.stdout and "replaces" not in done.stdout
    again = _cli(tmp_path, "import-conf", str(CONF))  # the same names again: it says what it replaced
    assert again.returncode == 0 and again.stdout.count("; it replaces the stored one, kept in `profiles history") == 3
    out = tmp_path / "out.conf"
    done = _cli(tmp_path, "export-conf", "vnexpress.net", "dantri.com.vn", "vnexpress.net-2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert parse_conf(out.read_text(encoding="utf-8")) == parse_conf(CONF.read_text(encoding="utf-8"))


@pytest.mark.parametrize("kind", ["binary", "folder", "missing", "bad-count"])
def test_cli_bad_conf_exits_2_with_one_line(tmp_path, kind):
    path = tmp_path / "x.conf"
    if kind == "binary":
        path.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
        expect = "binary"
    elif kind == "folder":
        path.mkdir()
        expect = "folder"
    elif kind == "missing":
        expect = "not found"
    else:
        path.write_text("2\nhttps://a.vn/\n~class=\"t\"~\n", encoding="utf-8")
        expect = "announces 2 source"
    done = _cli(tmp_path, "import-conf", str(path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and expect in lines[0], done.stderr
    assert "Traceback" not in done.stderr
