"""A whole profile from a few clicks plus unlabeled sibling pages of the same site.

``induce_profile({"title": [(html, xpath)], "body": [(html, xpath)]}, siblings=[...])``:

1. Rank each clicked element's candidate selectors on the siblings: the best
   selects exactly one element with a plausible value on every sibling; a value
   that is empty, tiny, the same on several pages (boilerplate) or far from the
   clicked value's shape counts against it.
2. Where the best rule fails on a sibling (another layout), the element that
   plays the field's part there (agreeing with the page's metadata, or holding
   its paragraphs) is induced too and becomes the next rule of the chain.
3. Metadata anchors that agree with the clicked value close the chain; a content
   profile and the clicked element's fingerprint are stored for verification.
4. Body (``induce_body``): a click on one paragraph is widened to the article's
   container, and to the whole story when the container holds too little of the
   page's main text (a story split over sibling blocks: all of them, joined); a
   rule holds on a sibling only when it covers that page's main text; share bars,
   related boxes, link-dense and repeated blocks inside it become ``remove`` rules.
5. Layouts without classes or ids: structural XPath candidates (``structural``)
   anchored on the nearest stable ancestor, by position or by what the element
   holds. A clicked field always gets a rule (at worst the clicked element's
   path); a title chain ends with the page's ``<title>`` less the site's affix,
   a body chain with the main-text extractor (flagged as such). Each decision is
   written to ``notes``.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from . import bodyblocks, induce_body
from .candidates import css_candidates, Pages, Target, adjust_click, element_xpath, locate, take_for
from ..profile.chain import FieldChain
from .fingerprint import fingerprint
from ..extraction.metadata import ANCHORS, PAGE_TITLE, learn_title_suffix
from ..profile.profile import FIELDS, Profile
from ..profile.rules import Rule, RuleError, element_text
from ..text.text import normalize_space
from .structural import blocks_candidates, has_tbody, structural_candidates, unwrap_tbody
from ..profile.verify import ContentProfile, agreement, words

MAX_FALLBACKS = 3


def _value(field: str, els: list) -> str:
    if not els:
        return ""
    if field == "body":
        return " ".join(element_text(e) for e in els)
    el = els[0]
    take = take_for(field, el)
    if take.startswith("attr:"):
        return (el.get(take[5:]) or "").strip()
    return element_text(el)


def plausible(field: str, value: str, reference: str) -> bool:
    if not value:
        return False
    w, rw = len(words(value)), max(1, len(words(reference)))
    if field == "body":
        return w >= max(12, int(rw * 0.15)) and w <= rw * 8 + 400
    if field in ("title", "summary"):
        return len(value) >= min(12, max(3, len(reference) // 3)) and w <= max(60, rw * 4)
    if field == "date":
        return any(ch.isdigit() for ch in value) and len(value) < 200
    if field == "author":
        return len(value) < 300
    return True


_BOILERPLATE_FIELDS = ("title", "summary", "body")


def _sibling_score(field, values: list[str], reference: str, anchor_values=()) -> tuple[int, list[bool]]:
    """(plausible count, per-page verdict): boilerplate values (the same on 2+ pages) and titles that
    disagree with the page's own metadata are not plausible."""
    counts = Counter(v for v in values + [reference] if v)
    verdicts = []
    for i, v in enumerate(values):
        ok = plausible(field, v, reference)
        if ok and field in _BOILERPLATE_FIELDS and counts[v] > 1:
            ok = False
        anchors = anchor_values[i] if i < len(anchor_values) else ()
        if ok and field == "title" and anchors and max(agreement(v, a) for a in anchors) < 0.5:
            ok = False
        verdicts.append(ok)
    return sum(verdicts), verdicts


def _page_anchors(field: str, doc) -> list[str]:
    if field != "title":
        return []
    return [v for rule in ANCHORS["title"] for v in _safe_apply(rule, doc)[:1] if v]


_BARE = {"b", "i", "u", "em", "strong", "span", "font", "div", "td", "tr", "table", "p", "li", "a", "center"}


def _pool(el, field: str) -> list[tuple[str, str, float]]:
    """(kind, selector, cost) candidates for a clicked element: its CSS hooks (structural XPaths are the
    second pool, see ``_best``). A bare generic tag ("b", "div") takes the first of its kind: dearer."""
    return [("css", css, cost + (2.0 if css in _BARE else 0.0)) for css, cost in css_candidates(el)]


STRUCTURAL_COST = 2.5  # a structural XPath wins over a CSS hook only where the hook fails on siblings
CLEAN_COST = 4.5  # a CSS hook holding on every sibling at no more cost than this is not compared with XPaths


