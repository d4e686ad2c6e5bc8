"""The Articles table's row menu (right click): open, read / unread, star, the topic correction, the
original, fetch again, the link, export. It acts on the selected rows (a right click on another row selects it)."""

from __future__ import annotations

from PySide6.QtGui import QActionGroup, QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMenu, QStyle

from ..core.text.topics import DISPLAY_NAMES, display_name, label_from_text
from ..store.collation import vi_sorted
from . import icons, store_ops


def set_topics(store, ids: list[int], label: str) -> None:
    """(background) The user's topic for these articles: a correction each, as the reader makes it."""
    for article_id in ids:
        store.set_user_label(article_id, label)


def set_flags(store, ids: list[int], **flags) -> None:
    for article_id in ids:
        store.set_flags(article_id, **flags)


class ArticleMenu(QMenu):
    def __init__(self, view, ids: list[int], rows: list[dict], labels: list[str]):
        super().__init__(view.table)
        self.view, self.ids, self.rows = view, ids, rows
        one = rows[0] if len(rows) == 1 else None
        n = f" {len(ids)} articles" if len(ids) > 1 else ""
        if one is not None:
            self.addAction(icons.named("articles"), "Open in the reader", lambda: view.open_id(one["id"]))
        unread = any(not r["read"] for r in rows)
        self.addAction(icons.named("mark-read"), f"Mark{n} {'read' if unread else 'unread'}",
                       lambda: self._flags(read=unread))
        unstarred = any(not r["starred"] for r in rows)
        self.addAction(icons.named("star" if unstarred else "star-filled"), f"{'Star' if unstarred else 'Unstar'}{n}",
                       lambda: self._flags(starred=unstarred))
        self.topics = self.addMenu(f"Topic{' of' + n if n else ''}")
        self.topics.setToolTipsVisible(True)
        current = (one.get("user_label") or one.get("category")) if one is not None else None
        group = QActionGroup(self.topics)
        for label in vi_sorted(set(labels) | set(DISPLAY_NAMES), key=display_name):
            action = self.topics.addAction(display_name(label), lambda lb=label: self.set_topic(lb))
            action.setCheckable(True)
            action.setChecked(label == current)
            group.addAction(action)
        self.topics.addSeparator()
        self.topics.addAction("Another topic…", self._ask_topic)
        self.addSeparator()
        if one is not None:
            self.addAction(icons.named("open-external"), "Open the original", lambda: view.open_original(one["url"]))
            self.addAction(icons.std(view, QStyle.StandardPixmap.SP_BrowserReload), "Fetch again",  # ask its source now
                           lambda: view.reader.fetchAgainRequested.emit(one["id"], one["profile"], one["url"]))
        self.addAction(icons.named("copy-link"), f"Copy link{'s' if n else ''}", self._copy)
        self.addAction(icons.named("export"), f"Export{n or ' this article'}…", lambda: view.export_ids(ids))

    def set_topic(self, label: str) -> None:
        view, ids = self.view, list(self.ids)

        def saved(_) -> None:
            for article_id in ids:
                view.model.refresh_article(article_id)
            if view.reader.article is not None and view.reader.article["id"] in ids:
                view.reader.show_article(view.reader.article["id"], mark_read=False)
            view.statusMessage.emit(f"Topic {display_name(label)} set by you on {len(ids)} "
                                    f"article{'s' if len(ids) != 1 else ''}; the next Retrain learns from it.")

        store_ops.write(set_topics, view.store, ids, label, owner=view, on_done=saved)

    def _ask_topic(self) -> None:
        text, ok = QInputDialog.getText(self.view, "Topic", "The topic of the selected articles:")
        if ok and text.strip():
            self.set_topic(label_from_text(text))

    def _flags(self, **flags) -> None:
        view, ids = self.view, list(self.ids)

        def saved(_) -> None:
            for article_id in ids:
                view.model.refresh_article(article_id)
            if view.reader.article is not None and view.reader.article["id"] in ids:
                view.reader.show_article(view.reader.article["id"], mark_read=False)

        store_ops.write(set_flags, view.store, ids, **flags, owner=view, on_done=saved)

    def _copy(self) -> None:
        urls = [r["url"] for r in self.rows]
        QGuiApplication.clipboard().setText("\n".join(urls))
        self.view.statusMessage.emit(f"Link copied: {urls[0]}" if len(urls) == 1 else f"{len(urls)} links copied")

