import unicodedata

from xnews_gui.core.encoding import decode_html

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
