"""Vietnamese alphabetical order (store/collation.py): as ICU's Vietnamese collation (Qt's QCollator)
orders real headlines and words, and in the store's title sort."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCollator, QLocale

from tests.conftest import shared_data
from xnews_gui.classify import corpus
from xnews_gui.store.collation import topic_key, vi_key, vi_sorted
from xnews_gui.store.queries import ArticleFilter


def test_the_orders_a_reader_expects():
    assert vi_sorted(["Chính", "Các"]) == ["Các", "Chính"]  # a < h; byte order says otherwise
    assert vi_sorted(["Vũng Tàu", "Đà Nẵng", "Dân", "Em"]) == ["Dân", "Đà Nẵng", "Em", "Vũng Tàu"]
    assert vi_sorted(["ạn", "án", "ãn", "ản", "àn", "an"]) == ["an", "àn", "ản", "ãn", "án", "ạn"]  # the tones
    assert vi_sorted(["ư", "u", "ơ", "o", "ô", "â", "ă", "a"]) == ["a", "ă", "â", "o", "ô", "ơ", "u", "ư"]
    assert vi_sorted(["Hà Nội", "hà nội", "HÀ NỘI"]) == ["hà nội", "Hà Nội", "HÀ NỘI"]  # lower case first
    assert vi_sorted(["b", "9", "“Bão”", " a"]) == [" a", "“Bão”", "9", "b"]
    assert vi_key("Ho\u0300a") == vi_key("Hòa")  # decomposed text sorts as composed
    assert vi_sorted(["Vi tinh", "Doi song", "Chinh tri Xa hoi"], key=topic_key) == \
        ["Chinh tri Xa hoi", "Doi song", "Vi tinh"]
    assert vi_key(None) == vi_key("") == ""


def qt_vietnamese() -> QCollator:
    return QCollator(QLocale(QLocale.Language.Vietnamese, QLocale.Country.Vietnam))


def out_of_order(items: list[str], collator: QCollator) -> list[tuple[str, str]]:
    ordered = sorted(items, key=vi_key)
    return [(a, b) for a, b in zip(ordered, ordered[1:]) if collator.compare(a, b) > 0]


def test_real_headlines_and_words_sort_as_icu_sorts_them():
    docs = (corpus.load_folder(shared_data("vntc", "sample", "Train_Full"))
            + corpus.load_folder(shared_data("vntc", "sample", "Test_Full")))
    headlines = [d.text.split("\n")[0].strip() for d in docs]
    words = sorted({w for d in docs for w in d.text.split()})
    collator = qt_vietnamese()
    assert len(headlines) == 400 and len(words) > 5000
    assert out_of_order(headlines, collator) == []
    assert out_of_order(words, collator) == []
    assert sorted(words, key=vi_key) != sorted(words)  # the check can fail: byte order is not it


@pytest.mark.parametrize("column", ["title", "category"])
def test_the_store_sorts_titles_and_topics_in_vietnamese_order(store, column):

    Article = store.models.Article
    titles = ["Đà Nẵng mưa lớn", "Chính phủ họp", "Các trường khai giảng", "Vũng Tàu đón khách", "Dân hiến đất",
              "ăn Tết", "Ăn cơm", "Em bé"]
    labels = ["Doi song", "Chinh tri Xa hoi", "Ẩm thực", "An ninh", "Vi tinh", "Khoa hoc", "Kinh doanh", "Đô thị"]
    with store.writing():
        for i, (title, label) in enumerate(zip(titles, labels)):
            Article.create(profile="p", url=f"http://x.test/{i}", title=title, content_hash=str(i), category=label)
    keys, ids = store.ordered_columns(ArticleFilter(), column, descending=False)
    shown = [Article.get_by_id(i).title if column == "title" else Article.get_by_id(i).category for i in ids]
    expected = vi_sorted(titles) if column == "title" else vi_sorted(labels, key=topic_key)
    assert shown == expected
    assert keys == sorted(keys)  # the keys Python compares for live inserts are in the same order
    if column == "title":
        assert shown[:3] == ["Ăn cơm", "ăn Tết", "Các trường khai giảng"] and shown.index("Dân hiến đất") + 1 == \
            shown.index("Đà Nẵng mưa lớn")
