"""Rules for layouts without classes or ids: where a click has no hook of its own, an XPath from the nearest
stable ancestor (an id, a stable class, itemprop, a landmark such as ``main`` or ``article``, a presentational
attribute of a 2005 page such as ``font[@size='5']``, else ``body``) down to the element by position, or
by what the element holds (a story container: its paragraphs). Induction ranks them with the CSS candidates
and keeps one only when it holds on the sibling pages.

Candidates are ``(kind, selector, cost)``; every XPath here is tbody-free (pages are induced with their
``tbody`` elements unwrapped when the site's own HTML has none, see ``unwrap_tbody``).
"""

from __future__ import annotations

from .candidates import stable_classes, quoted, is_generated

_LANDMARKS = ("main", "article", "header", "footer", "nav", "aside", "section", "form", "h1")
# attributes that 2005 layouts hang their look on: as stable as classes on such pages
_PRESENTATIONAL = ("size", "face", "color", "align", "valign", "width", "bgcolor", "role", "border", "cellpadding")
_MAX_DEPTH = 8
_LONG_P = "p[string-length(normalize-space(.)) >= 40]"
_CHAIN_COST = 5.6  # above an element's class under an ancestor's (about 5.0-5.3), under a bare tag over the page


def unwrap_tbody(doc) -> None:
    """Drop ``tbody`` elements, keeping their rows (browsers add them; a site's raw HTML mostly has none)."""
    for tbody in list(doc.iter("tbody")):
        if tbody.getparent() is not None:
            tbody.drop_tag()


def has_tbody(doc) -> bool:
    return next(doc.iter("tbody"), None) is not None


def class_test(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), {quoted(' ' + name + ' ')})"


def anchor_xpath(el) -> str | None:
    """An XPath step that finds this element by a stable hook of its own, or None."""
    tag = el.tag
    ident = el.get("id")
    if ident and not is_generated(ident):
        return f"//*[@id={quoted(ident)}]"
    prop = (el.get("itemprop") or "").split()
    if prop and not is_generated(prop[0]):
        return f"//*[@itemprop={quoted(prop[0])}]"
    classes = stable_classes(el)
    if classes:
        return f"//{tag}[{class_test(classes[0])}]"
    if tag in _LANDMARKS:
        return f"//{tag}"
    for attr in _PRESENTATIONAL:
        value = el.get(attr)
        if value and len(value) <= 20 and "'" not in value:
            return f"//{tag}[@{attr}={quoted(value)}]"
    return None


def child_step(el) -> str:
    """``tag`` when it is its parent's only child of that tag, else ``tag[n]`` (1-based among that tag)."""
    parent = el.getparent()
    same = [c for c in parent if c.tag == el.tag] if parent is not None else [el]
    return el.tag if len(same) == 1 else f"{el.tag}[{same.index(el) + 1}]"


def content_predicate(el) -> str | None:
    """What makes a story container one, as an XPath predicate: its paragraphs, or its text between <br>s."""
    long_p = sum(1 for c in el if c.tag == "p" and len(" ".join((c.text_content() or "").split())) >= 40)
    if long_p >= 1:
        return f"[count({_LONG_P}) >= {min(long_p, 2)}]"
    breaks = sum(1 for c in el if c.tag == "br")
    runs = [r for r in [el.text or ""] + [c.tail or "" for c in el] if len(r.strip()) >= 40]
    if breaks >= 2 and len(runs) >= 2:
        return "[count(br) >= 2]"
    return None


def positional(el) -> list[tuple[str, str, float]]:
    """Paths from each hooked ancestor (and from ``body``) down to the element by position."""
    out = []
    steps: list[str] = []
    node = el
    depth = 0
    while True:  # anchored paths from the first few ancestors; the path from <body> always (a last resort)
        parent = node.getparent()
        if parent is None:
            break
        steps.insert(0, child_step(node))
        below = "/".join(steps)
        fragile = 0.3 * sum(1 for s in steps if s.endswith("]"))  # a position shifts with an added block
        if parent.tag == "body":
            out.append(("xpath", f"/html/body/{below}", 4.2 + 0.15 * depth + fragile))
            break
        anchor = anchor_xpath(parent) if depth < _MAX_DEPTH else None
        if anchor:
            out.append(("xpath", f"{anchor}/{below}", 3.0 + 0.3 * depth + fragile))
        node = parent
        depth += 1
    own = anchor_xpath(el)
    if own and not own.startswith("//*[@id") and not own.startswith("//*[@itemprop"):
        out.append(("xpath", own, 3.4))
    return out


