"""Which language a text is written in, where its letters or its commonest words say so plainly.

For what a reader or an e-book needs (fonts for Han characters, hyphenation, a voice): a text's
writing system names Japanese (kana), Korean (hangul), Chinese (Han without kana), Thai, Greek and
Hebrew; Vietnamese is told by its letters (``vietnamese_share``, which the topic model's guard uses
too); the Latin-script languages of the news sites most users follow by the share of their words that
are that language's commonest function words. Anything less plain is "" (unknown), never a guess.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from .text import NUMBER_TOKEN, syllables as text_syllables

SAMPLE_WORDS = 400  # the language is judged on the first words: enough, and a bounded cost
VIETNAMESE_SHARE = 0.15  # Vietnamese news: 0.25-0.8 (VNTC); other languages <= 0.01 (the shared test pages)

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


# the commonest function words: written language by language from their grammars, not fitted to any data
_FUNCTION_WORDS = {
    "en": "the and of to is that for with was on are it this have from by be at he she said his her has not but "
          "they were which an been will their who would had its",
    "de": "der die und das ist nicht mit den von sich auch auf für dem ein eine im zu es des wir sie wird wurde "
          "bei nach noch aus einer einem werden hat sind",
    "fr": "le la les et des est une du que pour dans en un pas qui sur au il elle ne se ce avec sont par plus "
          "été aux cette mais ont",
    "es": "el la los que y del las por una para con en un es se no su al lo como más pero sus ha fue este esta "
          "entre desde",
    "it": "il di che e la della per un una non sono del le gli con da si nel alla dei anche più è ha delle "
          "questo stato",
    "pt": "o a de que e do da em um para com não uma os no se na por mais as dos como mas foi ao ele das à "
          "seu sua é são",
    "nl": "de het een en van is dat niet op te zijn met voor die er aan ook als bij om nog naar wordt maar hij "
          "werd heeft",
    "pl": "i w na z się nie do że to jest o jak po dla przez od ale za jego co oraz już tym które",
    "tr": "ve bir bu da de için ile olarak çok daha olan gibi en ama değil kadar sonra ya ne her",
    "id": "yang dan di ini itu dengan untuk dari dalam tidak akan pada juga ke ada oleh karena bahwa telah",
    "ru": "и в не на что с по это как а к из о за от для он она но был были его так же уже",
    "uk": "і в не на що з та до як це у за від для він вона але був були його так вже",
}
_WORDS_OF = {code: frozenset(words.split()) for code, words in _FUNCTION_WORDS.items()}
FUNCTION_SHARE = 0.12  # news prose in its language: 0.25-0.45 of its words; another language's rarely 0.08
MARGIN = 1.4  # the first language's share over the second's: neighbours (es/pt, nl/de) share some words
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_SCRIPTS = (  # (code, characters, share of the letters that names the language)
    ("ja", re.compile(r"[\u3040-\u30ff]"), 0.05),  # kana: Japanese writes them between its Han characters
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"), 0.3),
    ("zh", re.compile(r"[\u4e00-\u9fff]"), 0.3),  # after kana: Han without kana
    ("th", re.compile(r"[\u0e00-\u0e7f]"), 0.3),
    ("el", re.compile(r"[\u0370-\u03ff]"), 0.3),
    ("he", re.compile(r"[\u0590-\u05ff]"), 0.3),
)
SAMPLE_CHARS = 4000


def language_of(text: str) -> str:
    """The BCP 47 primary language tag of ``text`` ("en", "ja", "vi"...), or "" when it is not plain."""
    sample = (text or "")[:SAMPLE_CHARS]
    letters = sum(1 for c in sample if c.isalpha())
    if letters < 40:
        return ""
    for code, pattern, share in _SCRIPTS:
        if len(pattern.findall(sample)) >= share * letters:
            return code
    if vietnamese_share(text_syllables(sample)) >= VIETNAMESE_SHARE:
        return "vi"
    words = _WORD.findall(sample.lower())[:SAMPLE_WORDS]
    if len(words) < 20:
        return ""
    counts = Counter(words)
    shares = sorted(((sum(counts[w] for w in known) / len(words), code) for code, known in _WORDS_OF.items()),
                    reverse=True)
    (best, code), (second, _) = shares[0], shares[1]
    return code if best >= FUNCTION_SHARE and best >= MARGIN * second else ""

