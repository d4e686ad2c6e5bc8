"""Settings: data folder, crawl politeness and identity, proxies, image cache, reading."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .proxy_settings import ProxyBox
from .settings import Preferences


class SettingsDialog(QDialog):
    def __init__(self, prefs: Preferences, current_data_dir: str, parent=None, profiles=()):
        super().__init__(parent)
        self.setWindowTitle("XNews settings")
        self.setMinimumWidth(520)
        self._current_data_dir = current_data_dir

        self.data_dir = QLineEdit(prefs.data_dir, placeholderText=current_data_dir)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        folder_row = QWidget()
        row = QHBoxLayout(folder_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.data_dir, 1)
        row.addWidget(browse)
        note = QLabel("Takes effect the next time XNews starts.")
        note.setStyleSheet("color: palette(placeholder-text);")

        self.concurrency = QSpinBox(minimum=0, maximum=32, specialValueText="as in each profile")
        self.concurrency.setValue(prefs.concurrency)
        self.delay = QDoubleSpinBox(minimum=-0.05, maximum=60.0, singleStep=0.25, decimals=2, suffix=" s",
                                    specialValueText="as in each profile")
        self.delay.setValue(prefs.delay_s if prefs.delay_s >= 0 else -0.05)
        self.user_agent = QLineEdit(prefs.user_agent, placeholderText="XNews's own (recommended)")
        self.contact = QLineEdit(prefs.contact, placeholderText="e-mail or web page, so site owners can reach you")
        self.cache_mb = QSpinBox(minimum=10, maximum=100_000, singleStep=100, suffix=" MB")
        self.cache_mb.setValue(prefs.image_cache_mb)
        self.max_kb = QSpinBox(minimum=16, maximum=65_536, singleStep=256, suffix=" KB")
        self.max_kb.setValue(prefs.max_image_kb)
        self.mark_read = QCheckBox("Mark an article read when it is opened")
        self.mark_read.setChecked(prefs.mark_read_on_open)
        self.skip_hidden = QCheckBox("Don't store articles of topics marked “not interested” (else: hide them)")
        self.skip_hidden.setChecked(prefs.skip_hidden_topics)

        data_box = QGroupBox("Data")
        f = QFormLayout(data_box)
        f.addRow("Data folder:", folder_row)
        f.addRow("", note)
        crawl_box = QGroupBox("Crawling")
        f = QFormLayout(crawl_box)
        f.addRow("Parallel connections:", self.concurrency)
        f.addRow("Delay between requests:", self.delay)
        f.addRow("User agent:", self.user_agent)
        f.addRow("Contact:", self.contact)
        f.addRow("", self.skip_hidden)
        image_box = QGroupBox("Images and reading")
        f = QFormLayout(image_box)
        f.addRow("Image cache size:", self.cache_mb)
        f.addRow("Largest image:", self.max_kb)
        f.addRow("", self.mark_read)

        model_box = QGroupBox("Topic model")
        self.model_line = QLabel(model_in_use(current_data_dir))
        self.model_line.setWordWrap(True)
        QVBoxLayout(model_box).addWidget(self.model_line)
        self.proxies = ProxyBox(current_data_dir, profiles)  # kept in the data folder, not in the preferences

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(lambda: self._data_dir_usable() and self.proxies.save() and self.accept())
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for w in (data_box, crawl_box, self.proxies, image_box, model_box):
            layout.addWidget(w)
        layout.addWidget(buttons)

    def _data_dir_usable(self) -> bool:
        """A data folder typed or chosen must be one XNews can write to, else it is said here, not after
        the next start (which would fall back to the default folder)."""
        from pathlib import Path

        from ..paths import DataDirError, check_writable

        text = self.data_dir.text().strip()
        if not text or Path(text).expanduser() == Path(self._current_data_dir):
            return True
        try:
            check_writable(Path(text).expanduser())  # made at the next start, not now: Cancel leaves no folder
        except DataDirError as exc:
            why = exc.problem
            QMessageBox.warning(self, "Data folder", f"{why[:1].upper()}{why[1:]}.\n\nChoose a folder you can "
                                "write to, or leave the field empty for the default one.")
            self.data_dir.setFocus()
            return False
        return True

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Data folder", self.data_dir.text() or self._current_data_dir)
        if path:
            self.data_dir.setText(path)

    def preferences(self) -> Preferences:
        return Preferences(
            data_dir=self.data_dir.text().strip(),
            concurrency=self.concurrency.value(),
            delay_s=self.delay.value() if self.delay.value() >= 0 else -1.0,
            user_agent=self.user_agent.text().strip(),
            contact=self.contact.text().strip(),
            image_cache_mb=self.cache_mb.value(),
            max_image_kb=self.max_kb.value(),
            mark_read_on_open=self.mark_read.isChecked(),
            skip_hidden_topics=self.skip_hidden.isChecked(),
        )


def model_in_use(data_dir: str) -> str:
    """'In use: Model 3 (trained 2026-12-04 21:35, held-out accuracy 0.920); confidence floor 0.40 ...'"""
    from ..services.model_registry import Registry
    from .classifier_tables import local_time

    try:
        registry = Registry(data_dir)
        v = registry.active()
    except Exception as exc:  # noqa: BLE001 - a damaged model is named, not raised
        return f"The model in use cannot be read: {exc}"
    facts = [f"trained {local_time(v.created)}"] if v.created else []
    if v.accuracy is not None:
        facts.append(f"held-out accuracy {v.accuracy:.3f}")
    floor = registry.floor()
    return (f"In use: <b>{v.title}</b>" + (f" ({', '.join(facts)})" if facts else "")
            + (f"; confidence floor {floor:.2f}, chosen by you" if floor is not None else "")
            + f". {len(registry.ids())} trained model(s) kept. Choose another, retrain or re-classify the "
              "stored articles in the Classifier tab.")
