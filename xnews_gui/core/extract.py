"""(html, url, profile) -> Article. Pure: no I/O, no globals."""

from __future__ import annotations

import copy
import hashlib
import re
from html import escape
from dataclasses import asdict, dataclass, field

import lxml.html
from lxml import etree

from .dates import parse_date
from .profile import FIELDS, Profile
from .rules import Rule, RuleError, element_text, normalize_space, parse_html
from .sanitize import element_image_urls, image_urls, sanitize_elements, sanitize_html
from .text import strip_control_chars
from .urls import absolute, is_allowed_scheme


@dataclass
class Article:
    url: str
    title: str = ""
    summary: str = ""
    image: str = ""
    body_html: str = ""
    body_text: str = ""
    author: str = ""
    date: str = ""  # ISO 8601, or "" when the page's date could not be read
    images: list = field(default_factory=list)
    errors: list = field(default_factory=list)  # "field: reason" for each failed required field
    multiple: list = field(default_factory=list)  # fields whose rule matched more than once

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def content_hash(self) -> str:
        basis = normalize_space(self.title + " " + self.body_text).lower()
        return hashlib.sha1(basis.encode("utf-8")).hexdigest()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        data["content_hash"] = self.content_hash
        return data

    def value(self, name: str) -> str:
        return self.body_text if name == "body" else getattr(self, name)


def extract(html, url: str, profile: Profile, content_type: str | None = None) -> Article:
    """Apply the profile's field rules to one article page."""
    if isinstance(html, bytes):
        from .encoding import decode_html

        text = decode_html(html, content_type)[0]
    else:
        text = html
    text = strip_control_chars(text)  # a raw \x01 in a title breaks every XML export downstream
    doc = parse_html(text, url)
    article = Article(url=url)
    # the body comes last: remove rules (ads, related boxes) apply to it alone, so a
    # removed byline can still be the author
    for name in sorted(FIELDS, key=lambda f: f == "body"):
        rule = profile.fields.get(name)
        try:
            if name == "body":
                _drop(doc, profile.remove)
                _extract_body(article, rule, doc, text, url, profile.remove)
            elif rule is not None:
                values = _values(rule, doc, text, url)
                if len(values) > 1 and name != "body":
                    article.multiple.append(name)
                setattr(article, name, values[0] if values else "")
        except RuleError as exc:
            article.errors.append(f"{name}: {exc}")
            continue
        if rule is not None and rule.required and not article.value(name):
            article.errors.append(f"{name}: required field is empty (rule {_describe(rule)} matched nothing)")
    if "image" not in profile.fields:
        article.image = _meta(doc, "og:image") or (article.images[0] if article.images else "")
    # against the page's own URL (never a <base href>), and only http(s): javascript:, file:, data: dropped
    article.image = absolute(url, article.image) if article.image else ""
    if article.image and not is_allowed_scheme(article.image):
        article.image = ""
    if article.date:
        article.date = parse_date(article.date) or ""  # ISO or nothing: never the page's raw text
    return article


def _values(rule: Rule, doc, text: str, url: str) -> list[str]:
    if rule.kind in ("css", "xpath"):
        values = rule.apply(doc, url)
    else:
        values = rule.apply(text, url)
        if rule.take == "text":
            values = [normalize_space(v) for v in values]
    return [v for v in values if v]


def _extract_body(article: Article, rule: Rule | None, doc, text: str, url: str, remove) -> None:
    if rule is None:
        return
    if rule.kind in ("css", "xpath"):
        elements = rule.select(doc)
        if rule.take == "text":
            html = "".join(f"<p>{escape(element_text(el))}</p>" for el in elements)
            article.body_html = sanitize_html(html, url)
        else:  # sanitize_html of the outer HTML, without a re-parse
            article.body_html = sanitize_elements([_copy(el) for el in elements], url)
    else:
        html = "".join(rule.with_(take="html").apply(text, url))
        if html and remove:
            html = _drop_in_fragment(html, remove)
        article.body_html = sanitize_html(html, url)
    # the sanitised HTML is parsed once for both its text and its images
    root = _fragment(article.body_html)
    if root is None:
        article.body_text = html_to_text(article.body_html)
        article.images = image_urls(article.body_html)
    else:
        article.images = element_image_urls(root)
        article.body_text = _element_to_text(root)


_BLOCKS = {"p", "div", "li", "h2", "h3", "h4", "h5", "h6", "blockquote", "figcaption", "tr", "pre", "br", "figure"}


def html_to_text(html: str) -> str:
    """Plain text with one paragraph per line."""
    if not html:
        return ""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return normalize_space(re.sub(r"<[^>]+>", " ", html))
    return _element_to_text(root)


def _fragment(html: str):
    if not html:
        return None
    try:
        return lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


def _element_to_text(root) -> str:
    """``html_to_text`` on a parsed fragment (changed in place)."""
    for el in root.iter(*_BLOCKS):
        el.tail = "\n" + (el.tail or "")
        if el.tag != "br":
            el.text = "\n" + (el.text or "")
    raw = root.text_content()
    return "\n".join(line for line in (" ".join(part.split()) for part in raw.split("\n")) if line)


def _copy(el):
    """A detached copy of an element, without its tail, AMP images made real."""
    el = copy.deepcopy(el)
    el.tail = None
    _real_images(el)
    return el


def _real_images(el) -> None:
    """AMP pages write ``<amp-img>``: make them ``<img>`` so the sanitizer keeps them in place."""
    for node in el.iter("amp-img"):
        node.tag = "img"


def _drop(doc, remove) -> None:
    for rule in remove:
        for el in rule.select(doc):
            parent = el.getparent()
            if parent is None:
                continue
            el.drop_tree()


def _drop_in_fragment(html: str, remove) -> str:
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return html
    _drop(root, remove)
    return (root.text or "") + "".join(lxml.html.tostring(c, encoding="unicode") for c in root)


def _meta(doc, prop: str) -> str:
    found = doc.xpath("//meta[@property=$p or @name=$p]/@content", p=prop)
    return found[0].strip() if found else ""


def _describe(rule: Rule) -> str:
    if rule.kind == "markers":
        return f"markers {list(rule.start)!r}..{list(rule.end)!r}"
    return f"{rule.kind} {rule.selector!r}"
