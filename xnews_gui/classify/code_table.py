"""Sorted distinct codes, and where a whole array of codes sits among them, without a search.

The codes are bits of a bitset over ``[0, domain)``; a code's rank is the number of codes in
the 64-bit words before its own plus the bits set below it in its word (a gather and a
popcount). Most words of such a bitset are empty (the ~50,000 bigrams of the bundled model over
its ~7,000 syllables set bits in 7% of 730,000 words), so only the non-empty words are kept, and
a word's place among them is found the same way one level up: ~0.8 MB in all where the flat
bitset took 9 MB. ``np.searchsorted`` instead costs ~16 dependent steps per code and was most of
a prediction's NumPy time; past ``MAX_DOMAIN`` (a model of ~46,000 syllables or more, whose
level one alone would take megabytes) the codes are searched that way still.
"""

from __future__ import annotations

import numpy as np

MISSING = -1
MAX_DOMAIN = 1 << 31  # level one: at most 6 MB
_ONE = np.uint64(1)
_LOW_BITS = np.int64(63)


def _words(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct non-negative integers as the non-empty 64-bit words of their bitset:
    (the words' numbers, the words, how many of the values come before each word)."""
    at = values >> 6
    starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]]) if values.size else np.zeros(0, np.intp)
    words = np.bitwise_or.reduceat(_bit(values), starts) if values.size else np.zeros(0, np.uint64)
    return at[starts], words, starts


def _bit(values: np.ndarray) -> np.ndarray:
    return _ONE << (values & _LOW_BITS).astype(np.uint64)


class CodeRanks:
    def __init__(self, codes: np.ndarray, domain: int):
        """``codes``: sorted, distinct, in ``[0, domain)``."""
        codes = np.asarray(codes, dtype=np.int64)
        self.domain = int(domain)
        self._sorted = codes if self.domain > MAX_DOMAIN else None
        if self._sorted is not None:
            return
        numbers, self._words, self._before = _words(codes)
        # level one: which words of the codes' bitset are not empty, as a full bitset of words
        full = np.zeros((self.domain + 64 * 64 - 1) // (64 * 64), dtype=np.uint64)
        level_one, level_one_words, _ = _words(numbers)
        full[level_one] = level_one_words
        counts = np.bitwise_count(full).astype(np.int32)
        self._full = full
        self._full_before = np.cumsum(counts, dtype=np.int32) - counts  # non-empty words before
        self._last = max(self._words.size - 1, 0)

    def rank(self, codes: np.ndarray) -> np.ndarray:
        """For each code in ``[0, domain)``: its index in the sorted codes, ``MISSING`` (-1) if absent."""
        if self._sorted is not None:
            return self._search(codes)
        if not self._words.size:
            return np.full(codes.size, MISSING, dtype=np.intp)
        at = codes >> 12  # the level-one word that says whether the code's word is empty
        full = self._full.take(at)
        word_bit = _bit(codes >> 6)
        index = self._full_before.take(at) + np.bitwise_count(full & (word_bit - _ONE)).astype(np.intp)
        np.minimum(index, self._last, out=index)  # an empty word past the last one: any index
        word = self._words.take(index)
        bit = _bit(codes)
        ranks = self._before.take(index) + np.bitwise_count(word & (bit - _ONE)).astype(np.intp)
        ranks[((full & word_bit) == 0) | ((word & bit) == 0)] = MISSING
        return ranks

    def _search(self, codes: np.ndarray) -> np.ndarray:
        if not self._sorted.size:
            return np.full(codes.size, MISSING, dtype=np.intp)
        ranks = np.searchsorted(self._sorted, codes)
        ranks[ranks == self._sorted.size] = 0
        ranks[self._sorted[ranks] != codes] = MISSING
        return ranks
