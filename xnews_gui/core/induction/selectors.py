"""Clicked elements -> ranked, robust extraction rules (SelectorGadget-like).

Candidates come from ``candidates`` (stable hooks of the clicked element and its
ancestors). A candidate is *right* when, on every example page, it selects the
clicked element (exactly, for single-valued fields) and selects no rejected
element. The simplest right candidate wins. ``induce_profile`` (in ``induce``)
builds a whole profile from clicks plus unlabeled sibling pages.
"""

from __future__ import annotations

import re
from typing import Sequence
from urllib.parse import urlsplit

from .candidates import (  # noqa: F401  (re-exported: the selectors API)
    LINK_FIELDS,
    Example,
    Pages,
    Target,
    css_candidates,
    positional_xpath,
    quoted,
    resolve_clicks,
    describe,
    element_xpath,
    is_generated,
    locate,
    take_for,
    text_of,
)
from .structural import tag_chains
from ..profile.profile import LinkRule
from ..profile.jsonld import jsonld_values
from ..profile.rules import Rule, RuleError, parse_html

SINGLE_FIELDS = ("title", "summary", "image", "body", "author", "date", "next")
MAX_RULES = 8


def _judge(pages: Pages, kind: str, selector: str, targets: list[Target],
           rejects: list[Target], single: bool) -> tuple[float, str] | None:
    """Penalty (0 = clean) and a note, or None when the candidate is wrong."""
    penalty = 0.0
    counts = []
    by_doc: dict[int, list] = {}
    for t in targets:
        key = id(t.doc)
        if key not in by_doc:
            by_doc[key] = pages.select(kind, selector, t.doc)
        matched = by_doc[key]
        if t.el not in matched:
            return None
        counts.append(len(matched))
        if single and len(matched) > 1:
            if matched[0] is not t.el:
                return None
            penalty += 3.0  # right value first, but the field would be "multiple"
    for r in rejects:
        key = id(r.doc)
        if key not in by_doc:
            by_doc[key] = pages.select(kind, selector, r.doc)
        if r.el in by_doc[key]:
            return None
    pages_n = len(by_doc)
    note = f"{'exactly 1' if single and max(counts) == 1 else max(counts)} match{'es' if max(counts) > 1 else ''}"
    note += f" on {len(targets)} example{'s' if len(targets) > 1 else ''}"
    if pages_n > 1:
        note += f" ({pages_n} pages)"
    if not single:
        # many positives across examples: fine; many extras beyond them: a little worse
        extra = max(counts) - len({id(t.el) for t in targets})
        penalty += 0.02 * max(0, extra)
    return penalty, note


