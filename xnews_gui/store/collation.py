"""Vietnamese alphabetical order as a sort key: ``sorted(titles, key=vi_key)``, ``ORDER BY vi_key(title)``.

Byte order puts "Chính" before "Các" (h < á) and "Đà Nẵng" after "Vũng Tàu" (Đ is U+0110): wrong
for a Vietnamese reader. The order here is ICU's for the Vietnamese locale (what Qt's ``QCollator``
gives; tests/gui/test_collation.py compares them on real headlines), in three levels as ICU does:

1. letters: a ă â b c d đ e ê f g h i j k l m n o ô ơ p q r s t u ư v w x y z (case and tone
   ignored), after spaces, punctuation, symbols and digits;
2. tones, where the letters are equal: none, huyền (à), hỏi (ả), ngã (ã), sắc (á), nặng (ạ);
3. case: lower before upper.

The key is a plain string whose code point order is that order, so SQLite sorts it in C (the store
registers ``vi_key`` as an SQL function on every connection) and Python compares keys the same way.
"""

from __future__ import annotations

import unicodedata

from ..core.text.topics import display_name

ALPHABET = "aăâbcdđeêfghijklmnoôơpqrstuưvwxyz"
TONES = ("", "\u0300", "\u0309", "\u0303", "\u0301", "\u0323")  # none, huyền, hỏi, ngã, sắc, nặng
# ICU's root order of common punctuation and symbols (all before digits and letters)
BEFORE_DIGITS = ("_-\u2010\u2011\u2012\u2013\u2014\u2015,;:!\u00a1?\u00bf.\u2026\u00b7'\u2018\u2019\u201a\u201b"
                 "\u2039\u203a\"\u201c\u201d\u201e\u00ab\u00bb()[]{}\u00a7\u00b6@*/\\&#%\u2030\u2020\u2021\u2022`"
                 "\u00b4\u02dc^\u00af\u00b0\u00a9\u00ae+\u00b1\u00f7\u00d7<=>\u00ac|\u00a6~\u00a4\u00a2$\u00a3\u00a5\u20ac")
SPACES = "\t \u3000\u2002\u00a0"
# characters ICU weighs as another one at the first level (they differ at the second)
SAME_AS = {"\u3000": " ", "\u2002": " ", "\u00a0": " ", "\u2011": "\u2010", "\u2018": "'", "\u2019": "'",
           "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
EXPANDS = {"\u2026": "..."}  # an ellipsis sorts as three full stops
_SPACE, _PUNCT, _DIGIT, _LETTER, _OTHER = 0x20, 0x100, 0x400, 0x500, 0x1000
_LEVEL = "\x00"  # ends a level: a shorter key sorts first


class _Table(dict):
    """str.translate tables filled on first sight of a character (any script, any accent)."""

    def __init__(self, level: int):
        super().__init__()
        self.level = level

    def __missing__(self, code: int) -> str:
        weights = _weights(chr(code))
        self[code] = weights[self.level]
        return self[code]


def _base_and_marks(char: str) -> tuple[str, str]:
    decomposed = unicodedata.normalize("NFD", char)
    return decomposed[:1], decomposed[1:]


def _weights(char: str) -> tuple[str, str, str]:
    """(primary, tone, case) of one character; ('', '', '') for one that sorts as nothing."""
    lower = char.lower() if len(char.lower()) == 1 else char
    base, marks = _base_and_marks(lower)
    tone = next((i for i, mark in enumerate(TONES) if mark and mark in marks), 0)
    letter_marks = marks.replace(TONES[tone], "") if tone else marks
    letter = unicodedata.normalize("NFC", base + "".join(m for m in letter_marks if m in "\u0306\u0302\u031b"))
    if lower == "đ":
        letter = "đ"
    case = "1" if char != lower else "0"
    if lower == "\u00f0":  # eth, often typed for đ: a d with an accent, as ICU weighs it
        return chr(_LETTER + ALPHABET.index("d")), "9", case
    if letter in ALPHABET:
        other = "".join(m for m in letter_marks if m not in "\u0306\u0302\u031b")  # a foreign accent: ü, ñ, ç
        return chr(_LETTER + ALPHABET.index(letter)), chr(0x30 + tone) + ("9" if other else ""), case
    if base in ALPHABET:  # a letter Vietnamese does not write, e.g. ü: its base letter, accent below tones
        return chr(_LETTER + ALPHABET.index(base)), "9", case
    if unicodedata.category(char).startswith("M"):
        return "", "", ""  # a combining mark left over (text not in NFC): no weight of its own
    if char == "\ufffd":  # a character lost in decoding: after everything
        return chr(0x10FFFD), "0", "0"
    if char in EXPANDS:
        parts = [_weights(c) for c in EXPANDS[char]]
        return "".join(p[0] for p in parts), "".join(p[1] for p in parts), "1" * len(parts)
    if char in SAME_AS:
        variant = chr(0x31 + list(SAME_AS).index(char))
        return _weights(SAME_AS[char])[0], variant, variant
    if char.isspace():
        return chr(_SPACE + (SPACES.index(char) if char in SPACES else len(SPACES))), "0", "0"
    if char in BEFORE_DIGITS:
        return chr(_PUNCT + BEFORE_DIGITS.index(char)), "0", "0"
    if char.isdigit() and unicodedata.digit(char, None) is not None:
        return chr(_DIGIT + unicodedata.digit(char)), "0", "0"
    if unicodedata.category(char)[0] in "PSZC":  # other punctuation and symbols: before the digits
        return chr(_PUNCT + len(BEFORE_DIGITS) + min(ord(char), 0x2FF)), "0", "0"
    return chr(_OTHER + ord(char)) if ord(char) + _OTHER <= 0x10FFFF else char, "0", case


_PRIMARY, _TONE, _CASE = _Table(0), _Table(1), _Table(2)


def vi_key(text: str | None) -> str:
    """The sort key of ``text`` in Vietnamese order (None and '' sort first)."""
    if not text:
        return ""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text.translate(_PRIMARY) + _LEVEL + text.translate(_TONE) + _LEVEL + text.translate(_CASE)


def vi_sorted(items, key=lambda x: x):
    """``items`` sorted by ``vi_key(key(item))``."""
    return sorted(items, key=lambda item: vi_key(key(item)))


def topic_key(label: str | None) -> str:
    """The sort key of a topic as people read it (its Vietnamese name: "Doi song" sorts as "Đời sống")."""
    return vi_key(display_name(label))
