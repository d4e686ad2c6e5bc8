"""Is a value the whole field? Each one is checked against what the page holds independently of the rules.

* Body: the story text standing beside the body's elements (their siblings, and their parent's, read
  two levels down: cheap, on every page) and, only when that is a fair share, the page's main text from
  the main-text extractor: a body holding under ``COVERED`` of it "covers 12% of the article's text".
* Title: the page's own headline candidates (JSON-LD headline, og:title, twitter:title, ``<title>``):
  where the page has some and none agrees with the title, the title is doubtful.

``story_coverage`` and ``main_tokens`` serve induction too (a body rule is widened at Save when it covers
too little of the clicked page's or a sibling's main text).
"""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree

from .maintext import main_text_html
from ..profile.jsonld import jsonld_read, jsonld_values
from ..text.text import normalize_space
from ..profile.verify import agreement

COVERED = 0.7  # a body holding less of the article's main text is incomplete
MOSTLY = 0.6  # a body from a later rule of its chain must be mostly the article's main text
LONG_AGREES = 0.8  # a body longer than expected, and the main text: each holds this share of the other's words
BESIDE = 0.25  # story text beside the body above this share of the two: the main text is asked
_MIN_PARAGRAPH = 40  # characters of a paragraph that counts as story text
_BUDGET = 400  # elements looked at beside a body, at most (bounded time on any page)
_STORY_TAGS = {"p", "div", "section", "article", "td", "tr", "tbody", "table", "span", "font", "blockquote",
               "center", "main", "dd", "dl"}
_TOKEN = re.compile(r"\w+", re.U)
_HEAD_TITLES = etree.XPath("meta[@property='og:title' or @name='og:title' or @name='twitter:title' or "
                           "@property='twitter:title']/@content | title/text()")


def tokens(text: str) -> Counter:
    return Counter(t.lower() for t in _TOKEN.findall(text))


def story_coverage(value: Counter, story: Counter) -> float:
    """The share of the story's words that the value holds (1.0 when there is no story to hold)."""
    total = sum(story.values())
    if not total:
        return 1.0
    return sum((value & story).values()) / total


def covers_message(share: float) -> str:
    return f"covers {share:.0%} of the article's text"


def mostly_message(share: float) -> str:
    """``share``: of the body's words, those of the article's main text."""
    return f"is {1 - share:.0%} text outside the article"


def completeness_problem(problems: list[str]) -> str:
    """The first problem that says the body is not the article's whole text (or more than it), else ''."""
    return next((p for p in problems if p.startswith("covers ") or p.endswith(" text outside the article")), "")


class PageStory:
    """The page's main text, asked of the main-text extractor at most once per page and purpose (it is slow):
    ``tokens()`` to judge how much of the article a body holds, ``html()`` to fill a body that has none."""

    def __init__(self, page_text, url: str, main_page=None, doc=None):
        self.page_text = page_text  # () -> the page's HTML text
        # () -> the HTML the estimate of the article's words is read from: the page less what the profile's
        # remove rules drop (a block the siblings repeat is no more the article's text for it than for the body)
        self.main_page = main_page or page_text
        self.doc = doc  # () -> the parsed page the body is read from, when there is one
        self.url = url
        self._html: str | None = None
        self._tokens: Counter | None = None

    def html(self) -> str:
        if self._html is None:
            self._html = main_text_html(self.page_text(), self.url)
        return self._html

    def tokens(self) -> Counter:
        """The words of the page's whole main text (the extractor's recall mode: what a body should hold)."""
        if self._tokens is None:
            from .body_clean import drop_comments
            from .html_text import fragment_text, parse_fragment
            from .text_place import drop_page_comments, paragraph_keys, text_block

            root = parse_fragment(main_text_html(self.main_page(), self.url, precise=False))
            if root is not None:
                drop_comments([root])  # measured as bodies are: the story without its readers' comments
                block = text_block(self.doc(), paragraph_keys(root)) if self.doc else None
                if block is not None:  # ... the comments' heading, left out by the extractor, on the page
                    drop_page_comments(root, block)
            self._tokens = tokens(fragment_text(root)) if root is not None else Counter()
        return self._tokens


def main_tokens(html: str, url: str | None = None, doc=None) -> Counter:
    """The words of a page's main text (the main-text extractor's), for induction; ``doc``: the page parsed,
    when the caller has it."""
    from ..profile.rules import parse_html

    return PageStory(lambda: html, url or "", doc=lambda: doc if doc is not None else parse_html(html)).tokens()


