"""Near-duplicate text: MinHash signatures over word shingles, compared by estimated containment.

    a, b = signature(text_a), signature(text_b)
    containment(a, b) >= MIN_CONTAINMENT     # the same story
    best_match(a, known_signatures, known_sizes) -> (index, containment)

A signature holds, for each of 128 seeded hash functions, the smallest hash over the text's shingles
(3 consecutive normalised words), plus the number of shingles. The share of equal minima estimates
the Jaccard similarity J; with both sizes that gives the *containment* |A∩B| / min(|A|, |B|), which
stays high when one site adds its boilerplate (related links, captions, a byline) or trims the last
paragraph, and stays low for another article on the same topic, even under the same template.
SimHash was measured first and dropped: it drifts with added text (see ``benchmarks/bench_neardup.py``
and the README). ~70 lines of our own over numpy; datasketch would add a dependency for the same lines.
"""

from __future__ import annotations

import threading
import zlib

import numpy as np

from .text import utf8, words

SHINGLE = 3
PERMUTATIONS = 128
MIN_CONTAINMENT = 0.5  # both chosen on the benchmark's pairs (see README, "Duplicates"): containment
MIN_JACCARD = 0.3  # forgives added boilerplate; the Jaccard floor stops a short text "contained" in a template
MIN_SHINGLES = 25  # shorter texts get no signature: too little to tell stories apart
BATCH = 64  # texts signed together by ``signatures``
_PRIME = np.uint64((1 << 31) - 1)
_rng = np.random.RandomState(20261201)  # fixed: signatures stored in the database must stay comparable
_A = _rng.randint(1, (1 << 31) - 1, size=PERMUTATIONS).astype(np.uint64)
_B = _rng.randint(0, (1 << 31) - 1, size=PERMUTATIONS).astype(np.uint64)


def shingles(text: str, size: int = SHINGLE) -> set[str]:
    found = words(text or "")  # the words of normalize(text): [^\W_]+ runs
    return set(map(" ".join, zip(*(found[i:] for i in range(size)))))


def signature(text: str, size: int = SHINGLE) -> tuple[np.ndarray, int] | None:
    """(128 uint32 minima, shingle count) of ``text``; None when it is too short to judge."""
    if size == SHINGLE:
        return signatures([text])[0]
    return _signature_of_bytes(words(text or ""), size)


