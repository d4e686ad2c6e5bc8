"""Vietnamese text normalisation and tokens for the topic classifier.

The same word reaches us in several spellings: precomposed or decomposed
Unicode (windows-1258 pages decompose tone marks), upper or lower case, and the
tone mark on either vowel of "oa", "oe", "uy" ("hoà" and "hòa" are one word).
``normalize`` folds all of them into one form: NFC, lower case, and the tone
mark placed in the traditional ("old") style -- hòa, thúy, khỏe -- which is what
most Vietnamese news sites print.

``tokens`` turns text into classifier features: syllable unigrams and bigrams
(most Vietnamese words are one or two syllables), never joining syllables across
punctuation; numbers become the token ``0``. With ``segment=True`` and pyvi
installed, pyvi's words (syllables joined by ``_``) replace the syllables.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Sequence

NUMBER_TOKEN = "0"

# Combining tone marks: grave, acute, tilde, hook above, dot below.
_TONES = frozenset("\u0300\u0301\u0303\u0309\u0323")
_PLAIN_VOWELS = frozenset("aeiouy")
_MODIFIED_VOWELS = frozenset("ăâêôơư")
_VOWELS = _PLAIN_VOWELS | _MODIFIED_VOWELS
_LETTERS = _VOWELS | frozenset("bcdđghklmnpqrstvx") | frozenset("fjwz")

_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
# Anything that is neither a word character nor whitespace ends a phrase, and so do
# line breaks: bigrams never span them.
_BREAK = re.compile(r"[^\w\s]+|_+|\n+")
_WORD = re.compile(r"[^\W_]+")
_LOOKALIKES = ("ð", "Ð", "\u0110")  # all read "đ"


def normalize_space(text: str) -> str:
    """``" ".join(text.split())``. A text that is already single-spaced is returned as it is, unsplit:
    every whitespace character but the space is unprintable (tested), so a printable text without
    a double space and without a space at either end has nothing to change."""
    if not text:
        return ""
    if text.isprintable() and "  " not in text and text[0] != " " and text[-1] != " ":
        return text if type(text) is str else str(text)  # never an lxml "smart" string
    # str.split() and the regex's \s agree on what whitespace is (Py_UNICODE_ISSPACE); split is faster
    return " ".join(text.split())


def fold(text: str) -> str:
    """NFC, the lookalikes of "đ" folded, lower case (str.replace: a translate table is 100x slower)."""
    text = unicodedata.normalize("NFC", text)
    for ch in _LOOKALIKES:
        if ch in text:
            text = text.replace(ch, "đ")
    return text.lower()


def utf8(text: str) -> bytes:
    """``text`` in UTF-8 (a lone surrogate passes through). Its split at ASCII whitespace is cut into
    the tokens of ``text.split()`` by decoding each piece (surrogatepass) and splitting it again:
    ``bytes.split`` makes its tokens at twice the speed of ``str.split``, and pieces repeat (cache)."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


LINE_BREAK = b"\x00"  # the piece a line break becomes in ``pieces``: no word, no whitespace


def pieces(text: str) -> list[bytes]:
    """``utf8(text)`` cut at ASCII whitespace, each line break a ``LINE_BREAK`` piece of its own:
    what the classifier (a line break ends a phrase) and the near-duplicate signature (no word in
    it) read. A caller that gives both the same text cuts it once and passes the pieces to each."""
    data = utf8(text)
    if b"\n" in data:
        data = data.replace(b"\n", b" \x00 ")
    return data.split()


def joined_pieces(lines: Sequence[str | None], last: list[bytes]) -> list[bytes]:
    """``pieces("\\n".join(filter(None, lines)))`` when ``last`` is ``pieces(lines[-1])`` already."""
    *head, tail = lines
    out = pieces("\n".join(filter(None, head)))
    if tail:
        if any(head):
            out.append(LINE_BREAK)
        out += last
    return out


def fix_tone_mark(word: str) -> str:
    """Place the tone mark of one lower-case NFC syllable in the traditional style."""
    if word.isascii():
        return word
    return _fix_tone_mark(word)


@lru_cache(maxsize=200_000)
def _fix_tone_mark(word: str) -> str:
    decomposed = unicodedata.normalize("NFD", word)
    tone = next((ch for ch in decomposed if ch in _TONES), None)
    if tone is None:
        return word
    base = unicodedata.normalize("NFC", "".join(ch for ch in decomposed if ch not in _TONES))
    if not all(ch in _LETTERS for ch in base):
        return word  # not a Vietnamese syllable: leave it alone
    target = _tone_position(base)
    if target is None:
        return word
    marked = unicodedata.normalize("NFC", base[target] + tone)
    return base[:target] + marked + base[target + 1 :]


