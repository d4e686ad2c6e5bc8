"""Where an article's text lives in a page, and what inside it is not the article.

Used when a profile is induced: a one-click body pick on a single paragraph is
widened to the container of the article's paragraphs; inside the chosen
container, share bars, related-links boxes, link-dense blocks, "read more" and
newsletter boxes become ``remove`` rules (images stay where they stand).
"""

from __future__ import annotations

import re

from .candidates import DATA_HOOKS, stable_classes, quoted, is_generated
from ..profile.rules import element_text
from ..profile.xpath_names import xpath_literal

_CONTAINERS = ("div", "article", "section", "main", "td", "span", "font", "center", "blockquote", "form")
_BOILER_WORDS = re.compile(
    r"(^|[-_ ])(share|sharing|social|sociallinks|related|relatedlinks|newsletter|subscribe|subscription|promo|"
    r"advert|advertisement|ads?|sponsor|outbrain|taboola|recommend|recommended|readmore|read-more|more-stories|"
    r"comments?|tags|toolbar|print|email-signup|signup|popular|trending|breadcrumbs?|pagination)([-_ ]|$)", re.I)
_BLOCKS = ("div", "ul", "ol", "section", "table", "article", "footer", "header", "dl")
_MIN_PARAGRAPH = 40  # characters of a paragraph that counts as article text


def paragraph_chars(el) -> int:
    return sum(len(t) for t in (element_text(p) for p in el.iter("p")) if len(t) >= _MIN_PARAGRAPH)


_PARAGRAPH_TAGS = ("p", "span", "em", "strong", "b", "i", "font", "a", "h2", "h3", "blockquote")


def text_runs(el) -> int:
    """Paragraph-long runs of text in the element (a 2005 story cell writes its paragraphs between <br>s)."""
    return sum(1 for t in el.itertext() if len(t) >= _MIN_PARAGRAPH and len(t.strip()) >= _MIN_PARAGRAPH)


def widen_paragraph_pick(el):
    """A click on one paragraph -> the nearest ancestor holding the article's paragraphs (or el)."""
    own = len(list(el.iter("p")))
    if el.tag not in _PARAGRAPH_TAGS and (own >= 2 or (not own and text_runs(el) >= 2)):
        return el
    best = el
    for anc in el.iterancestors():
        if anc.tag in ("body", "html"):
            break
        paras = max(sum(1 for p in anc.iter("p") if len(element_text(p)) >= _MIN_PARAGRAPH), text_runs(anc))
        if paras >= 3:
            return anc
        if paras >= 2:
            best = anc
    return best


def main_container(doc):
    """The element holding most of the page's paragraph text, as deep as possible."""
    scored = []
    for el in doc.iter(*_CONTAINERS):
        chars = paragraph_chars(el)
        if chars:
            scored.append((chars, el))
    if not scored:
        return None
    top = max(c for c, _ in scored)
    # paragraph text minus everything else (headlines, bylines, link lists), among the big holders;
    # ties go to the deeper element
    good = [(c - (len(element_text(el)) - c), sum(1 for _ in el.iterancestors()), el)
            for c, el in scored if c >= 0.5 * top]
    return max(good, key=lambda x: (x[0], x[1]))[2]


def link_density(el) -> float:
    text = len(element_text(el))
    if not text:
        return 0.0
    links = sum(len(element_text(a)) for a in el.iter("a"))
    return min(1.0, links / text)


def boilerplate_blocks(container, other_texts: set[str] = frozenset()) -> list:
    """Blocks inside the container that are not the article (outermost first, no nesting)."""
    out = []
    for el in container.iterdescendants():
        if not isinstance(el.tag, str) or any(el in o.iterdescendants() for o in out[-5:]):
            continue
        if el.tag in ("p", "img", "picture", "figcaption", "h1", "a", "b", "i", "em", "strong", "br", "span"):
            continue
        if el.find(".//img") is not None and el.tag == "figure":
            continue
        hooks = " ".join([el.get("class") or "", el.get("id") or ""] + [el.get(a) or "" for a in DATA_HOOKS])
        text = element_text(el)
        if el.tag in ("aside", "nav", "form", "button", "iframe", "script", "style"):
            out.append(el)
        elif _BOILER_WORDS.search(hooks) and paragraph_chars(el) < 0.5 * max(1, paragraph_chars(container)):
            out.append(el)
        elif len(text) >= 20 and link_density(el) > 0.5 and el.tag in _BLOCKS:
            out.append(el)
        elif text and len(text) >= 30 and text in other_texts and el.tag in _BLOCKS:
            out.append(el)  # the same block on other pages of the site: boilerplate
    return out


_MEDIA = ("img", "picture", "video", "iframe", "svg", "figure")
HEADER_MAX = 150  # characters of a dateline, byline or kicker


def header_blocks(container) -> list:
    """Short blocks before the article's first paragraph (dateline, byline, kicker), outermost first.

    What stands between the container's start and the first paragraph of article
    text is the article's header, not its text; images there stay.
    """
    first = next((p for p in container.iter("p") if len(element_text(p)) >= _MIN_PARAGRAPH), None)
    if first is None:
        return []
    leads_to_first = set(first.iterancestors())
    out: list = []
    for el in container.iterdescendants():
        if el is first:
            break
        if not isinstance(el.tag, str) or el in leads_to_first or el.tag in _MEDIA:
            continue
        if any(a in out for a in el.iterancestors()):
            continue
        text = element_text(el)
        if text and len(text) <= HEADER_MAX and el.find(".//img") is None and el.find(".//video") is None:
            out.append(el)
    return out


def block_selector(block, container: str, kind: str = "css") -> str | None:
    """A selector for a boilerplate block, scoped to the body container's (css or xpath, as the container's)."""
    ident = block.get("id")
    if ident and not is_generated(ident):
        return f"{container} #{ident}" if kind == "css" else f"{container}//*[@id={xpath_literal(ident)}]"
    for attr in DATA_HOOKS:
        value = block.get(attr)
        if value and re.match(r"^[A-Za-z][A-Za-z-]{2,40}$", value):
            return f"{container} [{attr}={quoted(value)}]" if kind == "css" else \
                f"{container}//*[@{attr}={xpath_literal(value)}]"
    classes = [c for c in stable_classes(block) if _BOILER_WORDS.search(c)] or stable_classes(block)
    if classes:
        if kind == "css":
            return f"{container} {block.tag}.{classes[0]}"
        return f"{container}//{block.tag}[contains(concat(' ', normalize-space(@class), ' '), {xpath_literal(' ' + classes[0] + ' ')})]"
    if block.tag in ("aside", "nav", "form", "iframe", "button"):
        return f"{container} {block.tag}" if kind == "css" else f"{container}//{block.tag}"
    return None


_ANCHOR_START = 60  # characters of a long block's text its anchor starts with


def text_anchor(block) -> str | None:
    """An XPath for a block that nothing but its text marks (a class-less page): the same tag with the same
    text (a long one: its start and its length), or None for a block with too little text to be sure."""
    text = block.xpath("normalize-space(.)")
    if len(text) < 30:
        return None
    if len(text) <= 2 * _ANCHOR_START:
        return f"//{block.tag}[normalize-space(.)={xpath_literal(text)}]"
    return (f"//{block.tag}[string-length(normalize-space(.))={len(text)} and "
            f"starts-with(normalize-space(.), {xpath_literal(text[:_ANCHOR_START])})]")


__all__ = ["widen_paragraph_pick", "text_anchor", "main_container", "boilerplate_blocks", "header_blocks", "block_selector",
           "link_density",
           "paragraph_chars"]
