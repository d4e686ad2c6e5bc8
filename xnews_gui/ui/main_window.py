"""The main window: Sites, Crawl, Articles and Classifier tabs, menus, shortcuts, geometry."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox, QTabWidget, QToolButton

from ..services.crawl import ClassifierLoader
from ..store import Store
from . import icons, store_ops
from .articles_view import ArticlesView
from .classifier_view import ClassifierView
from .crawl_view import CrawlView
from .settings import Preferences
from .settings_dialog import SettingsDialog
from .sites_view import SitesView
from .watch_alerts import WatchAlerts

TABS = ("sites", "crawl", "articles", "classifier")


class MainWindow(QMainWindow):
    def __init__(self, store: Store, parent=None):
        super().__init__(parent)
        self.store = store
        self.data_dir = store.root
        self.setWindowTitle("XNews")
        self.setWindowIcon(icons.named("articles"))
        self.resize(1280, 820)
        self.quit_box: QMessageBox | None = None  # "Quit while crawling?" while it is open
        self._quit_confirmed = False

        self.crawl = CrawlView(store, classifier_loader=ClassifierLoader(self.data_dir))
        self.articles = ArticlesView(store)
        self.sites = SitesView(store, demo=self.crawl.demo)  # one demo server for both tabs
        self.classifier = ClassifierView(self.data_dir, store=store)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for widget, name, label in ((self.sites, "sites", "Sites"), (self.crawl, "crawl", "Crawl"),
                                    (self.articles, "articles", "Articles"),
                                    (self.classifier, "classifier", "Classifier")):
            self.tabs.addTab(widget, icons.named(name), label)
        self.setCentralWidget(self.tabs)
        # beside the tabs, on every tab: the watches (the Articles tab shows them), with their news
        self.watches_button = QToolButton(text="\u2605 Watches", autoRaise=True,
                                          toolTip="Your watches: be told when a new article matches your words")
        self.tabs.setCornerWidget(self.watches_button, Qt.Corner.TopRightCorner)
        self.watches_button.clicked.connect(self._toggle_watches)

        self.watch_alerts = WatchAlerts(store, self)  # new articles that match a watch: notification and badge
        self.crawl.watchesFired.connect(self.watch_alerts.fired)
        self.crawl.watchesFired.connect(lambda _hits: self.articles.watches.refresh())
        self.watch_alerts.changed.connect(self._show_badge)
        self.watch_alerts.clicked.connect(self.show_watch)
        self.articles.watches.seenChanged.connect(self._show_badge)
        self.crawl.articlesStored.connect(self.articles.add_articles)
        self.crawl.sessionFinished.connect(lambda *_: self.articles.refresh_choices())
        # the Classifier tab's "Stored articles by topic" follows the store
        self.crawl.articlesStored.connect(self.classifier.schedule_refresh)
        self.crawl.sessionFinished.connect(lambda *_: self.classifier.refresh())
        self.classifier.hiddenSaved.connect(lambda *_: self.articles.model.reload())  # hidden topics go at once
        self.classifier.labelsChanged.connect(self._labels_changed)  # a re-classification wrote new topics
        self.articles.statusMessage.connect(lambda msg: self.statusBar().showMessage(msg, 8000))
        self.articles.model.loaded.connect(self._show_counts)
        self.articles.model.rowsArrived.connect(lambda _n: self._show_counts(self.articles.model.total()))
        self.sites.profileSaved.connect(lambda *_: self.crawl.refresh_profiles())
        self.crawl.pageChosen.connect(self.open_page)  # a failing page on a crawl card
        self.crawl.sessionFinished.connect(lambda *_: self.sites.refresh())  # the last crawl's degraded fields
        self.crawl.schedulesChanged.connect(lambda: self.sites.refresh())  # the Sites list shows schedules too
        # the store follows its sites: revisits, "Fetch again", re-extraction after a rule change
        self._fetching: dict[str, int] = {}  # profile -> the article "Fetch again" asked for
        self.sites.revisitRequested.connect(self.revisit_all)
        self.articles.reader.fetchAgainRequested.connect(self.fetch_again)
        self.crawl.articlesUpdated.connect(self._articles_updated)
        self.crawl.sessionFinished.connect(self._fetch_done)
        self.sites.reextract.classifier_loader = ClassifierLoader(self.data_dir)
        self.sites.reextract.reextracted.connect(lambda *_: self._articles_updated(None))
        store_ops.reporter().failed.connect(self._write_failed)  # a background store write failed
        self._build_menus()
        self.statusBar().showMessage(f"Data folder: {self.data_dir}", 10000)
        self._restore()
        # The topic model is not loaded here: a crawl's own process loads it (services/crawl_child.py);
        # only a profile marked "render" crawls in this process, and its crawl loads it in the background.

    def _labels_changed(self) -> None:
        self.articles.refresh_choices()
        self.articles.model.reload()

    def _write_failed(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)

    # --- tabs -------------------------------------------------------------------------------
    def show_tab(self, name: str) -> None:
        self.tabs.setCurrentIndex(TABS.index(name))

    def open_page(self, profile: str, url: str, where: str = "reader") -> None:
        """A page of a crawl: its stored article in the reader, else (or when asked) the page in Sites
        with the crawl's profile open (to fix its rules there)."""
        article_id = self.store.article_id_for_url(url) if where == "reader" else None
        if article_id is not None:
            self.show_tab("articles")
            self.articles.open_article(article_id)  # the list selects it: the reader and the list agree
            return
        if where == "reader":
            self.statusBar().showMessage("That page was not stored as an article: it opens in the Sites tab.", 8000)
        self.show_tab("sites")
        self.sites.show_page_of(profile, url)

    def revisit_all(self, name: str) -> None:
        """Every stored article of a profile asked again now (the Crawl tab shows the run)."""
        self.show_tab("crawl")
        if self.crawl.start_profile(name, revisit=True) is None:
            self.statusBar().showMessage(f"{name} is being crawled now: Revisit all when that crawl ends.", 8000)

    def fetch_again(self, article_id: int, profile: str, url: str) -> None:
        if self.crawl.start_profile(profile, revisit_urls=(url,)) is None:
            self.statusBar().showMessage(f"{profile} is being crawled now: fetch it again when that crawl ends.", 8000)
            return
        self._fetching[profile] = article_id
        self.statusBar().showMessage(f"Fetching again: {url}", 8000)

    def _fetch_done(self, name: str, summary: dict) -> None:
        article_id = self._fetching.pop(name, None)
        if article_id is None:
            return
        if summary.get("gone"):
            said = "removed at the source (the copy stays here)"
        elif summary.get("updated"):
            said = "changed at the source: the new version is shown, the earlier one kept"
        elif summary.get("not_modified") or summary.get("unchanged"):
            said = "unchanged at the source"
        elif summary.get("status") == "failed" or summary.get("errors"):
            said = "not fetched (see the Crawl tab's errors); the stored copy is unchanged"
        else:
            said = "asked again; its source answered 404 or 410 once, a later revisit confirms it"
        self.statusBar().showMessage(f"Fetched again: {said}.", 15000)
        self._articles_updated([article_id])

    def _articles_updated(self, ids: list[int] | None) -> None:
        """Stored articles changed behind the views (None: many): rows re-read, the reader follows."""
        if ids is None:
            self.articles.model.reload()
        else:
            for article_id in ids:
                self.articles.model.refresh_article(article_id)
        shown = self.articles.reader.article
        if shown is not None and (ids is None or shown["id"] in ids):
            self.articles.reader.show_article(shown["id"], mark_read=False)

    # --- menus ------------------------------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None, icon: str | None = None) -> QAction:
        action = QAction(icons.named(icon) if icon else icons.named("none"), text, self)
        if shortcut:
            action.setShortcuts([QKeySequence(s) for s in ([shortcut] if isinstance(shortcut, (str, QKeySequence.StandardKey)) else shortcut)])
        action.triggered.connect(lambda _=False: slot())
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        self._action(m, "&Export articles…", self.articles.export, "Ctrl+E", "export")
        self._action(m, "&Import profile…", self._import_profile, "Ctrl+I", "sites")
        m.addSeparator()
        self._action(m, "&Settings…", self.open_settings, "Ctrl+,", "settings")
        m.addSeparator()
        self._action(m, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        m = bar.addMenu("&View")
        for i, (name, label) in enumerate(zip(TABS, ("&Sites", "&Crawl", "&Articles", "C&lassifier")), 1):
            self._action(m, label, lambda n=name: self.show_tab(n), f"Ctrl+{i}", name)
        m.addSeparator()
        self._action(m, "&Find articles", self._focus_search, QKeySequence.StandardKey.Find)
        self._action(m, "&Reload from the data folder", self.reload_from_store, "Ctrl+Shift+R")

        m = bar.addMenu("&Crawl")
        self._action(m, "&Start ticked sites", self.crawl.start_checked, "F5", "start")
        self._action(m, "&Pause all", self.crawl.pause_all, None, "pause")
        self._action(m, "&Resume all", self.crawl.resume_all, None, "start")
        self._action(m, "S&top all", self.crawl.stop_all, "Shift+F5", "stop")
        m.addSeparator()
        self._action(m, "Crawl the &demo site", self._crawl_demo, None, "demo")

        m = bar.addMenu("&Article")
        for key in ("next", "previous", "read", "star", "open", "copy", "fetch"):
            action = self.articles.reader.actions_[key]
            # the reader's single-key shortcuts only act while the Articles tab has the focus
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.articles.addAction(action)
            m.addAction(action)
        topic = self._action(m, "Set the &topic…", self._edit_topic, "T")
        topic.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.articles.addAction(topic)
        m.addSeparator()
        self._action(m, "Re-&classify stored articles", self._reclassify, None, "classifier")

        m = bar.addMenu("&Help")
        self._action(m, "&Keyboard shortcuts", self._show_shortcuts)
        self._action(m, "&About XNews", self._about)

    def _edit_topic(self) -> None:
        """The reader's topic box, open (T): the correction from the keyboard."""
        box = self.articles.reader.category
        if box.isEnabled():
            self.show_tab("articles")
            box.setFocus()
            box.showPopup()

    def _reclassify(self) -> None:
        self.show_tab("classifier")
        if self.classifier.start_reclassify() is None:
            self.statusBar().showMessage("A model job is running in the Classifier tab; try again when it ends.", 8000)

    def _import_profile(self) -> None:
        """File > Import profile…: a profile JSON file into the store (the Sites tab shows it)."""
        self.show_tab("sites")
        self.sites.import_dialog()

    def _focus_search(self) -> None:
        self.show_tab("articles")
        self.articles.search.setFocus()
        self.articles.search.selectAll()

    def _crawl_demo(self) -> None:
        self.show_tab("crawl")
        self.crawl.start_demo()

    def open_settings(self) -> None:
        dialog = SettingsDialog(Preferences.load(), str(self.data_dir), self, profiles=self.store.profile_names())
        if dialog.exec():
            dialog.preferences().save()
            self.statusBar().showMessage("Settings saved; crawls started from now on use them.", 6000)

    def reload_from_store(self) -> None:
        """What a command or another window changed in the data folder (a crawl, an import) shows here too."""
        self.articles.model.reload()
        self.articles.refresh_choices()
        self.sites.refresh()
        self.crawl.refresh_profiles()
        self.crawl.history.refresh()
        self.classifier.refresh()
        self.statusBar().showMessage("Reloaded the articles, sites and runs from the data folder.", 6000)

    def _show_shortcuts(self) -> None:
        QMessageBox.information(self, "Keyboard shortcuts", (
            "Ctrl+1 … Ctrl+4  switch tabs\nCtrl+F  search articles\nF5 / Shift+F5  start / stop crawling\n"
            "J or N / K or P  next / previous article\nM  mark read or unread\nS  star\n"
            "O or Ctrl+Enter  open the original in the browser\nCtrl+Shift+C  copy the link\n"
            "T  set the topic (or right-click a row: Topic)\n"
            "Ctrl+E  export the selected or all listed articles\nCtrl+I  import a profile\n"
            "Ctrl+Shift+R  reload what a command or another window changed"))

    def _about(self) -> None:
        QMessageBox.about(self, "About XNews", "<b>XNews</b><br>Point-and-click wrapper builder, crawler, topic "
                          "classifier and offline reader for news sites.")

    def _show_counts(self, total: int) -> None:
        badge = self.watch_alerts.badge()
        self.tabs.setTabText(TABS.index("articles"), f"Articles ({total:,})" + (f"  {badge}" if badge else ""))
        self.tabs.setTabToolTip(TABS.index("articles"), f"{badge[2:]} new article(s) match your watches: "
                                "\u2605 Watches lists them" if badge else "")
        self.watches_button.setText("\u2605 Watches" + (f" ({badge[2:]} new)" if badge else ""))

    def _show_badge(self) -> None:
        self._show_counts(self.articles.model.total())

    def _toggle_watches(self) -> None:
        """The Articles tab with the Watches panel; from there, the panel hidden again."""
        panel = self.articles.watches
        if self.tabs.currentWidget() is self.articles and panel.isVisible():
            panel.hide()
            return
        panel.refresh()
        panel.show()
        self.show_tab("articles")

    def show_watch(self, name: str) -> None:
        """The Articles tab with the watch's own list (a notification was clicked)."""
        if not (self.tabs.currentWidget() is self.articles and self.articles.watches.isVisible()):
            self._toggle_watches()
        self.articles.watches.select(name)

    # --- geometry and shutdown ------------------------------------------------------------------
    def _restore(self) -> None:
        s = QSettings()
        geometry = s.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = s.value("window/state")
        if state is not None:
            self.restoreState(state)
        self.articles.restore_layout(s.value("articles/splitter"))
        try:
            self.tabs.setCurrentIndex(int(s.value("window/tab", TABS.index("crawl"))))
        except (TypeError, ValueError):
            self.show_tab("crawl")

    def save_state(self) -> None:
        s = QSettings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/tab", self.tabs.currentIndex())
        splitter = self.articles.layout_state()
        if splitter is None:
            s.remove("articles/splitter")  # a split that left a column unreadable is not kept
        else:
            s.setValue("articles/splitter", splitter)

    def closeEvent(self, event) -> None:  # noqa: N802
        if (self.crawl.is_crawling() or self.classifier.job is not None or self.sites.unsaved()) \
                and not self._quit_confirmed:
            event.ignore()  # asked first; the answer closes the window again
            self._ask_before_quitting()
            return
        if self.crawl.is_crawling():
            self.statusBar().showMessage("Stopping crawls…")
        self.save_state()
        self.crawl.shutdown()
        self.classifier.shutdown()
        from . import workers

        workers.wait_all(5000)
        self.release_web_pages()
        super().closeEvent(event)

    def _ask_before_quitting(self) -> None:
        if self.quit_box is not None:
            return
        names = ", ".join(self.crawl.active_crawls())
        parts = [f"XNews is crawling {names}. The crawl stops; the Crawl tab offers to resume it where it "
                 "stopped when XNews starts again."] if names else []
        if self.classifier.job is not None:
            parts.append("A model is being trained: it stops and is not kept." if self.classifier.retraining else
                         "The stored articles are being re-classified: it stops; the rest keep their labels.")
        if self.sites.unsaved():
            parts.append(f"The profile \u201c{self.sites.current_profile().name}\u201d has changes that are not "
                         "saved: they are dropped (Cancel, then Save in the Sites tab, keeps them).")
        box = QMessageBox(QMessageBox.Icon.Question, "Quit XNews", " ".join(parts) + " Quit now?", parent=self)
        box.addButton("Quit", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda _code: self._quit_answered(box))
        self.quit_box = box
        box.open()

    def _quit_answered(self, box: QMessageBox) -> None:
        self.quit_box = None
        quit_now = box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.AcceptRole
        box.deleteLater()
        if quit_now:
            self._quit_confirmed = True
            self.close()

    def release_web_pages(self) -> None:
        """Delete the web pages now, each before its profile and all before the web engine shuts down
        (otherwise Qt warns "Release of profile requested but WebEnginePage still not deleted")."""
        self.sites.shutdown()
        self.articles.reader.shutdown()
