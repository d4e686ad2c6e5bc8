"""A newcomer's mistyped address: Chromium shows "This site can't be reached", and a click on its heading
in pick mode started a profile named after the typo with Title = the error page's message. Now the pick is
refused with what to do."""

from __future__ import annotations

import socket

import pytest

from tests.gui.inspector_helpers import LOAD_MS, click, sites  # noqa: F401 (sites: fixture)

pytestmark = pytest.mark.gui


def test_a_pick_on_a_page_that_did_not_load_is_refused(qtbot, sites):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    with qtbot.waitSignal(sites.inspector.pickerReady, timeout=LOAD_MS):
        sites.load_url(dead)
    qtbot.waitUntil(lambda: sites.inspector.browser.load_failed, timeout=5000)  # said after the error page shows
    sites.inspector.start_picking("title")
    with qtbot.waitSignal(sites.inspector.rulesChanged, timeout=3000, raising=False) as changed:
        click(qtbot, sites.inspector, "#main-message")
    assert not changed.signal_triggered and sites.inspector.draft is None
    assert "did not load" in sites.inspector.status.text()
