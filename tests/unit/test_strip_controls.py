"""``core.text.strip_control_chars`` looks for control characters in a long text's UTF-8 bytes before
running its regular expression: the result must be the regular expression's, whatever the text holds."""

from __future__ import annotations

from xnews_gui.core.text.text import _CONTROLS, strip_control_chars

VN = "<p>Đội tuyển bóng đá Việt Nam giành chiến thắng — “hòa”, thuỷ, khoẻ © 2024 °C\u00a0nbsp</p>\n\t\r" * 4
CONTROLS = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (0x09, 0x0A, 0x0D)] + \
    ["\ud800", "\udfff", "\ufffe", "\uffff"]


def test_every_control_character_goes_wherever_it_is():
    assert len(VN) > 200
    for control in CONTROLS:
        for text in (control + VN, VN[:101] + control + VN[101:], VN + control, "x" * 300 + control):
            assert strip_control_chars(text) == _CONTROLS.sub("", text), repr(control)
            assert control not in strip_control_chars(text)


def test_a_control_after_many_latin1_characters_is_found():
    text = "©\u00a0é" * 200 + "\x85" + "°" * 50  # past the 32 lead bytes looked at one by one
    assert strip_control_chars(text) == text.replace("\x85", "")


def test_clean_texts_come_back_as_they_are():
    for text in (VN, "plain ascii " * 40, "\ufffd\ufeff\u2028 " * 100, "\U0001f600 " * 100, "short\x01"):
        assert strip_control_chars(text) == _CONTROLS.sub("", text)
    assert strip_control_chars(VN) is VN