def _best(pages, field: str, want: list, doc, sibling_docs: list, reference: str, mains=(), other_layout=False):
    """``_rank`` of the element's CSS candidates and, where the best of them does not hold on every
    sibling, of its structural XPaths too (a layout without classes or ids), ranked together at a surcharge.
    ``other_layout``: the page has a layout of its own (a fallback's CSS rule need not hold on the others)."""
    if len(want) > 1:  # a story split over sibling blocks: the blocks' parent, then a step they share
        parent = want[0].getparent()
        if parent is None:
            return []
        hooks = blocks_candidates(want, _pool(parent, "container"))
        structural = blocks_candidates(want, structural_candidates(parent, "container"))
    else:
        hooks, structural = _pool(want[0], field), structural_candidates(want[0], field)
    ranked = _rank(pages, field, want, doc, sibling_docs, reference, hooks, mains)
    clean = ranked and ranked[0][0] <= CLEAN_COST and all(ranked[0][3])
    if clean or (other_layout and ranked):
        return ranked
    more = _rank(pages, field, want, doc, sibling_docs, reference,
                 [(k, sel, cost + STRUCTURAL_COST) for k, sel, cost in structural], mains)
    return sorted(ranked + more, key=lambda x: (x[0], len(x[2])))


def _rank(pages, field: str, want: list, doc, sibling_docs: list, reference: str, pool, mains=()):
    """[(total cost, kind, selector, verdicts)] best first, for candidates giving ``want`` on the clicked page
    (its first element; all of them, in order, for a story split over blocks)."""
    ranked = []
    anchor_values = [_page_anchors(field, d) for d in sibling_docs]
    split = len(want) > 1
    for kind, selector, cost in pool:
        matched = pages.select(kind, selector, doc)
        if split:
            if len(matched) != len(want) or any(a is not b for a, b in zip(matched, want)):
                continue
        elif not matched or matched[0] is not want[0]:
            continue
        if field == "body":
            penalty = induce_body.excess(matched, reference)
        else:
            penalty = 3.0 if len(matched) > 1 else 0.0
        selected = [pages.select(kind, selector, d) for d in sibling_docs]
        if field == "body" and not split:  # one container at authoring: the first match is taken later
            selected = [els[:1] for els in selected]
        values = [_value(field, els) for els in selected]
        good, verdicts = _sibling_score(field, values, reference, anchor_values)
        if field == "body":
            covered, agree = induce_body.covering(values, mains) if mains else ([True] * len(values), 1.0)
            verdicts = [ok and cov and not induce_body.nested(els)
                        for ok, cov, els in zip(verdicts, covered, selected)]
            good = sum(verdicts)
            penalty += 2.0 * (1.0 - agree)
            penalty += 0.3 * sum(1 for d in sibling_docs if len(pages.select(kind, selector, d)) > 1) if not split else 0
        else:  # the first of several matches is used: a little worse than exactly one
            penalty += 0.5 * sum(1 for els in selected if len(els) > 1)
        bad_share = 1.0 - good / len(sibling_docs) if sibling_docs else 0.0
        ranked.append((cost + penalty + 8.0 * bad_share, kind, selector, verdicts))
    ranked.sort(key=lambda x: (x[0], len(x[2])))
    return ranked


def _counterpart(field: str, doc, reference: str):
    """On a page of another layout: the element that plays the field's part, or None."""
    if field == "body":
        return bodyblocks.main_container(doc)
    if field != "title":
        return None
    anchors = [v for rule in ANCHORS["title"] for v in _safe_apply(rule, doc) if v]
    best, best_score = None, 0.0
    for el in doc.iter("h1", "h2", "h3"):
        text = element_text(el)
        if not text:
            continue
        score = max((agreement(text, a) * min(len(text), len(a)) / max(len(text), len(a)) for a in anchors),
                    default=0.0)
        score += 0.3 if el.tag == "h1" else 0.0
        if score > best_score:
            best, best_score = el, score
    return best if anchors or best is None else best


def _safe_apply(rule: Rule, doc) -> list[str]:
    try:
        return rule.apply(doc)
    except RuleError:
        return []


