"""The body's part of ``induce_profile``: the whole story from a click, checked on the siblings' main text,
and the blocks inside it that are not the article (``remove`` rules).

* A click on one paragraph is widened to the container of the article's paragraphs; a container that
  holds too little of the page's main text (the main-text extractor's) is widened again: to the story's
  blocks joined when the story is split over sibling blocks, or to the smallest ancestor holding it.
* A candidate rule holds on a sibling when its body is plausible there and covers the sibling's main text.
* Inside the chosen container, share bars, related-links and newsletter boxes, link-dense and repeated
  blocks, and the short blocks before the first paragraph (dateline, byline, kicker) become remove rules.
"""

from __future__ import annotations

import copy

from . import bodyblocks
from ..extraction.body_clean import drop_removed
from ..extraction.completeness import COVERED, covers_message, main_tokens, story_coverage, tokens
from .candidates import element_xpath
from ..profile.rules import Rule, RuleError, element_text
from ..extraction.story import f1, story_selection  # noqa: F401  (story_selection: induce asks it of other layouts)

MAX_SIBLING_MAIN = 6  # sibling pages whose main text is asked (the extractor is slow)


def sibling_mains(html_pages, docs) -> list:
    """The main-text words of each sibling page (an empty Counter where the extractor finds none); ``docs``:
    the pages as parsed already."""
    return [main_tokens(h, doc=d) if i < MAX_SIBLING_MAIN else tokens("")
            for i, (h, d) in enumerate(zip(html_pages, docs))]


def whole_story(el, html: str, notes: list) -> tuple[list, object]:
    """(the story's elements on the clicked page, its main-text words) from a clicked container."""
    main = main_tokens(html, doc=el.getroottree().getroot())
    chosen, how = story_selection(el, main)
    if how:
        before = story_coverage(tokens(element_text(el)), main)
        if how == "split":
            notes.append(f"body: the picked element {covers_message(before)}: the story is split over "
                         f"{len(chosen)} sibling blocks; the rule takes all of them, joined")
        elif how == "inner-split":
            notes.append(f"body: the picked element holds more than the story, which is split over {len(chosen)} "
                         "sibling blocks inside it; the rule takes all of them, joined")
        elif how == "narrower":
            notes.append(f"body: the picked element holds more than the story; narrowed to the element that "
                         f"holds it ({element_xpath(chosen[0])})")
        else:
            notes.append(f"body: the picked element {covers_message(before)}: widened to the element that "
                         f"holds the whole story ({element_xpath(chosen[0])})")
    return chosen, main


def nested(els: list) -> bool:
    """True when one matched element holds another (their text would be taken twice)."""
    if len(els) < 2:
        return False
    if len(els) > 60:
        return True
    for el in els:
        ancestors = list(el.iterancestors())
        if any(other is anc for other in els for anc in ancestors):
            return True
    return False


def excess(els: list, reference: str) -> float:
    """0 when the matched elements say what the clicked container says, more when they add other text."""
    from ..profile.verify import words

    if nested(els):
        return 8.0
    ratio = len(words(" ".join(element_text(e) for e in els))) / max(1, len(words(reference)))
    return 0.0 if ratio <= 1.15 else min(8.0, 5.0 * (ratio - 1.0))


MOSTLY = 0.5  # a body whose words are mostly not the page's main text is not that page's body


def covering(values: list[str], mains: list) -> tuple[list[bool], float]:
    """(per sibling: the body covers the page's main text and is mostly made of it, or the page has none; the
    mean F1 against the main texts where there are some)."""
    ok, scores = [], []
    for value, main in zip(values, mains):
        if not main:
            ok.append(True)
            continue
        got = tokens(value)
        share = sum((got & main).values()) / max(1, sum(got.values()))
        ok.append(story_coverage(got, main) >= COVERED and share >= MOSTLY)
        scores.append(f1(got, main))
    return ok, (sum(scores) / len(scores) if scores else 1.0)


def coverage_note(rules, select, docs, mains) -> str:
    """Where no rule of the chain covers a sibling's main text, the main-text extractor will fill the body."""
    short = 0
    for doc, main in zip(docs, mains):
        if not main:
            continue
        best = 0.0
        for rule in rules:
            els = select(rule.kind, rule.selector, doc)
            if els:
                best = max(best, story_coverage(tokens(" ".join(element_text(e) for e in els)), main))
        short += best < COVERED
    if not short:
        return ""
    return (f"body: on {short} of {len(docs)} other pages no rule covers the article's text: the main-text "
            "extractor fills the body there, and the article says so (body: fallback)")


