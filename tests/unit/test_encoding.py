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
