"""Icons: SVG files from resources/icons (sharp at any scale) and the style's standard ones."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QStyle, QWidget

from ..paths import RESOURCES

ICONS = RESOURCES / "icons"


@lru_cache(maxsize=None)
def named(name: str) -> QIcon:
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def std(widget: QWidget, pixmap: QStyle.StandardPixmap) -> QIcon:
    return widget.style().standardIcon(pixmap)
