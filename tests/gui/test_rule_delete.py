"""A rule can be deleted from the Rules table, with the mouse (right-click > Delete the ... rule) or the
Delete key; its clicks go with it, so Save's learning does not bring it back. There was no way to delete a
rule: a wrong Image from the page's metadata stayed in the profile."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.inspector_helpers import load, pick, sites  # noqa: F401 (sites: fixture)
from tests.plain_site import PlainSite

pytestmark = pytest.mark.gui


def right_click(widget, pos) -> None:
    """A right click as the window system delivers it: the press, then the context menu event."""
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    QTest.mousePress(widget, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, pos)
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, widget.mapToGlobal(pos)))
    QTest.mouseRelease(widget, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, pos)


def _row_point(table, row: int):
    return table.visualRect(table.model().index(row, 0)).center()


def test_a_rule_is_deleted_with_the_mouse_or_the_delete_key(qtbot, sites):
    inspector = sites.inspector
    table = inspector.panel.table
    with PlainSite() as site:
        load(qtbot, sites, site.url.rstrip("/") + site.stories[0].path)
        pick(qtbot, sites, "title", "h1")
        pick(qtbot, sites, "author", "h1 + div")
        inspector.stop_picking()
        assert {"title", "author"} <= set(inspector.profile().fields)

        row = inspector.panel._keys.index("author")
        right_click(table.viewport(), _row_point(table, row))
        qtbot.waitUntil(lambda: inspector.panel.menu is not None and inspector.panel.menu.isVisible(), timeout=3000)
        menu = inspector.panel.menu
        action = menu.actions()[0]
        assert action.text() == "Delete the Author rule"
        with qtbot.waitSignal(inspector.rulesChanged, timeout=5000):
            QTest.mouseClick(menu, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                             menu.actionGeometry(action).center())
        assert "author" not in inspector.profile().fields and "author" not in inspector.draft.examples
        assert "Deleted the Author rule" in inspector.status.text()
        assert "author" not in inspector.panel._keys

        row = inspector.panel._keys.index("title")
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         _row_point(table, row))
        with qtbot.waitSignal(inspector.rulesChanged, timeout=5000):
            QTest.keyClick(table, Qt.Key.Key_Delete)
        assert "title" not in inspector.profile().fields
