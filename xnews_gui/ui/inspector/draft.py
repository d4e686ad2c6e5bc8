"""The profile being built: clicks in, rules out, and the checks the panel shows. No Qt here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

from ...core.extract import extract
from ...core.profile import FIELDS, LinkRule, Profile
from ...core.rules import Rule, RuleError, parse_html
from ...core.links import page_links
from ...core.selectors import induce, induce_links
from ...core.urls import absolute

# (key, toolbar label); "articles"/"next" become the profile's link rules
PICK_FIELDS = (
    ("articles", "Article links"), ("next", "Next page"), ("title", "Title"), ("summary", "Summary"),
    ("image", "Image"), ("body", "Body"), ("author", "Author"), ("date", "Date"), ("remove", "Remove"),
)
LABELS = dict(PICK_FIELDS)
SINGLE = {"next", "title", "summary", "image", "body", "author", "date"}


@dataclass
class Draft:
    """Clicked examples per field and the profile they produce."""

    profile: Profile
    examples: dict = field(default_factory=dict)  # key -> [(url, html, xpath)]
    negatives: dict = field(default_factory=dict)
    list_url: str = ""  # the list page the article links were picked on

    @classmethod
    def new(cls, name: str, url: str) -> "Draft":
        host = urlsplit(url).hostname or ""
        return cls(Profile(name=name, start_urls=(url,), allowed_domains=(host,) if host else ()))

    def clone(self) -> "Draft":
        """A copy a worker may change while the GUI keeps using this one."""
        return Draft(self.profile, {k: list(v) for k, v in self.examples.items()},
                     {k: list(v) for k, v in self.negatives.items()}, self.list_url)

    # --- clicks -> rules ------------------------------------------------------
    def add_pick(self, key: str, url: str, html: str, xpath: str, negative: bool) -> list[Rule]:
        """Record a click and regenerate the key's rule; returns the ranked candidates."""
        if key == "remove":
            return self._add_remove(url, html, xpath, negative)
        bucket = self.negatives if negative else self.examples
        pairs = bucket.setdefault(key, [])
        if not negative and key in SINGLE:
            pairs[:] = [p for p in pairs if p[0] != url]  # one element per page for single fields
        pairs.append((url, html, xpath))
        if negative and not self.examples.get(key):
            return []
        return self.regenerate(key)

    def regenerate(self, key: str) -> list[Rule]:
        positives = [(h, x) for _, h, x in self.examples.get(key, [])]
        negatives = [(h, x) for _, h, x in self.negatives.get(key, [])]
        if key == "articles":
            link_rules = induce_links(positives, negatives)
            if link_rules:
                self.profile = self.profile.with_(articles=link_rules[0])
            if self.examples.get(key):
                self.list_url = self.examples[key][-1][0]
            return [r.as_rule().with_(note=_link_note(r)) for r in link_rules]
        rules = induce(positives, negatives, field=key)
        if rules:
            self.set_rule(key, rules[0])
        return rules

    def _add_remove(self, url, html, xpath, negative) -> list[Rule]:
        if negative:
            self.negatives.setdefault("remove", []).append((url, html, xpath))
            if not self.profile.remove or not self.examples.get("remove"):
                return []
            last = self.examples["remove"][-1]
            negs = [(h, x) for _, h, x in self.negatives["remove"]]
            rules = induce([(last[1], last[2])], negs, field="remove")
            if rules:
                self.profile = self.profile.with_(remove=self.profile.remove[:-1] + (rules[0],))
            return rules
        self.examples.setdefault("remove", []).append((url, html, xpath))
        rules = induce([(html, xpath)], field="remove")
        if rules:
            self.profile = self.profile.with_(remove=self.profile.remove + (rules[0],))
        return rules

    def set_rule(self, key: str, rule: Rule | None) -> None:
        """Put a rule (from induction, a suggestion or a hand edit) into the profile."""
        p = self.profile
        if key == "articles":  # a hand edit of the selector: the URL patterns stay
            kept = p.articles or LinkRule()
            self.profile = p.with_(articles=None if rule is None else LinkRule(
                kind=rule.kind, selector=rule.selector, allow=kept.allow, deny=kept.deny))
        elif key == "next":
            self.profile = p.with_(lists=None if rule is None else LinkRule(kind=rule.kind, selector=rule.selector))
        elif key in FIELDS:
            self.profile = p.with_field(key, rule)
        else:
            raise KeyError(key)

    def set_remove(self, index: int, rule: Rule | None) -> None:
        remove = list(self.profile.remove)
        if rule is None:
            del remove[index]
        else:
            remove[index] = rule
        self.profile = self.profile.with_(remove=tuple(remove))

    def rule_for(self, key: str) -> Rule | None:
        p = self.profile
        if key == "articles":
            return p.articles.as_rule() if p.articles and p.articles.selector else None
        if key == "next":
            return p.lists.as_rule() if p.lists and p.lists.selector else None
        if key.startswith("remove:"):
            i = int(key.split(":", 1)[1])
            return p.remove[i] if i < len(p.remove) else None
        return p.fields.get(key)

    def rows(self) -> list[str]:
        """Keys of the rules the panel lists, in toolbar order."""
        keys = [k for k, _ in PICK_FIELDS if k != "remove" and self.rule_for(k) is not None]
        keys += [f"remove:{i}" for i in range(len(self.profile.remove))]
        return keys


