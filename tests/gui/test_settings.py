"""The Settings dialog: 'skip topics I am not interested in' reaches the crawl's sink."""

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox

from xnews_gui.crawl.engine import CrawlOptions
from xnews_gui.services.crawl import start_crawl
from xnews_gui.ui.crawl_session import skip_hidden_topics
from xnews_gui.ui.settings import Preferences
from xnews_gui.ui.settings_dialog import SettingsDialog


def skipped_by_a_crawl(store, profile) -> frozenset:
    """The topics a crawl started from the app would leave out (the crawl is set up, not run)."""
    handle = start_crawl(profile, store, CrawlOptions(), classifier=None, skip_hidden_topics=skip_hidden_topics())
    return handle.sink.skip_categories


def test_skip_hidden_topics_setting_reaches_the_sink(qtbot, store, data_dir, demo_profile):
    store.set_category_hidden("The thao", True)
    assert skipped_by_a_crawl(store, demo_profile) == frozenset()  # default: hide, don't skip

    dialog = SettingsDialog(Preferences.load(), str(data_dir))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    box = dialog.skip_hidden
    assert not box.isChecked()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert box.isChecked()
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                     Qt.MouseButton.LeftButton)
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    dialog.preferences().save()
    assert Preferences.load().skip_hidden_topics
    assert skipped_by_a_crawl(store, demo_profile) == frozenset({"The thao"})


def test_settings_name_the_topic_model_in_use(qtbot, data_dir):
    from xnews_gui.services.model_registry import Registry

    dialog = SettingsDialog(Preferences.load(), str(data_dir))
    qtbot.addWidget(dialog)
    assert "In use: <b>Shipped model</b>" in dialog.model_line.text() and "Classifier tab" in dialog.model_line.text()
    Registry(data_dir).set_floor(0.4)
    again = SettingsDialog(Preferences.load(), str(data_dir))
    qtbot.addWidget(again)
    assert "confidence floor 0.40, chosen by you" in again.model_line.text()


def test_proxies_are_set_in_settings_and_shown_masked(qtbot, store, data_dir, demo_profile):
    """Typed with the keyboard, OK clicked with the mouse: the proxies file the crawls (and `proxies show`) read;
    passwords come back as ***, and a line left with its *** keeps the password."""
    from xnews_gui.crawl.proxies import ProxyConfig

    def open_dialog():
        dialog = SettingsDialog(Preferences.load(), str(data_dir), profiles=["demo", "other"])
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        return dialog

    def ok(dialog):
        qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok),
                         Qt.MouseButton.LeftButton)

    dialog = open_dialog()
    box = dialog.proxies
    qtbot.mouseClick(box.everywhere.viewport(), Qt.MouseButton.LeftButton)
    qtbot.keyClicks(box.everywhere, "http://u:pass1@127.0.0.1:3128")
    qtbot.keyClick(box.everywhere, Qt.Key.Key_Return)
    qtbot.keyClicks(box.everywhere, "not-a-proxy")
    ok(dialog)
    assert dialog.isVisible() and "not-a-proxy" in box.error.text()  # refused, said, nothing written
    assert not (data_dir / "proxies.json").exists()
    for _ in "not-a-proxy":
        qtbot.keyClick(box.everywhere, Qt.Key.Key_Backspace)
    qtbot.mouseClick(box.own.viewport(), Qt.MouseButton.LeftButton)  # the first profile: demo
    qtbot.keyClicks(box.own, "socks5://me:pass2@127.0.0.1:1080")
    dialog.grab().save(str(data_dir / "settings-proxies.png"))
    ok(dialog)
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    config = ProxyConfig.load(data_dir)
    assert config.everywhere == ["http://u:pass1@127.0.0.1:3128"]
    assert config.for_profile("demo") == (["socks5://me:pass2@127.0.0.1:1080"], "profile")
    handle = start_crawl(demo_profile, store, CrawlOptions(), classifier=None)  # set up, not run
    assert handle.runner.options.proxies == ("socks5://me:pass2@127.0.0.1:1080",)

    again = open_dialog()  # shown masked; OK keeps the passwords
    assert again.proxies.everywhere.toPlainText() == "http://u:***@127.0.0.1:3128"
    assert again.proxies.own.toPlainText() == "socks5://me:***@127.0.0.1:1080"
    ok(again)
    assert ProxyConfig.load(data_dir).everywhere == ["http://u:pass1@127.0.0.1:3128"]


def test_a_data_folder_that_cannot_be_written_is_refused_when_saved_and_said_at_start(qtbot, data_dir, tmp_path,
                                                                                       monkeypatch):
    from PySide6.QtTest import QTest

    from tests.gui.dialogs import answer
    from xnews_gui import paths
    from xnews_gui.ui.app import _choose_data_dir

    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, where a folder is wanted")
    dialog = SettingsDialog(Preferences.load(), str(data_dir))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.mouseClick(dialog.data_dir, Qt.MouseButton.LeftButton)
    QTest.keyClicks(dialog.data_dir, str(blocker / "data"))
    seen = answer("OK")
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "text" in seen, timeout=5000)
    assert "is not writable" in seen["text"] and str(blocker / "data") in seen["text"]
    assert dialog.isVisible() and dialog.result() != SettingsDialog.DialogCode.Accepted  # not saved

    # a new folder is fine, and is made at the next start, not by OK (nor left behind by a Cancel)
    dialog.data_dir.clear()
    QTest.keyClicks(dialog.data_dir, str(tmp_path / "new" / "xnews"))
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.result() == SettingsDialog.DialogCode.Accepted and not (tmp_path / "new").exists()

    # a folder saved earlier that has become unusable: the window says so at start, not only the terminal
    monkeypatch.delenv("XNEWS_HOME", raising=False)
    before = Preferences.load()
    try:
        Preferences(**{**before.__dict__, "data_dir": str(blocker / "data")}).save()
        default = paths.data_dir(None)
        used, why = _choose_data_dir(default)
        assert used == default and why.startswith(f"the data folder {blocker / 'data'} is not writable")
    finally:
        before.save()