def _anchors_agreeing(field: str, doc, value: str, known=()) -> tuple[list[Rule], list[Rule]]:
    """(anchors that agree with the clicked value on its page, all of the field's anchors, those first).

    An anchor that says exactly what the click says comes before one that only
    contains it (a kicker-prefixed JSON-LD headline). Title anchors learn the
    affix the site adds (" - Section | Site", "Site: ") from ``known``
    ``(doc, headline)`` pairs of sibling pages plus the clicked page; the page's
    ``<title>`` less that affix is always the title chain's last resort.
    """
    rules = list(ANCHORS.get(field, ()))
    if field == "title":
        rules = [_learned_suffix(r, [(doc, value), *known]) for r in rules]
    agree = []
    for rule in rules:
        got = next((v for v in _safe_apply(rule, doc) if v), "")
        if got and (field in ("image", "date", "author") or agreement(value, got) >= 0.8):
            agree.append((normalize_space(got) != normalize_space(value), rule))
    agree = [r for _, r in sorted(agree, key=lambda x: x[0])]
    ordered = agree + [r for r in rules if r not in agree]
    if field == "title":
        ordered.append(_learned_suffix(PAGE_TITLE, [(doc, value), *known]))
    return agree, ordered


def _learned_suffix(rule: Rule, known) -> Rule:
    if rule.kind != "css" or not rule.post:
        return rule
    raw = rule.with_(post="")
    pairs = [(head, v) for d, head in known if head for v in _safe_apply(raw, d)[:1]]
    post = learn_title_suffix(pairs)
    return rule.with_(post=post) if post else rule


_NAVIGATION = ("nav", "li", "a", "menu", "footer", "aside")
_HEADINGS = ("h1", "h2", "h3", "h4")


def _in_navigation(el) -> bool:
    return el.tag in _NAVIGATION or any(a.tag in _NAVIGATION for a in el.iterancestors())


def _headline_copy(el, doc):
    """A headline clicked where the page repeats it in navigation (a breadcrumb, a menu entry) ->
    the copy that stands outside navigation, when the page has one; else ``el``."""
    if not _in_navigation(el):
        return el
    want = normalize_space(element_text(el))
    copies = [o for o in doc.iter(*_HEADINGS, el.tag)
              if o is not el and not _in_navigation(o) and normalize_space(element_text(o)) == want]
    if not copies:
        return el
    return min(copies, key=lambda o: _HEADINGS.index(o.tag) if o.tag in _HEADINGS else len(_HEADINGS))


def _induce_field(pages, field, want: list, doc, sibling_docs, notes, found=None, mains=()):
    """(rules of the chain, the clicked value, the siblings no rule holds on)."""
    reference = _value(field, want) if len(want) > 1 else _value(field, want[:1])
    take = take_for(field, want[0])
    ranked = _best(pages, field, want, doc, sibling_docs, reference, mains)
    if not ranked:
        return None, reference, list(sibling_docs)
    _, kind, selector, verdicts = ranked[0]
    rules = [Rule(kind=kind, selector=selector, take=take, required=field in ("title", "body"))]
    failing = [d for d, ok in zip(sibling_docs, verdicts) if not ok]
    main_of = {id(d): m for d, m in zip(sibling_docs, mains)}
    for other_doc in failing:
        if len(rules) > MAX_FALLBACKS:
            break
        if any(plausible(field, _value(field, pages.select(r.kind, r.selector, other_doc)), reference) for r in rules) \
                and field != "body":
            continue
        el = _counterpart(field, other_doc, reference)
        if el is None:
            continue
        other_want = [adjust_click(el, field)]
        if field == "body":
            main = main_of.get(id(other_doc))
            other_want, _ = induce_body.story_selection(other_want[0], main)
            if main and not induce_body.covering([_value(field, other_want)], [main])[0][0]:
                continue  # nothing there is that page's article alone: the main-text extractor fills it, flagged
        rest = [d for d in sibling_docs if d is not other_doc] + [doc]
        rest_mains = [main_of.get(id(d)) or Counter() for d in rest[:-1]] + [Counter()] if mains else ()
        alt = _best(pages, field, other_want, other_doc, rest, _value(field, other_want), rest_mains, other_layout=True)
        if alt and all(r.selector != alt[0][2] for r in rules):
            rules.append(Rule(kind=alt[0][1], selector=alt[0][2], take=take_for(field, other_want[0])))
            if found is not None:
                found.append((rules[-1], Target(other_doc, other_want[0]), len(other_want)))
            notes.append(f"{field}: a sibling page has another layout: added fallback {alt[0][2]!r}")
    return rules, reference, failing


def _chain_values(pages, field, rules, docs) -> list[str]:
    out = []
    for doc in docs:
        for r in rules:
            v = _value(field, pages.select(r.kind, r.selector, doc))
            if v:
                out.append(v)
                break
    return out


