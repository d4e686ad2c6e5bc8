"""css rules made of ``tag`` and ``tag.class`` steps (``h1.title``, ``div.story p``) selected by
lxml's tree walk instead of XPath: the same elements, in the same order."""

from __future__ import annotations

import re


_TAG_DOT_CLASS = re.compile(r"([a-z][a-z0-9]*)(?:\.([A-Za-z_][A-Za-z0-9_-]*))?\Z")
_XML_SPACE = str.maketrans("\t\n\r", "   ")  # XPath's normalize-space: these and the space only


class TagWalk:
    """cssselect's path for ``tag`` or ``tag.class`` steps joined by spaces (``div.story p``:
    ``descendant-or-self::div[class test]/descendant::p``), run as lxml's tree walks in C: the same
    elements in the same document order, without XPath's cost for every node of the page (most of a
    simple rule's time)."""

    __slots__ = ("steps",)

    def __init__(self, steps: list[tuple[str, str | None]]):
        self.steps = steps

    @classmethod
    def of(cls, selector: str, xpath: str) -> "TagWalk | None":
        """The walk for ``selector``, given cssselect's ``xpath`` for it; None unless the selector is
        such steps and the path is the one the walk stands for."""
        steps, paths = [], []
        for part in selector.split(" "):
            m = _TAG_DOT_CLASS.match(part)
            if m is None:
                return None
            tag, name = m.groups()
            path = f"descendant::{tag}" if paths else f"descendant-or-self::{tag}"
            if name is not None:
                path += (f"[@class and contains(@class, '{name}') and "
                         f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]")
            steps.append((tag, name))
            paths.append(path)
        return cls(steps) if xpath == "/".join(paths) else None

    def __call__(self, doc) -> list:
        tag, name = self.steps[0]
        found = list(doc.iter(tag)) if name is None else [el for el in doc.iter(tag) if _has_class(el, name)]
        for tag, name in self.steps[1:]:
            # each element's descendants in turn: document order, as an element found inside an
            # earlier one brings only elements already taken and any other comes after them
            out, seen = [], set()
            for el in found:
                for below in el.iterdescendants(tag):
                    if below not in seen and (name is None or _has_class(below, name)):
                        seen.add(below)
                        out.append(below)
            found = out
        return found


def _has_class(el, name: str) -> bool:
    """contains(@class, name) and contains(concat(' ', normalize-space(@class), ' '), ' name '): in the
    attribute, and one of its words split at XML whitespace (not at Python's)."""
    value = el.get("class")
    return value is not None and name in value and name in value.translate(_XML_SPACE).split(" ")