# --- remove rules inside the container ------------------------------------------------------------------
def refine(pages, rule: Rule, target, sibling_docs, notes) -> list[Rule]:
    """Remove rules for the boilerplate blocks inside the body's container (``target``: its first element)."""
    others = set()
    for doc in sibling_docs:
        for el in pages.select(rule.kind, rule.selector, doc)[:1]:
            for block in el.iterdescendants("div", "ul", "section", "table"):
                text = element_text(block)
                if len(text) >= 30:
                    others.add(text)
    removes, seen = [], set()
    holders = [target.el, *target.el.iterancestors()]  # live references: lxml proxies stay the same objects
    for block in bodyblocks.boilerplate_blocks(target.el, others):
        css, kind = bodyblocks.block_selector(block, rule.selector, rule.kind), rule.kind
        if not css and element_text(block) in others:  # repeated on the siblings, marked by its text alone
            css, kind = bodyblocks.text_anchor(block), "xpath"
        if not css or css in seen or not _checks(css, kind):
            continue
        # never remove the article itself: the rule must leave most paragraph text in place
        matched = pages.select(kind, css, target.doc)
        if any(b is h for b in matched for h in holders) or _story_written_in(block, matched, target.el, others):
            continue
        seen.add(css)
        removes.append(Rule(kind=kind, selector=css, take="html"))
    if removes:
        notes.append(f"body: {len(removes)} block(s) inside the container dropped (share/related/link-dense/repeated): "
                     + ", ".join(r.selector for r in removes[:6]))
    header = []
    for block in bodyblocks.header_blocks(target.el):
        css = bodyblocks.block_selector(block, rule.selector, rule.kind)
        if not css or css in seen or not _checks(css, rule.kind):
            continue
        # on every page, what it matches is short, holds no paragraph of article text, and is one or two
        # things (a dateline, a byline), not a run of paragraphs written as divs
        per_page = [pages.select(rule.kind, css, d) for d in [target.doc, *sibling_docs]]
        matched = [m for found in per_page for m in found]
        if any(len(found) > 2 for found in per_page) or any(m is h for m in matched for h in holders) or any(
                len(element_text(m)) > 2 * bodyblocks.HEADER_MAX or bodyblocks.paragraph_chars(m) for m in matched):
            continue
        seen.add(css)
        header.append(Rule(kind=rule.kind, selector=css, take="html"))
    if header:
        notes.append(f"body: {len(header)} short block(s) before the first paragraph dropped (dateline, byline, "
                     "kicker): " + ", ".join(r.selector for r in header[:6]))
    return removes + header


def _story_written_in(block, matched: list, container, others: set) -> bool:
    """A <form> or an <aside> (taken for its tag alone) holding most of the container's paragraph text is where
    the story is written, not a sign-up box; teasers and blocks the siblings repeat go whatever they hold."""
    return (block.tag in ("form", "aside") and element_text(block) not in others
            and 2 * sum(map(bodyblocks.paragraph_chars, matched)) > bodyblocks.paragraph_chars(container))


def _checks(selector: str, kind: str = "css") -> bool:
    try:
        Rule(kind=kind, selector=selector).check()
    except RuleError:
        return False
    return True


def values_after_removes(rules: list, removes: list, docs: list, plausible) -> list[str]:
    """Each page's body text as the chain's first matching rule finds it once the remove rules have run (the
    crawl's view; the container's raw text may be many times that: another story, a book list, a comment
    thread that remove rules take out). ``docs``: the clicked page first; ``plausible(value, reference)``.
    '' for a page whose raw text is not plausible beside the clicked one's (as before); the raw text where
    what the remove rules leave is not plausible (they take a story written in a form or an aside): beside
    the clicked page's raw text on the clicked page, beside what they leave of the clicked page elsewhere."""
    out, reference = [], None
    for doc in docs:
        raw = _first_value(rules, doc)
        if reference is None:
            reference = raw
        if not plausible(raw, reference):
            out.append("")
            continue
        doc = copy.deepcopy(doc)
        try:
            drop_removed(doc, removes)
        except RuleError:  # the crawl would get an error on this page, not a body
            out.append(raw)
            continue
        left = _first_value(rules, doc)
        if not out:  # the clicked page: its own raw text is the reference for what is left elsewhere
            reference = left if plausible(left, raw) else raw
        out.append(left if plausible(left, reference) else raw)
    return out


def _first_value(rules: list, doc) -> str:
    for rule in rules:
        try:
            value = " ".join(element_text(e) for e in rule.select(doc))
        except RuleError:
            continue
        if value:
            return value
    return ""