def signatures(texts: list[str], pieces: list[list[bytes]] | None = None) -> list[tuple[np.ndarray, int] | None]:
    """``[signature(text) for text in texts]``, the numpy work done for the whole batch at once
    (a numpy call costs microseconds; an article has ~800 shingles), ``BATCH`` texts at a time.
    ``pieces``: each text's ``core.text.pieces`` when the caller has them already (not cut again)."""
    if pieces is not None and len(pieces) != len(texts):
        raise ValueError(f"{len(pieces)} texts' pieces for {len(texts)} texts")
    if len(texts) > BATCH:  # the batch's arrays stay a few MiB
        return [sig for start in range(0, len(texts), BATCH)
                for sig in signatures(texts[start:start + BATCH], None if pieces is None else pieces[start:start + BATCH])]
    # words(text) are the [^\W_]+ runs of fold(text), which never span whitespace, and folding a
    # token at a time is folding the text (see ``core.text.fold``): each piece of the UTF-8 text
    # between ASCII whitespace (``core.text.utf8``; ``pieces`` adds LINE_BREAK pieces, no word) has
    # its word ids looked up once (cached), and a text's ids are one join of them
    vocabulary = _VOCABULARY
    lookup = vocabulary.tokens.__getitem__
    out: list[tuple[np.ndarray, int] | None] = [None] * len(texts)
    batch, streams = [], []
    for i, text in enumerate(texts):
        stream = b"".join(map(lookup, utf8(text or "").split() if pieces is None else pieces[i]))
        if len(stream) >= 4 * (MIN_SHINGLES + SHINGLE - 1):  # shorter: too few shingles either way
            batch.append(i)
            streams.append(stream)
    if not batch:
        return out
    ids = np.frombuffer(b"".join(streams), dtype=np.int32)
    if ids.min() < 0:  # a word too long, or the vocabulary full: such a text takes the definition
        kept = []
        for i, stream in zip(batch, streams):
            if np.frombuffer(stream, dtype=np.int32).min() < 0:
                out[i] = _signature_of_bytes(words(texts[i] or ""), SHINGLE)
            else:
                kept.append((i, stream))
        if not kept:
            return out
        batch, streams = map(list, zip(*kept))
        ids = np.frombuffer(b"".join(streams), dtype=np.int32)
    # shingle k starts at id k: a text of n ids has n - 2, and its last two ids start none of its own
    shingles = [len(stream) // 4 - 2 for stream in streams]
    starts = np.cumsum([0] + shingles[:-1]).tolist()
    own = np.ones(len(ids) - 2, dtype=bool)
    for start, text_index in zip(starts[1:], range(1, len(starts))):
        own[start + 2 * text_index - 2:start + 2 * text_index] = False
    crc = _trigram_crcs(vocabulary, ids)
    crc &= np.uint32(0x7FFFFFFF)
    trigrams = ids.astype(np.int64)
    trigrams = (trigrams[:-2] * vocabulary.LIMIT + trigrams[1:-1]) * vocabulary.LIMIT + trigrams[2:]
    if len(batch) > 1:
        crc, trigrams = crc[own], trigrams[own]
    for start, count in zip(starts, shingles):
        trigrams[start:start + count].sort()  # one text's at a time: a sort of the batch costs 3x
    new = np.empty(len(trigrams), dtype=bool)
    np.not_equal(trigrams[1:], trigrams[:-1], out=new[1:])
    new[starts] = True
    distinct = np.add.reduceat(new, starts, dtype=np.int64).tolist()
    minima = _minima_of_texts(crc, starts)  # repeated shingles change no minimum
    for i, sig, size in zip(batch, minima, distinct):
        if size >= MIN_SHINGLES:
            out[i] = sig, size
    return out


def _signature_of_bytes(found: list[str], size: int) -> tuple[np.ndarray, int] | None:
    """The definition: crc32 of the UTF-8 of each distinct shingle (words joined by one space)."""
    encoded = list(map(str.encode, found))
    grams = set(map(b" ".join, zip(*(encoded[i:] for i in range(size)))))
    if len(grams) < MIN_SHINGLES:
        return None
    hashes = np.fromiter(map(zlib.crc32, grams), dtype=np.uint32, count=len(grams))
    hashes &= np.uint32(0x7FFFFFFF)
    return _minima(hashes), len(grams)


# The same crc32 values from each word's crc32, in numpy. CRC-32 is linear: for byte strings x, y,
# crc32(x + y) = Z^len(y)(crc32(x)) ^ crc32(y) (zlib's crc32_combine), where Z^m, the CRC register
# after m zero bytes, is linear over GF(2): a table per byte lane and m (_ZEROS) applies it.
_LONGEST = 63  # bytes in a word with a table (" " + word: 64); longer words take the definition


def _zero_byte_tables(longest: int) -> np.ndarray:
    """_ZEROS[lane, 256 m + b] = Z^m(b << 8 lane), for m = 0 .. longest: one table per byte lane
    (66 KiB each, looked up by a 1-D take per lane: 5x quicker than one (n, 4) gather)."""
    def zeros(m, value):  # zlib complements its register on the way in and out
        return ~zlib.crc32(bytes(m), ~value & 0xFFFFFFFF) & 0xFFFFFFFF

    images = np.array([[zeros(m, 1 << bit) for bit in range(32)] for m in range(longest + 1)], dtype=np.uint32)
    images = images.reshape(longest + 1, 4, 8)  # (m, lane, bit of the byte)
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.uint32)  # (byte, bit)
    tables = np.zeros((longest + 1, 4, 256), dtype=np.uint32)
    for bit in range(8):
        tables ^= bits[None, None, :, bit] * images[:, :, bit, None]
    return np.ascontiguousarray(tables.transpose(1, 0, 2).reshape(4, -1))


_ZEROS = _zero_byte_tables(_LONGEST + 1)
_SPACE = zlib.crc32(b" ")


class _Vocabulary(dict):
    """word -> id; per id crc32(word), crc32(" " + word) and where its shift sits in _ZEROS. Grows as
    words are met, up to LIMIT words (-1 then, and for words too long: those texts take the
    definition's path). Entries never change once made, so readers need no lock."""

    LIMIT = 100_000  # ~8 MiB

    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()
        self.crc = np.empty(1024, dtype=np.uint32)
        self.spaced = np.empty(1024, dtype=np.uint32)
        self.shift = np.empty(1024, dtype=np.intp)  # 256 len(" " + word): its rows of _ZEROS
        self.tokens = _TokenIds(self)

    def __missing__(self, word: str) -> int:
        with self._lock:
            known = self.get(word)
            if known is not None:
                return known
            encoded = word.encode()
            if len(self) >= self.LIMIT or len(encoded) > _LONGEST:
                return -1
            new = len(self)
            if new == len(self.crc):
                self.crc, self.spaced = np.resize(self.crc, 2 * new), np.resize(self.spaced, 2 * new)
                self.shift = np.resize(self.shift, 2 * new)
            self.crc[new] = zlib.crc32(encoded)
            self.spaced[new] = zlib.crc32(encoded, _SPACE)
            self.shift[new] = 256 * (len(encoded) + 1)
            self[word] = new  # last: another thread sees the id only once its values are in
            return new


