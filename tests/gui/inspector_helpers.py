"""Helpers for the inspector's GUI tests: the Sites view, page loads, clicks like a person's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from xnews_gui.core.profile.rules import css_to_xpath
from xnews_gui.ui.inspector.bridge import run_picker

LOAD_MS = 20_000
SHOTS = os.environ.get("XNEWS_SCREENSHOTS")  # a folder: save screenshots of the inspector in use


@pytest.fixture
def sites(qtbot, store, data_dir):
    from xnews_gui.ui.sites_view import SitesView

    view = SitesView(store)
    qtbot.addWidget(view)
    view.resize(1500, 950)
    view.show()
    qtbot.waitExposed(view)
    yield view
    view.shutdown()


def shot(widget, name: str) -> None:
    if SHOTS:
        from PySide6.QtTest import QTest as _t

        _t.qWait(400)  # let the page paint what the last JavaScript calls changed
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(SHOTS) / f"{name}.png"))


def load(qtbot, sites, url: str) -> None:
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        sites.load_url(url)


def js(qtbot, inspector, call: str):
    box = []
    run_picker(inspector.view.page(), call, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=5000)
    return box[0]


def rect_of(qtbot, inspector, xpath: str) -> dict | None:
    text = js(qtbot, inspector, f"rectOf({json.dumps(xpath)})")
    return json.loads(text) if text else None


def click(qtbot, inspector, css: str) -> None:
    """Click like a person: at the centre of the first element matching ``css``."""
    rect = rect_of(qtbot, inspector, css_to_xpath(css))
    for _ in range(10):  # an image still loading can move the element: click where it has settled
        qtbot.wait(30)
        again = rect_of(qtbot, inspector, css_to_xpath(css))
        if again == rect:
            break
        rect = again
    assert rect, f"{css} is not on the page"
    point = QPoint(int(rect["x"] + min(rect["width"] / 2, 40)), int(rect["y"] + rect["height"] / 2))
    QTest.mouseMove(inspector.view.focusProxy(), point)
    QTest.mouseClick(inspector.view.focusProxy(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def pick(qtbot, sites, field: str, css: str) -> None:
    inspector = sites.inspector
    inspector.start_picking(field)
    # Chromium may drop input that arrives before its first frame; a person would click again
    for attempt in range(3):
        with qtbot.waitSignal(inspector.rulesChanged, timeout=4000, raising=attempt == 2) as changed:
            click(qtbot, inspector, css)
        if changed.signal_triggered:
            return


def pick_widened(qtbot, sites, field: str, child_css: str) -> None:
    """As a person picks a container: point at a paragraph, widen with the Up key, select with Enter."""
    inspector = sites.inspector
    inspector.start_picking(field)
    rect = rect_of(qtbot, inspector, css_to_xpath(child_css))
    proxy = inspector.view.focusProxy()
    QTest.mouseMove(proxy, QPoint(int(rect["x"] + 20), int(rect["y"] + rect["height"] / 2)))
    qtbot.wait(50)  # let the page see the hover before the key
    QTest.keyClick(proxy, Qt.Key.Key_Up)
    with qtbot.waitSignal(inspector.rulesChanged, timeout=10_000):
        QTest.keyClick(proxy, Qt.Key.Key_Return)


def wait_checks(qtbot, inspector):
    with qtbot.waitSignal(inspector.checksUpdated, timeout=10_000):
        pass


