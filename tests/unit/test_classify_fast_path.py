"""The classifier's id-stream path gives what the plain definition gives, on real and simulated text.

``reference_predictions`` below is the definition, one document at a time, in strings: the
words of ``core.text.phrases``, ``domain.out_of_domain`` on them, the unigram and bigram terms
of ``core.text.tokens`` looked up in a ``term -> column`` dict and counted, then TF-IDF
(sublinear, l2, float32 as scikit-learn's vectorizer stores it) and the softmax. The model
must give the same label, reason and confidence (to 1e-9) on real VNTC articles, on the
simulator's articles as the crawler extracts them, and on edge cases of tokenisation.
"""

import json
import random
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from xnews_gui import paths
from xnews_gui.classify import TopicClassifier, code_table, syllable_ids
from xnews_gui.classify.domain import out_of_domain
from tests.conftest import import_newsim, shared_data
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.text.text import fold, joined_pieces, phrases, pieces, token_phrases, tokens

ROOT = Path(__file__).resolve().parents[2]

EDGE_CASES = [
    "", "Hà Nội", "English words only, nothing else here at all.", "1 2 3 " * 30, "ạ " * 25 + "x",
    "Đội tuyển\nbóng đá, Việt Nam... 2024/12/01 giành " * 8,
    "HOÀ BÌNH hoà bình Hòa Bình\r\nthuý THÚY khoẻ, ĐÀ NẴNG ðà nẵng\u00a0giá\u2003xăng\u3000tăng " * 6,
    "covid19 và 3,5% GDP; giá vàng: 67.5 triệu/lượng (tăng 0,2%) — \"kỷ lục\" " * 5,
    "ngân_hàng nhà\x00nước \x00 \u0301 e\u0301 Привет мир 中文 ça va? " * 5,
    " ".join(["việt"] * 500) + " english " * 30,
    # the language is judged on the first 400 syllables: here the 400th decides (60 / 400 = 0.15)
    "the " * 340 + "việt " * 60 + "english " * 100,
    "the " * 300 + "1 " * 40 + "việt " * 60 + "english " * 100,
    "Hà Nội mùa thu, cây cơm nguội vàng; giá 1.200 đồng. " * 2500,  # more ids than a chunk holds
    # whitespace that is not ASCII (the UTF-8 is split at ASCII whitespace only), a lone surrogate
    "giá\x85xăng\u2028tăng\x1dhoà\x1fbình\u205fđồng\u00a0Việt\ud800nam \udfff, ngày 1\u3000tháng. " * 6,
    # folded a token at a time: Greek final sigma, singleton and composing marks, lookalikes of đ
    "ΟΔΟΣ ΣΑΣ\u2000ΣΑΣ.ΣΑΣ σΣ İstanbul \n\u0301a a\u0301 ÐÀ ĐÀ ðà Hoà hoà HOÀ\u2001hòa ﬁ ǅ " * 5,
]


def reference_predictions(model: TopicClassifier, texts: list[str]) -> list[tuple]:
    column = {term: i for i, term in enumerate(model.terms)}
    weights = model.coef.astype(np.float64)
    segment = model.features["segment"]
    out = []
    for text in texts:
        counts = Counter(column[t] for t in tokens(text, segment=segment) if t in column)
        decision = model.intercept.astype(np.float64)
        if counts:
            cols = np.array(sorted(counts))
            values = (np.log(np.array([counts[c] for c in cols], dtype=np.float32)) + np.float32(1)) * model.idf[cols]
            values = values / np.float32(np.sqrt(np.sum(values.astype(np.float64) ** 2)))
            decision = decision + weights[:, cols] @ values.astype(np.float64)
        probs = np.exp(decision - decision.max())
        probs /= probs.sum()
        best = int(probs.argmax())
        reason = out_of_domain([w for phrase in phrases(text) for w in phrase])  # syllables, whatever the features
        if reason:
            out.append((None, 0.0, reason))
        elif probs[best] < model.floor:
            out.append((None, float(probs[best]), f"low confidence ({probs[best]:.0%} < {model.floor:.0%})"))
        else:
            out.append((model.labels[best], float(probs[best]), ""))
    return out


def assert_same(model: TopicClassifier, texts: list[str]) -> None:
    expected = reference_predictions(model, texts)
    got = [p for i in range(0, len(texts), 64) for p in model.predict_many(texts[i:i + 64])]
    assert [(p.label, p.reason) for p in got] == [(label, reason) for label, _, reason in expected]
    assert [p.confidence for p in got] == pytest.approx([c for _, c, _ in expected], abs=1e-9)


