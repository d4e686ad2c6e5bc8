"""Texts -> the model's syllable ids, as ``core.text.phrases`` reads them, in a few C-level calls.

A document's UTF-8 is split on ASCII whitespace (``core.text.pieces``), and each piece is looked up
in a bounded cache that holds its syllables' ids as packed int32 bytes, with a ``gap`` id wherever
a phrase ends inside it; a piece is decoded, cut at any other whitespace, and its tokens are
folded (``core.text.fold``) when first met. Joining those bytes gives
the document's id stream for NumPy: the syllables ``phrases`` returns as lists of strings, in the
same order, with a gap at every phrase boundary - without a Python step per word. Folding a
token at a time is folding the text: NFC and lower case neither make nor remove whitespace, and
nothing composes across it (tests check every code point).

Ids: ``0 .. known-1`` are the vocabulary's syllables; past them a syllable the model does not
know gets one of three ids by what the language check (``domain``) needs of it, its verdict
(-1, 0, +1); then a number (when the vocabulary has no "0"), then the gap. No id is negative,
and a pair of ids holding one past the vocabulary is never a bigram of the model.
"""

from __future__ import annotations

from array import array

import numpy as np

from ..core.text.language import SAMPLE_WORDS, syllable_verdict
from ..core.text.text import NUMBER_TOKEN, fold, pieces, token_phrases
from .domain import MIN_SHARE, MIN_WORDS

CHUNK_IDS = 8_192  # a chunk's int64 arrays stay under 64 KiB: see ``chunks``
_GAP, _NUMBER, _FOREIGN, _NEUTRAL, _VIETNAMESE = range(5)  # kinds of ids; a word's is _NEUTRAL + its verdict
_WORD_KINDS = [_FOREIGN, _NEUTRAL, _VIETNAMESE]


