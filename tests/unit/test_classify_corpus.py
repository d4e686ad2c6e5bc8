"""Training-set generation: reading files, archives to a cache, duplicates, train/test overlap."""

import tarfile
import unicodedata

import pytest

from xnews_gui.classify import corpus
from xnews_gui.classify.corpus import Doc


def write_corpus(root, files):
    for (topic, name), (content, encoding) in files.items():
        path = root / topic / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode(encoding))
    return root


def test_read_text_detects_utf16_bom_utf8_and_nfc(tmp_path):
    (tmp_path / "a.txt").write_bytes("Bóng đá\r\nthắng".encode("utf-16"))  # BOM + CRLF, like VNTC
    (tmp_path / "b.txt").write_bytes(unicodedata.normalize("NFD", "Hoà bình").encode("utf-8"))
    assert corpus.read_text(tmp_path / "a.txt") == "Bóng đá\nthắng"
    assert corpus.read_text(tmp_path / "b.txt") == "Hoà bình"


def test_load_folder_labels_by_folder_in_a_stable_order(tmp_path):
    write_corpus(tmp_path, {("The thao", "2.txt"): ("bóng đá", "utf-16"), ("The thao", "1.txt"): ("quần vợt", "utf-8"),
                            ("Kinh doanh", "1.txt"): ("cổ phiếu", "utf-16"), ("Kinh doanh", "empty.txt"): ("  ", "utf-8"),
                            ("Kinh doanh", "notes.md"): ("x", "utf-8")})
    docs = corpus.load_folder(tmp_path)
    assert [(d.label, d.text) for d in docs] == [("Kinh doanh", "cổ phiếu"), ("The thao", "quần vợt"),
                                                ("The thao", "bóng đá")]


def test_empty_or_missing_corpus_is_a_clear_error(tmp_path):
    with pytest.raises(corpus.CorpusError, match="no topic folders"):
        corpus.load_folder(tmp_path)
    with pytest.raises(corpus.CorpusError, match="no corpus"):
        corpus.resolve(tmp_path / "missing")


def test_archives_unpack_into_the_cache_once(tmp_path):
    src = write_corpus(tmp_path / "src" / "Train_Full", {("A", "1.txt"): ("một", "utf-16"),
                                                         ("B", "1.txt"): ("hai", "utf-16")})
    data = tmp_path / "data"
    data.mkdir()
    with tarfile.open(data / "Train_Full.tar.xz", "w:xz") as tar:
        tar.add(src, arcname="Train_Full")
    cache = tmp_path / "cache"
    train, test = corpus.find_splits(data, cache)
    assert test is None
    assert train.is_relative_to(cache) and train.name == "Train_Full"
    assert sorted(p.name for p in data.iterdir()) == ["Train_Full.tar.xz"]  # nothing written beside it
    assert [d.label for d in corpus.load_folder(train)] == ["A", "B"]
    (train / "A" / "1.txt").unlink()
    assert corpus.find_splits(data, cache)[0] == train  # not unpacked again
    assert not (train / "A" / "1.txt").exists()


def test_find_splits_on_folders(tmp_path):
    write_corpus(tmp_path / "Train_Full", {("A", "1.txt"): ("một", "utf-8")})
    write_corpus(tmp_path / "Test_Full", {("A", "1.txt"): ("hai", "utf-8")})
    assert corpus.find_splits(tmp_path) == (tmp_path / "Train_Full", tmp_path / "Test_Full")
    assert corpus.find_splits(tmp_path / "Train_Full") == (tmp_path / "Train_Full", None)


def test_dedup_and_overlap_use_whitespace_and_unicode_normalised_text():
    train = [Doc("Bóng  đá\nhôm nay", "T"), Doc("Bóng đá hôm nay", "T"), Doc("Cổ phiếu", "K")]
    test = [Doc(unicodedata.normalize("NFD", "Bóng đá hôm nay "), "T"), Doc("Giá vàng", "K"),
            Doc("Giá  vàng", "K"), Doc("Thời tiết", "X")]
    data = corpus.build(train, test)
    assert [d.text for d in data.train] == ["Bóng  đá\nhôm nay", "Cổ phiếu"]
    assert [d.text for d in data.test] == ["Giá vàng"]
    d = data.description
    assert (d["duplicates_removed_train"], d["duplicates_removed_test"], d["test_overlap_removed"]) == (1, 1, 1)
    assert d["test_labels_dropped"] == ["X"]  # a topic the model cannot know


def test_stratified_split_is_deterministic_and_keeps_every_label_in_train():
    docs = [Doc(f"doc {i}", "A") for i in range(10)] + [Doc("only", "B")]
    one = corpus.stratified_split(docs, 0.2, seed=5)
    two = corpus.stratified_split(docs, 0.2, seed=5)
    assert one == two
    train, test = one
    assert len(test) == 2 and {d.label for d in train} == {"A", "B"}
    assert not {d.text for d in train} & {d.text for d in test}
