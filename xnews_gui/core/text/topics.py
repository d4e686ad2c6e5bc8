"""Topic labels for people: the classifier's labels are the VNTC corpus folder names, written
without diacritics ("Suc khoe"); the GUI shows them as proper Vietnamese ("Sức khỏe").

The internal label stays what is stored, trained on and printed by the CLI; only what is
shown changes. A label this table does not know (a user's own topic) is shown as it is.
"""

from __future__ import annotations

import unicodedata

DISPLAY_NAMES: dict[str, str] = {
    "Chinh tri Xa hoi": "Chính trị Xã hội",
    "Doi song": "Đời sống",
    "Khoa hoc": "Khoa học",
    "Kinh doanh": "Kinh doanh",
    "Phap luat": "Pháp luật",
    "Suc khoe": "Sức khỏe",
    "The gioi": "Thế giới",
    "The thao": "Thể thao",
    "Van hoa": "Văn hóa",
    "Vi tinh": "Vi tính",
}


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


_BY_KEY: dict[str, str] = {}
for _label, _name in DISPLAY_NAMES.items():
    _BY_KEY[_key(_label)] = _label
    _BY_KEY[_key(_name)] = _label


def display_name(label: str | None) -> str:
    """The name to show for an internal label ("" for none; unknown labels unchanged)."""
    if not label:
        return ""
    return DISPLAY_NAMES.get(label, label)


def label_from_text(text: str) -> str:
    """What a person typed or chose (a display name or a label, any case) -> the internal label.

    Text that names no known topic is a new label of the user's own, kept as typed (trimmed, NFC).
    """
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    return _BY_KEY.get(_key(text), text)