def _clicked_element(pages, field: str, html: str, xpath: str, notes: list, site_has_tbody: bool):
    doc = pages.doc(html)
    el = locate(doc, xpath)
    if el is None:
        raise ValueError(f"the clicked element {xpath!r} is not in the page as lxml parses it")
    if not site_has_tbody:  # the browser's rows in <tbody>: the site's own HTML has none
        unwrap_tbody(doc)
    el = adjust_click(el, field)
    if field == "title":
        copy = _headline_copy(el, doc)
        if copy is not el:
            notes.append(f"title: the click picked the headline inside navigation ({element_xpath(el)}); "
                         f"the page's own copy of it is used ({element_xpath(copy)})")
            el = copy
    if field == "body":
        wider = bodyblocks.widen_paragraph_pick(el)
        if wider is not el:
            notes.append(f"body: the click picked one paragraph ({el.tag}); widened to the container "
                         f"that holds the article's paragraphs ({element_xpath(wider)})")
            el = wider
    return doc, el


def induce_profile(clicks: dict, siblings=(), name: str = "site", start_url: str = "http://127.0.0.1/",
                   notes: list | None = None) -> Profile:
    """A schema-2 profile from clicked examples ``{field: [(html, xpath)]}`` and unlabeled sibling pages.

    ``notes`` (optional list) receives one line per decision the user should see
    (a widened body pick, fallbacks added, blocks removed, pages the main-text extractor fills).
    Every clicked field gets a rule.
    """
    notes = notes if notes is not None else []
    pages = Pages()
    sibling_html = [h for h in siblings if h and h.strip()]
    sibling_docs = [pages.doc(h) for h in sibling_html]
    site_has_tbody = any(has_tbody(d) for d in sibling_docs)
    host = urlsplit(start_url).hostname or ""
    fields, chains, removes = {}, {}, []
    mains = None
    for field, pairs in clicks.items():
        if field not in FIELDS or not pairs:
            raise ValueError(f"induce_profile: unknown field {field!r} (known: {', '.join(FIELDS)})")
        html, xpath = pairs[0]
        doc, el = _clicked_element(pages, field, html, xpath, notes, site_has_tbody)
        want, field_mains = [el], ()
        if field == "body":
            want, _ = induce_body.whole_story(el, html, notes)
            mains = induce_body.sibling_mains(sibling_html, sibling_docs) if mains is None else mains
            field_mains = mains
        found: list = []
        rules, reference, _ = _induce_field(pages, field, want, doc, sibling_docs, notes, found, field_mains)
        if not rules and len(want) > 1:  # no rule takes the blocks: their parent holds the story
            want = [want[0].getparent()]
            rules, reference, _ = _induce_field(pages, field, want, doc, sibling_docs, notes, found, field_mains)
        if not rules:
            notes.append(f"{field}: no selector found")
            continue
        target = Target(doc, want[0])
        if field == "body":
            for block in want:
                removes += induce_body.refine(pages, rules[0], Target(doc, block), sibling_docs, notes)
            for rule, other, _ in found:
                removes += induce_body.refine(pages, rule, other, [d for d in [doc] + sibling_docs if d is not other.doc],
                                              notes)
            short = induce_body.coverage_note(rules, pages.select, sibling_docs, mains or ())
            if short:
                notes.append(short)
        values = _chain_values(pages, field, rules, [doc] + sibling_docs)
        known = [(d, _value(field, pages.select(rules[0].kind, rules[0].selector, d))) for d in sibling_docs]
        agreeing, anchors = _anchors_agreeing(field, doc, reference, known)
        anchor = ""
        if agreeing and field in ("title", "summary"):
            a = agreeing[0]
            anchor = f"{a.kind}:{a.selector}"
        # one container at authoring: the first match later (teaser cards follow it); a split story's blocks:
        # every match (per_page is the whole chain's: any split rule in it takes all)
        blocks = [len(want)] + [n for _, _, n in found]
        per_page = 1 if field != "body" or max(blocks) == 1 else (blocks[0] if len(set(blocks)) == 1 else 0)
        learned = [v for v in values if plausible(field, v, reference)] or [reference]
        if field == "body" and removes:  # the sizes the crawl will see: what the remove rules leave
            left = induce_body.values_after_removes(rules, removes, [doc] + sibling_docs,
                                                    lambda v, r, f=field: plausible(f, v, r))
            learned = [v for v in left if v] or learned
        expect = ContentProfile.learn(learned, field, anchor=anchor, per_page=per_page)
        fields[field] = rules[0]
        chains[field] = FieldChain(fallbacks=tuple(rules[1:]), anchors=tuple(anchors), expect=expect,
                                   fingerprint=fingerprint(target.el))
    return Profile(name=name, start_urls=(start_url,), allowed_domains=(host,) if host else (),
                   fields=fields, chains=chains, remove=tuple(removes))
