"""The picker's bridge: inject the picker into an isolated world and check what it sends.

The picker (resources/picker) runs in ``ApplicationWorld`` with qwebchannel.js,
so page scripts cannot see or break it. It calls ONE slot, ``receive(json)``;
every key of every message is type-checked here before anything else sees it
(qutebrowser's habit: never trust data coming out of a web page).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from PySide6.QtCore import QFile, QIODevice, QObject, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineScript

from ...paths import RESOURCES

PICKER_DIR = RESOURCES / "picker"
WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
_SCRIPT_NAME = "xnews-picker"


class BridgeError(ValueError):
    """A message from the page that does not have the expected shape."""


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class PickedElement:
    tag: str
    id: str
    classes: tuple[str, ...]
    text: str
    xpath: str
    crumb: str
    href: str
    src: str
    rect: Rect


def _need(data: dict, key: str, kind, where: str):
    value = data.get(key)
    if isinstance(value, bool) and kind is not bool:
        raise BridgeError(f"{where}.{key}: expected {kind.__name__}, got bool")
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind):
        raise BridgeError(f"{where}.{key}: expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def parse_element(data) -> PickedElement:
    if not isinstance(data, dict):
        raise BridgeError("element: expected an object")
    classes = _need(data, "classes", list, "element")
    if not all(isinstance(c, str) for c in classes):
        raise BridgeError("element.classes: expected a list of strings")
    rect = _need(data, "rect", dict, "element")
    xpath = _need(data, "xpath", str, "element")
    if not xpath.startswith("/html"):
        raise BridgeError(f"element.xpath: not an absolute XPath: {xpath[:80]!r}")
    return PickedElement(
        tag=_need(data, "tag", str, "element"),
        id=_need(data, "id", str, "element"),
        classes=tuple(classes),
        text=_need(data, "text", str, "element")[:200],
        xpath=xpath,
        crumb=_need(data, "crumb", str, "element"),
        href=_need(data, "href", str, "element"),
        src=_need(data, "src", str, "element"),
        rect=Rect(*(_need(rect, k, float, "element.rect") for k in ("x", "y", "width", "height"))),
    )


class PickerBridge(QObject):
    """The one object the picker sees (as ``xnewsBridge``)."""

    ready = Signal(str)  # page URL
    picked = Signal(str, object, bool)  # field, PickedElement, negative
    exited = Signal(str)  # field
    invalid = Signal(str)  # why a message was refused

    @Slot(str)
    def receive(self, text: str) -> None:
        try:
            self._dispatch(text)
        except BridgeError as exc:
            self.invalid.emit(str(exc))

    def _dispatch(self, text: str) -> None:
        if not isinstance(text, str) or len(text) > 100_000:
            raise BridgeError("message: expected a JSON string under 100 kB")
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BridgeError(f"message: not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise BridgeError("message: expected an object")
        kind = _need(data, "type", str, "message")
        if kind == "ready":
            self.ready.emit(_need(data, "url", str, "message"))
        elif kind == "pick":
            field = _need(data, "field", str, "message")
            negative = _need(data, "negative", bool, "message")
            self.picked.emit(field, parse_element(data.get("element")), negative)
        elif kind == "exit":
            self.exited.emit(_need(data, "field", str, "message"))
        else:
            raise BridgeError(f"message.type: unknown {kind!r}")


def _qrc_text(path: str) -> str:
    f = QFile(path)
    if not f.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError(f"cannot read {path} from Qt's resources")
    try:
        return bytes(f.readAll()).decode("utf-8")
    finally:
        f.close()


def picker_source() -> str:
    css = (PICKER_DIR / "picker.css").read_text(encoding="utf-8")
    js = (PICKER_DIR / "picker.js").read_text(encoding="utf-8")
    return "\n".join([_qrc_text(":/qtwebchannel/qwebchannel.js"), f"window.__xnewsPickerCss = {json.dumps(css)};", js])


def install_picker(page: QWebEnginePage, bridge: PickerBridge) -> QWebChannel:
    """Inject the picker into every page ``page`` loads, talking to ``bridge``."""
    scripts = page.scripts()
    for old in scripts.find(_SCRIPT_NAME):
        scripts.remove(old)
    script = QWebEngineScript()
    script.setName(_SCRIPT_NAME)
    script.setSourceCode(picker_source())
    script.setWorldId(WORLD)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentReady)
    script.setRunsOnSubFrames(False)
    scripts.insert(script)
    channel = QWebChannel(page)
    channel.registerObject("xnewsBridge", bridge)
    page.setWebChannel(channel, WORLD)
    return channel


def run_picker(page: QWebEnginePage, call: str, callback=None) -> None:
    """Call the picker's API (``start(...)``, ``highlight(...)``) in its world."""
    code = f"window.__xnewsPicker ? window.__xnewsPicker.{call} : null"
    if callback is None:
        page.runJavaScript(code, WORLD)
    else:
        page.runJavaScript(code, WORLD, callback)