class SyllableIds:
    """The id streams of documents for one vocabulary of syllables (``syllable -> id``, ids 0..n-1)."""

    limit = 100_000  # tokens remembered (~130 bytes each); past it a token is encoded each time

    def __init__(self, syllable_id: dict[str, int]):
        self._syllable_id = syllable_id
        n = len(syllable_id)
        self.known = n
        self._unknown = (n, n + 1, n + 2)  # by verdict -1, 0, +1
        number = syllable_id.get(NUMBER_TOKEN)
        self.number = n + 3 if number is None else number
        self.gap = n + 4
        self.size = n + 5  # one more than the largest id
        self._gap_bytes = array("i", [self.gap]).tobytes()
        # each id's kind for the language check (a gap, a number, or a word by its verdict); the
        # vocabulary's words are judged as they are met (a model load stays cheap)
        self._kind = np.full(self.size, _NEUTRAL, dtype=np.int64)
        self._kind[[self._unknown[0], self._unknown[2], self.number, self.gap]] = [_FOREIGN, _VIETNAMESE, _NUMBER, _GAP]
        self._tokens = _TokenCache(self._encode_piece, self.limit)

    def stream(self, text: str) -> bytes:
        """The packed int32 ids of one document, a gap at its phrase boundaries (possibly repeated)."""
        return self.stream_of(pieces(text))

    def stream_of(self, cut: list[bytes]) -> bytes:
        """``stream`` of a document given as its ``core.text.pieces``."""
        return b"".join(map(self._tokens.__getitem__, cut))

    def _encode_piece(self, piece: bytes) -> bytes:
        """A piece of the UTF-8 text between ASCII whitespace: its tokens' ids (other whitespace,
        such as U+00A0, still splits it as ``str.split`` does)."""
        tokens = piece.decode("utf-8", "surrogatepass").split()
        return self._encode(tokens[0]) if len(tokens) == 1 else b"".join(map(self._encode, tokens))

    def _encode(self, token: str) -> bytes:
        phrases = token_phrases(fold(token))
        if len(phrases) == 1:
            return array("i", map(self._id, phrases[0])).tobytes()
        ids = array("i")
        for i, words in enumerate(phrases):
            if i:
                ids.append(self.gap)
            ids.extend(map(self._id, words))
        return ids.tobytes()

    def _id(self, word: str) -> int:
        if word == NUMBER_TOKEN:
            return self.number
        known = self._syllable_id.get(word)
        verdict = syllable_verdict(word)
        if known is None:
            return self._unknown[verdict + 1]
        self._kind[known] = _NEUTRAL + verdict
        return known

    def words_stream(self, phrases: list[list[str]]) -> bytes:
        """``stream`` of a document already cut into phrases of words (pyvi's: a Python step per word)."""
        ids = array("i")
        for words in phrases:
            ids.extend(map(self._syllable_id.get, words, [self._unknown[1]] * len(words)))
            ids.append(self.gap)
        return ids.tobytes()

    def chunks(self, streams: list[bytes]):
        """(ids, rows, n_docs) of consecutive documents, about ``CHUNK_IDS`` ids at a time: their ids,
        each document's followed by a gap, and the document (from 0) of each id. The allocator keeps
        arrays this small for the next chunk; a 64-article batch's went back to the kernel each time
        and cost ~1,500 page faults (a quarter of the CPU time) to get again. So did 16,384 ids' in
        the crawl's pipeline thread (a thread's malloc arena gives back more): ~20 page faults per
        article, ~0.04 ms; 8,192 ids' cost none, and no more numpy calls than they save."""
        sizes = [len(s) // 4 + 1 for s in streams]
        start = 0
        while start < len(streams):
            end, total = start + 1, sizes[start]
            while end < len(streams) and total + sizes[end] <= CHUNK_IDS:
                total += sizes[end]
                end += 1
            ids = np.frombuffer(self._gap_bytes.join(streams[start:end] + [b""]), dtype=np.int32)
            rows = np.repeat(np.arange(end - start, dtype=np.int64), sizes[start:end])
            yield ids, rows, end - start
            start = end

    def out_of_domain(self, ids: np.ndarray, rows: np.ndarray, n_docs: int) -> list[str]:
        """``domain.out_of_domain`` of each document's syllables, from ``chunks``."""
        word = ids != self.gap
        seen = np.cumsum(word)  # syllables up to here, numbers included, from the first document on
        ends = np.cumsum(np.bincount(rows, minlength=n_docs)) - 1  # each document's last id
        before = np.r_[0, seen[ends[:-1]]]  # syllables of the documents before
        sample = word & (seen - before.take(rows) <= SAMPLE_WORDS)
        # one count per document, place in the sample or not, and kind of id
        kinds = np.bincount(rows * 10 + sample * 5 + self._kind.take(ids), minlength=n_docs * 10).reshape(n_docs, 2, 5)
        counts = (kinds[:, 0, _WORD_KINDS].sum(axis=1) + kinds[:, 1, _WORD_KINDS].sum(axis=1)).tolist()
        sampled = kinds[:, 1, _WORD_KINDS].sum(axis=1).tolist()
        votes = (kinds[:, 1, _VIETNAMESE] - kinds[:, 1, _FOREIGN]).tolist()
        reasons = []
        for count, in_sample, vote in zip(counts, sampled, votes):
            if count < MIN_WORDS:
                reasons.append(f"too short ({count} words)")
            elif (vote / in_sample if in_sample else 0.0) < MIN_SHARE:
                reasons.append("not Vietnamese")
            else:
                reasons.append("")
        return reasons


class _TokenCache(dict):
    """piece of UTF-8 text -> its packed ids, filled as pieces are met, bounded (a dict lookup is the hot path)."""

    def __init__(self, encode, limit: int):
        super().__init__()
        self._encode, self._limit = encode, limit

    def __missing__(self, token: bytes) -> bytes:
        value = self._encode(token)
        if len(self) < self._limit and len(token) <= 128:
            self[token] = value
        return value
