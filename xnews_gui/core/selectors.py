"""Clicked elements -> ranked, robust extraction rules (SelectorGadget-like).

Pure and Qt-free: pages come in as HTML text, clicked elements as absolute
XPaths with 1-based indexes (``/html/body/div[2]/article/h1``), as the picker
computes them on the rendered DOM. Browsers insert ``tbody``; lxml does not,
so ``locate`` skips a ``tbody`` step the parsed tree lacks.

Candidates are CSS selectors built from stable hooks on the clicked element and
its ancestors (non-generated ids, ``itemprop``, semantic classes, semantic tags);
positional steps are only a last resort. A candidate is *right* when, on every
example page, it selects the clicked element (exactly, for single-valued
fields) and selects no rejected element. The simplest right candidate wins.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable, Sequence
from urllib.parse import urlsplit

from lxml import etree

from .profile import LinkRule
from .rules import Rule, RuleError, css_to_xpath, element_text, parse_html

SINGLE_FIELDS = ("title", "summary", "image", "body", "author", "date", "next")
LINK_FIELDS = ("articles", "links", "lists", "next")
MAX_RULES = 8

Example = tuple[str, str]  # (html, absolute xpath)


# --- locating clicked elements -------------------------------------------------
_STEP = re.compile(r"^([A-Za-z_][\w.-]*|\*)(?:\[(\d+)\])?$")


def locate(doc, xpath: str):
    """The element an absolute, 1-based XPath points at, or None.

    Steps are matched by tag name and same-tag index; a ``tbody`` step that the
    parsed tree lacks (browsers insert it, lxml does not) is skipped.
    """
    if isinstance(doc, (str, bytes)):
        doc = parse_html(doc)
    steps = [s for s in xpath.strip().split("/") if s]
    if not steps:
        return None
    parsed = []
    for step in steps:
        m = _STEP.match(step.strip())
        if not m:
            return None
        parsed.append((m.group(1).lower(), int(m.group(2) or 1)))
    root = doc.getroottree().getroot() if hasattr(doc, "getroottree") else doc
    tag, index = parsed[0]
    if tag != root.tag or index != 1:
        return None
    current = root
    for tag, index in parsed[1:]:
        children = [c for c in current if isinstance(c.tag, str) and c.tag == tag]
        if tag == "tbody" and not children:
            continue  # the browser's implied tbody
        if index > len(children):
            return None
        current = children[index - 1]
    return current


def element_xpath(el) -> str:
    """Absolute XPath of an element with 1-based same-tag indexes (``[1]`` omitted)."""
    parts = []
    while el is not None:
        parent = el.getparent()
        if parent is None:
            parts.append(el.tag)
            break
        same = [c for c in parent if c.tag == el.tag]
        parts.append(el.tag if len(same) == 1 else f"{el.tag}[{same.index(el) + 1}]")
        el = parent
    return "/" + "/".join(reversed(parts))


# --- what counts as a stable hook -----------------------------------------------
_IDENT = re.compile(r"^-?[A-Za-z_][A-Za-z0-9_-]*$")
_GENERATED_PREFIX = re.compile(r"^(css|sc|jsx|emotion|styled|chakra|mui|makestyles|ember|yui|react|ng|vue|svelte|tw)[-_]", re.I)
_STATE = {"active", "selected", "current", "hover", "focus", "open", "opened", "closed", "show", "shown",
          "hidden", "visible", "in", "on", "off", "first", "last", "odd", "even", "fl", "fr", "left", "right",
          "clearfix", "clear", "cf", "lazy", "lazyload", "lazyloaded", "loaded", "js", "no-js"}
_GENERIC = {"container", "wrapper", "wrap", "row", "col", "inner", "outer", "content-wrapper", "box", "block",
            "section", "item", "clearfix", "fix", "group", "width", "full", "main-wrapper"}
_SEMANTIC_WORDS = ("title", "headline", "heading", "summary", "sapo", "lead", "lede", "desc", "intro", "body",
                   "content", "detail", "text", "author", "byline", "date", "time", "publish", "image", "photo",
                   "thumb", "figure", "picture", "news", "article", "story", "post", "entry", "next", "pag",
                   "caption", "meta", "list")
_SEMANTIC_TAGS = {"h1": 1.4, "h2": 2.6, "h3": 2.8, "article": 1.8, "main": 1.8, "time": 1.8, "figure": 2.2,
                  "header": 2.6, "section": 3.0, "nav": 2.6, "img": 2.6, "a": 3.0, "p": 3.2, "li": 3.4,
                  "ul": 3.4, "h4": 3.0, "blockquote": 3.2, "span": 4.0, "div": 4.0, "td": 4.0}


def is_generated(name: str) -> bool:
    """True for ids/classes that look machine-made: digit-heavy, hashed, framework-generated."""
    if not name or len(name) > 40 or not _IDENT.match(name):
        return True
    digits = sum(ch.isdigit() for ch in name)
    if digits >= 3 or (digits >= 2 and digits / len(name) > 0.25):
        return True
    if _GENERATED_PREFIX.match(name):
        return True
    for part in re.split(r"[-_]", name):
        if 4 <= len(part) <= 10 and _case_switches(part) >= 3:
            return True  # "bdVaJa", "kEjRnM": hashed CSS-in-JS names
    return False


def _case_switches(part: str) -> int:
    letters = [ch.isupper() for ch in part if ch.isalpha()]
    return sum(1 for a, b in zip(letters, letters[1:]) if a != b)


def _class_cost(name: str) -> float:
    lower = name.lower()
    if lower in _GENERIC:
        return 2.6
    if any(word in lower for word in _SEMANTIC_WORDS):
        return 1.2
    return 1.7


def _classes(el) -> list[str]:
    return [c for c in (el.get("class") or "").split() if c.lower() not in _STATE and not is_generated(c)]


def _tag_cost(tag: str) -> float:
    return _SEMANTIC_TAGS.get(tag, 3.6)


def _quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class _Step:
    css: str
    cost: float
    hook: bool  # strong enough to anchor a descendant selector


def _steps(el, for_target: bool) -> list[_Step]:
    """CSS simple selectors describing one element, cheapest (most stable) first."""
    tag = el.tag
    out: list[_Step] = []
    ident = el.get("id")
    if ident and not is_generated(ident):
        out.append(_Step(f"#{ident}", 0.8, True))
    prop = el.get("itemprop")
    if prop and _IDENT.match(prop.split()[0]):
        prop = prop.split()[0]
        out.append(_Step(f"[itemprop={_quote(prop)}]", 1.0, True))
        out.append(_Step(f"{tag}[itemprop={_quote(prop)}]", 1.2, True))
    classes = _classes(el)
    for c in classes:
        cost = _class_cost(c)
        out.append(_Step(f"{tag}.{c}", cost + 0.2, True))
        out.append(_Step(f".{c}", cost + 0.3, True))
    if len(classes) >= 2:
        best = sorted(classes, key=_class_cost)[:2]
        out.append(_Step(f"{tag}.{best[0]}.{best[1]}", _class_cost(best[0]) + _class_cost(best[1]) + 0.4, True))
    if tag == "time" and el.get("datetime"):
        out.append(_Step("time[datetime]", 1.5, True))
    if tag in ("article", "main", "h1", "time"):
        out.append(_Step(tag, _tag_cost(tag), True))
    elif for_target or tag in ("header", "nav", "figure", "section", "h2", "h3"):
        out.append(_Step(tag, _tag_cost(tag), tag in ("header", "nav", "figure", "section")))
    return out


# --- candidate evaluation -----------------------------------------------------
class _Pages:
    """Parsed pages, each parsed once, with compiled candidate selectors cached."""

    def __init__(self) -> None:
        self._docs: dict[str, object] = {}
        self._xpaths: dict[str, etree.XPath | None] = {}

    def doc(self, html: str):
        doc = self._docs.get(html)
        if doc is None:
            doc = self._docs[html] = parse_html(html)
        return doc

    def select(self, kind: str, selector: str, doc) -> list:
        key = f"{kind}\0{selector}"
        if key not in self._xpaths:
            try:
                path = css_to_xpath(selector) if kind == "css" else selector
                self._xpaths[key] = etree.XPath(path)
            except (RuleError, etree.XPathSyntaxError):
                self._xpaths[key] = None
        compiled = self._xpaths[key]
        if compiled is None:
            return []
        try:
            result = compiled(doc)
        except etree.XPathEvalError:
            return []
        return [r for r in result if isinstance(r, etree._Element)] if isinstance(result, list) else []


@dataclass
class _Target:
    doc: object
    el: object


def _adjust(el, field: str):
    """Move a click to the element that actually carries the field's value."""
    if field == "image" and el.tag != "img":
        img = next(el.iter("img"), None)
        if img is None:
            for anc in el.iterancestors():
                img = next(anc.iter("img"), None) if anc.tag in ("figure", "picture", "a") else None
                if img is not None or anc.tag in ("body", "article"):
                    break
        return img if img is not None else el
    if field in LINK_FIELDS and not (el.tag == "a" and el.get("href")):
        for anc in el.iterancestors("a"):
            if anc.get("href"):
                return anc
        return next((a for a in el.iter("a") if a.get("href")), el)
    if field == "date" and not el.get("datetime"):
        found = next((t for t in el.iter("time") if t.get("datetime")), None)
        if found is None:
            found = next((a for a in el.iterancestors("time") if a.get("datetime")), None)
        return found if found is not None else el
    return el


