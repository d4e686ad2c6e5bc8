"""Decode HTML bytes: a byte-order mark, the HTTP header's charset, then <meta charset>, then detection.

Vietnamese legacy pages are often windows-1258, whose tone marks are combining
characters; the result is NFC-normalised so text compares and searches equal.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from functools import lru_cache

from charset_normalizer import from_bytes

from .text import has_c1_utf8

_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)
_ALIASES = {"utf8": "utf-8", "x-user-defined": "windows-1252", "iso-8859-1": "windows-1252",
            "latin1": "windows-1252", "latin-1": "windows-1252", "ascii": "windows-1252",
            "us-ascii": "windows-1252"}


def _known(name: str | None) -> str | None:
    if not name:
        return None
    name = _ALIASES.get(name.strip().lower(), name.strip().lower())
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


@lru_cache(maxsize=64)  # a crawl sees a handful of Content-Type values, each thousands of times
def charset_from_content_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = _HEADER_CHARSET.search(content_type)
    return _known(m.group(1)) if m else None


def decode_html(data: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Return (text, encoding used).

    A byte-order mark wins, then the declared charset (the HTTP header, else ``<meta>``),
    decoded with replacement characters for a few bad bytes; detection runs only when
    nothing usable is declared or the declaration is impossible (most of the page's
    non-ASCII bytes do not decode in it).
    """
    text, enc, _ = _decode(data, content_type)
    return text, enc


def decode_html_utf8(data: bytes, content_type: str | None = None) -> tuple[str, str, bytes | None]:
    """``decode_html``, plus ``data`` itself when it is exactly the text's UTF-8 (a clean UTF-8 page,
    already NFC, without a byte-order mark) and holds no control character that
    ``core.text.strip_control_chars`` removes, else None: a parser may take those bytes instead of
    encoding the text again, and skip looking for control characters in them."""
    text, enc, verbatim = _decode(data, content_type)
    return text, enc, (data if verbatim else None)


def utf8_if_valid(data: bytes, content_type: str | None = None) -> bytes | None:
    """``decode_html_utf8(data, content_type)[2]`` for bytes that are valid UTF-8, told without decoding
    the page: ``data`` when ``decode_html`` reads valid UTF-8 bytes as UTF-8 (no byte-order mark, the
    charset declared utf-8 or none usable) and the page's non-ASCII characters, checked alone, are NFC
    and hold no U+FFFD and no control character (nor do its ASCII ones); else None (None too where only
    decoding the whole page can tell). Whether ``data`` is valid UTF-8 is left to the caller: the HTML
    parser reports invalid bytes (``html_text.parse_fetched``)."""
    if not isinstance(data, bytes) or not _utf8_first(data, content_type):
        return None
    if data.isascii():
        return None if any(byte in data for byte in _ASCII_CONTROLS) else data
    rest = data.translate(None, _ASCII_TEXT)
    if any(byte in rest for byte in _ASCII_CONTROLS) or _other_controls(rest):
        return None
    try:
        rest = rest.decode("utf-8")
    except UnicodeDecodeError:  # not UTF-8
        return None
    if "\ufffd" in rest or unicodedata.normalize("NFC", rest) is not rest:
        return None  # (a "maybe" of the NFC check: decode_html_utf8 looks at the whole page)
    return data


def _utf8_first(data: bytes, content_type: str | None) -> bool:
    """Whether ``_decode`` takes ``data`` as UTF-8 when it is valid UTF-8: no byte-order mark, and the
    HTTP header's charset is utf-8, or it names none usable and ``<meta>`` names utf-8 or none usable."""
    if data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    header = charset_from_content_type(content_type)
    if header:
        return header == "utf-8"
    m = _META_CHARSET.search(data[:8192])
    meta = _known(m.group(1).decode("ascii", "ignore")) if m else None
    return meta is None or meta == "utf-8"


class FetchedHtml:
    """A fetched page as the crawl parses it: its bytes, and the text ``decode_html_utf8`` gives,
    decoded only when something asks for it (a regex rule, a login check): most pages are parsed from
    their bytes and never need it.

    ``candidate`` is ``utf8_if_valid``'s answer; a parser that took those bytes and found them valid
    UTF-8 says so with ``valid_utf8()``: the text is then their strict decoding, ``utf8`` the bytes
    and ``encoding`` utf-8, as ``decode_html_utf8`` would say."""

    __slots__ = ("data", "content_type", "candidate", "_valid", "_decoded")

    def __init__(self, data: bytes, content_type: str | None = None):
        self.data, self.content_type = data, content_type
        self.candidate = utf8_if_valid(data, content_type)
        self._valid = False
        self._decoded: tuple[str, str, bytes | None] | None = None

    def valid_utf8(self) -> None:
        if self.candidate is None:
            raise ValueError("no candidate bytes to call valid")
        self._valid = True

    def _decode(self) -> tuple[str, str, bytes | None]:
        if self._decoded is None:
            self._decoded = (self.candidate.decode("utf-8"), "utf-8", self.candidate) if self._valid \
                else decode_html_utf8(self.data, self.content_type)
        return self._decoded

    @property
    def text(self) -> str:
        return self._decode()[0]

    @property
    def encoding(self) -> str:
        return "utf-8" if self._valid else self._decode()[1]

    @property
    def utf8(self) -> bytes | None:
        """``decode_html_utf8``'s bytes: the page's UTF-8 as fetched, or None."""
        return self.candidate if self._valid else self._decode()[2]


