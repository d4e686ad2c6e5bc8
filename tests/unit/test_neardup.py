"""Near-duplicate signatures on real Vietnamese news text (../shared/data/vntc/sample)."""

from __future__ import annotations

import numpy as np
import pytest

from xnews_gui.core.text import neardup

from ..conftest import shared_data


def vntc(topic: str, n: int) -> list[str]:
    folder = shared_data("vntc", "sample", "Test_Full", topic)
    return [p.read_text(encoding="utf-16") for p in sorted(folder.glob("*.txt"))[:n]]


SITE_A = ["Trang chủ Thời sự Góc nhìn Thế giới Video Podcast Kinh doanh", "Chia sẻ bài viết qua email",
          "Tin liên quan: Giá vàng hôm nay tăng mạnh sau nhiều phiên giảm liên tiếp", "Ảnh: Ngọc Thành"]
SITE_B = ["Theo Tuổi Trẻ", "Xem thêm: Hà Nội sắp có tuyến xe buýt mới nối trung tâm với sân bay Nội Bài",
          "Bình luận (12) Gửi bình luận của bạn", "© Bản quyền thuộc về báo điện tử"]


def syndicated(text: str) -> tuple[str, str]:
    """The same story as two sites store it: different boilerplate, the second one's last paragraph cut."""
    lines = [line for line in text.splitlines() if line.strip()]
    a = "\n".join(SITE_A[:2] + lines + SITE_A[2:])
    b = "\n".join(SITE_B[:1] + lines[:-1] + SITE_B[1:]) if len(lines) > 3 else "\n".join(SITE_B + lines)
    return a, b


def test_the_same_story_with_other_boilerplate_is_found():
    for text in vntc("The thao", 10):
        a, b = syndicated(text)
        assert neardup.same_story(neardup.signature(a), neardup.signature(b))


def test_other_stories_on_the_same_topic_under_the_same_template_are_not():
    texts = vntc("Kinh doanh", 12)
    sigs = [neardup.signature("\n".join(SITE_A + [t])) for t in texts]
    pairs = [(i, j) for i in range(len(sigs)) for j in range(i + 1, len(sigs))]
    same = [(i, j) for i, j in pairs if neardup.same_story(sigs[i], sigs[j])]
    assert same == []


def test_short_texts_have_no_signature_and_never_match():
    assert neardup.signature("Tin ngắn: bão số 5 đổ bộ") is None
    assert not neardup.same_story(None, None)


def test_signatures_survive_the_database_and_best_match_picks_the_story():
    texts = vntc("Suc khoe", 6)
    sigs = [neardup.signature(t) for t in texts]
    blob = neardup.to_blob(sigs[0][0])
    assert isinstance(blob, bytes) and len(blob) == 4 * neardup.PERMUTATIONS
    assert np.array_equal(neardup.from_blob(blob), sigs[0][0])
    known = np.stack([s[0] for s in sigs])
    sizes = np.array([s[1] for s in sigs])
    _, copy = syndicated(texts[3])
    assert neardup.best_match(neardup.signature(copy), known, sizes) == 3
    assert neardup.best_match(neardup.signature(vntc("The gioi", 1)[0]), known, sizes) == -1
    assert neardup.best_match(sigs[0], known[:0], sizes[:0]) == -1


@pytest.mark.parametrize("word_order_changed", [False, True])
def test_signature_depends_on_the_words_not_on_spacing_or_case(word_order_changed):
    text = vntc("Van hoa", 1)[0]
    variant = "  ".join(text.upper().split())
    if word_order_changed:  # another text altogether: its shingles differ
        words = text.split()
        variant = " ".join(words[::-1])
    same = np.array_equal(neardup.signature(text)[0], neardup.signature(variant)[0])
    assert same is (not word_order_changed)


def _reference_signature(text: str):
    """The signature as first defined (normalize, then a regex over it, one hash at a time): stored
    signatures were made this way, so the fast path must give the very same numbers."""
    import re
    import zlib

    from xnews_gui.core.text.text import normalize

    found = re.findall(r"[^\W_]+", normalize(text))
    grams = {" ".join(found[i:i + 3]) for i in range(len(found) - 2)}
    if len(grams) < neardup.MIN_SHINGLES:
        return None
    hashes = np.array([zlib.crc32(g.encode()) & 0x7FFFFFFF for g in grams], dtype=np.uint64)
    return ((hashes[:, None] * neardup._A + neardup._B) % neardup._PRIME).min(axis=0).astype(np.uint32), len(grams)


def test_signatures_are_the_ones_already_stored():
    texts = vntc("Kinh doanh", 5) + vntc("Doi song", 3)
    tricky = ("HOÀ BÌNH Hòa bình hoà bình ÐÀ NẴNG snake_case_word 3,5% giá_vàng \u00f0ã \u00d0ỏ \u0110ông " * 5 + texts[0]
              + "Thu\u0309y\u0300 ca\u0301c mo\u0323i ngu\u031bo\u031b\u0300i cafe\u0301 "
              # whitespace that is not ASCII (the UTF-8 is split at ASCII whitespace only), lone surrogates
              + "giá\x85xăng\u2028tăng\x1dhoà\x1fbình\u205fđồng\u00a0Việt\ud800nam \udfff ngày\u3000đầu ") * 2
    for text in texts + [tricky, tricky.upper()]:
        expected, got = _reference_signature(text), neardup.signature(text)
        assert got[1] == expected[1] and np.array_equal(got[0], expected[0])


