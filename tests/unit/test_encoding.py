import unicodedata

import pytest

from tests.conftest import shared_data
from xnews_gui.core.text.encoding import decode_html, decode_html_utf8

VN = "Đội tuyển bóng đá Việt Nam giành chiến thắng thuyết phục — hòa, thuỷ, khoẻ"


def cp1258(text: str) -> bytes:
    """Encode as Windows-1258 does: base letters precomposed, tone marks as combining characters."""
    out = []
    for ch in text:
        try:
            out.append(ch.encode("cp1258"))
        except UnicodeEncodeError:
            base, *marks = unicodedata.normalize("NFD", ch)
            shaped = unicodedata.normalize("NFC", base + "".join(m for m in marks if m in "\u0302\u0306\u031b"))
            tones = "".join(m for m in marks if m not in "\u0302\u0306\u031b")
            out.append((shaped + tones).encode("cp1258"))
    return b"".join(out)


def page(charset_meta: str = "") -> str:
    meta = f'<meta charset="{charset_meta}">' if charset_meta else ""
    return f"<html><head>{meta}<title>x</title></head><body><p>{VN}</p></body></html>"


def test_header_wins_then_meta():
    data = cp1258(page("windows-1258"))
    text, enc = decode_html(data, "text/html; charset=windows-1258")
    assert enc == "cp1258" and unicodedata.normalize("NFC", VN) in text
    text, enc = decode_html(data)
    assert enc == "cp1258" and unicodedata.normalize("NFC", VN) in text


def test_windows_1258_decomposed_tone_marks_come_back_nfc():
    data = cp1258(page("windows-1258"))
    text, _ = decode_html(data)
    assert unicodedata.is_normalized("NFC", text)
    assert "Việt" in text and "thắng" in text


def test_utf8_and_bom():
    assert VN in decode_html(page().encode("utf-8"))[0]
    assert VN in decode_html(b"\xef\xbb\xbf" + page().encode("utf-8"))[0]
    assert VN in decode_html(page().encode("utf-16"))[0]


def test_wrong_header_falls_back_when_bytes_do_not_decode():
    data = page().encode("utf-8")
    # a header that cannot be right (these bytes are not valid windows-1252) is not believed
    text, enc = decode_html(data, "text/html; charset=ascii")
    assert enc == "utf-8" and VN in text
    text, enc = decode_html(data, "text/html; charset=bogus-charset")
    assert enc == "utf-8" and VN in text


def test_undeclared_legacy_page_is_detected():
    data = cp1258(page()) * 3
    text, enc = decode_html(data)
    assert enc == "cp1258"
    assert unicodedata.normalize("NFC", VN) in text


def test_a_declared_utf8_page_with_a_few_bad_bytes_stays_utf8():
    """Issue 12 item 6: declared UTF-8 (header and meta) with invalid bytes was read as a legacy code page."""
    body = ("<html><head><meta charset='utf-8'><title>x</title></head><body><p>" + VN * 5 + "</p>").encode("utf-8")
    data = body + b"<p>Malformed \xff\xfe\xc3(</p></body></html>"
    for content_type in ("text/html; charset=UTF-8", None):
        text, enc = decode_html(data, content_type)
        assert enc == "utf-8" and unicodedata.normalize("NFC", VN) in text
        assert "Malformed \ufffd\ufffd\ufffd(" in text


def test_the_header_wins_over_meta_and_an_impossible_declaration_falls_back_to_detection():
    data = cp1258(page("utf-8"))  # a windows-1258 page that claims UTF-8: most high bytes are invalid
    text, enc = decode_html(data, "text/html; charset=utf-8")
    assert enc == "cp1258" and "Việt" in text
    utf8 = page("windows-1258").encode("utf-8")
    text, enc = decode_html(utf8, "text/html; charset=utf-8")  # the header beats the meta
    assert enc == "utf-8" and unicodedata.normalize("NFC", VN) in text
    text, enc = decode_html(page("no-such-charset").encode("utf-8"), "text/html; charset=bogus")
    assert enc == "utf-8"  # nothing usable declared: detection


