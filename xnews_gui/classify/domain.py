"""Is a text something the Vietnamese topic model can label at all?

The model has only ever seen Vietnamese news: given English or a two-line stub it
still names a topic, often with high confidence. Before trusting it we ask two
cheap questions of the normalised syllables the model reads anyway:

* enough words?  (``MIN_WORDS``) - else "too short";
* Vietnamese?    the share of words written with a letter only Vietnamese uses
  (ă đ ơ ư, or a tone mark such as ạ ả ế ữ), less the share of words with a letter
  Vietnamese never uses (ð ö ř ç, Cyrillic, CJK) (``MIN_SHARE``). The letters that
  French or Spanish share (é à ô) count for neither.
"""

from __future__ import annotations

import re
import unicodedata

from ..core.text.text import NUMBER_TOKEN

MIN_WORDS = 20
SAMPLE_WORDS = 400  # the language is judged on the first words: enough, and a bounded cost
MIN_SHARE = 0.15  # Vietnamese news: 0.25-0.8 (VNTC); other languages <= 0.01 (the shared test pages)

_BASES = "aăâeêioôơuưy"
_TONES = ("", "\u0300", "\u0301", "\u0303", "\u0309", "\u0323")
_ALL_VOWELS = {unicodedata.normalize("NFC", b + t) for b in _BASES for t in _TONES}
_ALPHABET = "".join(sorted(_ALL_VOWELS | set("abcdđeghiklmnopqrstuvxyfjwz")))
# letters that European languages also write (French, Portuguese, Spanish, Italian...) say little
_SHARED = set("àáâãèéêìíòóôõùúý")
_DISTINCT = "".join(sorted(v for v in _ALL_VOWELS if not v.isascii() and v not in _SHARED)) + "đ"
# one whole word (syllables are joined by single spaces) of the alphabet with a distinctly Vietnamese letter
_VIETNAMESE_WORD = re.compile(rf"(?<!\S)[{_ALPHABET}]*[{_DISTINCT}][{_ALPHABET}]*(?!\S)")
# a word holding a letter that Vietnamese does not use (ð ö ř ç ß, Cyrillic, CJK...)
_FOREIGN_WORD = re.compile(rf"(?<!\S)\S*[^\s\d{_ALPHABET}]\S*(?!\S)")


def out_of_domain(syllables: list[str]) -> str:
    """'' when the model may label this text, else the reason it should not.

    ``syllables`` are ``core.text.phrases`` words: lower case, NFC, numbers as "0".
    """
    count = len(syllables) - syllables.count(NUMBER_TOKEN)
    if count < MIN_WORDS:
        return f"too short ({count} words)"
    if vietnamese_share(syllables) < MIN_SHARE:
        return "not Vietnamese"
    return ""


def vietnamese_share(syllables: list[str]) -> float:
    """Share of words with a distinctly Vietnamese letter, less the share of words with a foreign one."""
    syllables = syllables[:SAMPLE_WORDS]
    count = len(syllables) - syllables.count(NUMBER_TOKEN)
    if not count:
        return 0.0
    return sum(map(_VERDICTS.__getitem__, syllables)) / count


def syllable_verdict(syllable: str) -> int:
    """1 for a distinctly Vietnamese syllable, -1 for one with a foreign letter, else 0."""
    return _VERDICTS[syllable]


class _Verdicts(dict):
    """syllable -> 1 (a distinctly Vietnamese word), -1 (a word with a foreign letter) or 0, as the
    two patterns judge it among the joined words; remembered (the same syllables come back)."""

    limit = 200_000

    def __missing__(self, word: str) -> int:
        joined = f" {word} "  # a syllable with a space inside is judged as the patterns judge joined words
        value = len(_VIETNAMESE_WORD.findall(joined)) - len(_FOREIGN_WORD.findall(joined))
        if len(self) < self.limit:
            self[word] = value
        return value


_VERDICTS = _Verdicts()