def _tone_position(base: str) -> int | None:
    vowels = [i for i, ch in enumerate(base) if ch in _VOWELS]
    # In "qu" and "gi" (before another vowel) the u / i belong to the onset.
    if base.startswith("qu") and len(vowels) > 1 and vowels[0] == 1:
        vowels = vowels[1:]
    elif base.startswith("gi") and len(vowels) > 1 and vowels[0] == 1:
        vowels = vowels[1:]
    if not vowels:
        return None
    cluster = vowels
    if cluster[-1] - cluster[0] != len(cluster) - 1:
        return None  # two vowel groups (café, radio): not one Vietnamese syllable
    if len(cluster) == 1:
        return cluster[0]
    modified = [i for i in cluster if base[i] in _MODIFIED_VOWELS]
    if modified:
        return modified[-1]  # ươ -> ơ, iê -> ê, uô -> ô
    if cluster[-1] < len(base) - 1:
        return cluster[-1]  # a final consonant follows: hoàng, huỳnh
    if len(cluster) >= 3:
        return cluster[1]  # hoài, ngoáy, khuỷu
    return cluster[0]  # open two-vowel syllable, traditional style: hòa, thúy, mái


def normalize(text: str) -> str:
    """NFC, lower case, one tone-mark placement, single spaces. Punctuation and digits are kept."""
    # a word never spans whitespace: each whitespace-separated token is fixed on its own (cached)
    return " ".join(map(_FIXED_TOKENS.__getitem__, fold(text).split()))


def words(text: str) -> list[str]:
    """The words (runs of letters and digits) of ``normalize(text)``, without building that string."""
    return list(map(_FIXED.__getitem__, _WORD.findall(fold(text))))


def phrases(text: str) -> list[list[str]]:
    """Normalised words, grouped by the punctuation that separates them; numbers -> ``0``."""
    # Numbers, breaks and words never span whitespace: each whitespace-separated token is
    # rewritten once (cached) as its fixed words with "\n" at its breaks; a line break is a break.
    rewrite = _TOKEN_WORDS.__getitem__
    marked = "\n".join([" ".join(map(rewrite, line.split())) for line in fold(text).split("\n")])
    return [words for words in map(str.split, marked.split("\n")) if words]


def token_phrases(token: str) -> list[list[str]]:
    """The words of one whitespace-free token of ``fold``-ed text as ``phrases`` reads them, cut at
    its breaks (an empty list for a break at either end). Within a line, ``phrases`` joins its
    tokens' lists, each token's first list continuing the last one of the token before."""
    if token.isalpha():  # one word, no break: most tokens (letters are word characters, never digits)
        return [[_FIXED[token]]]
    return [part.split() for part in _token_words(token).split("\n")]


class _FixedWords(dict):
    """word -> ``fix_tone_mark(word)``, filled as words are met (a dict lookup is the hot path)."""

    limit = 300_000

    def __missing__(self, word: str) -> str:
        value = word if word.isascii() else _fix_tone_mark(word)
        if len(self) < self.limit:
            self[word] = value
        return value


_FIXED = _FixedWords()


class _FixedTokens(dict):
    """whitespace-free token (words and punctuation) -> its words' tone marks fixed, filled as met."""

    limit = 50_000

    def __missing__(self, token: str) -> str:
        value = token if token.isascii() else _WORD.sub(lambda m: _FIXED[m.group(0)], token)
        if len(self) < self.limit and len(token) <= 64:
            self[token] = value
        return value


_FIXED_TOKENS = _FixedTokens()


class _TokenWords(dict):
    """whitespace-free token -> its words (fixed; numbers -> ``0``) joined by " ", "\n" at each break."""

    limit = 50_000

    def __missing__(self, token: str) -> str:
        value = _token_words(token)
        if len(self) < self.limit and len(token) <= 64:
            self[token] = value
        return value


_TOKEN_WORDS = _TokenWords()


def _token_words(token: str) -> str:
    text = _NUMBER.sub(" " + NUMBER_TOKEN + " ", token)
    # once _BREAK is cut out only word characters and spaces are left: str.split finds the words
    return "\n".join(" ".join(map(_FIXED.__getitem__, part.split())) for part in _BREAK.split(text))


def syllables(text: str) -> list[str]:
    return [w for phrase in phrases(text) for w in phrase]


def tokens(text: str, bigrams: bool = True, segment: bool = False) -> list[str]:
    """Classifier features: unigrams plus (optionally) bigrams of syllables or pyvi words."""
    groups = segmented_phrases(text) if segment else phrases(text)
    out: list[str] = []
    for words in groups:
        out.extend(words)
        if bigrams:
            out.extend(a + " " + b for a, b in zip(words, words[1:]))
    return out


# --- optional word segmentation (pyvi) ---------------------------------------------
def segmenter_available() -> bool:
    return _pyvi_tokenizer() is not None


@lru_cache(maxsize=1)
def _pyvi_tokenizer():
    try:
        from pyvi import ViTokenizer  # optional extra "segment"
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None
    return ViTokenizer


