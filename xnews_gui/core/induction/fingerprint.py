"""An element's fingerprint, taken at authoring, to find "the same element" after a redesign.

Tag, id, classes, tag path, parent and sibling tags and the text's shape, as
Scrapling and Similo do: when every rule of a field fails, the element of the
new page most similar to the fingerprint is a repair candidate.
"""

from __future__ import annotations

from ..profile.rules import element_text
from .candidates import stable_classes


def fingerprint(el) -> dict:
    parent = el.getparent()
    siblings = [s.tag for s in (el.getprevious(), el.getnext()) if s is not None and isinstance(s.tag, str)]
    path = [a.tag for a in reversed(list(el.iterancestors())) if isinstance(a.tag, str)] + [el.tag]
    return {
        "tag": el.tag,
        "id": el.get("id") or "",
        "classes": sorted(set((el.get("class") or "").split()))[:12],
        "path": "/".join(path[-8:]),
        "parent": _label(parent) if parent is not None else "",
        "siblings": siblings,
        "words": len(element_text(el).split()),
    }


def _label(el) -> str:
    classes = (el.get("class") or "").split()
    return el.tag + ("." + classes[0] if classes else "")


def similarity(fp: dict, el) -> float:
    """0..1: how much the element looks like the fingerprinted one."""
    other = fingerprint(el)
    score, total = 0.0, 0.0

    def part(weight: float, value: float) -> None:
        nonlocal score, total
        score += weight * value
        total += weight

    part(1.5, float(fp.get("tag") == other["tag"]))
    if fp.get("id"):
        part(1.5, float(fp["id"] == other["id"]))
    a, b = set(fp.get("classes", [])), set(other["classes"])
    if a or b:
        part(2.0, len(a & b) / len(a | b))
    pa, pb = str(fp.get("path", "")).split("/"), other["path"].split("/")
    common = 0
    for x, y in zip(reversed(pa), reversed(pb)):
        if x != y:
            break
        common += 1
    part(1.0, common / max(len(pa), len(pb), 1))
    part(1.0, float(fp.get("parent") == other["parent"]))
    part(0.5, len(set(fp.get("siblings", [])) & set(other["siblings"])) / max(1, len(fp.get("siblings", []))))
    wa, wb = int(fp.get("words", 0) or 0), other["words"]
    part(1.5, min(wa, wb) / max(wa, wb) if max(wa, wb) else 1.0)
    return score / total if total else 0.0


def best_match(fp: dict, doc, minimum: float = 0.55, any_tag: bool = False):
    """The page's element most like the fingerprint (same tag unless ``any_tag``), or None."""
    tag = None if any_tag else (fp.get("tag") or None)
    best, best_score = None, minimum
    for el in doc.iter(tag):
        if not isinstance(el.tag, str):
            continue
        s = similarity(fp, el)
        if s > best_score:
            best, best_score = el, s
    return best


# --- a page's layout -----------------------------------------------------------------------------------
_LAYOUT_TAGS = {"div", "section", "article", "main", "header", "footer", "aside", "nav", "table", "tr", "td",
                "ul", "ol", "figure", "h1", "h2", "form", "center", "font"}
_LAYOUT_DEPTH = 6


def page_layout(doc) -> frozenset:
    """The page's skeleton: block elements down to a few levels under <body>, by depth, tag and stable
    classes (what a template writes, not what a story holds). Pages of one template share most of it."""
    body = doc.find("body") if doc.tag == "html" else doc
    if body is None:
        return frozenset()
    out = set()
    level = [body]
    for depth in range(_LAYOUT_DEPTH):
        below = []
        for node in level:
            for child in node:
                tag = child.tag
                if isinstance(tag, str) and tag in _LAYOUT_TAGS:
                    out.add(f"{depth}:{tag}" + "".join(f".{c}" for c in sorted(stable_classes(child))[:3]))
                    below.append(child)
        level = below[:400]
    return frozenset(out)


def same_layout(a: frozenset, b: frozenset, at_least: float = 0.7) -> bool:
    """Two skeletons of one template (Jaccard similarity ``at_least``)."""
    if not a and not b:
        return True
    return len(a & b) / max(1, len(a | b)) >= at_least