# --- the story beside a body ------------------------------------------------------------------------
def _paragraph_chars(el) -> int:
    """A paragraph's text length when it reads as story (40+ characters, mostly not links), else 0."""
    if not len(el):  # most paragraphs: one text, no link
        text = el.text
        return len(text) if text and len(text) >= _MIN_PARAGRAPH and len(text.strip()) >= _MIN_PARAGRAPH else 0
    text = el.text_content()
    n = len(text)
    if n < _MIN_PARAGRAPH or len(normalize_space(text)) < _MIN_PARAGRAPH:
        return 0
    links = sum(len(a.text_content()) for a in el.iter("a"))
    return n if links < 0.5 * n else 0


def _own_text(el) -> int:
    """Text runs directly inside a block (a 2005 cell: text between <br>s), 40+ characters each."""
    chars = 0
    text = el.text
    if text and len(text) >= _MIN_PARAGRAPH and len(text.strip()) >= _MIN_PARAGRAPH:
        chars += len(text)
    for child in el:
        tail = child.tail
        if tail and len(tail) >= _MIN_PARAGRAPH and len(tail.strip()) >= _MIN_PARAGRAPH:
            chars += len(tail)
    return chars


def story_chars(el, depth: int, budget: list) -> int:
    """Story text in ``el``, read ``depth`` levels down; ``budget``: elements left to look at."""
    budget[0] -= 1
    tag = el.tag
    if budget[0] < 0 or tag not in _STORY_TAGS:  # a comment's tag is a function: never in the set
        return 0
    if tag == "p":
        return _paragraph_chars(el)
    chars = _own_text(el)
    if depth > 0:
        for child in el:
            chars += story_chars(child, depth - 1, budget)
    return chars


def text_beside(elements, enough: int | None = None) -> int:
    """Story text in the siblings of the body's elements (a level down) and in their parent's siblings (two
    levels down): where the rest of a story split over sibling blocks, or of a rule that took one
    paragraph, stands. Related-story lists are left out, looked at only when the total passes ``enough``."""
    if not elements:
        return 0
    inside = set(elements)
    budget = [_BUDGET]
    node, found = elements[0], []
    for depth in (1, 2):
        parent = node.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        for sibling in parent:
            if sibling is node or sibling in inside:
                continue
            chars = story_chars(sibling, depth, budget)
            if chars:
                found.append((chars, sibling))
        node = parent
    total = sum(c for c, _ in found)
    if enough is not None and total <= enough:
        return total
    return sum(c for c, sibling in found if not teaser_block(sibling))


def teaser_block(block) -> bool:
    """Related stories with a line of text each: a quarter of the block's text is link text (a story's
    own blocks hold a few links in their sentences; under a fifth on the pages tuned on)."""
    text = len(block.text_content())
    return text > 0 and sum(len(a.text_content()) for a in block.iter("a")) > 0.25 * text


_NOT_KIN = {"td", "tr", "li", "p", "span", "font"}  # cells of a row are columns, not a story's next block


def _kind(el) -> tuple:
    return el.tag, el.get("class"), frozenset(k for k in el.attrib if k not in ("id", "style"))


def _story_block(el) -> bool:
    return el.tag in _STORY_TAGS and story_chars(el, 2, [200]) > 0 and not teaser_block(el)


def kin_blocks(el) -> list:
    """The blocks of a story split over siblings, from one of them: ``el`` and its siblings of the same kind
    (tag, class and attribute names; not id or style) that hold story paragraphs, in document order, up to
    a story block of another kind either way (an advertisement or a related box between them is passed).
    ``[el]`` when it has none: the same kind beside it is structural evidence that the main-text extractor
    may miss (it reads one block of a story split in five as the whole)."""
    parent = el.getparent()
    if parent is None or not isinstance(el.tag, str) or el.tag in _NOT_KIN or parent.tag in ("body", "html"):
        return [el]
    kind = _kind(el)
    siblings = [c for c in parent if isinstance(c.tag, str)]
    if len(siblings) > 200 or not any(c is not el and c.tag == el.tag and _kind(c) == kind for c in siblings):
        return [el]
    at = next(i for i, c in enumerate(siblings) if c is el)
    found = [at]
    for step in (-1, 1):
        i = at + step
        while 0 <= i < len(siblings):
            c = siblings[i]
            if _kind(c) == kind and _story_block(c):
                found.append(i)
            elif _story_block(c):
                break
            i += step
    return [siblings[i] for i in sorted(found)]


