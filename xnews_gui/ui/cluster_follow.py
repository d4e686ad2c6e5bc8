"""Follow a cluster crawl from the Crawl tab: Scrapy workers sharing a Redis frontier crawl a profile,
the app stores their articles as they come and shows the crawl in a card and the chart like its own
(services/cluster.py does the following; this is the button and the dialog that ask for the Redis URL)."""

from __future__ import annotations

from typing import Callable
from urllib.parse import urlsplit

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget,
)

from ..services.cluster import redis_url_problem
from . import icons

URL_KEY = "cluster/redis_url"
DEFAULT_URL = "redis://127.0.0.1:6379/0"


class FollowClusterDialog(QDialog):
    """The profile the workers crawl and their Redis URL; Follow stays refused while the URL is wrong."""

    def __init__(self, profile: str, url: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Follow a cluster crawl")
        explain = QLabel(f"Scrapy workers crawling <b>{profile}</b> with a shared Redis frontier (see "
                         "<i>scrapy-project</i> in the README) send their articles to Redis. XNews stores them "
                         "here as they come; the card and the chart show the cluster's pages and workers.")
        explain.setWordWrap(True)
        self.url = QLineEdit(url)
        self.url.setPlaceholderText(DEFAULT_URL)
        self.url.setToolTip("The workers' XNEWS_REDIS_URL: redis://host:port/db, rediss:// or unix://")
        self.url.textChanged.connect(lambda _text: self.problem.hide())
        self.problem = QLabel(objectName="problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.hide()
        form = QFormLayout()
        form.addRow("Site:", QLabel(profile))
        form.addRow("Redis URL:", self.url)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.follow_button = self.buttons.addButton("Follow", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(explain)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(480, self.sizeHint().height())

    def accept(self) -> None:
        problem = redis_url_problem(self.url.text())
        if problem:
            self.problem.setText(f"✗ {problem}")
            self.problem.show()
            return
        super().accept()


class FollowClusterButton(QPushButton):
    """"Follow a cluster…" for the highlighted (else the first ticked) site: asks for the Redis URL (the
    last one is remembered) and hands (profile, URL) to ``start``."""

    def __init__(self, target: Callable[[], str | None], start: Callable[[str, str], object],
                 parent: QWidget | None = None):
        super().__init__(icons.named("start"), "Follow a cluster…", parent)
        self.setToolTip("Store the articles of Scrapy workers crawling this site as they come (a shared Redis)")
        self.target = target
        self.start = start
        self.dialog: FollowClusterDialog | None = None
        self.clicked.connect(self.ask)

    def ask(self) -> None:
        profile = self.target()
        if not profile:
            return
        settings = QSettings()
        self.dialog = FollowClusterDialog(profile, str(settings.value(URL_KEY, DEFAULT_URL) or DEFAULT_URL), self)
        self.dialog.accepted.connect(lambda p=profile: self._follow(p))
        self.dialog.open()

    def _follow(self, profile: str) -> None:
        url = self.dialog.url.text().strip()
        if urlsplit(url).password is None:  # a password is not written to the settings file
            QSettings().setValue(URL_KEY, url)
        self.start(profile, url)