PINNED_TEXT = ("Sáng 1/12, Ủy ban nhân dân thành phố Hà Nội công bố kế hoạch mở thêm ba tuyến xe buýt điện nối "
               "trung tâm với sân bay Nội Bài. Theo kế hoạch, các tuyến mới chạy từ 5 giờ đến 23 giờ mỗi ngày, "
               "giá vé 9.000 đồng một lượt; học sinh, sinh viên và người cao tuổi được giảm một nửa. Sở Giao thông "
               "vận tải cho biết đoàn xe 120 chiếc sẽ được đưa vào khai thác từ quý I năm sau, sau khi hoàn tất "
               "nhà chờ và trạm sạc. HÒA BÌNH hoà bình ĐÀ NẴNG snake_case 3,5% cafe\u0301")


def test_signature_values_are_pinned():
    """Computed once by the first implementation (np.remainder over uint64): the values in users'
    databases. Any change of hash, seed, shingling or arithmetic fails here."""
    import zlib

    sig, size = neardup.signature(PINNED_TEXT)
    assert size == 104
    assert list(map(int, sig[:6])) == [15720491, 14879047, 15953501, 25322988, 15208378, 34899926]
    assert zlib.crc32(neardup.to_blob(sig)) == 2853674082


def _exact_minima(hashes):
    p = (1 << 31) - 1
    return np.array([min((int(a) * int(h) + int(b)) % p for h in hashes) for a, b in zip(neardup._A, neardup._B)],
                    dtype=np.uint32)


def test_minima_are_exact_at_the_edges():
    """Against integer arithmetic, with hashes whose value under some permutation is exactly 0, 1, p - 2
    or p - 1 (where a float estimate would round into the next or the previous integer)."""
    p = (1 << 31) - 1
    edges = [pow(int(a), -1, p) * (r - int(b)) % p
             for a, b in zip(neardup._A, neardup._B) for r in (0, 1, p - 2, p - 1)]
    rng = np.random.default_rng(7)
    for n, rounds in ((1, 40), (2, 40), (7, 40), (neardup._COLUMNS + 3, 8)):  # the last: two blocks
        for _ in range(rounds):
            hashes = np.concatenate([rng.choice(edges, min(n, 4)), rng.integers(0, 1 << 31, n)]).astype(np.uint32)
            assert np.array_equal(neardup._minima(hashes), _exact_minima(hashes))
    for a, b in zip(neardup._A[:16], neardup._B[:16]):  # only the largest values: the top edge is the minimum
        top = np.array([pow(int(a), -1, p) * (r - int(b)) % p for r in (p - 1, p - 2)], dtype=np.uint32)
        assert np.array_equal(neardup._minima(top), _exact_minima(top))
    assert np.array_equal(neardup._minima(np.array(edges, dtype=np.uint32)), np.zeros(neardup.PERMUTATIONS))


def test_a_batchs_minima_are_each_texts_own_wherever_the_blocks_cut():
    """The batch goes through the product in blocks of _COLUMNS shingles: texts shorter than a block,
    longer than two, starting right at a block's first column or right after it, and one-shingle texts."""
    rng = np.random.default_rng(3)
    block = neardup._COLUMNS
    for sizes in ([5, block - 5, 1, block, 2 * block + 1, 1, 1, 30], [block, block, 1], [1], [3 * block - 1, 2, 700]):
        hashes = rng.integers(0, 1 << 31, sum(sizes)).astype(np.uint32)
        starts = np.cumsum([0] + sizes[:-1]).tolist()
        got = neardup._minima_of_texts(hashes, starts)
        assert got.shape == (len(sizes), neardup.PERMUTATIONS)
        for row, start, size in zip(got, starts, sizes):
            assert np.array_equal(row, neardup._minima(hashes[start:start + size]))
            if size <= 2:
                assert np.array_equal(row, _exact_minima(hashes[start:start + size]))


def test_best_match_through_fingerprints_picks_the_same_row():
    """Low-byte fingerprints only skip rows that cannot pass the Jaccard floor: the answer is the one of
    the full comparison, also when rows share every low byte with a story but not its minima."""
    texts = vntc("Chinh tri Xa hoi", 12)
    sigs = [neardup.signature(t) for t in texts]
    rng = np.random.default_rng(3)
    look_alikes = [s[0] ^ (rng.integers(1, 1 << 23, neardup.PERMUTATIONS).astype(np.uint32) << 8) for s in sigs[:6]]
    noise = list(rng.integers(0, 1 << 31, (300, neardup.PERMUTATIONS)).astype(np.uint32))
    known = np.stack(look_alikes + [s[0] for s in sigs] + noise)  # look-alikes first: they would win ties
    sizes = np.array([s[1] for s in sigs[:6]] + [s[1] for s in sigs] + [700] * 300)
    queries = [neardup.signature(syndicated(t)[1]) for t in texts[:8]] + [neardup.signature(vntc("Vi tinh", 1)[0])]
    picks = []
    for query in queries:
        full = neardup.best_match(query, known, sizes)
        assert neardup.best_match(query, known, sizes, neardup.fingerprints(known)) == full
        picks.append(full)
    assert picks == [6 + i for i in range(8)] + [-1]


