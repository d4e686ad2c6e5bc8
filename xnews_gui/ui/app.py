"""Start the desktop app: Qt set-up in the order Qt requires, the database, the main window."""

from __future__ import annotations

import functools
import gc
import os
import sys
from pathlib import Path

SETTLE_MS = 1500  # after the window shows: start-up's objects are built, the user not yet busy


def _prepare_qt() -> None:
    """Everything that must happen before the QApplication exists."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")  # Chromium refuses to sandbox as root
    from PySide6.QtCore import QCoreApplication, Qt

    import PySide6.QtWebEngineWidgets  # noqa: F401  (must be imported before the QApplication)

    from .crash_log import quiet_chromium
    from .offline_web import register_scheme
    from .settings import APPLICATION, ORGANIZATION

    quiet_chromium(os.environ)
    from .render_pool import unthrottle

    unthrottle(os.environ)  # the crawl's offscreen render pages run their timers at full speed
    register_scheme()
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)


def freeze_start_up_objects() -> None:
    """Start-up's objects (modules, Qt wrappers, the window's widgets: ~65,000) live as long as the
    app. A full garbage collection walks every tracked object, 20-40 ms on whichever thread
    triggers it, a stall of the window; collected once now, they are left out of later ones."""
    gc.collect()
    gc.freeze()


def _choose_data_dir(data_dir: Path) -> tuple[Path, str]:
    """The folder from Settings wins over the default one, not over --data-dir / XNEWS_HOME; with why the
    default is used instead when the chosen one cannot be ('' when it can)."""
    from .. import paths
    from .settings import Preferences

    chosen = Preferences.load().data_dir
    if chosen and Path(data_dir) == paths.data_dir(None) and not os.environ.get("XNEWS_HOME"):
        try:
            return paths.ensure_writable(Path(chosen).expanduser()), ""
        except paths.DataDirError as exc:
            print(f"xnews: {exc}; using {data_dir}", file=sys.stderr)
            return Path(data_dir), exc.problem
    return Path(data_dir), ""


def run(data_dir: Path) -> int:
    _prepare_qt()
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from ..bundled import seed_bundled_profiles
    from ..store import Store, StoreError
    from .. import paths
    from . import crash_log, icons

    app = QApplication.instance() or QApplication(sys.argv)
    app.setWindowIcon(icons.named("articles"))
    data_dir, not_chosen = _choose_data_dir(data_dir)
    try:
        crash = crash_log.install(paths.ensure_writable(data_dir))
    except (OSError, paths.DataDirError) as exc:
        crash = None
        print(f"xnews: no log file: {exc}", file=sys.stderr)
    try:
        store = Store.open(data_dir)
    except StoreError as exc:
        QMessageBox.critical(None, "XNews cannot open its data", str(exc))
        return 2
    seed_bundled_profiles(store)
    store.mark_interrupted_runs()

    from .main_window import MainWindow

    window = MainWindow(store)
    window.show()
    QTimer.singleShot(SETTLE_MS, freeze_start_up_objects)
    if not_chosen:  # the library would look empty with no word why
        QTimer.singleShot(0, functools.partial(
            QMessageBox.warning, window, "Data folder", f"{not_chosen[:1].upper()}{not_chosen[1:]}: it is the "
            f"folder chosen in Settings.\n\nThis session uses {data_dir} instead. Choose another folder in "
            "File > Settings, or make that one writable and start XNews again."))
    if crash is not None and crash.previous_crash is not None:
        window.statusBar().showMessage(f"XNews ended unexpectedly last time; its last moments are in "
                                       f"{crash.previous_crash}", 30000)
    try:
        return app.exec()
    finally:
        window.release_web_pages()  # web pages (and their profiles) go before the web engine does
        del window
        store.close()
