"""List pages that load more links by JavaScript (a "Xem thêm" button, infinite scroll): which pages
do it, the button a click in the inspector meant, and what loading more gave (no Qt here).

    more = profile.more                                  # core.profile.profile_settings.MoreSettings
    applies(more, url, raw_html)                         # is this list page one that loads more?
    button_selector(dom_html, xpath)                     # "button.load-more": the clicked button's rule
    result.warning(url)                                  # "" or why the links may be incomplete

Loading itself is a browser's job (``ui/load_more_run.py`` in the render pool); a ``MoreResult``
says what it did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..profile.patterns import PatternError, compile_pattern
from ..profile.profile_settings import MoreSettings
from ..profile.rules import Rule, RuleError, parse_html

# why loading more stopped: "done" (no new link came), "no_button" (the button went: all is loaded),
# or a limit: "loads", "links", "seconds" (the page may hold more: a warning)
LIMITS = {"loads": "max_loads", "links": "max_links", "seconds": "max_seconds"}
_CLICKABLE = ("button", "a", "input")
_GENERATED = re.compile(r"\d{3,}|[0-9a-f]{6,}|^(?:css|sc|jsx)-", re.I)  # class names a build tool made


@dataclass(frozen=True)
class MoreResult:
    """The page after loading more: its DOM as HTML, how many loads (clicks or scrolls) brought new
    links, how many article-link matches it ends with, and why it stopped."""

    html: str
    loads: int
    links: int
    stopped: str
    seconds: float = 0.0

    @property
    def at_limit(self) -> bool:
        return self.stopped in LIMITS

    def warning(self, url: str, more: MoreSettings | None = None) -> str:
        """"" when the page stopped giving links by itself; else what was cut, in one line."""
        if not self.at_limit:
            return ""
        limit = f" ({LIMITS[self.stopped]} {getattr(more, LIMITS[self.stopped]):g})" if more is not None else ""
        return (f"{url} still loaded more after {self.loads} loads and {self.links} links: stopped at the "
                f"{self.stopped} limit{limit}; raise the profile's more.{LIMITS[self.stopped]} to take more")


def applies(more: MoreSettings | None, url: str, html) -> bool:
    """Whether the list page at ``url`` loads more: its URL matches ``more.pages``; without patterns, its
    raw HTML (text, or an lxml document) has the button, or the profile scrolls on every list page."""
    if more is None:
        return False
    if more.pages:
        try:
            return any(compile_pattern(p).search(url) for p in more.pages)
        except PatternError:  # out of time: not loaded (the crawl takes the raw page's links)
            return False
    if more.scroll:
        return True
    doc = parse_html(html, url) if isinstance(html, (str, bytes)) else html
    try:
        return bool(Rule(kind="css", selector=more.click).select(doc))
    except RuleError:
        return False


def count_selector(profile) -> str:
    """The CSS selector whose matches the browser counts as article links (every link when the profile's
    article rule is not CSS)."""
    rule = profile.articles
    if rule is not None and rule.kind == "css" and rule.selector:
        return rule.selector
    return "a[href]"


def button_selector(dom_html: str, xpath: str) -> str:
    """A CSS selector for the clickable element at ``xpath`` in the rendered DOM (the click may land on
    a span inside the button: its button, link or role=button ancestor is taken) that selects it alone,
    else first; "" when there is no such element."""
    doc = parse_html(dom_html)
    try:
        found = doc.xpath(xpath)
    except Exception:  # lxml's XPathError family: not a path this page has
        return ""
    if not found or not hasattr(found[0], "tag"):
        return ""
    el = found[0]
    target = el
    for up in [el, *el.iterancestors()]:
        if up.tag in _CLICKABLE or up.get("role") == "button" or up.get("onclick") is not None:
            target = up
            break
    found = []
    for selector in _candidates(target):
        try:
            matches = Rule(kind="css", selector=selector).select(doc)
        except RuleError:
            continue
        if matches and matches[0] is target:
            found.append((len(matches) > 1, selector))  # one that selects the button alone comes first
    return min(found, key=lambda f: f[0])[1] if found else ""


def _candidates(el) -> list[str]:
    tag = el.tag if isinstance(el.tag, str) else "*"
    out = []
    ident = el.get("id") or ""
    if ident and re.fullmatch(r"[A-Za-z][\w-]*", ident) and not _GENERATED.search(ident):
        out.append(f"#{ident}")
    classes = [c for c in (el.get("class") or "").split() if re.fullmatch(r"[A-Za-z_][\w-]*", c)
               and not _GENERATED.search(c)]
    for c in classes:
        out.append(f"{tag}.{c}")
    if len(classes) > 1:
        out.append(f"{tag}." + ".".join(classes))
    parent = el.getparent()
    if parent is not None and isinstance(parent.tag, str):
        for c in (parent.get("class") or "").split():
            if re.fullmatch(r"[A-Za-z_][\w-]*", c) and not _GENERATED.search(c):
                out.append(f"{parent.tag}.{c} > {tag}")
    out.append(tag)
    return out