def take_for(field: str, el) -> str:
    """What a rule for this field takes from the element."""
    if field in LINK_FIELDS:
        return "attr:href"
    if field == "image":
        return "attr:src" if el.tag == "img" else "text"
    if field == "date":
        if el.get("datetime"):
            return "attr:datetime"
        if el.tag == "meta":
            return "attr:content"
        return "text"
    if field in ("body", "remove"):
        return "html"
    if el.tag == "meta":
        return "attr:content"
    return "text"


def _candidates(el) -> list[tuple[str, float]]:
    """(css, cost) for the element: its own hooks, then ancestor-hook + own step."""
    own = _steps(el, for_target=True)
    out = [(s.css, s.cost) for s in own]
    ancestors = []
    for depth, anc in enumerate(el.iterancestors()):
        if anc.tag in ("html", "body") or depth > 8:
            break
        ancestors.append((depth, anc))
    own_short = own[:6]
    hooks_by_anc = [(depth, [s for s in _steps(anc, for_target=False) if s.hook][:4]) for depth, anc in ancestors]
    for depth, hooks in hooks_by_anc:
        for h in hooks:
            for s in own_short:
                if s.css.startswith("#") or s.css.startswith("["):
                    continue  # already unique by itself
                out.append((f"{h.css} {s.css}", h.cost + s.cost + 0.6 + 0.05 * depth))
                if depth == 0:
                    out.append((f"{h.css} > {s.css}", h.cost + s.cost + 0.7))
    # three steps: two ancestor hooks (outer first) over the element
    strong = [(d, hs[0]) for d, hs in hooks_by_anc if hs][:5]
    for i, (d1, inner) in enumerate(strong):
        for d2, outer in strong[i + 1:]:
            for s in own_short[:3]:
                if s.css.startswith("#"):
                    continue
                out.append((f"{outer.css} {inner.css} {s.css}", outer.cost + inner.cost + s.cost + 1.4))
    seen: set[str] = set()
    unique = []
    for css, cost in sorted(out, key=lambda x: x[1]):
        if css not in seen:
            seen.add(css)
            unique.append((css, cost))
    return unique


