"""The reader's "Versions" button: an article's earlier texts (kept when its source changed it or a
re-extraction replaced its fields), one click to read one, one to come back to the current text."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolButton

from ..store import Store
from ..store.repo import article_dict
from .dates import utc_to_local

CURRENT = 0  # versionChosen's number for the current text


class VersionsButton(QToolButton):
    versionChosen = Signal(int)  # a version's number, CURRENT for the current text

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setText("Versions")
        self.setToolTip("Earlier texts of this article: kept when its source changed it or a re-extraction "
                        "replaced its fields")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_ = QMenu(self)
        self.setMenu(self.menu_)
        self.show_versions([], None)

    def show_versions(self, versions: list[tuple], shown: int | None) -> None:
        """``versions``: (number, replaced at, reason) newest first; ``shown``: the one in view (None: current)."""
        self.menu_.clear()
        self.actions_: dict[int, QAction] = {}
        current = self.menu_.addAction("Current version")
        current.setCheckable(True)
        current.setChecked(shown is None)
        current.triggered.connect(lambda _=False: self.versionChosen.emit(CURRENT))
        self.actions_[CURRENT] = current
        if versions:
            self.menu_.addSeparator()
        for number, at, reason in versions:
            action = self.menu_.addAction(f"Version {number}: replaced {utc_to_local(at)[:16]} ({reason})")
            action.setCheckable(True)
            action.setChecked(shown == number)
            action.triggered.connect(lambda _=False, n=number: self.versionChosen.emit(n))
            self.actions_[number] = action
        self.setEnabled(bool(versions))
        self.setText(f"Versions ({len(versions)})" if versions else "Versions")


def version_list(store: Store, article_id: int) -> list[tuple]:
    """(number, at, reason) of an article's earlier versions, newest first."""
    return [(v.number, str(v.at), v.reason) for v in store.article_versions(article_id)]


def version_as_article(store: Store, article_id: int, number: int) -> dict | None:
    """(worker) An earlier version as the reader's article dict (the article's own for what a version
    does not keep), with ``earlier_of`` telling the page what it shows; None when it is not kept."""
    row = store.get_article(article_id)
    version = next((v for v in store.article_versions(article_id) if v.number == number), None)
    if row is None or version is None:
        return None
    article = article_dict(row)
    article.update(title=version.title, summary=version.summary, image=version.image_url,
                   body_html=version.body_html, body_text=version.body_text, author=version.author,
                   date=version.published, category=version.category, confidence=version.confidence,
                   updated_at=None, user_label=None)
    article["earlier_of"] = {"number": number, "at": str(version.at), "reason": version.reason,
                             "of": len(store.article_versions(article_id))}
    return article
