"""Vietnamese normalisation and classifier tokens (xnews_gui.core.text.text)."""

import unicodedata

import pytest

from xnews_gui.core.text import text


@pytest.mark.parametrize("new_style, old_style", [
    ("hoà", "hòa"), ("thuý", "thúy"), ("khoẻ", "khỏe"), ("hoá", "hóa"), ("xoá", "xóa"), ("hoạ", "họa"),
    ("loà", "lòa"), ("toả", "tỏa"), ("qúy", "quý"),
])
def test_tone_mark_placement_folds_to_one_form(new_style, old_style):
    assert text.normalize(new_style) == old_style
    assert text.normalize(old_style) == old_style


@pytest.mark.parametrize("word", [
    "người", "thuở", "huỳnh", "khuỷu", "xoáy", "hoài", "hoàng", "toán", "thuyền", "giữ", "gì", "già",
    "quả", "quốc", "mưa", "cửa", "việt", "đội", "tuyển", "khuếch", "nguyễn", "giường", "ngoài", "yêu",
])
def test_correctly_placed_marks_are_left_alone(word):
    assert text.normalize(word) == word


def test_nfd_input_gives_nfc_output():
    for word in ["Hoà Bình", "Việt Nam", "Đà Nẵng", "thuý kiều"]:
        decomposed = unicodedata.normalize("NFD", word)
        assert decomposed != word
        result = text.normalize(decomposed)
        assert unicodedata.is_normalized("NFC", result)
        assert result == text.normalize(word)


def test_mixed_case_and_whitespace():
    assert text.normalize("  HOÀ   Bình\n\tViỆT NAM ") == "hòa bình việt nam"
    assert text.normalize("ĐỘI TUYỂN") == "đội tuyển"


def test_eth_lookalike_becomes_d_with_stroke():
    assert text.normalize("Ðà Nẵng") == "đà nẵng"


def test_numbers_and_punctuation():
    assert text.phrases("Năm 2006, tỷ số 2-1; giá 3.500 đồng!") == [
        ["năm", "0"], ["tỷ", "số", "0"], ["0"], ["giá", "0", "đồng"]]


def test_tokens_are_unigrams_and_bigrams_within_phrases():
    toks = text.tokens("Bóng đá Việt Nam. Hoà!")
    assert toks == ["bóng", "đá", "việt", "nam", "bóng đá", "đá việt", "việt nam", "hòa"]
    assert text.tokens("Bóng đá", bigrams=False) == ["bóng", "đá"]


def test_non_vietnamese_words_are_kept_as_they_are():
    assert text.normalize("Microsoft Windows Café") == "microsoft windows café"
    assert text.syllables("e-mail") == ["e", "mail"]


def test_segmentation_joins_words_when_pyvi_is_installed():
    words = [w for phrase in text.segmented_phrases("Đội tuyển bóng đá Việt Nam") for w in phrase]
    if text.segmenter_available():
        assert "bóng_đá" in words
    else:
        assert words == ["đội", "tuyển", "bóng", "đá", "việt", "nam"]


def test_without_pyvi_segmentation_falls_back_to_syllables(monkeypatch):
    monkeypatch.setattr(text, "_pyvi_tokenizer", lambda: None)
    assert not text.segmenter_available()
    assert text.tokens("Bóng đá", segment=True) == ["bóng", "đá", "bóng đá"]


def test_analyzer_is_picklable():
    import pickle

    analyzer = pickle.loads(pickle.dumps(text.Analyzer(bigrams=False)))
    assert analyzer("Hoà bình") == ["hòa", "bình"]


def _reference_normalize(value: str) -> str:
    """The plain definition the cached per-token ``normalize`` must keep to."""
    import re

    value = unicodedata.normalize("NFC", value).translate(str.maketrans({"ð": "đ", "Ð": "đ", "Đ": "đ"})).lower()
    value = re.sub(r"[^\W_]+", lambda m: text.fix_tone_mark(m.group(0)), value)
    return re.sub(r"\s+", " ", value).strip()


def _reference_phrases(value: str) -> list[list[str]]:
    import re

    value = unicodedata.normalize("NFC", value).translate(str.maketrans({"ð": "đ", "Ð": "đ", "Đ": "đ"})).lower()
    value = re.sub(r"\d+(?:[.,:/]\d+)*", " 0 ", value)
    groups = [phrase.split() for phrase in re.split(r"[^\w\s]+|_+|\n+", value)]
    return [[text.fix_tone_mark(w) for w in words] for words in groups if words]


@pytest.mark.parametrize("value", [
    "Ông Nguyễn (Hà Nội), 12,5% và 3/4 -- HOÀ bình_Thuỷ\nđến\u2028Sài\u00a0Gòn… 2024-01-03T15:42",
    "a_b__c,,d.\n\n.e 1.2.3x4 ÐÃ ðó  \t x\x1cy\x85z 〇 Ⅻ ²³",
    "(hà)nội,[toà] «thuý» ‘khoẻ’ ¿qué? été café radio QUY quý GIÀ già",
    "", "   ", "...", "_", "12", "\n\n",
])
def test_cached_per_token_normalisation_matches_the_plain_definition(value):
    for _ in range(2):  # the second time from the caches
        assert text.normalize(value) == _reference_normalize(value)
        assert text.phrases(value) == _reference_phrases(value)
