"""The Settings dialog: 'skip topics I am not interested in' reaches the crawl's sink."""

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox

from xnews_gui.store import repo
from xnews_gui.ui.crawl_session import make_sink
from xnews_gui.ui.settings import Preferences
from xnews_gui.ui.settings_dialog import SettingsDialog


def test_skip_hidden_topics_setting_reaches_the_sink(qtbot, db, data_dir):
    repo.set_category_hidden("The thao", True)
    assert make_sink(data_dir, "demo", None).skip_categories == frozenset()  # default: hide, don't skip

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
    assert make_sink(data_dir, "demo", None).skip_categories == frozenset({"The thao"})
