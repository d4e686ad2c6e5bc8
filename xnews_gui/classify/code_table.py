"""Sorted distinct codes, and where a whole array of codes sits among them, without a search.

The codes are bits in a bitset over ``[0, domain)``, with the number of bits set before each
64-bit word: a code's rank is that count plus the bits set below it in its word (one gather
and one popcount). For the ~50,000 bigrams of the bundled model over its ~7,000 syllables the
bitset takes ~6 MB and the counts ~3 MB; ``np.searchsorted`` costs ~16 dependent steps per
code and was most of a prediction's NumPy time. A domain past ``MAX_BITSET`` bits (a model of
many more syllables) is searched that way still, so memory stays bounded.
"""

from __future__ import annotations

import numpy as np

MISSING = -1
MAX_BITSET = 1 << 26  # bits: 8 MB of bitset and 4 MB of counts at most
_ONE = np.uint64(1)
_LOW_BITS = np.int64(63)


class CodeRanks:
    def __init__(self, codes: np.ndarray, domain: int):
        """``codes``: sorted, distinct, in ``[0, domain)``."""
        codes = np.asarray(codes, dtype=np.int64)
        self.domain = int(domain)
        self._sorted = codes if self.domain > MAX_BITSET else None
        if self._sorted is not None:
            return
        words = np.zeros((self.domain + 63) // 64, dtype=np.uint64)
        if codes.size:
            at = codes >> 6
            starts = np.flatnonzero(np.r_[True, at[1:] != at[:-1]])
            words[at[starts]] = np.bitwise_or.reduceat(_ONE << (codes & _LOW_BITS).astype(np.uint64), starts)
        counts = np.bitwise_count(words).astype(np.int32)
        self._words = words
        self._before = np.cumsum(counts, dtype=np.int32) - counts  # bits set in the words before

    def rank(self, codes: np.ndarray) -> np.ndarray:
        """For each code in ``[0, domain)``: its index in the sorted codes, ``MISSING`` (-1) if absent."""
        if self._sorted is not None:
            return self._search(codes)
        at = codes >> 6
        word = self._words[at]
        bit = _ONE << (codes & _LOW_BITS).astype(np.uint64)
        below = np.bitwise_count(word & (bit - _ONE)).astype(np.intp)
        ranks = self._before[at] + below
        ranks[(word & bit) == 0] = MISSING
        return ranks

    def _search(self, codes: np.ndarray) -> np.ndarray:
        if not self._sorted.size:
            return np.full(codes.size, MISSING, dtype=np.intp)
        ranks = np.searchsorted(self._sorted, codes)
        ranks[ranks == self._sorted.size] = 0
        ranks[self._sorted[ranks] != codes] = MISSING
        return ranks
