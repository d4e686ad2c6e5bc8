"""The Settings dialog's Proxies box: the proxies of every crawl, and a profile's own.

One proxy a line (``http://user:password@host:3128``, ``socks5://host:1080``); a crawl rotates through
them and sets a failing one aside for a while. Passwords are shown as ``***``: a line left with its
``***`` keeps the password kept for that user and proxy. Saved to the data folder's ``proxies.json``
(readable by the user only), which the command line's ``proxies`` commands read and write too.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel, QPlainTextEdit

from ..crawl.proxies import ProxyConfig, ProxyError, mask


def _key(url: str) -> tuple:
    parts = urlsplit(url)
    return parts.scheme, parts.username, parts.netloc.rsplit("@", 1)[-1]


class ProxyBox(QGroupBox):
    def __init__(self, data_dir: str, profiles=(), parent=None):
        super().__init__("Proxies", parent)
        self.data_dir = Path(data_dir)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b3261e;")
        self.error.setWordWrap(True)
        try:
            self.config = ProxyConfig.load(self.data_dir)
        except (ProxyError, OSError) as exc:
            self.config = ProxyConfig()
            self.error.setText(f"The proxies file cannot be read ({exc}); crawls are refused until it is saved again.")
        self._kept = {_key(u): u for u in self.config.everywhere + [u for us in self.config.profiles.values() for u in us]}
        self.everywhere = QPlainTextEdit("\n".join(mask(u) for u in self.config.everywhere))
        self.everywhere.setPlaceholderText("none: crawls connect directly\none a line, e.g. socks5://user:password@host:1080")
        self.everywhere.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.profile = QComboBox()
        self.profile.addItems(sorted(set(profiles) | set(self.config.profiles)))
        self.own = QPlainTextEdit()
        self.own.setPlaceholderText("none: this profile goes through the proxies above")
        self.own.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 12)
        self._shown = ""
        self.profile.currentTextChanged.connect(self._show_profile)
        form = QFormLayout(self)
        form.addRow("All crawls:", self.everywhere)
        form.addRow("A profile's own:", self.profile)
        form.addRow("", self.own)
        form.addRow("", QLabel("A crawl takes them in turn; one that fails is set aside for a while."))
        form.addRow("", self.error)
        self._show_profile(self.profile.currentText())
        for edit in (self.everywhere, self.own):  # a reason said of the old text goes with it
            edit.textChanged.connect(lambda: self.error.clear() if self.error.text() else None)

    def _lines(self, edit: QPlainTextEdit) -> list[str]:
        """The proxies typed, a masked password replaced by the one kept for that user and proxy."""
        out = []
        for line in edit.toPlainText().split():
            if ":***@" in line:
                kept = self._kept.get(_key(line))
                if kept is None:
                    raise ProxyError(f"{line}: type its password (*** stands for one kept, and none is)")
                line = kept
            out.append(line)
        return out

    def _show_profile(self, name: str) -> None:
        if self._shown and not self._take_profile():
            self.profile.blockSignals(True)
            self.profile.setCurrentText(self._shown)  # stay on the profile whose lines are wrong
            self.profile.blockSignals(False)
            return
        self._shown = name
        self.own.setPlainText("\n".join(mask(u) for u in self.config.profiles.get(name, [])))

    def _take_profile(self) -> bool:
        try:
            self.config.set(self._lines(self.own), self._shown)
        except ProxyError as exc:
            self._say(f"{self._shown}: {exc}")
            return False
        return True

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.window().adjustSize()  # the whole reason shows, never cut by the dialog's height

    def save(self) -> bool:
        """Check and write the file; False (with the reason shown) when a line is not a proxy."""
        try:
            if self._shown and not self._take_profile():
                return False
            self.config.set(self._lines(self.everywhere))
            self.config.save(self.data_dir)
        except ProxyError as exc:
            self._say(str(exc))
            return False
        except OSError as exc:
            self._say(f"The proxies cannot be saved: {exc}")
            return False
        self.error.clear()
        return True