def induce(examples: Sequence[Example], negatives: Sequence[Example] = (), field: str = "title") -> list[Rule]:
    """Ranked rules (best first) selecting the clicked elements and none of the rejected ones.

    ``examples`` / ``negatives``: ``(html, absolute_xpath)`` pairs, possibly from
    several pages. ``field``: a profile field, ``articles``/``lists``/``next``
    for links, or ``remove``. Raises ValueError when an XPath is not in its page.
    """
    if not examples:
        raise ValueError("induce() needs at least one clicked example")
    pages = Pages()
    targets = resolve_clicks(pages, examples, field)
    rejects = resolve_clicks(pages, negatives, field) if negatives else []
    single = field in SINGLE_FIELDS
    take = take_for(field, targets[0].el)
    required = field in ("title", "body")
    pattern = None
    if field in ("articles", "links"):
        pattern = learn_url_pattern([t.el.get("href", "") for t in targets], [r.el.get("href", "") for r in rejects])

    # candidates must describe every example: intersect the per-example sets
    pool: dict[str, float] | None = None
    for t in targets:
        cands = dict(css_candidates(t.el))
        if field in LINK_FIELDS and not any(ch in css for css in cands for ch in ".#["):
            # a list of links with no class, id or attribute to hold on to: its tags' chain holds it
            cands.update((css, cost) for css, cost in tag_chains(t.el, places=bool(rejects)) if css not in cands)
        pool = cands if pool is None else {k: max(v, cands[k]) for k, v in pool.items() if k in cands}
    ranked: list[tuple[float, Rule]] = []
    for css, cost in (pool or {}).items():
        verdict = _judge(pages, "css", css, targets, rejects, single)
        if verdict is None:
            continue
        penalty, note = verdict
        if not single and " " not in css and not any(ch in css for ch in ".#["):
            penalty += 2.0  # a bare tag ("a", "div") for a list of things catches everything
        if pattern:
            precision = _pattern_precision(pages, css, targets, pattern)
            penalty += 6.0 * (1.0 - precision)
            note += f", {precision:.0%} of links fit {pattern}"
        total = cost + penalty
        ranked.append((total, Rule(kind="css", selector=css, take=take, required=required,
                                   score=round(1.0 / (1.0 + total), 4), note=note)))
    if single and field not in LINK_FIELDS and field != "body":
        # layouts without classes: paths from stable ancestors, at a surcharge (a body pick is widened at Save)
        from .induce import STRUCTURAL_COST
        from .structural import structural_candidates

        for kind, path, cost in structural_candidates(targets[0].el, field):
            verdict = _judge(pages, kind, path, targets, rejects, single)
            if verdict is not None:
                total = cost + STRUCTURAL_COST + verdict[0]
                ranked.append((total, Rule(kind=kind, selector=path, take=take, required=required,
                                           score=round(1.0 / (1.0 + total), 4),
                                           note=f"structural path (no class or id to hold on to; fragile); {verdict[1]}")))
    ranked.sort(key=lambda x: (x[0], len(x[1].selector)))
    rules = [r for _, r in ranked[:MAX_RULES]]
    if not rules:
        rules = _positional_fallback(pages, targets, rejects, single, take, required)
    return rules


def _pattern_precision(pages: Pages, css: str, targets: list[Target], pattern: str) -> float:
    docs = {id(t.doc): t.doc for t in targets}
    hrefs = [el.get("href", "") for doc in docs.values() for el in pages.select("css", css, doc)]
    return sum(1 for h in hrefs if re.search(pattern, h)) / len(hrefs) if hrefs else 0.0


def _positional_fallback(pages, targets, rejects, single, take, required) -> list[Rule]:
    out = []
    for t in targets:
        xp = positional_xpath(t.el)
        verdict = _judge(pages, "xpath", xp, targets, rejects, single)
        note = "positional path (fragile)" + (f"; {verdict[1]}" if verdict else "; not right on every example")
        rule = Rule(kind="xpath", selector=xp, take=take, required=required, score=0.01 if verdict else 0.0, note=note)
        if rule not in out:
            out.append(rule)
    out.sort(key=lambda r: -r.score)
    return out


# --- link rules -----------------------------------------------------------------
def learn_url_pattern(hrefs: Sequence[str], rejected: Sequence[str] = ()) -> str | None:
    """A URL regex matching every example href and no rejected one, most specific first."""
    hrefs = [h for h in hrefs if h]
    if not hrefs:
        return None
    for pattern in _url_patterns(hrefs[0]):
        if all(re.search(pattern, h) for h in hrefs) and not any(re.search(pattern, r) for r in rejected):
            return pattern
    return None


def _url_patterns(href: str) -> list[str]:
    path = urlsplit(href).path or "/"
    out = []
    # an id before the extension or at the end: "-1001.htm", "_123456.shtml", "/12345/"
    m = re.search(r"([-_./])(\d{2,})(\.[A-Za-z]{2,5})?/?$", path)
    if m:
        sep = re.escape(m.group(1)).replace("\\-", "-")
        ext = re.escape(m.group(3)) if m.group(3) else ""
        out.append(f"{sep}\\d+{ext}{'/?' if not ext else ''}$")
    if re.search(r"/(19|20)\d\d/\d\d?/\d\d?/", path):
        out.append(r"/\d{4}/\d{1,2}/\d{1,2}/")
    if re.search(r"/(19|20)\d\d/\d\d?/", path):
        out.append(r"/\d{4}/\d{1,2}/")
    m = re.search(r"(\.[A-Za-z]{2,5})$", path)
    if m:
        out.append(f"{re.escape(m.group(1))}$")
    segments = [s for s in path.split("/") if s]
    if len(segments) >= 2 and not re.search(r"\d", segments[0]):
        out.append(f"^[^?#]*/{re.escape(segments[0])}/[^/?#]+")
    return out