def _same_as_reference(text):
    expected, got = _reference_signature(text), neardup.signature(text)
    return (expected is None and got is None) or (got[1] == expected[1] and np.array_equal(got[0], expected[0]))


def test_the_vocabulary_path_and_the_definition_give_the_same_signatures(monkeypatch):
    """Words met for the first time, from several threads at once, a full vocabulary (those texts take
    the definition's path) and words too long for the shift tables: the same values everywhere."""
    from concurrent.futures import ThreadPoolExecutor

    vocabulary = neardup._Vocabulary()
    monkeypatch.setattr(neardup, "_VOCABULARY", vocabulary)
    texts = vntc("Khoa hoc", 6) + vntc("Doi song", 6)
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(_same_as_reference, texts))
    assert len(vocabulary) > 500 and list(vocabulary.values()) == list(range(len(vocabulary)))
    long_words = " ".join([texts[0], "x" * 63, "y" * 64, "dàiquá" * 12, texts[1]])
    assert _same_as_reference(long_words)
    refolds = texts[3] + " H\u0331ồ T\u0308ây " + texts[4]  # fold(fold(token)) != fold(token): "ẖ" -> "ẖ"
    assert _same_as_reference(refolds)
    monkeypatch.setattr(vocabulary, "LIMIT", len(vocabulary))
    assert _same_as_reference(vntc("Vi tinh", 1)[0] + " " + texts[2])
    assert len(vocabulary) == vocabulary.LIMIT


def test_the_token_cache_keeps_only_short_tokens_and_stays_bounded(monkeypatch):
    vocabulary = neardup._Vocabulary()
    monkeypatch.setattr(neardup, "_VOCABULARY", vocabulary)
    monkeypatch.setattr(vocabulary.tokens, "LIMIT", 40)
    junk = " ".join(["mã" + "x" * 80 + str(i) for i in range(30)])  # one long token each
    text = junk + " " + vntc("The gioi", 1)[0]  # the junk first: it would take the room
    assert _same_as_reference(text) and _same_as_reference(text)
    assert len(vocabulary.tokens) == 40 and max(map(len, vocabulary.tokens)) <= 128


def test_a_batch_gets_the_signatures_of_its_texts_one_at_a_time(monkeypatch):
    """``signatures`` cuts one id stream back into its texts: short texts, texts with a word too long
    (the definition's path) and repeated texts anywhere in the batch, in batches of every size."""
    vocabulary = neardup._Vocabulary()
    monkeypatch.setattr(neardup, "_VOCABULARY", vocabulary)
    texts = vntc("Khoa hoc", 4) + vntc("Doi song", 4)
    batch = [texts[0], "", "Tin ngắn: bão số 5", texts[1], texts[1], " ".join([texts[2], "q" * 70, texts[3]]),
             texts[4], " ".join(texts[5].split()[:27]), " ".join(texts[5].split()[:26]), None, texts[6], texts[7]]
    expected = [_reference_signature(text or "") for text in batch]
    assert sum(e is None for e in expected) == 4 and expected[7] is not None
    monkeypatch.setattr(neardup, "BATCH", 4)  # a longer list is signed 4 texts at a time
    for cut in (1, 2, 5, len(batch)):
        got = [sig for k in range(0, len(batch), cut) for sig in neardup.signatures(batch[k:k + cut])]
        for sig, want in zip(got, expected):
            assert (sig is None and want is None) or (sig[1] == want[1] and np.array_equal(sig[0], want[0]))
    assert neardup.signatures([]) == []


def test_a_batch_given_its_pieces_gets_the_same_signatures():
    """The crawl cuts each body once (``core.text.pieces``: line breaks become pieces of their own)
    and hands the pieces to the classifier and to ``signatures``: the same values as from the text."""
    from xnews_gui.core.text.text import pieces

    texts = vntc("Khoa hoc", 3) + vntc("Doi song", 3)
    batch = [texts[0], "", "Tin ngắn: bão số 5", texts[1] + "\n\n" + texts[2], "\n".join([texts[3], "q" * 70, texts[4]]),
             "a\nb\r\nc \n" + texts[5].replace(" ", "\n"), texts[5]]
    expected = [_reference_signature(text) for text in batch]
    got = neardup.signatures(batch, pieces=[pieces(text) for text in batch])
    for sig, want in zip(got, expected):
        assert (sig is None and want is None) or (sig[1] == want[1] and np.array_equal(sig[0], want[0]))
    assert [s is None for s in got] == [False, True, True, False, False, False, False]
    with pytest.raises(ValueError):
        neardup.signatures(batch, pieces=[])