def _link_note(rule: LinkRule) -> str:
    return f"links matching {' or '.join(rule.allow)}" if rule.allow else "every link it selects"


def label_for(key: str) -> str:
    if key.startswith("remove:"):
        return f"Remove #{int(key.split(':')[1]) + 1}"
    return LABELS.get(key, key)


# --- checks shown in the panel ---------------------------------------------------
@dataclass(frozen=True)
class RuleCheck:
    key: str
    matches: int  # on the rendered page (-1: no page yet)
    raw_matches: int  # on the raw HTML the crawler sees (-1: not fetched yet)
    preview: str
    error: str = ""

    @property
    def needs_js(self) -> bool:
        return self.matches > 0 and self.raw_matches == 0


def check_rules(draft_profile: Profile, keys: list[str], rules: list[Rule], url: str,
                dom_html: str | None, raw_html: str | None) -> list[RuleCheck]:
    """Match counts on the rendered DOM and on the raw HTML, and a value preview."""
    dom = parse_html(dom_html, url) if dom_html else None
    raw = parse_html(raw_html, url) if raw_html is not None else None
    out = []
    for key, rule in zip(keys, rules):
        try:
            rule.check(key)
            dom_values = _values(rule, dom, dom_html) if dom is not None else None
            raw_values = _values(rule, raw, raw_html) if raw is not None else None
        except RuleError as exc:
            out.append(RuleCheck(key, -1, -1, "", str(exc)))
            continue
        values = raw_values if raw_values else (dom_values or [])
        if key == "articles" and draft_profile.articles:
            values = [v for v in values if draft_profile.articles.accepts(absolute(url, v))]
        out.append(RuleCheck(key, -1 if dom_values is None else len(dom_values),
                             -1 if raw_values is None else len(raw_values), short(values[0] if values else "")))
    return out


def _values(rule: Rule, doc, html: str) -> list[str]:
    if rule.kind in ("css", "xpath"):
        if rule.take == "html":  # a preview shows the text, not the markup
            return [v for v in rule.with_(take="text").apply(doc) if v is not None]
        return rule.apply(doc)
    return rule.apply(html)


def short(text: str, limit: int = 90) -> str:
    text = re.sub(r"\s+", " ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --- the multi-page preview ---------------------------------------------------------
PREVIEW_FIELDS = FIELDS


@dataclass(frozen=True)
class PreviewCell:
    value: str
    state: str  # ok | empty | multiple | error


@dataclass(frozen=True)
class PreviewRow:
    url: str
    cells: dict  # field -> PreviewCell
    error: str = ""


def article_links(profile: Profile, list_html: str, list_url: str, limit: int = 4) -> list[str]:
    """The first article URLs the crawl of ``profile`` would queue from this list page."""
    return page_links(profile, list_html, list_url)[0][:limit]


def preview_row(profile: Profile, url: str, html: str) -> PreviewRow:
    article = extract(html, url, profile)
    cells = {}
    for name in PREVIEW_FIELDS:
        if name not in profile.fields:
            continue
        value = article.value(name)
        failed = any(e.startswith(f"{name}:") and "required" not in e for e in article.errors)
        state = "error" if failed else "multiple" if name in article.multiple else "ok" if value else "empty"
        cells[name] = PreviewCell(short(value, 70), state)
    return PreviewRow(url, cells)


def build_preview(profile: Profile, list_url: str, fetch: Callable[[str], str],
                  aborted: Callable[[], bool] = lambda: False, limit: int = 4) -> list[PreviewRow]:
    """Fetch the list page, then up to ``limit`` article pages, and extract each (runs in a worker)."""
    list_html = fetch(list_url)
    rows = []
    for url in article_links(profile, list_html, list_url, limit):
        if aborted():
            break
        try:
            html = fetch(url)
        except Exception as exc:  # one bad page must not hide the others
            rows.append(PreviewRow(url, {}, f"{type(exc).__name__}: {exc}"))
            continue
        rows.append(preview_row(profile, url, html))
    return rows
