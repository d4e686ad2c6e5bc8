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

import zlib

import numpy as np

from .text import words

SHINGLE = 3
PERMUTATIONS = 128
MIN_CONTAINMENT = 0.5  # both chosen on the benchmark's pairs (see README, "Duplicates"): containment
MIN_JACCARD = 0.3  # forgives added boilerplate; the Jaccard floor stops a short text "contained" in a template
MIN_SHINGLES = 25  # shorter texts get no signature: too little to tell stories apart
_PRIME = np.uint64((1 << 31) - 1)
_rng = np.random.RandomState(20261201)  # fixed: signatures stored in the database must stay comparable
_A = _rng.randint(1, (1 << 31) - 1, size=PERMUTATIONS).astype(np.uint64)
_B = _rng.randint(0, (1 << 31) - 1, size=PERMUTATIONS).astype(np.uint64)


def shingles(text: str, size: int = SHINGLE) -> set[str]:
    found = words(text or "")  # the words of normalize(text): [^\W_]+ runs
    return set(map(" ".join, zip(*(found[i:] for i in range(size)))))


def signature(text: str, size: int = SHINGLE) -> tuple[np.ndarray, int] | None:
    """(128 uint32 minima, shingle count) of ``text``; None when it is too short to judge."""
    grams = shingles(text, size)
    if len(grams) < MIN_SHINGLES:
        return None
    hashes = np.array(list(map(zlib.crc32, map(str.encode, grams))), dtype=np.uint64)
    hashes &= np.uint64(0x7FFFFFFF)
    products = hashes[:, None] * _A[None, :]  # (h * a + b) mod p, in place: one n x 128 buffer
    products += _B[None, :]
    np.remainder(products, _PRIME, out=products)
    return products.min(axis=0).astype(np.uint32), len(grams)


def to_blob(sig: np.ndarray) -> bytes:
    return sig.astype("<u4").tobytes()


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


def best_match(sig: tuple[np.ndarray, int], known: np.ndarray, sizes: np.ndarray) -> int:
    """Row index of the stored signature (rows of ``known``, shingle counts ``sizes``) that tells the
    same story as ``sig`` most surely, or -1 when none does."""
    if len(known) == 0:
        return -1
    equal = np.count_nonzero(known == sig[0][None, :], axis=1)
    candidates = np.flatnonzero(equal >= MIN_JACCARD * PERMUTATIONS)  # the Jaccard floor first: cheap
    if len(candidates) == 0:
        return -1
    jaccard = equal[candidates] / PERMUTATIONS
    scores = np.minimum(1.0, _containment(jaccard, sizes[candidates].astype(np.float64), float(sig[1])))
    best = int(np.argmax(scores))
    return int(candidates[best]) if scores[best] >= MIN_CONTAINMENT else -1