@pytest.fixture(scope="module")
def model():
    return TopicClassifier.load(paths.BUNDLED_MODEL)


def test_real_vntc_articles(model):
    sample = shared_data("vntc", "sample", "Test_Full")
    texts = [p.read_text(encoding="utf-16") for p in sorted(sample.glob("*/*.txt"))]
    assert len(texts) >= 150
    assert_same(model, texts)
    labels = {p.label for p in model.predict_many(texts)}
    assert len(labels - {None}) == len(model.labels)  # real topics, not one answer for all


def test_simulator_articles_as_the_crawler_extracts_them(model):
    newsim = import_newsim()
    profile = Profile.from_dict(json.loads((ROOT / "benchmarks" / "newsim_profile.json").read_text()))
    site = newsim.Site(articles=150, extra_kb=0)
    texts = []
    for a in site.articles:
        art = extract(site.render(a.path)[2], "http://127.0.0.1:8000" + a.path, profile)
        texts.append("\n".join(filter(None, (art.title, art.summary, art.body_text))))
    assert all(len(t) > 500 for t in texts)
    assert_same(model, texts)


def test_edge_cases_of_tokenisation_and_language(model):
    assert_same(model, EDGE_CASES)
    assert_same(model, EDGE_CASES[::-1])  # the token cache is warm now, and documents change places
    reasons = [p.reason for p in model.predict_many(EDGE_CASES)]
    assert reasons[0] == "too short (0 words)" and reasons[2].startswith("too short")
    assert "not Vietnamese" in reasons


def test_random_text_from_tricky_characters(model):
    assert_same(model, tricky_texts(300, 11))


def tricky_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = list("aàáảãạăắằêếệoóòôổơờuúùưừyýđĐðÐiíìHOÀQUYGI ΣσςİI\u0301\u0300\u0323\u0303\u2000\u00a0"
                    "\u3000\t\r\n\x00\x1c.,;:!?'\"-_/()0123456789%") + ["hoà", "thúy", "Việt", "nam", "giá", " "] * 3
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400))) for _ in range(n)]


def test_raw_tokens_folded_one_at_a_time_give_the_phrases():
    """What the id stream is built from, in strings: ``phrases`` of the text, token by token."""
    for text in EDGE_CASES + tricky_texts(300, 5):
        rebuilt = []
        for line in text.split("\n"):
            phrase: list[str] = []
            for token in line.split():
                first, *rest = token_phrases(fold(token))
                phrase += first
                for words in rest:
                    rebuilt.append(phrase)
                    phrase = list(words)
            rebuilt.append(phrase)
        assert [p for p in rebuilt if p] == phrases(text)


def test_folding_never_makes_removes_or_composes_across_whitespace():
    """Why a token can be folded alone: no code point changes whitespace status under NFC or lower
    case, and none decomposes to whitespace followed by something a mark could compose with."""
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        ch = chr(code)
        folded = fold(ch)
        assert any(c.isspace() for c in folded) == ch.isspace() and any(c.isspace() for c in ch.lower()) == ch.isspace()
        decomposed = unicodedata.normalize("NFD", ch)
        assert not (len(decomposed) > 1 and decomposed[0].isspace())


def test_one_at_a_time_and_proba_agree_with_batches(model):
    batch = model.predict_many(EDGE_CASES, guard=False)
    for text, together in zip(EDGE_CASES, batch):
        alone = model.proba(text)
        assert max(alone, key=alone.get) == together.label
        assert alone[together.label] == pytest.approx(together.confidence, abs=1e-12)


@pytest.mark.parametrize("chunk_ids", [1, 700, 5000])
def test_documents_cut_into_chunks_differently_get_the_same_answers(model, monkeypatch, chunk_ids):
    texts = EDGE_CASES + EDGE_CASES[::-1]
    whole = model.predict_many(texts)
    monkeypatch.setattr(syllable_ids, "CHUNK_IDS", chunk_ids)
    assert [(p.label, p.confidence, p.reason) for p in model.predict_many(texts)] \
        == [(p.label, p.confidence, p.reason) for p in whole]