def _positional_xpath(el) -> str:
    """Last resort: a path anchored at the nearest stable id, else from the root (tbody-free)."""
    parts = []
    node = el
    while node is not None:
        parent = node.getparent()
        ident = node.get("id")
        if ident and not is_generated(ident) and node is not el:
            return f"//*[@id={_quote(ident)}]/" + "/".join(reversed(parts))
        if parent is None:
            parts.append(node.tag)
            return "/" + "/".join(reversed(parts))
        if node.tag == "tbody":
            node = parent
            continue
        same = [c for c in parent if c.tag == node.tag]
        parts.append(node.tag if len(same) == 1 else f"{node.tag}[{same.index(node) + 1}]")
        node = parent
    return "/" + "/".join(reversed(parts))


def _resolve(pages: _Pages, pairs: Iterable[Example], field: str) -> list[_Target]:
    targets = []
    for html, xpath in pairs:
        doc = pages.doc(html)
        el = locate(doc, xpath)
        if el is None:
            raise ValueError(f"the clicked element {xpath!r} is not in the page as lxml parses it")
        targets.append(_Target(doc, _adjust(el, field)))
    return targets


def _judge(pages: _Pages, kind: str, selector: str, targets: list[_Target],
           rejects: list[_Target], single: bool) -> tuple[float, str] | None:
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
    pages = _Pages()
    targets = _resolve(pages, examples, field)
    rejects = _resolve(pages, negatives, field) if negatives else []
    single = field in SINGLE_FIELDS
    take = take_for(field, targets[0].el)
    required = field in ("title", "body")
    pattern = None
    if field in ("articles", "links"):
        pattern = learn_url_pattern([t.el.get("href", "") for t in targets], [r.el.get("href", "") for r in rejects])

    # candidates must describe every example: intersect the per-example sets
    pool: dict[str, float] | None = None
    for t in targets:
        cands = dict(_candidates(t.el))
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
    ranked.sort(key=lambda x: (x[0], len(x[1].selector)))
    rules = [r for _, r in ranked[:MAX_RULES]]
    if not rules:
        rules = _positional_fallback(pages, targets, rejects, single, take, required)
    return rules


