"""Article HTML -> safe HTML for offline reading (allow-list, images kept in place).

Relative links are made absolute and lazy-loaded images get a real ``src``
before the allow-list (nh3, i.e. ammonia) drops everything not listed: no
script/style/iframe, no ``on*`` attributes, only http(s) URLs.
"""

from __future__ import annotations

from html import escape

import lxml.html
import nh3
from lxml import etree

from ..profile.images import image_source
from ..text.text import strip_control_chars, strip_control_chars_html
from ..text.urls import join_url

ALLOWED_TAGS = {
    "p", "br", "hr", "h2", "h3", "h4", "h5", "h6", "b", "strong", "i", "em", "u", "s", "small",
    "mark", "blockquote", "q", "cite", "ul", "ol", "li", "dl", "dt", "dd", "figure", "figcaption",
    "img", "picture", "a", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
    "span", "div", "pre", "code", "sup", "sub", "abbr", "time",
}
ALLOWED_ATTRIBUTES = {
    "img": {"src", "alt", "title", "width", "height"},
    "a": {"href", "title"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "time": {"datetime"},
    "abbr": {"title"},
}
_HIDDEN = ("script", "style", "noscript", "template", "video", "audio", "object")  # + media fallback text


def prepare(fragment_el, base_url: str | None) -> None:
    """In place: hidden blocks dropped (their tail kept), lazy images made real, absolute URLs.

    Works on an lxml element.
    """
    for node in list(fragment_el.iter(*_HIDDEN)):
        if node is fragment_el:
            continue
        if node.tag == "noscript" and _unwrap_noscript_image(node):
            continue
        node.tail = " " + (node.tail or "")  # "foo<script/>bar" reads "foo bar", as element_text does
        node.drop_tree()
    _drop_controls(fragment_el)
    for img in fragment_el.iter("img"):
        real = image_source(img)
        if real != (img.get("src") or ""):
            if real:
                img.set("src", real)
            else:
                img.attrib.pop("src", None)
    for base in list(fragment_el.iter("base")):  # lxml honours a <base href> even with resolve_base_href=False
        if base is not fragment_el:
            base.drop_tree()
    if base_url:
        # a <base> inside the fragment must not move its links elsewhere: lxml's make_links_absolute
        # applies it even with resolve_base_href=False (its rewrite_links resolves by default); the
        # fragment itself is the only <base> left
        if fragment_el.tag == "base":
            fragment_el.drop_tree()
        _absolute_links(fragment_el, base_url)


# The only URL attributes the allow-list keeps: the others are dropped anyway.
_KEPT_LINKS = {"a": "href", "img": "src"}


def _absolute_links(fragment_el, base_url: str) -> None:
    """lxml's ``make_links_absolute(base_url, handle_failures="discard")`` for the links that
    survive the allow-list (a@href, img@src), at a third of its cost (it visits every URL attribute
    and CSS url() of every element)."""
    for el in fragment_el.iter("a", "img"):
        name = _KEPT_LINKS[el.tag]
        link = el.get(name)
        if link is None:
            continue
        try:
            new = join_url(base_url, link.strip())
        except (ValueError, TypeError):  # a malformed URL: the link goes, as lxml's "discard" does
            del el.attrib[name]
            continue
        if new != link:
            el.set(name, new)


_CONTROLS = ("form", "button", "select", "textarea")


def _drop_controls(root) -> None:
    """Forms and buttons (newsletter sign-up boxes, "Show more") do nothing offline and are not article text.

    A form holding most of the fragment (a page-wide ASP.NET form around the content) stays.
    """
    found = [n for n in root.iter(*_CONTROLS) if n is not root]
    if not found:
        return
    whole = len(root.text_content())
    dropped: set = set()
    for node in found:
        if any(a in dropped for a in node.iterancestors()):
            continue
        if node.tag == "form" and 2 * len(node.text_content()) > whole:
            continue
        dropped.add(node)
        node.tail = " " + (node.tail or "")
        node.drop_tree()


def _unwrap_noscript_image(node) -> bool:
    """``<noscript><img src=real></noscript>`` after a lazy placeholder: keep the real image.

    Returns True when the noscript was unwrapped (its image stays in place).
    """
    if node.find(".//img") is None:
        return False
    prev = node.getprevious()
    if prev is not None and prev.tag == "img" and image_source(prev):
        return False  # the page's own image already shows
    if prev is not None and prev.tag == "img":
        prev.drop_tree()  # the placeholder the noscript stands in for
    node.drop_tag()
    return True


def sanitize_html(html: str, base_url: str | None = None) -> str:
    """Sanitised HTML, safe to store and to show with JavaScript off."""
    if not html or not html.strip():
        return ""
    html = strip_control_chars_html(html)  # lxml refuses them once parsed, nh3 chokes on lone surrogates
    # always prepared: hidden blocks and lazy images are handled before the allow-list
    try:
        el = lxml.html.fragment_fromstring(html, create_parent="div")
        prepare(el, base_url)
        html = escape(el.text or "") + "".join(lxml.html.tostring(child, encoding="unicode") for child in el)
    except (etree.ParserError, ValueError, AssertionError):  # lxml asserts on some whole documents
        pass
    return _clean(html)


# Tags that the fragment parser (used by ``sanitize_html``) would not keep as they are.
_NOT_IN_A_FRAGMENT = {"html", "head", "body", "title", "meta", "frameset"}


def sanitize_elements(elements, base_url: str | None = None) -> str:
    """``sanitize_html`` of the elements' outer HTML, without serialising and re-parsing it first.

    The elements are changed in place (absolute URLs, lazy images): pass copies.
    Elements that a fragment parser would restructure take the string path, so
    the result is always the one ``sanitize_html`` gives.
    """
    if not elements:
        return ""
    if not base_url or any(not isinstance(el.tag, str) or el.tag in _NOT_IN_A_FRAGMENT for el in elements):
        html = "".join(lxml.html.tostring(el, encoding="unicode", with_tail=False) for el in elements)
        return sanitize_html(html, base_url)
    for el in elements:
        prepare(el, base_url)
    # etree's serialiser: lxml.html.tostring only adds a regex pass deleting <meta http-equiv> tags,
    # which the allow-list drops anyway
    html = "".join(etree.tostring(el, method="html", encoding="unicode", with_tail=False) for el in elements)
    if not html.strip():
        return ""
    return _clean(html)


_NH3_OPTIONS = dict(tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes={"http", "https"},
                    link_rel="noopener noreferrer nofollow", strip_comments=True)
# built once (nh3.clean builds its sanitizer from these sets on every call: ~a third of its time);
# nh3 releases without Cleaner take the same options per call
_SANITIZE = nh3.Cleaner(**_NH3_OPTIONS).clean if hasattr(nh3, "Cleaner") else \
    (lambda html: nh3.clean(html, **_NH3_OPTIONS))


def _clean(html: str) -> str:
    # control characters can come back from character references (&#x1F;): none is text, none is valid XML
    return strip_control_chars(_SANITIZE(html)).strip()


def image_urls(html: str) -> list[str]:
    """The image URLs of sanitised HTML, in document order."""
    if not html:
        return []
    try:
        el = lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    return element_image_urls(el)


def element_image_urls(el) -> list[str]:
    """``image_urls`` on an already parsed fragment."""
    seen, out = set(), []
    for img in el.iter("img"):
        src = img.get("src")
        if src and src not in seen:
            seen.add(src)
            out.append(src)
    return out
