"""Where the clicked page's story is, all of it: the clicked container when it holds the page's main text,
else the story blocks standing beside it joined (a story split over sibling blocks: an advertisement or a
related box between them) or the smallest ancestor holding it - whichever says what the page's main text
(the main-text extractor's) says. Used when a body rule is made, so that a click on one paragraph or on
one block of a split story gives the whole body.
"""

from __future__ import annotations

from collections import Counter

from .completeness import kin_blocks, story_chars, story_kin, teaser_block, story_coverage, tokens
from ..profile.rules import element_text

ENOUGH = 0.85  # the click holds this share of the main text: it is the story
BETTER = 0.03  # another selection must agree with the main text by this much more (F1) to replace the click
NARROWER = 0.05  # ... and by this much to replace it by a part of it (the click is evidence of what is story)
_DEPTH_INSIDE = 5  # levels looked at below the click
KEEP = 0.9  # a part of the click must keep this share of its paragraphs and of what it covers of the main text
_LEVELS = 4  # ancestors looked at above the click
_BLOCKS = {"div", "section", "article", "td", "tr", "table", "span", "font", "blockquote", "center", "dd", "main",
           "dl"}


def f1(value: Counter, story: Counter) -> float:
    common = sum((value & story).values())
    if not common:
        return 0.0
    p, r = common / sum(value.values()), common / sum(story.values())
    return 2 * p * r / (p + r)


def is_story_block(el) -> bool:
    """A block holding story paragraphs (not an advertisement, not a list of related stories)."""
    return isinstance(el.tag, str) and el.tag in _BLOCKS and story_chars(el, 2, [200]) > 0 and not teaser_block(el)


def story_selection(el, main: Counter) -> tuple[list, str]:
    """(the elements of the story in document order, how: "" (the click) | "split" | "ancestor" (wider) |
    "inner-split" | "narrower" (a part of the click)) for a clicked container
    ``el``, given the page's main-text words ``main`` (empty: the click is taken as it is). Blocks of the
    click's own kind beside it holding story text are the rest of a split story, whatever the main text
    says (the extractor reads one block of a story split in five as the whole)."""
    kin = kin_blocks(el)
    if len(kin) > 1 and len(story_kin([k for k in kin if k is not el], lambda: main)) == len(kin) - 1:
        return kin, "split"
    if not main:
        return [el], ""
    own = tokens(element_text(el))
    covered = story_coverage(own, main)
    best, best_score, how = [el], f1(own, main), ""
    # narrower: a part of the click holding its paragraphs with less else (its blocks joined when the
    # story is split over them); the main-text extractor may miss part of a story, so the part must keep
    # the click's paragraphs (counted on the page, not by the extractor)
    paragraphs = paragraph_text(el)
    for inner, blocks in _inside(el):
        if sum(paragraph_text(b) for b in blocks) < KEEP * paragraphs:
            continue
        joined = sum((tokens(element_text(b)) for b in blocks), Counter())
        score = f1(joined, main)
        if score > best_score + NARROWER and story_coverage(joined, main) >= KEEP * covered:
            best, best_score, how = blocks, score, "inner-split" if len(blocks) > 1 else "narrower"
    if covered >= ENOUGH:
        return best, how
    node = el
    for _ in range(_LEVELS):
        parent = node.getparent()
        if parent is None or parent.tag in ("html", "body"):
            break
        whole = tokens(element_text(parent))
        score = f1(whole, main)
        if score > best_score + BETTER:
            best, best_score, how = [parent], score, "ancestor"
        blocks = story_blocks(parent, keep=node)
        if len(blocks) > 1:
            joined = sum((tokens(element_text(b)) for b in blocks), Counter())
            score = f1(joined, main)
            if score > best_score + BETTER:
                best, best_score, how = blocks, score, "split"
        node = parent
    return best, how


def paragraph_text(el) -> int:
    """Characters of story paragraphs in the element (40+ characters, mostly not links; text between <br>s)."""
    return story_chars(el, 40, [5000])


def story_blocks(parent, keep=None) -> list:
    """The parent's children that hold the story: story blocks, and blocks of the same tag and class as one
    (the story's own blocks, one of them with short paragraphs only); ``keep`` is taken in any case."""
    found = [c for c in parent if c is keep or is_story_block(c)]
    kinds = {(c.tag, c.get("class")) for c in found if c.get("class")}
    return [c for c in parent if c in found or (isinstance(c.tag, str) and (c.tag, c.get("class")) in kinds)]


def _inside(el):
    """(element, selection) below the click: each block alone, and each element's story blocks joined."""
    level = [el]
    for _ in range(_DEPTH_INSIDE):
        below = []
        for node in level:
            blocks = story_blocks(node)
            if len(blocks) > 1:
                yield node, blocks
            for child in node:
                if isinstance(child.tag, str) and child.tag in _BLOCKS:
                    if node is not el or child is not el:
                        yield child, [child]
                    below.append(child)
        level = below


def selection_text(elements) -> str:
    return " ".join(element_text(e) for e in elements)
