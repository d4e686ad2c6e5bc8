"""The inspector's *Load more* pick and *Scrolls for more* mark: list pages that load more by JavaScript.

* **Load more** (a pick button of the field bar): click the site's "Xem thêm" button on a list page;
  the profile's ``more`` becomes ``{"click": <the button's CSS>}``: crawls click it on the list pages
  that have it, while new article links come.
* **Scrolls for more** (a check button): the list page shown loads more when scrolled to its bottom;
  the profile's ``more`` becomes ``{"scroll": true, "pages": [<this page's path>]}``.

The coverage check and the preview then read such list pages as the crawl will: loaded, through a small
render pool of this process (``fetch``), so their counts are what loading more reaches.
"""

from __future__ import annotations

import re
import threading
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction

from ...core.extraction.load_more import applies, button_selector, count_selector
from ...core.profile.profile import Profile
from ...core.profile.profile_settings import MoreSettings
from .bridge import PickedElement

KEY = "more"
_CACHED = 32  # loaded list pages kept (the preview and the coverage check ask for the same pages)


def page_pattern(url: str) -> str:
    """The URL pattern of this list page: its path, whatever the host (a crawl from a copy of the site)."""
    parts = urlsplit(url)
    return re.escape(parts.path or "/") + ("\\?" + re.escape(parts.query) if parts.query else "") + "$"


class LoadMorePick(QObject):
    """Wired into the ``Inspector`` (its field bar, bridge, draft and status); owns the render pool
    that loads list pages for the checks."""

    def __init__(self, inspector):
        super().__init__(inspector)
        self.inspector = inspector
        self._pool = None
        self._jar = None  # the login kept in the inspector's browser: loaded pages are read with it
        self._loaded: dict[tuple, object] = {}  # (url, MoreSettings) -> MoreResult
        self._lock = threading.Lock()
        bar = inspector.toolbar
        self.pick_action = QAction("Load more", bar)
        self.pick_action.setCheckable(True)
        self.pick_action.setData(KEY)
        self.pick_action.setToolTip("Pick mode for Load more: click the list page's \u201cXem th\u00eam\u201d (load more) "
                                    "button; crawls click it until no new article link comes")
        inspector.field_group.addAction(self.pick_action)
        actions = bar.actions()  # right after Next page: the list-page picks together
        after_next = actions.index(inspector.field_actions["next"]) + 1
        bar.insertAction(actions[after_next] if after_next < len(actions) else None, self.pick_action)
        self.scroll_action = QAction("Scrolls for more", bar)
        self.scroll_action.setCheckable(True)
        self.scroll_action.setToolTip("This list page loads more stories when scrolled to its bottom: crawls "
                                      "scroll it until no new article link comes")
        bar.addAction(self.scroll_action)
        self.scroll_action.triggered.connect(self._scroll_marked)
        inspector.field_group.triggered.connect(self._armed)
        inspector.bridge.picked.connect(self._picked)
        inspector.rulesChanged.connect(self._show_state)

    # --- the pick ------------------------------------------------------------------------
    @Slot(QAction)
    def _armed(self, action: QAction) -> None:
        if action is self.pick_action and action.isChecked() and not self.inspector.browser.on_start_page():
            self.inspector.say("Pick mode: Load more. Click the list page's \u201cXem th\u00eam\u201d button "
                               "(the page does not load while picking; Esc to stop).")

    @Slot(str, object, bool)
    def _picked(self, field: str, element: PickedElement, negative: bool) -> None:
        inspector = self.inspector
        if field != KEY or negative or inspector.browser.on_start_page():
            return
        url = inspector.browser.url()
        inspector.with_dom(url, lambda html: self._use_button(url, html, element))

    def _use_button(self, url: str, html: str, element: PickedElement) -> None:
        inspector = self.inspector
        selector = button_selector(html, element.xpath)
        if not selector:
            inspector.say("That is not a button or a link the page can click: click the \u201cXem th\u00eam\u201d button.")
            return
        self._set(MoreSettings(click=selector), url)
        inspector.stop_picking()
        inspector.say(f"Load more: {selector} \u2014 crawls click it on the list pages that have it, until no new "
                      f"article link comes (at most {MoreSettings().limits}).")

    @Slot(bool)
    def _scroll_marked(self, checked: bool) -> None:
        inspector = self.inspector
        url = "" if inspector.browser.on_start_page() else inspector.browser.url()
        if checked and not url:
            self.scroll_action.setChecked(False)
            inspector.say("Open the list page that loads more when scrolled, then mark it.")
            return
        if checked:
            self._set(MoreSettings(scroll=True, pages=(page_pattern(url),)), url)
            inspector.say(f"Scrolls for more: crawls scroll {urlsplit(url).path or '/'} to its bottom until no new "
                          f"article link comes (at most {MoreSettings().limits}).")
        else:
            self._set(None, url)
            inspector.say("This profile's list pages no longer load more.")

    def _set(self, more: MoreSettings | None, url: str) -> None:
        inspector = self.inspector
        if inspector.draft is None:
            if more is None:
                return
            inspector.new_profile((urlsplit(url).hostname or "site").replace(":", "-")[:64], url)
        inspector.draft.profile = inspector.draft.profile.with_(more=more)
        inspector.rules_replaced()

    @Slot()
    def _show_state(self) -> None:
        more = self.inspector.profile().more if self.inspector.profile() is not None else None
        self.scroll_action.setChecked(bool(more and more.scroll))
        self.pick_action.setText("Load more \u2713" if more and more.click else "Load more")

    # --- list pages as the crawl reads them ----------------------------------------------------
    def fetch(self, profile: Profile | None, raw_fetch):
        """``fetch(url) -> html`` for the checks (any thread): the raw page, or for a list page that
        loads more, the page once loaded. Call it in the GUI thread (the render pool is made here)."""
        if profile is None or profile.more is None:
            return raw_fetch
        pool = self.pool()

        def fetch(url: str) -> str:
            html = raw_fetch(url)
            if not applies(profile.more, url, html):
                return html
            return self.loaded(pool, profile, url).html
        return fetch

    def load(self, profile: Profile | None):
        """``load_more(url) -> MoreResult`` for ``core.induction.coverage`` (None: the profile does not load more)."""
        if profile is None or profile.more is None:
            return None
        pool = self.pool()
        return lambda url: self.loaded(pool, profile, url)

    def loaded(self, pool, profile: Profile, url: str):
        key = (url, profile.more, count_selector(profile))
        with self._lock:
            found = self._loaded.get(key)
        if found is None:
            found = pool.load_more(url, profile.more, key[2])
            with self._lock:
                if len(self._loaded) >= _CACHED:
                    self._loaded.clear()
                self._loaded[key] = found
        return found

    def pool(self):
        if self._pool is None:
            from ..render_pool import RenderPool

            self._pool = RenderPool(1, parent=self)
            if self._jar is not None:
                self._pool.use_cookies(self._jar)
        return self._pool

    def use_cookies(self, jar) -> None:
        self._jar = jar
        if self._pool is not None:
            self._pool.use_cookies(jar)
        with self._lock:
            self._loaded.clear()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.close()