def by_content(el) -> list[tuple[str, str, float]]:
    """A story container by what it holds: anywhere, below a hooked ancestor, or after the page's h1."""
    pred = content_predicate(el)
    if pred is None:
        return []
    tag = el.tag
    out = [("xpath", f"//{tag}{pred}", 3.6), ("xpath", f"//h1/following::{tag}{pred}", 3.3)]
    for depth, anc in enumerate(el.iterancestors()):
        if anc.tag in ("body", "html") or depth >= _MAX_DEPTH:
            break
        anchor = anchor_xpath(anc)
        if anchor:
            out.append(("xpath", f"{anchor}//{tag}{pred}", 3.0 + 0.1 * depth))
    return out


def structural_candidates(el, field: str) -> list[tuple[str, str, float]]:
    """XPath candidates for an element without hooks of its own (also offered beside the CSS ones)."""
    out = positional(el)
    if field == "body":
        out += by_content(el)
    seen, unique = set(), []
    for kind, selector, cost in sorted(out, key=lambda c: c[2]):
        if selector not in seen:
            seen.add(selector)
            unique.append((kind, selector, cost))
    return unique


def blocks_candidates(blocks, parent_candidates) -> list[tuple[str, str, float]]:
    """Rules selecting every block of a story split over sibling elements (in document order): the
    parent's rule (css or xpath, as ``parent_candidates``) and a child step the blocks share."""
    tag = blocks[0].tag
    if any(b.tag != tag for b in blocks):
        return []
    shared = set(stable_classes(blocks[0]))
    for b in blocks[1:]:
        shared &= set(stable_classes(b))
    steps = []
    if shared:
        name = sorted(shared)[0]
        steps.append((f"{tag}[{class_test(name)}]", 0.0, f"{tag}.{name}"))
    preds = [content_predicate(b) for b in blocks]
    if all(p and p.startswith("[count(p") for p in preds):
        steps.append((f"{tag}[{_LONG_P}]", 0.4, None))
    elif all(p == "[count(br) >= 2]" for p in preds):
        steps.append((f"{tag}[count(br) >= 2]", 0.4, None))
    out = []
    for kind, selector, cost in parent_candidates:
        path = selector
        if kind == "css":
            from ..profile.rules import RuleError, css_to_xpath

            try:
                path = css_to_xpath(selector)
            except RuleError:
                continue
        for step, extra, css_step in steps:
            if kind == "css" and css_step:  # readable where it can be: "div#story > div.storybody"
                out.append(("css", f"{selector} > {css_step}", cost + extra + 0.5))
            else:
                out.append(("xpath", f"{path}/{step}", cost + extra + 0.5))
    return out


def tag_chains(el, steps: int = 4, places: bool = False) -> list[tuple[str, float]]:
    """(css, cost) chains of tag names ending at the element (``li > a``, ``ul > li > a``, up to ``body``) for
    a list of links on a page without classes or ids: each longer chain is narrower and costs more, and any
    chain is dearer than a class or an id (a ``tbody`` the raw HTML may lack is stepped over). With
    ``places`` (a link was rejected), an ancestor with one other of its kind beside it also gets its place
    (``ul:nth-of-type(2) > li > a``: the list of stories, not the menu's list above it); only then, as a
    place holds on this page but may not on a sibling with one more list above."""
    out, parts, node = [], [el.tag], el
    joint = " > "
    while len(out) < steps - 1:
        node = node.getparent()
        if node is None or not isinstance(node.tag, str) or node.tag == "html":
            break
        if node.tag == "tbody":
            joint = " "
            continue
        cost = _CHAIN_COST + 0.3 * len(out)
        parent = node.getparent()
        same = [c for c in parent if c.tag == node.tag] if parent is not None else [node]
        if places and len(same) == 2:  # which list (the second, not the menu's); more alike are a list's items
            out.append((f"{node.tag}:nth-of-type({same.index(node) + 1}){joint}{''.join(parts)}", cost + 0.5))
        parts = [node.tag, joint, *parts]
        joint = " > "
        out.append(("".join(parts), cost))
        if node.tag == "body":
            break
    return out
