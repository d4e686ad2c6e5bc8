"""Compile and apply one extraction rule (css / xpath / regex / start-end markers).

A rule is plain data (``Rule``); compiling it checks it and caches the compiled
form, so a profile's rules are validated once and applied many times.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Iterable

import lxml.html
from cssselect import GenericTranslator, SelectorError
from lxml import etree

from ..text.text import normalize_space
from .css_walk import TagWalk
from .images import image_source
from .jsonld import check_key, jsonld_values
from .patterns import PatternError, check_pattern, compile_pattern
from .xpath_names import check_xpath_cost, check_xpath_names

KINDS = ("css", "xpath", "regex", "markers", "jsonld")


class RuleError(ValueError):
    """A rule that cannot be compiled; the message says why."""


@dataclass(frozen=True)
class Rule:
    """One extraction rule.

    kind      css | xpath | regex | markers | jsonld
    selector  the CSS selector, XPath expression, regular expression or JSON-LD key
    start/end for ``markers``: literal HTML fragments; several alternatives allowed
    take      text | html | attr:NAME  (for regex/markers: the matched text/HTML)
    post      optional regular expression applied to each value (group 1 if any)
    required  a page missing this field is a failed extraction
    """

    kind: str = "css"
    selector: str = ""
    take: str = "text"
    start: tuple[str, ...] = ()
    end: tuple[str, ...] = ()
    post: str = ""
    required: bool = False
    score: float = field(default=0.0, compare=False)
    note: str = field(default="", compare=False)

    # --- (de)serialisation -------------------------------------------------
    def to_dict(self) -> dict:
        data: dict = {"kind": self.kind}
        if self.kind == "markers":
            data["start"] = list(self.start)
            data["end"] = list(self.end)
        else:
            data["selector"] = self.selector
        data["take"] = self.take
        if self.post:
            data["post"] = self.post
        if self.required:
            data["required"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict, where: str = "rule") -> "Rule":
        if not isinstance(data, dict):
            raise RuleError(f"{where}: expected an object, got {type(data).__name__}")
        unknown = set(data) - {"kind", "selector", "take", "start", "end", "post", "required"}
        if unknown:
            raise RuleError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("kind", "selector", "take", "post"):
            if not isinstance(data.get(key, ""), str):
                raise RuleError(f"{where}.{key}: expected a string, got {type(data[key]).__name__}")
        kind = data.get("kind", "css")
        start = data.get("start", ())
        end = data.get("end", ())
        if isinstance(start, str):
            start = (start,)
        if isinstance(end, str):
            end = (end,)
        for key, value in (("start", start), ("end", end)):
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise RuleError(f"{where}.{key}: expected a string or a list of strings")
        markers = kind == "markers"  # a markers rule has no selector, the others no start/end: not kept
        rule = cls(
            kind=kind,
            selector="" if markers else data.get("selector", ""),
            take=data.get("take", "text"),
            start=tuple(start) if markers else (),
            end=tuple(end) if markers else (),
            post=data.get("post", ""),
            required=bool(data.get("required", False)),
        )
        rule.check(where)
        return rule

    def with_(self, **changes) -> "Rule":
        return replace(self, **changes)

    # --- checking and applying --------------------------------------------
    def check(self, where: str = "rule") -> None:
        """Raise RuleError with a precise message if the rule cannot work."""
        try:
            _compiled(self)
        except RuleError as exc:
            raise RuleError(f"{where}: {exc}") from None

    def apply(self, html, url: str | None = None) -> list[str]:
        """Values this rule selects on a page (text, HTML or an attribute)."""
        if self.kind in ("regex", "markers"):
            text = html if isinstance(html, str) else to_text(html)
            values = _apply_text_rule(self, text)
        elif self.kind == "jsonld":
            _compiled(self)
            doc = html if isinstance(html, etree._Element) else parse_html(html, url)
            values = jsonld_values(doc, self.selector)
        else:
            doc = html if isinstance(html, etree._Element) else parse_html(html, url)
            values = [take_value(el, self.take) for el in self.select(doc)]
        return [v for v in (postprocess(self, v) for v in values) if v is not None]

    def select(self, doc) -> list:
        """Elements matched in a parsed document (css/xpath rules only)."""
        compiled = _compiled(self)
        if self.kind not in ("css", "xpath"):
            raise RuleError(f"a {self.kind} rule selects text, not elements")
        try:
            result = compiled(doc)
        except etree.XPathEvalError as exc:  # what the check at compile time cannot see
            raise RuleError(f"{self.kind} rule {self.selector!r} failed on this page: {exc}") from None
        if not isinstance(result, list):
            return []
        return [r for r in result if isinstance(r, etree._Element)]


def to_text(data) -> str:
    if isinstance(data, str):
        return data
    from ..text.encoding import decode_html

    return decode_html(data)[0]


def parse_html(html, url: str | None = None):
    """Parse HTML (str or bytes) the way the crawler does, with lxml."""
    if isinstance(html, bytes):
        html = to_text(html)
    if not html or not html.strip():
        html = "<html><body></body></html>"
    # lxml refuses str input that declares an encoding
    html = XML_DECLARATION.sub("", html, count=1)
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        doc = lxml.html.document_fromstring(html, parser=parser, base_url=url)
    except (etree.ParserError, ValueError):
        doc = lxml.html.document_fromstring("<html><body></body></html>", base_url=url)
    return doc


XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
# one parser per thread; huge: libxml2 stops at 256 levels otherwise, and an old page's unclosed <font>s
# reach that: its story, which a browser shows, was cut from the parse (2048 levels, the page size capped)
_PARSERS = threading.local()


@lru_cache(maxsize=2048)
def css_to_xpath(selector: str) -> str:
    try:
        return GenericTranslator().css_to_xpath(selector)
    except SelectorError as exc:
        raise RuleError(f"invalid CSS selector {selector!r}: {exc}") from None
    except Exception as exc:  # cssselect raises odd types on some inputs
        raise RuleError(f"invalid CSS selector {selector!r}: {exc}") from None


@lru_cache(maxsize=2048)
def _compiled(rule: Rule):
    if rule.kind not in KINDS:
        raise RuleError(f"unknown kind {rule.kind!r} (expected one of {', '.join(KINDS)})")
    if not (rule.take in ("text", "html") or (rule.take.startswith("attr:") and len(rule.take) > 5)):
        raise RuleError(f"invalid take {rule.take!r} (expected text, html or attr:NAME)")
    if rule.post:
        try:
            check_pattern(rule.post, re.S)
        except PatternError as exc:
            raise RuleError(f"invalid post-processing regex: {exc}") from None
    if rule.kind == "markers":
        if not rule.start or not all(isinstance(s, str) and s for s in rule.start):
            raise RuleError("a markers rule needs at least one non-empty start fragment")
        if not all(isinstance(s, str) and s for s in rule.end):
            raise RuleError("end fragments must be non-empty strings")
        return None
    if not isinstance(rule.selector, str) or not rule.selector.strip():
        raise RuleError(f"empty {rule.kind} selector")
    if rule.kind == "jsonld":
        try:
            check_key(rule.selector)
        except ValueError as exc:
            raise RuleError(str(exc)) from None
        return None
    if rule.kind == "regex":
        try:
            return compile_pattern(rule.selector, re.S)
        except PatternError as exc:
            raise RuleError(str(exc)) from None
    if rule.kind == "css":
        walk = TagWalk.of(rule.selector, css_to_xpath(rule.selector))
        if walk is not None:
            return walk
    path = _class_steps_by_attribute(css_to_xpath(rule.selector)) if rule.kind == "css" else rule.selector
    if rule.kind == "xpath":
        try:
            check_xpath_names(rule.selector)
            check_xpath_cost(rule.selector)
        except ValueError as exc:
            raise RuleError(str(exc)) from None
    try:
        compiled = etree.XPath(path)
        if rule.kind == "xpath":
            compiled(_EMPTY_PAGE)  # an undefined namespace prefix shows here, on any page
    except (etree.XPathSyntaxError, etree.XPathEvalError) as exc:
        raise RuleError(f"invalid XPath {rule.selector!r}: {exc}") from None
    return compiled


_EMPTY_PAGE = etree.fromstring("<html><head/><body/></html>")


# cssselect's step for a bare class (".lead", "div .lead"): every element of the tree evaluates the
# class test. Reaching the class attributes first and then their elements selects the same elements
# (an element has one class attribute) in the same order at a fifth of the cost.
_ANY_WITH_CLASS = re.compile(
    r"(descendant-or-self|descendant)::\*\[@class and contains\(@class, '([A-Za-z0-9_-]+)'\) and "
    r"contains\(concat\(' ', normalize-space\(@class\), ' '\), ' \2 '\)\](?!\[)")


def _class_steps_by_attribute(path: str) -> str:
    return _ANY_WITH_CLASS.sub(r"\1::*/@class[contains(., '\2')]/parent::*"
                               r"[contains(concat(' ', normalize-space(@class), ' '), ' \2 ')]", path)


def _apply_text_rule(rule: Rule, text: str) -> list[str]:
    if rule.kind == "regex":
        pattern = _compiled(rule)
        values = []
        try:
            matches = pattern.finditer(text)
        except PatternError as exc:  # the time limit
            raise RuleError(str(exc)) from None
        for m in matches:
            values.append(m.group(1) if pattern.groups else m.group(0))
        return [_html_value(v, rule.take) for v in values]
    value = between_markers(text, rule.start, rule.end)
    return [] if value is None else [_html_value(value, rule.take)]


def between_markers(text: str, starts: Iterable[str], ends: Iterable[str]) -> str | None:
    """Text after the first start fragment found, up to the nearest end fragment.

    The start fragment may sit inside a tag (``class="title"``): the value then
    begins after the end of that tag, as the original XNews did.
    """
    for start in starts:
        pos = text.find(start)
        if pos < 0:
            continue
        begin = pos + len(start)
        if _inside_tag(text, begin):
            close = text.find(">", begin)
            if close < 0:
                continue
            begin = close + 1
        stop = len(text)
        ends = list(ends)
        if ends:
            found = [i for i in (text.find(e, begin) for e in ends) if i >= 0]
            if not found:
                continue
            stop = min(found)
        return text[begin:stop]
    return None


def _inside_tag(text: str, pos: int) -> bool:
    """True when ``pos`` falls between a tag's ``<`` and its ``>``."""
    return text.rfind("<", 0, pos) > text.rfind(">", 0, pos)


