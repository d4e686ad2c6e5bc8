"""Offers under the rules: what the site gives besides its links, and pages that need JavaScript.

* When the draft's start page is known, ``crawl.discovery.discover`` runs in a worker (robots.txt's
  sitemaps, /sitemap.xml, the feeds the page announces); if it finds some, the bar says "this site has
  1 sitemap (80 URLs) and 6 feeds" with *Use them*, which sets the profile's ``discovery`` (sitemaps
  and feeds first, then the link rules) and remembers the URLs found.
* When a field's rule matches the page as the browser shows it but not the raw HTML the crawler
  downloads ("needs JavaScript"), the bar offers *Mark render*: the profile's ``render`` then waits
  for that field's selector in an offscreen browser page during crawls.

Each offer is a row that is hidden until it applies (the rules column moves, never the page).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...core.profile.profile import Profile
from ...core.profile.rules import Rule
from ...crawl.discovery import SiteReport, discover
from ...core.text.urls import in_scope
from ...crawl.fetcher import FetchError, Fetcher
from .. import workers
from .draft import label_for


def _discover_job(url: str, page, worker=None):
    from ..settings import Preferences

    def still_wanted(_url: str) -> None:  # before each request: an aborted look ends at once
        if worker is not None and worker.aborted:
            raise FetchError("stopped", "the inspector moved on")

    crawl = Preferences.load().crawl_options()
    fetcher = Fetcher(crawl.agent(), crawl.limits)
    try:
        return url, discover(url, fetcher, check=still_wanted, page_html=page(url))
    except FetchError as exc:
        if exc.kind != "stopped":
            raise
        return url, None  # nobody waits for it any more
    finally:
        fetcher.close()


def crawlable(profile: Profile | None, report: SiteReport) -> SiteReport:
    """What the report offers that the profile's crawl can read: a feed on a host outside the profile's domains
    would be refused by the crawl's scope, so it is not offered."""
    if profile is None or not profile.allowed_domains:
        return report
    feeds = [f for f in report.feeds if in_scope(f, profile.allowed_domains)]
    return report if feeds == report.feeds else replace(report, feeds=feeds, feed_urls=0)  # count not split per feed


def with_discovery(profile: Profile, report: SiteReport) -> Profile:
    """The profile reading the sitemaps and feeds found first, then its link rules."""
    report = crawlable(profile, report)
    modes = (("sitemap",) if report.sitemaps else ()) + (("feeds",) if report.feeds else ()) + ("links",)
    return profile.with_(discovery=modes, sitemaps=tuple(report.sitemaps)[:20], feeds=tuple(report.feeds)[:50])


def uses_discovery(profile: Profile | None, report: SiteReport) -> bool:
    if profile is None:
        return False
    report = crawlable(profile, report)
    return (not report.sitemaps or "sitemap" in profile.discovery) and (not report.feeds or "feeds" in profile.discovery)


def render_selector(rule: Rule | None) -> str:
    """The CSS selector a render waits for: the field's own (an XPath or regex rule has none)."""
    return rule.selector if rule is not None and rule.kind == "css" else ""


class _Offer(QFrame):
    def __init__(self, button_text: str, tip: str, parent=None):
        super().__init__(parent)
        self.setObjectName("offer")
        self.setStyleSheet("#offer { background: #fff8e1; border: 1px solid #f0c36d; border-radius: 4px; }")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.button = QPushButton(button_text, self)
        self.button.setToolTip(tip)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        self.hide()


class ReachBar(QWidget):
    discoveryUsed = Signal(object)  # SiteReport: set the profile's discovery from it
    renderMarked = Signal(str)  # the CSS selector to wait for
    discovered = Signal(object)  # SiteReport, for the start page shown

    def __init__(self, pool, page, parent=None):
        """``page(url)``: the raw HTML of a page, from the inspector's cache (any thread)."""
        super().__init__(parent)
        self.pool, self.page = pool, page
        self.report: SiteReport | None = None
        self._report_url = ""
        self._asked_url = ""
        self._worker: workers.Worker | None = None
        self._wait_for = ""
        self._profile: Profile | None = None
        self.discovery = _Offer("Use them", "Crawl the URLs the site lists in its sitemaps and feeds first, then "
                                "follow the link rules (a profile's \u201cdiscovery\u201d)", self)
        self.discovery.button.clicked.connect(self._use_discovery)
        self.render = _Offer("Mark render", "Crawl this profile's article pages in an offscreen browser page "
                             "(slower), waiting for this element", self)
        self.render.button.clicked.connect(self._mark_render)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.discovery)
        layout.addWidget(self.render)

    # --- sitemaps and feeds ------------------------------------------------------------
    def look(self, profile: Profile | None, page_url: str) -> None:
        """Find the sitemaps and feeds of the profile's first start page (once per page), while the
        browser shows a page of that site (so the site is there to ask)."""
        url = profile.start_urls[0] if profile is not None and profile.start_urls else ""
        if url and urlsplit(url).netloc != urlsplit(page_url).netloc:
            url = "" if url != self._report_url else url
        if url != self._report_url:
            self.report = None
            self.discovery.hide()
        if not url or url == self._asked_url:
            self._offer_discovery(profile)
            return
        if self._worker is not None:
            self._worker.abort()
        self._asked_url = url
        worker = workers.Worker(_discover_job, url, self.page)
        worker.signals.result.connect(lambda result, p=profile: self._found(result, p))
        worker.signals.error.connect(lambda _message: setattr(self, "_worker", None))
        self._worker = workers.start(worker, self.pool)

    def _found(self, result, profile: Profile | None) -> None:
        url, report = result
        self._worker = None
        if url != self._asked_url or report is None:
            return  # another start page meanwhile
        self.report, self._report_url = report, url
        self.discovered.emit(report)
        self._offer_discovery(self._profile or profile)

    def _offer_discovery(self, profile: Profile | None) -> None:
        self._profile = profile
        report = crawlable(profile, self.report) if self.report is not None else None
        if report is None or not (report.sitemaps or report.feeds) or uses_discovery(profile, report):
            self.discovery.hide()
            return
        text = report.summary()
        self.discovery.label.setText(f"{text[0].upper()}{text[1:]}: a crawl can read them to find every article.")
        self.discovery.show()

    @Slot()
    def _use_discovery(self) -> None:
        if self.report is not None:
            self.discovery.hide()
            self.discoveryUsed.emit(self.report)

    # --- pages that need JavaScript -------------------------------------------------------
    def offer_render(self, draft, checks) -> None:
        """Offer *Mark render* when a field's rule matches only after JavaScript ran (``checks``:
        the rule panel's ``draft.RuleCheck`` list for the page shown)."""
        profile = draft.profile if draft is not None else None
        late = next((c for c in checks if c.needs_js and c.key in profile.fields), None) if profile else None
        selector = render_selector(draft.rule_for(late.key)) if late is not None else ""
        if profile is None or profile.render is not None or not selector:
            self.render.hide()
            return
        field_label = label_for(late.key)
        self._wait_for = selector
        self.render.label.setText(f"{field_label} is built by JavaScript: the raw HTML the crawler downloads "
                                  f"does not have it. Render this site's article pages, waiting for {selector}?")
        self.render.show()

    @Slot()
    def _mark_render(self) -> None:
        if self._wait_for:
            self.render.hide()
            self.renderMarked.emit(self._wait_for)

    def shutdown(self) -> None:
        if self._worker is not None:
            self._worker.abort()
            self._worker = None