def test_texts_given_as_pieces_get_the_same_answers(model):
    """The crawl cuts title, summary and body once (``core.text.pieces``, the body's pieces shared
    with the near-duplicate signature) and passes the pieces: the same predictions as the texts."""
    parts = [(a, b, c) for a, b, c in zip(EDGE_CASES, EDGE_CASES[3:] + EDGE_CASES[:3], EDGE_CASES[::-1])]
    parts += [("", "", "Hà Nội\n" * 30), ("Tin", None, None), (None, "  ", "việt " * 40), ("a\n", "\n", "\nb " * 30),
              (None, None, None), ("Hà Nội", "", " ")]
    texts = ["\n".join(filter(None, p)) for p in parts]
    cut = [joined_pieces(p, pieces(p[-1] or "")) for p in parts]
    assert cut == [pieces(t) for t in texts]
    assert model.predict_many(texts, pieces=cut) == model.predict_many(texts)
    assert [(p.label, p.reason) for p in model.predict_many(texts, pieces=cut)] \
        == [(label, reason) for label, _, reason in reference_predictions(model, texts)]
    with pytest.raises(ValueError):
        model.predict_many(texts, pieces=cut[1:])


def test_a_full_token_cache_changes_nothing(model, monkeypatch):
    fresh = TopicClassifier.load(paths.BUNDLED_MODEL)
    monkeypatch.setattr(fresh._syllables._tokens, "_limit", 0)
    texts = EDGE_CASES[1:6]
    assert fresh.predict_many(texts) == model.predict_many(texts)
    assert len(fresh._syllables._tokens) == 0


def test_the_word_segmented_path_too(model):
    segmented = TopicClassifier(labels=model.labels, terms=model.terms, idf=model.idf, coef=model.coef,
                                intercept=model.intercept, features={**model.features, "segment": True},
                                floor=model.floor)
    assert_same(segmented, EDGE_CASES)


def test_a_word_segmented_model_takes_vietnamese_for_vietnamese(model):
    """pyvi joins a word's syllables with "_": the guard read "cán_bộ" as a foreign word and refused 118 of 200
    Vietnamese news articles as "not Vietnamese"."""
    pytest.importorskip("pyvi", reason="word segmentation needs pyvi (the segment extra)")
    segmented = TopicClassifier(labels=model.labels, terms=model.terms, idf=model.idf, coef=model.coef,
                                intercept=model.intercept, features={**model.features, "segment": True},
                                floor=model.floor)
    texts = [p.read_text(encoding="utf-16") for p in
             sorted(shared_data("vntc", "sample", "Test_Full").glob("*/*.txt"))[:40]]
    refused = [p.reason for p in segmented.predict_many(texts) if "not Vietnamese" in p.reason]
    assert refused == [], refused[:3]


@pytest.mark.parametrize("bitset", [True, False])
def test_code_ranks_are_positions_in_the_sorted_codes(bitset, monkeypatch):
    if not bitset:
        monkeypatch.setattr(code_table, "MAX_DOMAIN", 0)  # the searchsorted fallback of big domains
    rng = np.random.default_rng(7)
    domain = 3_000_007
    # scattered codes, and full words (a run of 64 * 4096: level one full too)
    codes = np.unique(np.r_[0, rng.integers(0, domain, 5000), np.arange(6400, 6400 + 64 * 4096 + 5), domain - 1])
    ranks = code_table.CodeRanks(codes, domain)
    queries = np.r_[rng.integers(0, domain, 20000), codes, 0, domain - 1, 63, 64, 65]
    expected = np.full(queries.size, -1)
    found = np.isin(queries, codes)
    expected[found] = np.searchsorted(codes, queries[found])
    assert ranks.rank(queries).tolist() == expected.tolist()
    assert code_table.CodeRanks(np.zeros(0, dtype=np.int64), 1000).rank(np.arange(10)).tolist() == [-1] * 10


def test_a_saved_model_is_written_as_before(model, tmp_path):
    """The weights are kept transposed in memory; the file still holds coef (classes x features) in C order."""
    path = model.save(tmp_path / "topic.npz")
    with np.load(path, allow_pickle=False) as saved:
        coef = saved["coef"]
        assert coef.flags.c_contiguous and coef.shape == (len(model.labels), len(model.terms))
        np.testing.assert_array_equal(coef, model.coef)
    again = TopicClassifier.load(path)
    assert again.predict_many(EDGE_CASES) == model.predict_many(EDGE_CASES)