def _pattern_precision(pages: _Pages, css: str, targets: list[_Target], pattern: str) -> float:
    docs = {id(t.doc): t.doc for t in targets}
    hrefs = [el.get("href", "") for doc in docs.values() for el in pages.select("css", css, doc)]
    return sum(1 for h in hrefs if re.search(pattern, h)) / len(hrefs) if hrefs else 0.0


def _positional_fallback(pages, targets, rejects, single, take, required) -> list[Rule]:
    out = []
    for t in targets:
        xp = _positional_xpath(t.el)
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
    pages = _Pages()
    targets = _resolve(pages, examples, "articles")
    rejects = _resolve(pages, negatives, "articles") if negatives else []
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
_JSONLD_TYPES = {"NewsArticle", "Article", "ReportageNewsArticle", "BlogPosting", "AnalysisNewsArticle"}


def suggest_from_metadata(html: str) -> dict[str, Rule]:
    """One rule per field the page's metadata can fill, each checked to yield a value here.

    Order of preference: visible microdata (``itemprop``), ``<meta>`` tags
    (Open Graph, article:*), then JSON-LD NewsArticle (a regex rule).
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
        els = doc.xpath(f"//*[@itemprop={_quote(prop)}]")
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
        offer(name, Rule(kind="css", selector=f"[itemprop={_quote(prop)}]", take=t))
    for name, css in _META:
        offer(name, Rule(kind="css", selector=css, take="attr:content"))
    for name, rule in _jsonld_rules(doc).items():
        offer(name, rule)
    return out


def _jsonld_rules(doc) -> dict[str, Rule]:
    keys = set()
    for script in doc.xpath("//script[@type='application/ld+json']"):
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        for item in _walk_jsonld(data):
            types = item.get("@type")
            types = set(types) if isinstance(types, list) else {types}
            if types & _JSONLD_TYPES:
                keys.update(k for k in ("headline", "description", "datePublished", "author", "image") if k in item)
    rules = {}
    string = r'"((?:[^"\\]|\\.)*)"'
    if "headline" in keys:
        rules["title"] = Rule(kind="regex", selector=r'"headline"\s*:\s*' + string)
    if "description" in keys:
        rules["summary"] = Rule(kind="regex", selector=r'"description"\s*:\s*' + string)
    if "datePublished" in keys:
        rules["date"] = Rule(kind="regex", selector=r'"datePublished"\s*:\s*' + string)
    if "author" in keys:
        rules["author"] = Rule(kind="regex", selector=r'"author"\s*:\s*[\[{][^\]}]*?"name"\s*:\s*' + string)
    return rules


def _walk_jsonld(data):
    if isinstance(data, list):
        for item in data:
            yield from _walk_jsonld(item)
    elif isinstance(data, dict):
        yield data
        if "@graph" in data:
            yield from _walk_jsonld(data["@graph"])


def describe(el) -> str:
    """``h1.title`` style label for one element (for breadcrumbs and notes)."""
    label = el.tag
    if el.get("id"):
        label += f"#{el.get('id')}"
    classes = (el.get("class") or "").split()
    if classes:
        label += "." + ".".join(classes[:2])
    return label


def text_of(el) -> str:
    return element_text(el)
