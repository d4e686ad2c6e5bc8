"""The Rules table's checks: each rule's matches on the page as the browser shows it and on the raw HTML the
crawler downloads, and the value it takes (what tells a rule that needs JavaScript from one that does not)."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.profile.profile import Profile
from ...core.profile.rules import Rule, RuleError, parse_html
from ...core.text.urls import absolute
from .draft import short


@dataclass(frozen=True)
class RuleCheck:
    key: str
    matches: int  # on the rendered page (-1: no page yet)
    raw_matches: int  # on the raw HTML the crawler sees (-1: not fetched yet)
    preview: str
    error: str = ""
    in_raw_text: bool = False  # no match in the raw HTML, but the rendered match's text is in it

    @property
    def needs_js(self) -> bool:
        return self.matches > 0 and self.raw_matches == 0 and not self.in_raw_text

    @property
    def parsed_otherwise(self) -> bool:
        """The raw HTML has the text, but the rule does not match there: the browser and the crawler's parser
        read the page's markup differently (a <body class> inside IE conditional comments), no JavaScript."""
        return self.matches > 0 and self.raw_matches == 0 and self.in_raw_text


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
        in_raw = bool(dom_values) and raw_values == [] and _text_in(dom_values[0], raw, _first_tag(rule, dom))
        out.append(RuleCheck(key, -1 if dom_values is None else len(dom_values),
                             -1 if raw_values is None else len(raw_values), short(values[0] if values else ""),
                             in_raw_text=in_raw))
    return out


def _values(rule: Rule, doc, html: str) -> list[str]:
    if rule.kind in ("css", "xpath"):
        if rule.take == "html":  # a preview shows the text, not the markup
            return [v for v in rule.with_(take="text").apply(doc) if v is not None]
        return rule.apply(doc)
    return rule.apply(html)


def _first_tag(rule: Rule, doc) -> str:
    if rule.kind not in ("css", "xpath"):
        return ""
    try:
        found = rule.select(doc)[:1]
    except RuleError:
        return ""
    return found[0].tag if found and isinstance(found[0].tag, str) else ""


def _text_in(value: str, raw_doc, tag: str) -> bool:
    """Whether ``value`` (a match on the rendered page, a ``tag`` element) is in the raw page too, as text a
    person sees (not a script's data, which JavaScript builds a page from). A short value: a ``tag`` element
    with just that text (a headline's words alone are in a "most read" link too). A long one: two of three
    pieces of it (at a quarter, half and three quarters) in the page's text."""
    words = value.split()
    if len(words) < 40:
        # in lxml's C code: a tag's text joined for every element of it in Python costs the page's size squared
        return bool(tag.isalnum() and words) and bool(raw_doc.xpath(f"//{tag}[normalize-space(.) = $wanted]",
                                                                  wanted=" ".join(words)))
    page = Rule(kind="xpath", selector="/html", take="text").apply(raw_doc)
    raw_text = " ".join((page[0] if page else "").split())
    pieces = [" ".join(words[at:at + 6]) for at in (len(words) // 4, len(words) // 2, 3 * len(words) // 4)]
    return sum(piece in raw_text for piece in pieces) >= 2
