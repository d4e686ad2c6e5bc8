"""Pick mode of the inspector: a field button arms the picker in the page; a click comes back over
the bridge; its rule is induced in a worker from a snapshot of the draft and applied to the draft
as it is then (a mixin of ``Inspector``: it uses the inspector's draft, view, pool and status)."""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

from PySide6.QtCore import QTimer, Slot
from PySide6.QtGui import QAction

from ...core.profile.rules import RuleError, css_to_xpath
from .. import workers
from . import start_page
from .bridge import PickedElement, run_picker
from .draft import Draft, PickJob, alternative_order, induce_job, label_for


def _pick_job(draft: Draft, job: PickJob):
    """(draft, job, candidates, order, error): the draft only rides along, the GUI thread applies the result.
    ``order``: for a click on another page of a field with rules, the chain with the new rule in it."""
    try:
        candidates = induce_job(job)
        order = alternative_order(job, candidates) if job.mode == "alternative" and candidates else None
        return draft, job, candidates, order, ""
    except ValueError as exc:  # the clicked element is not in the DOM as lxml reads it
        return draft, job, [], None, str(exc)  # induce says which click it could not find


_ROWS = re.compile(r"(\btable(?:\[[^\]]*\])*)/tr\b")


def rule_xpath(rule) -> str:
    """The XPath the page's tinting evaluates for a css/xpath rule ("" for other kinds). A rule's
    ``table/tr`` step (the raw HTML has no ``tbody``) also finds the rows the browser put in one."""
    if rule.kind not in ("css", "xpath"):
        return ""
    try:
        path = css_to_xpath(rule.selector) if rule.kind == "css" else rule.selector
    except RuleError:
        return ""
    if rule.kind == "xpath" and "|" not in path:
        browser = _ROWS.sub(r"\1/tbody/tr", path)
        if browser != path:
            path = f"{path} | {browser}"
    return path


def _alternative_said(label: str, job: PickJob, order, rule, chain_length: int) -> str:
    if order is None or len(order) == len(job.rules):
        return (f"{label}: the rules already give this page what you clicked; nothing added. The chain has "
                f"{chain_length} rules.")
    where = "first (a rule before it gave this page something else)" if order[0] is not job.rules[0] and \
        order[0].selector == rule.selector else "after the others"
    return (f"{label}: added an alternative rule for this page's layout, tried {where}: {rule.selector}. The chain "
            f"has {chain_length} rules (the first whole value wins); Save learns them again from the site.")