def _html_value(fragment: str, take: str) -> str:
    if take == "html":
        return fragment.strip()
    if take.startswith("attr:"):
        try:
            el = lxml.html.fragment_fromstring(fragment, create_parent="div")
        except (etree.ParserError, ValueError):
            return ""
        name = take[5:]
        for node in el.iter():
            if node.get(name):
                return node.get(name).strip()
        return ""
    return fragment_text(fragment)


def fragment_text(fragment: str) -> str:
    if "<" not in fragment and "&" not in fragment:
        return normalize_space(fragment)
    try:
        el = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return normalize_space(re.sub(r"<[^>]*>", " ", fragment))
    return element_text(el)


_SKIP_TEXT = {"script", "style", "noscript", "template"}


def element_text(el) -> str:
    """The element's visible text, whitespace-normalised.

    Script, style, noscript and template contents and comments are skipped, but
    the text that follows them (their tail) is kept: ``foo<script>x</script>bar``
    reads "foo bar".
    """
    tag = el.tag
    if not isinstance(tag, str) or tag in _SKIP_TEXT:
        return ""
    text = el.text
    if not len(el):  # a headline, a byline: one text
        return normalize_space(text) if text else ""
    parts: list[str] = [text] if text else []
    stack = [(el, iter(el))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack and node.tail:
                parts.append(node.tail)
            continue
        if isinstance(child.tag, str) and child.tag not in _SKIP_TEXT:
            if child.text:
                parts.append(child.text)
            stack.append((child, iter(child)))
        elif child.tail:
            parts.append(child.tail)
    return normalize_space(" ".join(parts))


def take_value(el, take: str) -> str:
    if take == "text":
        return element_text(el)
    if take == "html":
        return lxml.html.tostring(el, encoding="unicode", with_tail=False)
    name = take[5:]
    if name == "src" and el.tag in ("img", "amp-img"):
        return image_source(el)
    value = el.get(name)
    if value is None and name == "src":  # lazy-loaded media other than img
        value = el.get("data-src") or el.get("data-original")
    if value is None and name == "content" and el.tag != "meta":
        value = el.get("datetime")
    return (value or "").strip()


def postprocess(rule: Rule, value: str) -> str | None:
    if not rule.post:
        return value
    pattern = compile_pattern(rule.post, re.S)
    try:
        m = pattern.search(value)
    except PatternError as exc:  # the time limit
        raise RuleError(f"post-processing: {exc}") from None
    if not m:
        return None
    return (m.group(1) if pattern.groups else m.group(0)).strip()
