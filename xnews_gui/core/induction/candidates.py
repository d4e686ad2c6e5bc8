"""Candidate selectors for a clicked element: locating it, its stable hooks, cheapest first.

Pure and Qt-free: pages come in as HTML text, clicked elements as absolute
XPaths with 1-based indexes (``/html/body/div[2]/article/h1``), as the picker
computes them on the rendered DOM. Browsers insert ``tbody``; lxml does not,
so ``locate`` skips a ``tbody`` step the parsed tree lacks.

Candidates are CSS selectors built from stable hooks on the clicked element and
its ancestors (non-generated ids, ``itemprop``, semantic classes, semantic tags);
positional steps are only a last resort.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from lxml import etree

from ..profile.rules import RuleError, css_to_xpath, element_text, parse_html

LINK_FIELDS = ("articles", "links", "lists", "next")

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
_MINIFIED = re.compile(r"^[A-Za-z]{1,2}_[A-Za-z0-9]{1,4}$")  # "h_gU", "e_j": minified CSS module names
# "social-share_share__AIZAa": a CSS-module hash suffix (mixed case or digits; BEM "__headline" is not one)
_MODULE_HASH = re.compile(r"__(?=[a-z0-9-]*[A-Z0-9])[A-Za-z0-9-]{4,8}$")
DATA_HOOKS = ("data-testid", "data-test", "data-qa", "data-e2e", "data-component", "data-dot", "data-module")
_DATA_VALUE = re.compile(r"^[A-Za-z][A-Za-z-]{2,40}$")
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
    if _GENERATED_PREFIX.match(name) or _MINIFIED.match(name) or _MODULE_HASH.search(name):
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


def stable_classes(el) -> list[str]:
    return [c for c in (el.get("class") or "").split() if c.lower() not in _STATE and not is_generated(c)]


def _tag_cost(tag: str) -> float:
    return _SEMANTIC_TAGS.get(tag, 3.6)


def quoted(value: str) -> str:
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
        out.append(_Step(f"[itemprop={quoted(prop)}]", 1.0, True))
        out.append(_Step(f"{tag}[itemprop={quoted(prop)}]", 1.2, True))
    for attr in DATA_HOOKS:  # stable test/analytics hooks ("data-testid", "data-dot", ...)
        value = el.get(attr)
        if value and _DATA_VALUE.match(value):
            cost = 1.0 if any(w in value.lower() for w in _SEMANTIC_WORDS) else 1.5
            out.append(_Step(f"[{attr}={quoted(value)}]", cost, True))
            break
    classes = stable_classes(el)
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
class Pages:
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
class Target:
    doc: object
    el: object


def adjust_click(el, field: str):
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


def css_candidates(el) -> list[tuple[str, float]]:
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


def positional_xpath(el) -> str:
    """Last resort: a path anchored at the nearest stable id, else from the root (tbody-free)."""
    parts = []
    node = el
    while node is not None:
        parent = node.getparent()
        ident = node.get("id")
        if ident and not is_generated(ident) and node is not el:
            return f"//*[@id={quoted(ident)}]/" + "/".join(reversed(parts))
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


def resolve_clicks(pages: Pages, pairs: Iterable[Example], field: str) -> list[Target]:
    targets = []
    for html, xpath in pairs:
        doc = pages.doc(html)
        el = locate(doc, xpath)
        if el is None:
            raise ValueError(f"the clicked element {xpath!r} is not in the page as lxml parses it")
        targets.append(Target(doc, adjust_click(el, field)))
    return targets


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