def induce_links(examples: Sequence[Example], negatives: Sequence[Example] = ()) -> list[LinkRule]:
    """Link rules from 1-2 clicked article links: a selector for the anchors plus a URL pattern.

    Candidates are ranked by cost and by how many of the links they match fit
    the learned URL pattern (a selector catching menus and ads ranks low);
    rejected links are excluded by the selector and, when possible, the pattern.
    """
    pages = Pages()
    targets = resolve_clicks(pages, examples, "articles")
    rejects = resolve_clicks(pages, negatives, "articles") if negatives else []
    pattern = learn_url_pattern([t.el.get("href", "") for t in targets], [r.el.get("href", "") for r in rejects])
    allow = (pattern,) if pattern else ()
    return [LinkRule(kind=r.kind, selector=r.selector, allow=allow) for r in induce(examples, negatives, field="articles")]


# --- metadata suggestions -------------------------------------------------------
_META = (
    ("title", "meta[property='og:title']"),
    ("title", "meta[name='twitter:title']"),
    ("summary", "meta[property='og:description']"),
    ("summary", "meta[name='description']"),
    ("image", "meta[property='og:image']"),
    ("image", "meta[name='twitter:image']"),
    ("date", "meta[property='article:published_time']"),
    ("date", "meta[itemprop='datePublished']"),
    ("author", "meta[name='author']"),
    ("author", "meta[property='article:author']"),
)
_ITEMPROP = (
    ("title", "headline", "text"),
    ("summary", "description", "text"),
    ("body", "articleBody", "html"),
    ("author", "author", "text"),
    ("date", "datePublished", None),
    ("image", "image", None),
)


def suggest_from_metadata(html: str) -> dict[str, Rule]:
    """One rule per field the page's metadata can fill, each checked to yield a value here.

    Order of preference: visible microdata (``itemprop``), ``<meta>`` tags
    (Open Graph, article:*), then JSON-LD NewsArticle (a ``jsonld`` rule).
    """
    doc = parse_html(html)
    out: dict[str, Rule] = {}

    def offer(name: str, rule: Rule) -> None:
        if name in out:
            return
        try:
            values = [v for v in rule.apply(doc if rule.kind in ("css", "xpath") else html) if v]
        except RuleError:
            return
        if values:
            out[name] = rule.with_(note="from page metadata", score=0.5)

    for name, prop, take in _ITEMPROP:
        els = doc.xpath(f"//*[@itemprop={quoted(prop)}]")
        if len(els) != 1:
            continue
        el = els[0]
        if el.tag == "meta":
            t = "attr:content"
        elif take:
            t = take
        elif name == "date":
            t = "attr:datetime" if el.get("datetime") else ("attr:content" if el.get("content") else "text")
        else:  # image
            if el.tag != "img":
                continue
            t = "attr:src"
        offer(name, Rule(kind="css", selector=f"[itemprop={quoted(prop)}]", take=t))
    for name, css in _META:
        offer(name, Rule(kind="css", selector=css, take="attr:content"))
    for name, rule in _jsonld_rules(doc).items():
        offer(name, rule)
    return out


def _jsonld_rules(doc) -> dict[str, Rule]:
    """JSON-LD article keys present on the page, as ``jsonld`` rules (read with json.loads)."""
    rules = {}
    for name, key in (("title", "headline"), ("summary", "description"), ("date", "datePublished"),
                      ("author", "author"), ("image", "image")):
        if jsonld_values(doc, key):
            rules[name] = Rule(kind="jsonld", selector=key)
    return rules


from .induce import induce_profile  # noqa: E402,F401  (the contract: selectors.induce_profile)
