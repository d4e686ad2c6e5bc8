"""The inspector: browser + field toolbar + picker + rule panel + live multi-page preview.

Flow: a field button turns on pick mode in the page; a click comes back over the
bridge as an element description; the rendered DOM (``toHtml``) plus the
element's XPath go to ``core.induction.selectors`` in a worker; the best rule lands in the
draft profile; every rule is then re-checked on the raw HTML of the same URL
(requests, in a worker) and the preview grid re-extracts 3-5 article pages.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from PySide6.QtCore import QTimer, Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from ...core.profile.profile import Profile, RenderSettings
from ...errors import describe
from ...core.profile.rules import Rule
from ...core.induction.selectors import suggest_from_metadata
from .. import workers
from .bridge import PickerBridge, install_picker, run_picker
from .browser import BrowserPane
from .draft import Draft, label_for
from .rule_checks import check_rules
from .fetch import PageCache, inspector_pool
from .field_bar import FieldBar
from .learning import SiteLearning
from .load_more import LoadMorePick
from .login_bar import LoginBar
from .hand_edits import HandEdits
from .picking import PickMode, rule_xpath
from .preview import PreviewPane
from .reach_bar import ReachBar, with_discovery
from .repair_bar import RepairBar
from .rule_panel import RulePanel
from .site_bar import SiteBar
from .suggest_bar import SuggestBar


def _check_job(revision: int, cache: PageCache, profile, keys, rules, url, dom_html, worker=None):
    raw, fetch_error = None, ""
    if url.startswith(("http://", "https://")):
        try:
            raw = cache.fetch(url)
        except Exception as exc:  # the panel says so; the DOM counts still show
            fetch_error = f"raw HTML not available: {describe(exc)}"
    checks = check_rules(profile, keys, rules, url, dom_html, raw)
    suggestions = suggest_from_metadata(raw if raw is not None else dom_html or "")
    return revision, url, checks, suggestions, fetch_error


class Inspector(PickMode, HandEdits, QWidget):
    """Build a profile by clicking. ``profile()`` is the current draft."""

    rulesChanged = Signal()  # the draft's rules changed (a pick, an edit, a suggestion)
    checksUpdated = Signal()  # match counts / raw-HTML checks refreshed
    previewUpdated = Signal()  # the preview grid was refilled
    pickerReady = Signal(str)  # the picker is live in the page at this URL
    pickFailed = Signal(str)
    inductionStarted = Signal(str)  # a pick's rule is being induced in a worker (the key)
    repairAccepted = Signal(str)  # one click accepted a repair of this field: the draft has it, save it

    def __init__(self, parent=None, data_dir=None):
        super().__init__(parent)
        self.cache = PageCache()
        self.pool = inspector_pool()
        self._revision = 0  # counts rule changes: a check of older rules is never painted
        self.draft: Draft | None = None
        self.active_field = ""
        self._dom_html: str | None = None
        self._dom_url = ""
        self._suggestions: dict[str, Rule] = {}

        self.browser = BrowserPane(self)
        self.view = self.browser.view
        self.bridge = PickerBridge(self)
        self.channel = install_picker(self.view.page(), self.bridge)

        self.toolbar = FieldBar(self)
        self.field_group = self.toolbar.group
        self.field_actions = self.toolbar.actions_by_key
        self.field_group.triggered.connect(self._field_triggered)

        self.suggest_box = SuggestBar(self)
        self.suggest_box.useClicked.connect(self.apply_suggestions)

        self.reach_bar = ReachBar(self.pool, self.cache.fetch, self)  # "this site has a sitemap", "mark render"
        self.reach_bar.discoveryUsed.connect(self.use_discovery)
        self.reach_bar.renderMarked.connect(self.mark_render)

        self.site_bar = SiteBar(self.cache, self.pool, self)
        self.site_bar.startUrlsEdited.connect(self.set_start_urls)
        self.site_bar.useThisPage.connect(self.use_this_page)
        self.load_more = LoadMorePick(self)  # the Load more pick and the Scrolls for more mark
        self.site_bar.load_more = self.load_more.load
        self.login_bar = LoginBar(self.browser.web_profile.cookieStore(), self.browser.url, self)
        self.login_bar.set_data_dir(data_dir)  # where kept logins go (<data>/cookies/)
        self.login_bar.cookiesChanged.connect(self._cookies_changed)

        self.panel = RulePanel(self)
        self.panel.ruleEdited.connect(self._rule_edited)
        self.panel.ruleDeleted.connect(self._rule_deleted)
        self.panel.rowActivated.connect(self._row_activated)
        self.preview = PreviewPane(self)
        self.preview.updated.connect(self.previewUpdated)
        self.repair_bar = RepairBar(self)
        self.repair_bar.accepted.connect(self.repairAccepted)
        self.preview.updated.connect(self.repair_bar.consider)
        self._shown = ("", "")  # (url, xpath): a rule to tint on that page once loaded (a proposed repair)
        self.status = QLabel(self)
        self.status.setStyleSheet("color: palette(mid); padding: 2px 4px;")
        self.status.setWordWrap(True)
        self.learning = SiteLearning(self)  # Save learns the picked rules again from the site first

        side = QSplitter(Qt.Orientation.Vertical, self)
        rules_box = QWidget(self)
        rules_layout = QVBoxLayout(rules_box)
        rules_layout.setContentsMargins(0, 0, 0, 0)
        rules_title = QLabel("Rules", self)
        rules_title.setStyleSheet("font-weight: bold; padding: 2px 4px;")
        rules_layout.addWidget(rules_title)
        rules_layout.addWidget(self.panel, 1)
        rules_layout.addWidget(self.status)
        rules_layout.addWidget(self.suggest_box)  # here, not above the page: showing it moves nothing under the mouse
        rules_layout.addWidget(self.reach_bar)
        rules_layout.addWidget(self.repair_bar)
        side.addWidget(rules_box)
        side.addWidget(self.preview)
        side.setSizes([300, 220])
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.browser)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([620, 380])  # the page needs room to render its desktop layout
        self.browser.setMinimumWidth(420)  # a small window squeezes the rule list, never the page to a sliver
        self.splitter.setCollapsible(0, False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.site_bar)
        layout.addWidget(self.login_bar)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.splitter, 1)

        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(250)
        self._preview_timer.timeout.connect(self._start_preview)

        self.bridge.ready.connect(self._picker_ready)
        self.bridge.picked.connect(self._picked)
        self.bridge.exited.connect(self._picker_exited)
        self.bridge.invalid.connect(lambda why: self._say(f"Ignored a malformed picker message: {why}"))
        self.view.loadFinished.connect(self._load_finished)
        self.view.urlChanged.connect(lambda _url: setattr(self, "_dom_html", None))
        self.view.urlChanged.connect(self.login_bar.refresh)
        self._say("Open a news site's list page, choose \u201cArticle links\u201d and click one article link.")

    # --- public API -------------------------------------------------------------------
    def load_url(self, url: str) -> None:
        self.browser.load(url)

    def show_start(self, html: str) -> None:
        """The local start page (what to do first, the demo site, the stored profiles)."""
        self.browser.show_start(html)
        self._say("Open a news site's list page, choose \u201cArticle links\u201d and click one article link.")

    def profile(self) -> Profile | None:
        return self.draft.profile if self.draft else None

    def set_profile(self, profile: Profile | None) -> None:
        """Show a saved profile: its rules, checked on whatever page is loaded."""
        self.draft = Draft(profile) if profile else None
        self.cache.clear()  # checked on the pages as they are now (a crawl may have seen a redesign)
        self.repair_bar.reset()
        self.preview.clear()
        self.say("")  # nothing said of the previous profile stays
        self._changed()

    def new_profile(self, name: str, url: str = "") -> None:
        """A fresh draft starting at ``url`` (default: the page in view); nothing of the old one stays."""
        here = "" if self.browser.on_start_page() else self.browser.url()
        self.stop_picking()
        run_picker(self.view.page(), "highlight(\"\")")  # no match badge of the old rules
        self.draft = Draft.new(name, url or here)
        self.repair_bar.reset()
        self.say("")  # nothing said of the previous profile stays
        self._changed()
        self._start_preview()  # now: the old profile's preview must not linger

    @Slot(list)
    def set_start_urls(self, urls: list) -> None:
        """The crawl's start pages, as typed in the site bar."""
        bad = [u for u in urls if not u.startswith(("http://", "https://"))]
        if bad:
            self._say(f"Not a web address: {bad[0]} (start pages begin with http:// or https://)")
            return
        if self.draft is None:
            host = urlsplit(urls[0]).hostname if urls else ""
            self.draft = Draft.new((host or "site").replace(":", "-")[:64], "")
        self.draft.set_start_urls(urls)
        self._say(f"The crawl starts at: {', '.join(urls)}" if urls else "No start page: the crawl would fetch nothing.")
        self._changed()

    def unapplied_edits(self) -> str:
        """What the screen shows that the profile did not take (a refused hand edit, start pages typed that
        are no web addresses), as the reason Save refuses; "" when the screen shows the profile."""
        refused = self.panel.refused_edit()
        if refused:
            return f"{refused}: correct it in the Rules table, or pick the field again"
        typed = self.site_bar.start_urls()
        if self.draft is not None and tuple(dict.fromkeys(typed)) != self.draft.profile.start_urls:  # (as taken)
            bad = next((u for u in typed if not u.startswith(("http://", "https://"))), "")
            return (f"the start pages typed were not taken ({bad!r} is not a web address)" if bad else
                    "the start pages typed were not taken: press Enter in the box first")
        return ""

    @Slot()
    def use_this_page(self) -> None:
        if self.browser.on_start_page():
            self._say("Open the site's home page or a section page first, then click “Use this page”.")
            return
        self.set_start_urls([self.browser.url()])

    def set_degraded(self, degraded: dict) -> None:
        """Fields a crawl flagged degraded ({field: failing urls}): a repair is proposed for them."""
        self.repair_bar.set_degraded(degraded)

    def show_rule_on(self, url: str, rule: Rule | None) -> None:
        """Open ``url`` with ``rule``'s matches tinted (a proposed repair shown on a failing page)."""
        xpath = rule_xpath(rule) if rule is not None else ""
        self._shown = (url, xpath)  # tinted when the picker is ready on that page (now too, if it is shown)
        if url == self.browser.url():
            run_picker(self.view.page(), f"reveal({json.dumps(xpath)})")  # tinted and scrolled into view
        else:
            self.load_url(url)

    def rename(self, name: str) -> None:
        if self.draft:
            self.draft.profile = self.draft.profile.with_(name=name)
            self.login_bar.show_profile(self.profile())  # a login is kept under the profile's name

    def shutdown(self) -> None:
        """Abort background work without waiting for it (call before the widget goes away): a
        worker still fetching finishes on its own, and the HTTP session closes after its last fetch."""
        self.preview.shutdown()
        self.site_bar.shutdown()
        self.load_more.shutdown()
        self.reach_bar.shutdown()
        self.draft = None
        self._revision += 1  # results still on their way are dropped
        self.cache.close()
        self.browser.close_page()

    # --- rules -> panel, checks, preview ------------------------------------------------
    def rules_replaced(self) -> None:
        """The draft's profile was changed from outside the pick flow (learning, a repair)."""
        self._changed()

    def learn_before_save(self, then) -> bool:
        """Learn the picked rules from the site (a worker), then call ``then``; False: nothing to learn."""
        return self.learning.start(then)

    def _changed(self) -> None:
        self._revision += 1
        self.site_bar.show_profile(self.profile())
        self.login_bar.show_profile(self.profile())
        keys = self.draft.rows() if self.draft else []
        rules = [self.draft.rule_for(k) for k in keys] if self.draft else []
        self.panel.set_rules(list(zip(keys, rules)))
        if self.active_field:
            self._highlight(self.active_field)
        self._start_checks()
        self._preview_timer.start()
        self._update_suggestions()
        self.rulesChanged.emit()

    def _start_checks(self) -> None:
        url = self.browser.url()
        if self.browser.on_start_page():
            return
        keys = self.draft.rows() if self.draft else []
        rules = [self.draft.rule_for(k) for k in keys]
        dom = self._dom_html if self._dom_url == url else None
        worker = workers.Worker(_check_job, self._revision, self.cache, self.profile(), keys, rules, url, dom)
        worker.signals.result.connect(self._checked)
        workers.start(worker, self.pool)

    @Slot(object)
    def _checked(self, result) -> None:
        revision, url, checks, suggestions, fetch_error = result
        if revision != self._revision or url != self.browser.url():
            return  # checks of older rules or of another page
        profile = self.profile()
        body = profile.chains.get("body") if profile is not None else None
        joined = frozenset({"body"}) if body is not None and body.expect is not None and body.expect.per_page != 1 \
            else frozenset()  # the blocks of a split story: all of them, joined
        self.panel.set_checks(checks, rendered=profile is not None and profile.render is not None, joined=joined)
        self.reach_bar.offer_render(self.draft, checks)
        self.reach_bar.look(self.profile(), url)  # after the checks: the page's raw HTML is in the cache
        self._suggestions = suggestions
        self._update_suggestions()
        if fetch_error:
            self._say(fetch_error)
        self.checksUpdated.emit()

    def _update_suggestions(self) -> None:
        self.suggest_box.offer(self._suggestions, set(self.draft.profile.fields) if self.draft else set())

    @Slot(object)
    def use_discovery(self, report) -> None:
        """Crawl the sitemaps and feeds the site has, then follow the link rules."""
        if self.draft is None:
            return
        self.draft.profile = with_discovery(self.draft.profile, report)
        self._say(f"The crawl reads {' and '.join(self.draft.profile.discovery[:-1])} first, then follows the "
                  "link rules (only URLs like the clicked article links are kept).")
        self._changed()

    @Slot(str)
    def mark_render(self, wait_for: str) -> None:
        """Crawl the article pages in an offscreen browser, waiting for ``wait_for``."""
        if self.draft is None:
            return
        self.draft.profile = self.draft.profile.with_(render=RenderSettings(wait_for=wait_for))
        self._say(f"Marked render: crawls build the article pages in an offscreen browser and wait for {wait_for}.")
        self._changed()

    def apply_suggestions(self) -> list[str]:
        """Use the page's metadata for every field that has no rule yet (one click)."""
        if self.draft is None:
            url = self.browser.url()
            self.draft = Draft.new((urlsplit(url).hostname or "site").replace(":", "-")[:64], url)
        used = [k for k in self._suggestions if k not in self.draft.profile.fields]
        for key in used:
            self.draft.set_rule(key, self._suggestions[key])
        self._say(f"Rules from page metadata: {', '.join(label_for(k) for k in used)}." if used else "Nothing to add.")
        self._changed()
        # the bar hides with its button: Qt would hand the focus (and the next key) to the Start pages line, selected
        self.view.setFocus()
        return used

    @Slot(str)
    def _row_activated(self, key: str) -> None:
        if not key.startswith("remove:"):
            self._highlight(key)

    def _start_preview(self) -> None:
        profile = self.profile()
        list_url = (self.draft.list_url if self.draft else "") or (profile.start_urls[0] if profile and profile.start_urls else "")
        self.preview.refresh(profile, list_url, self.load_more.fetch(profile, self.cache.fetch), self.pool,
                             self.cache.fetch_file)

    # --- page events ---------------------------------------------------------------------
    @Slot(bool)
    def _load_finished(self, ok: bool) -> None:
        if self.browser.on_start_page():
            return
        if not ok:
            self._say(f"Could not load {self.browser.url()}.")
            return
        url = self.browser.url()
        self.with_dom(url, lambda html: self._dom_ready(url, html))

    def _dom_ready(self, url: str, html: str) -> None:
        if url != self.browser.url():
            return
        self._dom_html, self._dom_url = html, url
        self._start_checks()

    @Slot(object)
    def _cookies_changed(self, jar) -> None:
        """The raw HTML is fetched logged in as the browser is (else a member's page looks like a login
        form to the checks, and every rule would "need JavaScript")."""
        self.cache.use_cookies(jar)
        self.load_more.use_cookies(jar)
        self._start_checks()
        self._preview_timer.start()

    def say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setToolTip(text if len(text) > 200 else "")  # a long explanation may be cut at the panel's foot

    _say = say