def segmented_phrases(text: str) -> list[list[str]]:
    """Like ``phrases`` but each item is a word whose syllables are joined by ``_``.

    Falls back to plain syllables when pyvi is not installed.
    """
    tokenizer = _pyvi_tokenizer()
    if tokenizer is None:
        return phrases(text)
    out = []
    for phrase in phrases(text):
        words = tokenizer.tokenize(" ".join(phrase)).split()
        out.append(words)
    return out


class Analyzer:
    """A picklable analyzer for scikit-learn vectorizers (``analyzer=Analyzer(...)``)."""

    def __init__(self, bigrams: bool = True, segment: bool = False):
        self.bigrams = bigrams
        self.segment = segment

    def __call__(self, text: str) -> list[str]:
        return tokens(text, bigrams=self.bigrams, segment=self.segment)

    def __repr__(self) -> str:
        return f"Analyzer(bigrams={self.bigrams}, segment={self.segment})"


# --- control characters -------------------------------------------------------------
# C0 controls but TAB, LF and CR; DEL and the C1 controls; lone surrogates; the non-characters
# U+FFFE/U+FFFF: none is text, none may appear in XML 1.0, and surrogates cannot even be encoded
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def strip_control_chars(text: str) -> str:
    """``text`` without control characters (TAB, LF and CR are kept)."""
    if not text or len(text) > 200 and not _holds_controls(text):  # a sanitised article body, most often
        return text
    return _CONTROLS.sub("", text)


def _holds_controls(text: str) -> bool:
    """Whether ``_CONTROLS`` finds anything in ``text``, looked for in its UTF-8 bytes with memchr-speed
    searches (the regular expression costs ~25 instructions per character of a non-Latin-1 text)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return True
    return any(byte in data for byte in _C0_BYTES) or (b"\xc2" in data and has_c1_utf8(data)) \
        or (b"\xef" in data and (b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data))


# &#1; &#x1F; &#127; ...: a parser turns these into the control characters themselves
_CONTROL_REFERENCE = re.compile(r"&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*([0-9]{1,7}));?")


def _drop_control_reference(m: re.Match) -> str:
    """Drop the references that lxml would turn into characters XML forbids (&#128;-&#159; are
    Windows-1252 letters in HTML and stay)."""
    code = int(m.group(1), 16) if m.group(1) else int(m.group(2))
    forbidden = (code < 0x20 and code not in (0x09, 0x0A, 0x0D)) or code == 0x7F \
        or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF)
    return "" if forbidden else m.group(0)


def strip_control_chars_html(html: str) -> str:
    """``strip_control_chars`` for HTML source: character references to control characters go too."""
    if not html:
        return html
    html = _CONTROLS.sub("", html)
    return _CONTROL_REFERENCE.sub(_drop_control_reference, html) if "&#" in html else html


# The same control characters in UTF-8: C0 and DEL are single bytes, C1 is \xc2\x80-\xc2\x9f,
# U+FFFE/U+FFFF are \xef\xbf\xbe/\xbf; lone surrogates cannot be encoded at all.
_C0_BYTES = tuple(bytes([b]) for b in (*range(0x20), 0x7F) if b not in (0x09, 0x0A, 0x0D))
_C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")


def has_c1_utf8(data: bytes) -> bool:
    """A C1 control in UTF-8 bytes: memchr from one lead byte 0xC2 to the next (nbsp, ©, ° ...)."""
    at = data.find(b"\xc2")
    for _ in range(32):
        if at < 0:
            return False
        if 0x80 <= data[at + 1] <= 0x9F:  # valid UTF-8: a continuation byte follows \xc2
            return True
        at = data.find(b"\xc2", at + 2)
    return at >= 0 and _C1_UTF8.search(data, at) is not None  # many: the regular expression takes the rest


def strip_control_chars_html_utf8(html: str, utf8: bytes | None = None,
                                  clean: bool = False) -> tuple[str, bytes]:
    """(``strip_control_chars_html(html)``, its UTF-8 bytes), for a parser that is given bytes.
    ``utf8``: ``html``'s UTF-8 when the caller has it already (the fetched page), not encoded again;
    ``clean``: ``utf8`` holds no control character (``encoding.decode_html_utf8`` checked): only
    character references are looked for.

    The check runs on the UTF-8 bytes with memchr-speed searches (the regular expression costs
    ~50 instructions per character); only a page that holds a control character takes it."""
    try:
        data = html.encode("utf-8") if utf8 is None else utf8
    except UnicodeEncodeError:  # a lone surrogate
        data = b""
    if not data or not (clean and utf8 is not None) and (
            any(byte in data for byte in _C0_BYTES)
            or (b"\xc2" in data and has_c1_utf8(data))
            or (b"\xef" in data and (b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data))):
        html = strip_control_chars_html(html)
        return html, html.encode("utf-8")
    if b"&" in data and b"&#" in data:  # only references may go: the text gets shorter when one does
        fixed = _CONTROL_REFERENCE.sub(_drop_control_reference, html)
        if len(fixed) != len(html):
            return fixed, fixed.encode("utf-8")
    return html, data