def _decode(data: bytes, content_type: str | None) -> tuple[str, str, bool]:
    """(text, encoding, whether ``text.encode("utf-8") == data``)."""
    if isinstance(data, str):
        return data, "unicode", False
    for bom, enc in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"),
                     (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return _nfc(data.decode(enc, errors="replace").lstrip("\ufeff")), enc, False
    header = charset_from_content_type(content_type)
    if header:
        found = _declared(data, header)
        if found is not None:
            return _page(found, data, header)
    # <meta charset> only when the HTTP header says nothing usable (it wins when it does)
    m = _META_CHARSET.search(data[:8192])
    meta = _known(m.group(1).decode("ascii", "ignore")) if m else None
    if meta and meta != header:
        found = _declared(data, meta)
        if found is not None:
            return _page(found, data, meta)
    try:
        return _utf8_page(data.decode("utf-8"), data, True)
    except UnicodeDecodeError:
        pass
    if _looks_cp1258(data[:200_000]):
        return _nfc(data.decode("cp1258", errors="replace")), "cp1258", False
    best = from_bytes(data[:200_000]).best()
    enc = best.encoding if best else "windows-1252"
    return _nfc(data.decode(enc, errors="replace")), enc, False


def _page(found: tuple[str, bool], data: bytes, enc: str) -> tuple[str, str, bool]:
    text, strict = found
    return _utf8_page(text, data, strict) if enc == "utf-8" else (_nfc(text), enc, False)


def _utf8_page(text: str, data: bytes, strict: bool) -> tuple[str, str, bool]:
    """A page decoded as UTF-8 (``strict``: without replaced bytes): NFC, and whether that is still
    ``data`` byte for byte (decoded strictly, no U+FFFD of the page's own, and unchanged by NFC)."""
    normal, unclean = _nfc_utf8(text, data, strict)
    return normal, "utf-8", strict and normal is text and not unclean


_NON_ASCII = bytes(range(0x80, 0x100))
MAX_BAD_SHARE = 0.2  # more bad bytes than this share of the non-ASCII ones: the declaration is wrong


def _declared(data: bytes, enc: str) -> tuple[str, bool] | None:
    """(``data`` in its declared encoding, a few bad bytes replaced; whether none was), or None when
    the declaration cannot be right."""
    try:
        return data.decode(enc), True
    except UnicodeDecodeError:
        pass
    except LookupError:
        return None
    if enc != "utf-8" and _is_utf8(data):
        return None  # bytes this code page does not have, in a page that is valid UTF-8: mislabelled
    text = data.decode(enc, errors="replace")
    literal = "\ufffd".encode(enc, errors="ignore")  # replacement characters the page itself holds
    bad = text.count("\ufffd") - (data.count(literal) if literal else 0)
    non_ascii = len(data) - len(data.translate(None, _NON_ASCII))
    return (text, False) if bad <= MAX_BAD_SHARE * max(non_ascii, 1) else None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# windows-1258 writes Vietnamese tone marks as separate bytes (grave, acute, tilde, hook, dot
# below) right after a vowel; general detectors take such pages for cp1250 and garble them.
_CP1258_TONE_AFTER_VOWEL = re.compile(rb"[aeiouyAEIOUY\xe2\xe3\xea\xf4\xf5\xfd\xc2\xc3\xca\xd4\xd5\xdd][\xcc\xd2\xde\xec\xf2]")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")


def _looks_cp1258(data: bytes) -> bool:
    high = len(_HIGH_BYTE.findall(data))
    if high < 20:
        return False
    tones = len(_CP1258_TONE_AFTER_VOWEL.findall(data))
    return tones >= 20 and tones >= 0.25 * high


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# ASCII without the control characters core.text strips (C0 but TAB, LF and CR; DEL)
_ASCII_TEXT = bytes(b for b in range(0x80) if 0x20 <= b < 0x7F or b in (0x09, 0x0A, 0x0D))
_ASCII_CONTROLS = tuple(bytes([b]) for b in range(0x80) if bytes([b]) not in _ASCII_TEXT)


def _other_controls(data: bytes) -> bool:
    """A C1 control or U+FFFE/U+FFFF in UTF-8 bytes, with memchr-speed searches (a regular
    expression costs ~40 instructions per byte): from one lead byte 0xC2 to the next (nbsp, ©, °)."""
    if b"\xef" in data and (b"\xef\xbf\xbe" in data or b"\xef\xbf\xbf" in data):
        return True
    return has_c1_utf8(data)


def _nfc_utf8(text: str, data: bytes, strict: bool) -> tuple[str, bool]:
    """(``_nfc(text)``, whether ``text`` holds U+FFFD or a control character) for ``text`` decoded
    from the UTF-8 ``data`` (``strict``: without replaced bytes), cheaper for a page already in NFC.

    Only the page's non-ASCII characters (and its ASCII control characters, looked for in the same
    pass) are checked, a third of the work: the quick check looks at each character and at the
    canonical order of neighbouring combining marks, and an ASCII character is NFC and resets that
    order, so when those characters alone pass it, the whole page does. ``normalize`` returns its
    argument itself only when the quick check says yes outright; a "maybe" (a mark that might
    compose with the character before it, which may be ASCII) takes the whole page through NFC.
    Only for a strictly decoded page: with bad bytes (U+FFFD) the stripped bytes could pair up anew.
    """
    if text.isascii():
        return text, any(byte in data for byte in _ASCII_CONTROLS)
    if not strict:  # bytes were replaced: the text holds U+FFFD
        return _nfc(text), True
    rest = data.translate(None, _ASCII_TEXT)  # far shorter than the page: cheap to search
    unclean = any(byte in rest for byte in _ASCII_CONTROLS) or _other_controls(rest)
    rest = rest.decode("utf-8")  # decoded strictly before: cannot fail
    unclean = unclean or "\ufffd" in rest  # the text's U+FFFD are among these characters
    if not unclean and unicodedata.normalize("NFC", rest) is rest:
        return text, False
    return _nfc(text), unclean