class PickMode:
    """Pick-mode methods of ``Inspector``."""

    def start_picking(self, key: str) -> None:
        action = self.field_actions[key]
        action.setChecked(True)
        self._field_triggered(action)

    def stop_picking(self) -> None:
        checked = self.field_group.checkedAction()
        if checked:
            checked.setChecked(False)
        self.active_field = ""
        run_picker(self.view.page(), "stop()")

    def _field_triggered(self, action: QAction) -> None:
        key = action.data()
        if not action.isChecked():
            self.stop_picking()
            return
        self.active_field = key
        if self.browser.on_start_page():
            self._say(f"Pick mode: {label_for(key)}. First open a page of the site: type its address above "
                      "or open the demo site.")
            return
        self._arm_picker()
        self.view.setFocus()
        self._say(f"Pick mode: {label_for(key)}. Click it on the page "
                  "(\u2191 wider, \u2193 narrower; click a tinted match to reject it; Esc to stop).")

    def _arm_picker(self) -> None:
        if not self.active_field:
            return
        key = self.active_field
        run_picker(self.view.page(), f"start({json.dumps(key)}, {json.dumps(label_for(key))})")
        self._highlight(key)

    def _highlight(self, key: str) -> None:
        rule = self.draft.rule_for(key) if self.draft else None
        if key == "remove" and self.draft and self.draft.profile.remove:
            rule = self.draft.profile.remove[-1]
        xpath = rule_xpath(rule) if rule is not None else ""
        run_picker(self.view.page(), f"highlight({json.dumps(xpath)})")

    @Slot(str)
    def _picker_ready(self, url: str) -> None:
        if start_page.is_start_url(url):
            return  # nothing to pick on the start page: its links stay links
        self._arm_picker()
        if self._shown[0] == url and self._shown[1]:  # a proposed repair shown on this page: its matches tinted,
            run_picker(self.view.page(), f"reveal({json.dumps(self._shown[1])})")  # the first one in view
        self.pickerReady.emit(url)

    @Slot(str)
    def _picker_exited(self, field: str) -> None:
        checked = self.field_group.checkedAction()
        if checked:
            checked.setChecked(False)
        self.active_field = ""
        self._say("Pick mode off.")

    @Slot(str, object, bool)
    def _picked(self, field: str, element: PickedElement, negative: bool) -> None:
        if field not in self.field_actions or self.browser.on_start_page():
            return
        url = self.browser.url()
        if self.browser.load_failed:  # Chromium's "This site can't be reached": no rule is learnt from it
            self._say(f"This page did not load ({url}): check the address above and press Enter, then pick.")
            return
        self._say(f"{'Rejected' if negative else 'Picked'} {element.crumb.rsplit(' > ', 1)[-1]} for "
                  f"{label_for(field)}; generating a rule\u2026")
        self.with_dom(url, lambda html: self._induce(field, url, html, element, negative))

    def with_dom(self, url: str, then, tries: int = 8) -> None:
        """The rendered DOM of the page shown. Chromium now and then answers ``toHtml`` with an
        empty document while it is busy: ask again shortly (a pick must not learn from nothing)."""
        def got(html: str) -> None:
            if self.browser.closed or url != self.browser.url():
                return
            if tries > 1 and "<body></body>" in html[:200] and len(html) < 200:
                QTimer.singleShot(100, self, lambda: self.with_dom(url, then, tries - 1))  # none once deleted
                return
            then(html)
        if not self.browser.closed:  # view.page() of a closed view makes a new page
            self.view.page().toHtml(got)

    def _induce(self, field: str, url: str, html: str, element: PickedElement, negative: bool) -> None:
        self._dom_html, self._dom_url = html, url
        if self.draft is None:
            host = urlsplit(url).hostname or "site"
            self.draft = Draft.new(host.replace(":", "-")[:64], url)
        job = self.draft.add_pick(field, url, html, element.xpath, negative)
        if job is None:
            self._changed()
            return
        worker = workers.Worker(_pick_job, self.draft, job)
        worker.signals.result.connect(self._induced)
        worker.signals.error.connect(self._pick_error)
        workers.start(worker, self.pool)
        self.inductionStarted.emit(field)

    @Slot(object)
    def _induced(self, result) -> None:
        draft, job, candidates, order, error = result
        if draft is not self.draft:
            return  # another profile is open now
        if error:
            draft.forget(job)  # a click that cannot be used must not spoil the next ones
            self._pick_error(error)
            return
        rules = draft.apply_induced(job, candidates, order)
        if rules is None:
            return  # a newer pick or a hand edit of this key came meanwhile; it wins
        key = job.key
        if not rules:
            self._say(f"No rule for {label_for(key)} fits these clicks; click another element.")
        elif job.mode == "alternative":
            self._say(_alternative_said(label_for(key), job, order, rules[0], len(draft.profile.rules_for(key))))
        else:
            best = rules[0]
            self._say(f"{label_for(key)}: {best.selector}  \u2014 {best.note}"
                      + (f"  ({len(rules) - 1} alternatives in the tooltip)" if len(rules) > 1 else ""))
        self._changed()

    @Slot(str)
    def _pick_error(self, message: str) -> None:
        self._say(f"Could not build a rule: {message}")
        self.pickFailed.emit(message)
