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