class _TokenIds(dict):
    """piece of UTF-8 text between ASCII whitespace -> the ids of its words, packed int32 (``words``
    of the piece: it folds it, and other whitespace in it, which no word spans, changes nothing);
    -1 when a word has none (that text takes the definition's path)."""

    LIMIT = 50_000  # pieces of up to 128 bytes kept (~10 MiB); others are looked up each time

    def __init__(self, vocabulary: _Vocabulary):
        super().__init__()
        self.vocabulary = vocabulary

    def __missing__(self, token: bytes) -> bytes:
        found = words(token.decode("utf-8", "surrogatepass"))
        value = np.array(list(map(self.vocabulary.__getitem__, found)), dtype=np.int32).tobytes()
        if len(self) < self.LIMIT and len(token) <= 128:  # a page's junk must not fill memory
            self[token] = value
        return value


_VOCABULARY = _Vocabulary()


def _after(crc: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Z^m(crc) per element, ``shift`` holding each 256 m (_Vocabulary.shift)."""
    out = _ZEROS[0].take(shift + (crc & 0xFF))  # take, not [...]: 2x quicker
    out ^= _ZEROS[1].take(shift + ((crc >> 8) & 0xFF))
    out ^= _ZEROS[2].take(shift + ((crc >> 16) & 0xFF))
    out ^= _ZEROS[3].take(shift + (crc >> 24))
    return out


def _trigram_crcs(vocabulary: _Vocabulary, ids: np.ndarray) -> np.ndarray:
    """For each k, crc32 of the words of ids k, k + 1 and k + 2 joined by spaces."""
    n = len(ids)
    crc = vocabulary.crc.take(ids[:-2])  # crc32("a"), then of "a b", then of "a b c"
    for j in (1, 2):
        at = ids[j:n - 2 + j]
        crc = _after(crc, vocabulary.shift.take(at))
        crc ^= vocabulary.spaced.take(at)
    return crc


# min over shingles of (a h + b) mod p for the 128 (a, b), without integer division. With
# h = h1 2^16 + h0 and a' = a 2^16 mod p, (a h + b) mod p = p frac(v), v = (a' h1 + a h0 + b) / p.
# One float64 matrix product [h1 h0 1] @ [a'; a; b] / p gives u = v + e, 2^-34 < e < 2^-32 (the
# coefficients' and sums' rounding stays under 2^-34 for these magnitudes, and the constant row
# carries a 2^-33 nudge). As frac(v) = r / p <= 1 - 1/p, u never crosses the next integer, so
# floor(u) = floor(v) and p frac(u) lies within 0.4 of the integer r: the minimum of frac(u) over a
# column, times p and rounded, is the exact minimum of r.
_COEFFICIENTS = np.stack([(_A * np.uint64(1 << 16)) % _PRIME, _A, _B]).astype(np.float64) / float(_PRIME)
_COEFFICIENTS[2] += 2.0 ** -33
_COEFFICIENTS_T = np.ascontiguousarray(_COEFFICIENTS.T)  # a permutation's row: minima along contiguous rows
_COLUMNS = 1024  # shingles per product: a 128 x 1024 block (1 MiB) stays in the core's cache


def _minima(hashes: np.ndarray) -> np.ndarray:
    """The 128 minima of (a h + b) mod p over ``hashes`` (uint32 below 2^31)."""
    return _minima_of_texts(hashes, [0])[0]


class _Blocks(threading.local):
    """Each thread's work arrays for one block of the product (2 MiB), kept: made anew for each
    block, a thread's malloc arena could hand them back to the kernel in between, and each page
    faulted in again."""

    def __init__(self):
        self.split = np.empty(3 * _COLUMNS)
        self.u = np.empty(PERMUTATIONS * _COLUMNS)
        self.floor = np.empty(PERMUTATIONS * _COLUMNS)


_BLOCKS = _Blocks()


def _minima_of_texts(hashes: np.ndarray, starts: list[int]) -> np.ndarray:
    """``_minima`` of each text's hashes, texts back to back in ``hashes`` (text t from ``starts[t]``
    on, none empty): one row per text. The batch goes through the product in blocks of ``_COLUMNS``
    shingles whatever texts they hold, a block's texts' minima taken by one reduceat (per text,
    numpy's calls cost about as much as its arithmetic)."""
    n = len(hashes)
    least = np.empty((len(starts), PERMUTATIONS))
    bounds = list(starts) + [n]
    work = _BLOCKS
    text = 0  # the text the block starts in
    for start in range(0, n, _COLUMNS):
        end = min(n, start + _COLUMNS)
        block, width = hashes[start:end], end - start
        split = work.split[:3 * width].reshape(3, width)
        np.right_shift(block, 16, out=split[0], casting="unsafe")
        np.bitwise_and(block, 0xFFFF, out=split[1], casting="unsafe")
        split[2] = 1.0
        u = np.matmul(_COEFFICIENTS_T, split, out=work.u[:PERMUTATIONS * width].reshape(PERMUTATIONS, width))
        u -= np.floor(u, out=work.floor[:PERMUTATIONS * width].reshape(PERMUTATIONS, width))
        while bounds[text + 1] <= start:
            text += 1
        first, cuts = text, [0]
        while bounds[text + 1] < end:  # texts that start inside the block
            text += 1
            cuts.append(bounds[text] - start)
        low = np.minimum.reduceat(u, cuts, axis=1) if len(cuts) > 1 else u.min(axis=1)[:, None]
        if bounds[first] < start:  # the block's first text began in the block before
            np.minimum(least[first], low[:, 0], out=least[first])
            least[first + 1:text + 1] = low[:, 1:].T
        else:
            least[first:text + 1] = low.T
    return np.rint(least * float(_PRIME)).astype(np.uint32)


def to_blob(sig: np.ndarray) -> bytes:
    return np.asarray(sig, dtype="<u4").tobytes()  # no copy first when it is '<u4' already


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<u4")


def _containment(jaccard, size_a, size_b):
    # |A∩B| = J (|A| + |B|) / (1 + J); divided by the smaller set
    return jaccard * (size_a + size_b) / ((1.0 + jaccard) * np.minimum(size_a, size_b))


def similarity(a: tuple[np.ndarray, int] | None, b: tuple[np.ndarray, int] | None) -> tuple[float, float]:
    """(estimated Jaccard, estimated containment) of two signatures; (0, 0) when either is None."""
    if a is None or b is None:
        return 0.0, 0.0
    jaccard = float(np.mean(a[0] == b[0]))
    return jaccard, min(1.0, float(_containment(jaccard, a[1], b[1])))


def same_story(a, b) -> bool:
    jaccard, contained = similarity(a, b)
    return jaccard >= MIN_JACCARD and contained >= MIN_CONTAINMENT


def fingerprints(sigs: np.ndarray) -> np.ndarray:
    """The low byte of each minimum, one column per signature (PERMUTATIONS x n): 4x less to read
    when ``best_match`` looks through many rows, and counting equal bytes adds contiguous rows."""
    return np.ascontiguousarray(np.atleast_2d(sigs).astype(np.uint8).T)


def _equal_bytes(columns: np.ndarray, column: np.ndarray) -> np.ndarray:
    """How many bytes of each column of ``columns`` (PERMUTATIONS x n) equal ``column``'s."""
    # at most 128; summed as the bytes the comparison wrote (a sum of bools casts each one: 1.3x slower)
    return (columns == column).view(np.uint8).sum(axis=0, dtype=np.uint8)


def best_match(sig: tuple[np.ndarray, int], known: np.ndarray, sizes: np.ndarray,
               known_fingerprints: np.ndarray | None = None) -> int:
    """Row index of the stored signature (rows of ``known``, shingle counts ``sizes``) that tells the
    same story as ``sig`` most surely, or -1 when none does. With ``fingerprints(known)`` only the rows
    whose low bytes pass the Jaccard floor are compared in full (equal minima have equal low bytes,
    so no row is missed; two other stories share a low byte 1 time in 256)."""
    if len(known) == 0:
        return -1
    floor = MIN_JACCARD * PERMUTATIONS
    if known_fingerprints is None:
        rows = np.arange(len(known))
        equal = np.count_nonzero(known == sig[0][None, :], axis=1)
    else:  # sig's fingerprint column: its low bytes as a (128, 1) column
        rows = np.flatnonzero(_equal_bytes(known_fingerprints, sig[0].astype(np.uint8)[:, None]) >= floor)
        if not len(rows):  # the usual answer: no row comes near (a few numpy calls less per article)
            return -1
        equal = np.count_nonzero(known[rows] == sig[0][None, :], axis=1)
    passed = equal >= floor  # the Jaccard floor first: cheap
    if not passed.any():
        return -1
    candidates = rows[passed]
    jaccard = equal[passed] / PERMUTATIONS
    scores = np.minimum(1.0, _containment(jaccard, sizes[candidates].astype(np.float64), float(sig[1])))
    best = int(np.argmax(scores))
    return int(candidates[best]) if scores[best] >= MIN_CONTAINMENT else -1
