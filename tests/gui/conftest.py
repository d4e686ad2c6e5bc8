"""GUI test fixtures: isolated QSettings, no worker left running, synthetic articles."""

from __future__ import annotations

import threading
import time

import pytest

# Qt's rules: web engine imported and the reader's URL scheme registered before any QApplication
import PySide6.QtWebEngineWidgets  # noqa: F401,E402

from xnews_gui.ui.offline_web import register_scheme  # noqa: E402

register_scheme()


@pytest.fixture(autouse=True, scope="session")
def _isolated_qsettings(tmp_path_factory):
    """QSettings go to a temporary folder, never to the user's real configuration."""
    from PySide6.QtCore import QCoreApplication, QSettings

    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(folder))
    QCoreApplication.setOrganizationName("XNewsTests")
    QCoreApplication.setApplicationName("xnews-tests")
    yield


@pytest.fixture(autouse=True, scope="session")
def _widgets_deleted_before_exit(qapp):
    """pytest-qt closes each test's widgets with deleteLater(), which no event loop runs after the
    last test: delete them while Qt still stands, so that no web page outlives the web engine."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


def _our_threads() -> set[threading.Thread]:
    # _DummyThread = a Qt pool thread that once ran Python; judged by the pools below instead
    # a test HTTP server's request threads ("process_request_thread") are the server's, not the app's:
    # one lives on for a keep-alive connection until the server notices the client has gone
    return {t for t in threading.enumerate()
            if t.is_alive() and not isinstance(t, threading._DummyThread) and t.name != "demo-site"
            and "process_request_thread" not in t.name}


@pytest.fixture(autouse=True)
def no_leftover_workers(request):
    """Fail a test that leaves a worker (query, crawl or plain thread) running."""
    if "qapp" not in request.fixturenames and "qtbot" not in request.fixturenames:
        yield
        return
    from xnews_gui.ui import workers

    before = _our_threads()
    yield
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        busy = workers.active_workers()
        extra = _our_threads() - before
        if not busy and not extra:
            break
        from PySide6.QtCore import QCoreApplication

        QCoreApplication.processEvents()
        time.sleep(0.02)
    busy = workers.active_workers()
    extra = _our_threads() - before
    workers.wait_all(5000)  # leave a clean slate for the next test either way
    assert not busy, f"test left {len(busy)} worker(s) running: {[w.fn for w in busy]}"
    assert not extra, f"test left thread(s) running: {sorted(t.name for t in extra)}"


@pytest.fixture
def make_articles(store):
    """make_articles(n, profile=..., **overrides) -> ids: synthetic stored articles."""
    Article = store.models.Article

    counter = {"n": 0}

    def make(n: int, profile: str = "site", category: str | None = "Tech", **fields) -> list[int]:
        rows = []
        for _ in range(n):
            counter["n"] += 1
            k = counter["n"]
            row = dict(profile=profile, url=f"http://example.test/{profile}/{k}.htm", title=f"Article {k:06d}",
                       summary=f"Summary {k}", body_html=f"<p>Body {k}</p>", body_text=f"Body {k}",
                       published=f"2026-01-{1 + k % 28:02d}T10:00:00+07:00", content_hash=f"h{profile}{k}",
                       category=category, confidence=0.75 if category else None)
            row.update(fields)
            rows.append(row)
        with store.writing():
            first = Article.select(Article.id).order_by(Article.id.desc()).limit(1).scalar() or 0
            for start in range(0, len(rows), 500):
                Article.insert_many(rows[start : start + 500]).execute()
        return [a.id for a in Article.select(Article.id).where(Article.id > first).order_by(Article.id)]

    return make