def kin_beside(elements) -> list:
    """The blocks of the same kind beside the body's elements that the body does not hold."""
    if not elements:
        return []
    inside = set(elements)
    return [k for k in kin_blocks(elements[0]) if k not in inside]


def story_kin(kin: list, main_words) -> list:
    """The blocks of ``kin`` that are the story's: all of them when they share a class (their kind says so);
    bare ones (no class) only where the page's main text (``main_words()``, asked only then) holds most of
    their words - a class-less page's teasers and notes are bare blocks too."""
    if not kin or kin[0].get("class"):
        return kin
    main = main_words()
    if not main:
        return []
    return [k for k in kin if story_coverage(main, tokens(k.text_content())) >= 0.5]


def long_story(body_text: str, story: PageStory | None) -> bool:
    """A body longer than the site's stories whose words and the page's main text's mostly agree (each holds
    ``LONG_AGREES`` of the other's): a long read, not a body that took the comments or the whole page (its
    length is then no problem). Story-like blocks inside the article's container count as main text too."""
    main = story.tokens() if story is not None else None
    if not main:
        return False
    got = tokens(body_text)
    return story_coverage(got, main) >= LONG_AGREES and story_coverage(main, got) >= LONG_AGREES


def body_problems(elements, body_text: str, story: PageStory | None, later: bool = False) -> list[str]:
    """Why the body looks incomplete ([] when it does not): blocks of the same kind holding story text stand
    beside it, or a fair share of story text does and the page's main text says the body holds less than
    ``COVERED`` of the article. ``later``: the body comes from a rule after the first of its chain (made
    for another layout, or the first one failed here): the page's main text is always asked, and the body
    must also be mostly made of it (``MOSTLY``)."""
    if not body_text or not elements:
        return []
    # beside > BESIDE * (beside + body)  <=>  beside > BESIDE / (1 - BESIDE) * body
    enough = int(BESIDE / (1 - BESIDE) * len(body_text))
    kin = kin_beside(elements)
    kin_chars = sum(len(k.text_content()) for k in kin)
    if kin_chars > enough and story_kin(kin, story.tokens if story else Counter) == kin:
        share = len(body_text) / (kin_chars + len(body_text))
        if share < COVERED:
            return [covers_message(share)]
    if later and story is not None:
        main = story.tokens()
        if not main:
            return []
        got = tokens(body_text)
        covered, mostly = story_coverage(got, main), story_coverage(main, got)
        if covered < COVERED:
            return [covers_message(covered)]
        return [mostly_message(mostly)] if mostly < MOSTLY else []
    beside = text_beside(elements, enough)
    if beside <= enough:
        return []
    if story is None:
        return []
    main = story.tokens()
    if not main:  # the extractor found no main text: what stands beside the body decides
        share = len(body_text) / (beside + len(body_text))
    else:
        share = story_coverage(tokens(body_text), main)
    return [covers_message(share)] if share < COVERED else []


# --- the title against the page's headlines -------------------------------------------------------------
def headline_candidates(doc) -> list[str]:
    """What the page says its headline is (3+ words each): og:title, twitter:title and <title> from the
    page's head; the JSON-LD headline when the head has none of them and the page's JSON-LD was read already
    (reading it costs a walk of the whole page: a check on every article must not)."""
    head = doc[0] if len(doc) and doc[0].tag == "head" else doc.find("head")
    found = _HEAD_TITLES(head) if head is not None else []
    out = []
    for text in found:
        text = normalize_space(text)
        if len(_TOKEN.findall(text)) >= 3 and text not in out:
            out.append(text)
    if not out and jsonld_read(doc):
        out = [t for t in jsonld_values(doc, "headline") if len(_TOKEN.findall(t)) >= 3]
    return out


def title_problems(title: str, doc) -> list[str]:
    """The title disagrees with every headline the page gives for itself ([] when one agrees or there is none)."""
    if not title:
        return []
    head = doc[0] if len(doc) and doc[0].tag == "head" else None
    if head is not None:  # most pages: the title is in <title> ("Headline - Site")
        for el in head:
            if el.tag == "title":
                if title in (el.text or ""):
                    return []
                break
    candidates = headline_candidates(doc)
    if not candidates or any(title in c or agreement(title, c) >= 0.5 for c in candidates):
        return []
    shown = candidates[0] if len(candidates[0]) <= 80 else candidates[0][:79] + "\u2026"
    return [f"differs from the page's own headline ({shown!r})"]
