"""The language of an article's text, for the reader's and the e-book's fonts, hyphenation and voice: named
where its letters or its function words say it plainly, else "" (never another language's tag).

Judged against the language real pages declare (``<html lang>``) on every page of the fundus test data and of
readability's test pages, none of which the word lists were written from."""

from __future__ import annotations

import gzip
import json

import lxml.html
import pytest

from tests.conftest import shared_data
from xnews_gui.classify import corpus
from xnews_gui.core.text.language import language_of


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def fundus_pages():
    """(page file name, the language its <html> declares, its gold body text) for every fundus page."""
    for page in sorted(shared_data("fundus-parser-test-data", "test_data").glob("*/*.html.gz")):
        publisher = page.name.split("_")[0]
        gold = json.loads((page.parent / f"{publisher}.json").read_text(encoding="utf-8"))
        entry = gold.get(page.name[len(publisher) + 1:-len(".html.gz")]) or next(iter(gold.values()))
        root = lxml.html.fromstring(gzip.open(page).read())
        declared = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang") or ""
        yield page.name, declared.replace("_", "-").split("-")[0].lower(), " ".join(_strings(entry.get("body")))


def test_real_pages_get_the_language_they_declare_or_none():
    named, wrong = 0, []
    for name, declared, text in fundus_pages():
        if not declared:
            continue
        got = language_of(text)
        if got and got != declared:
            wrong.append((name, declared, got))
        named += bool(got) and got == declared
    assert wrong == []
    assert named >= 200  # of 250 pages that declare one; the rest: languages it does not name (da, no, lt...)


def test_a_page_that_declares_english_but_is_written_in_swahili_is_not_called_english():
    texts = {name: (declared, text) for name, declared, text in fundus_pages() if name.startswith("HabariLeo")}
    assert texts, "the Swahili page of the fundus data"
    for declared, text in texts.values():
        assert declared == "en" and language_of(text) == ""


def test_readability_pages():
    folder = shared_data("readability-test-pages", "test-pages")
    checked = 0
    for meta in sorted(folder.glob("*/expected-metadata.json")):
        declared = (json.loads(meta.read_text(encoding="utf-8")).get("lang") or "").split("-")[0].lower()
        if not declared:
            continue
        text = lxml.html.fromstring((meta.parent / "expected.html").read_bytes()).text_content()
        got = language_of(text)
        assert got in ("", declared), meta.parent.name
        checked += got == declared
    assert checked >= 60


def test_vietnamese_news_and_scripts():
    docs = corpus.load_folder(shared_data("vntc", "sample", "Test_Full"), limit_per_label=2)
    assert {language_of(d.text) for d in docs} == {"vi"}
    assert language_of("日本の首相は十三日、東京で記者会見を開き、新しい経済対策を発表した。" * 3) == "ja"
    assert language_of("서울시는 13일 새로운 교통 정책을 발표했다고 밝혔다. 시민들의 반응은 엇갈렸다." * 3) == "ko"
    assert language_of("国务院总理今天在北京主持召开会议，研究部署进一步扩大内需的政策措施。" * 3) == "zh"


@pytest.mark.parametrize("text", ["", "Breaking news", "12 345 678 " * 40, "Lorem ipsum dolor sit amet " * 20])
def test_too_little_or_nothing_plain_is_unknown(text):
    assert language_of(text) == ""