@pytest.mark.parametrize("body", [
    VN,  # precomposed: already NFC
    unicodedata.normalize("NFD", VN),  # decomposed UTF-8 (tone marks after ASCII vowels)
    "cafe\u0301",  # a mark composing with the ASCII letter before it
    "cafe\u0301 a\u0300 e\u0323\u0302",
    "x\u0301a\u0316",  # marks apart: each composes or stays
    "\u1ec7\u0301\u0316",  # marks out of canonical order after a precomposed letter
    "\u1100\u1161 \ud55c",  # Hangul jamo that compose, and a syllable
    "\u212b \u2126 \u0958",  # singletons NFC replaces
    "plain ASCII only",
    "a\ufffd\u0301 b",  # a replacement character in the page itself
])
@pytest.mark.parametrize("charset", ["text/html; charset=utf-8", None])
def test_utf8_pages_come_back_exactly_as_nfc_makes_them(body, charset):
    data = page("utf-8" if charset is None else "").replace("<p>", f"<p>{body} ").encode("utf-8")
    text, enc = decode_html(data, charset)
    assert enc == "utf-8" and text == unicodedata.normalize("NFC", data.decode("utf-8"))


def test_a_utf8_page_with_bad_bytes_around_marks_is_still_nfc():
    data = b"<p>" + VN.encode() * 5 + b" \xe1a\xcc\x81 e\xff\xcc\x82 a\xcc\x81</p>"
    text, enc = decode_html(data, "text/html; charset=utf-8")
    assert enc == "utf-8" and text == unicodedata.normalize("NFC", data.decode("utf-8", errors="replace"))
    assert text.endswith(" \ufffd\u00e1 e\ufffd\u0302 \u00e1</p>")


def test_real_pages_decode_to_their_nfc_text():
    pages = sorted(shared_data("cleanportaleval", "input").glob("*.html"))[:40]
    for path in pages:
        data = path.read_bytes()
        nfd = unicodedata.normalize("NFD", data.decode("utf-8", errors="replace")).encode("utf-8")
        for variant in (data, nfd):
            text, enc = decode_html(variant, "text/html; charset=utf-8")
            assert text == unicodedata.normalize("NFC", variant.decode("utf-8", errors="replace")), path.name


def test_the_page_bytes_are_handed_back_only_when_they_are_the_texts_utf8():
    clean = page("utf-8").encode("utf-8")
    cases = {  # page bytes, content type -> are they the text's UTF-8?
        "clean UTF-8, NFC": (clean, "text/html; charset=utf-8", True),
        "clean UTF-8, undeclared": (page().encode("utf-8"), None, True),
        "ASCII": (b"<p>plain</p>", "text/html; charset=utf-8", True),
        "decomposed": (unicodedata.normalize("NFD", page("utf-8")).encode("utf-8"), None, False),
        "bad bytes": (clean + b"\xff", "text/html; charset=utf-8", False),
        "byte-order mark": (b"\xef\xbb\xbf" + clean, None, False),
        "windows-1258": (cp1258(page("windows-1258")), None, False),
        "a replacement character of its own": (page("utf-8").replace("<p>", "<p>\ufffd").encode(), None, False),
        "a C0 control": (page("utf-8").replace("<p>", "<p>\x0b").encode(), None, False),
        "DEL in an ASCII page": (b"<p>plain\x7f</p>", "text/html; charset=utf-8", False),
        "a C1 control": (page("utf-8").replace("<p>", "<p>\x9f").encode(), None, False),
        "U+FFFF": (page("utf-8").replace("<p>", "<p>\uffff").encode(), None, False),
        "TAB, LF and CR are text": (page("utf-8").replace("<p>", "<p>\t\r\n").encode(), None, True),
    }
    for name, (data, content_type, verbatim) in cases.items():
        text, enc, utf8 = decode_html_utf8(data, content_type)
        assert (text, enc) == decode_html(data, content_type), name
        assert (utf8 is data) == verbatim, name
        if verbatim:
            assert text.encode("utf-8") == data, name
