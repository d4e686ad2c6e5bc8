"""Topic display names: Vietnamese for people, the corpus folder names inside."""

from __future__ import annotations

import json
import unicodedata

from xnews_gui.core.text.topics import DISPLAY_NAMES, display_name, label_from_text
from xnews_gui.paths import RESOURCES


def test_every_shipped_label_has_a_vietnamese_name():
    card = json.loads((RESOURCES / "model" / "topic.card.json").read_text(encoding="utf-8"))
    assert set(card["labels"]) == set(DISPLAY_NAMES)
    assert display_name("Suc khoe") == "Sức khỏe"
    assert display_name("Chinh tri Xa hoi") == "Chính trị Xã hội"
    assert display_name("Doi song") == "Đời sống"
    assert display_name("The thao") == "Thể thao"
    for name in DISPLAY_NAMES.values():
        assert unicodedata.is_normalized("NFC", name)


def test_unknown_and_empty_labels():
    assert display_name("Tech") == "Tech"
    assert display_name("") == ""
    assert display_name(None) == ""


def test_text_back_to_the_label():
    assert label_from_text("Sức khỏe") == "Suc khoe"
    assert label_from_text(unicodedata.normalize("NFD", "sức  khỏe ")) == "Suc khoe"
    assert label_from_text("suc khoe") == "Suc khoe"
    assert label_from_text("  Công nghệ ") == "Công nghệ"
    for label in DISPLAY_NAMES:
        assert label_from_text(display_name(label)) == label
