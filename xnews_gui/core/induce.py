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
4. Body: a click on one paragraph is widened to the article's container; share
   bars, related boxes, link-dense and repeated blocks inside it become
   ``remove`` rules. Each decision is written to ``notes``.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

from . import bodyblocks
from .candidates import _candidates, _Pages, _Target, _adjust, element_xpath, locate, take_for
from .chain import FieldChain
from .fingerprint import fingerprint
from .metadata import ANCHORS, learn_title_suffix
from .profile import FIELDS, Profile
from .rules import Rule, RuleError, element_text, normalize_space
from .verify import ContentProfile, agreement, words

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


def _nested(els: list) -> bool:
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


def _body_excess(els: list, reference: str) -> float:
    """0 when the matched elements say what the clicked container says, more when they add other text."""
    if _nested(els):
        return 8.0
    ratio = len(words(_value("body", els))) / max(1, len(words(reference)))
    return 0.0 if ratio <= 1.15 else min(8.0, 5.0 * (ratio - 1.0))


def _rank(pages: _Pages, field: str, target: _Target, sibling_docs: list, reference: str):
    """[(total cost, css, verdicts)] best first, for candidates right on the clicked page."""
    ranked = []
    anchor_values = [_page_anchors(field, d) for d in sibling_docs]
    for css, cost in _candidates(target.el):
        matched = pages.select("css", css, target.doc)
        if not matched or matched[0] is not target.el:
            continue
        if field == "body":
            penalty = _body_excess(matched, reference)
        else:
            penalty = 3.0 if len(matched) > 1 else 0.0
        selected = [pages.select("css", css, d) for d in sibling_docs]
        values = [_value(field, els) for els in selected]
        good, verdicts = _sibling_score(field, values, reference, anchor_values)
        if field == "body":  # one container on the clicked page: one on each sibling, never nested ones
            verdicts = [ok and not _nested(els) and (len(matched) > 1 or len(els) == 1)
                        for ok, els in zip(verdicts, selected)]
            good = sum(verdicts)
        else:  # the first of several matches is used: a little worse than exactly one
            penalty += 0.5 * sum(1 for els in selected if len(els) > 1)
        bad_share = 1.0 - good / len(sibling_docs) if sibling_docs else 0.0
        ranked.append((cost + penalty + 8.0 * bad_share, css, verdicts))
    ranked.sort(key=lambda x: (x[0], len(x[1])))
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
    tail the site appends (" - Section | Site") from ``known`` ``(doc, headline)``
    pairs of sibling pages plus the clicked page.
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
    return agree, agree + [r for r in rules if r not in agree]


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


def _induce_field(pages, field, target, sibling_docs, notes, found=None):
    reference = _value(field, [target.el])
    take = take_for(field, target.el)
    ranked = _rank(pages, field, target, sibling_docs, reference)
    if not ranked:
        return None, None, []
    _, css, verdicts = ranked[0]
    rules = [Rule(kind="css", selector=css, take=take, required=field in ("title", "body"))]
    failing = [d for d, ok in zip(sibling_docs, verdicts) if not ok]
    for doc in failing:
        if len(rules) > MAX_FALLBACKS:
            break
        if any(plausible(field, _value(field, pages.select(r.kind, r.selector, doc)), reference) for r in rules):
            continue
        el = _counterpart(field, doc, reference)
        if el is None:
            continue
        other = _Target(doc, _adjust(el, field))
        alt = _rank(pages, field, other, [d for d in sibling_docs if d is not doc] + [target.doc],
                    _value(field, [other.el]))
        if alt and all(r.selector != alt[0][1] for r in rules):
            rules.append(Rule(kind="css", selector=alt[0][1], take=take_for(field, other.el)))
            if found is not None:
                found.append((rules[-1], other))
            notes.append(f"{field}: a sibling page has another layout: added fallback {alt[0][1]!r}")
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


def _refine_body(pages, rule: Rule, target: _Target, sibling_docs, notes) -> list[Rule]:
    others = set()
    for doc in sibling_docs:
        for el in pages.select("css", rule.selector, doc)[:1]:
            for block in el.iterdescendants("div", "ul", "section", "table"):
                text = element_text(block)
                if len(text) >= 30:
                    others.add(text)
    removes, seen = [], set()
    holders = [target.el, *target.el.iterancestors()]  # live references: lxml proxies stay the same objects
    for block in bodyblocks.boilerplate_blocks(target.el, others):
        css = bodyblocks.block_selector(block, rule.selector)
        if not css or css in seen:
            continue
        try:
            Rule(kind="css", selector=css).check()
        except RuleError:
            continue
        # never remove the article itself: the rule must leave most paragraph text in place
        if any(b is h for b in pages.select("css", css, target.doc) for h in holders):
            continue
        seen.add(css)
        removes.append(Rule(kind="css", selector=css, take="html"))
    if removes:
        notes.append(f"body: {len(removes)} block(s) inside the container dropped (share/related/link-dense/repeated): "
                     + ", ".join(r.selector for r in removes[:6]))
    header = []
    for block in bodyblocks.header_blocks(target.el):
        css = bodyblocks.block_selector(block, rule.selector)
        if not css or css in seen or not _checks(css):
            continue
        # on every page, what it matches is short, holds no paragraph of article text, and is one or two
        # things (a dateline, a byline), not a run of paragraphs written as divs
        per_page = [pages.select("css", css, d) for d in [target.doc, *sibling_docs]]
        matched = [m for found in per_page for m in found]
        if any(len(found) > 2 for found in per_page) or any(m is h for m in matched for h in holders) or any(
                len(element_text(m)) > 2 * bodyblocks._HEADER_MAX or bodyblocks.paragraph_chars(m) for m in matched):
            continue
        seen.add(css)
        header.append(Rule(kind="css", selector=css, take="html"))
    if header:
        notes.append(f"body: {len(header)} short block(s) before the first paragraph dropped (dateline, byline, "
                     "kicker): " + ", ".join(r.selector for r in header[:6]))
    return removes + header


def _checks(css: str) -> bool:
    try:
        Rule(kind="css", selector=css).check()
    except RuleError:
        return False
    return True


def induce_profile(clicks: dict, siblings=(), name: str = "site", start_url: str = "http://127.0.0.1/",
                   notes: list | None = None) -> Profile:
    """A schema-2 profile from clicked examples ``{field: [(html, xpath)]}`` and unlabeled sibling pages.

    ``notes`` (optional list) receives one line per decision the user should see
    (a widened body pick, fallbacks added, blocks removed).
    """
    notes = notes if notes is not None else []
    pages = _Pages()
    sibling_docs = [pages.doc(h) for h in siblings if h and h.strip()]
    host = urlsplit(start_url).hostname or ""
    fields, chains, removes = {}, {}, []
    for field, pairs in clicks.items():
        if field not in FIELDS or not pairs:
            raise ValueError(f"induce_profile: unknown field {field!r} (known: {', '.join(FIELDS)})")
        html, xpath = pairs[0]
        doc = pages.doc(html)
        el = locate(doc, xpath)
        if el is None:
            raise ValueError(f"the clicked element {xpath!r} is not in the page as lxml parses it")
        el = _adjust(el, field)
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
        target = _Target(doc, el)
        found: list = []
        rules, reference, _ = _induce_field(pages, field, target, sibling_docs, notes, found)
        if not rules:
            notes.append(f"{field}: no selector found")
            continue
        if field == "body":
            removes += _refine_body(pages, rules[0], target, sibling_docs, notes)
            for rule, other in found:
                removes += _refine_body(pages, rule, other, [d for d in [doc] + sibling_docs if d is not other.doc],
                                        notes)
        values = _chain_values(pages, field, rules, [doc] + sibling_docs)
        known = [(d, _value(field, pages.select(rules[0].kind, rules[0].selector, d))) for d in sibling_docs]
        agreeing, anchors = _anchors_agreeing(field, doc, reference, known)
        anchor = ""
        if agreeing and field in ("title", "summary"):
            a = agreeing[0]
            anchor = f"{a.kind}:{a.selector}"
        per_page = len(pages.select("css", rules[0].selector, doc)) if field == "body" else 1
        expect = ContentProfile.learn([v for v in values if plausible(field, v, reference)] or [reference],
                                      field, anchor=anchor, per_page=per_page)
        fields[field] = rules[0]
        chains[field] = FieldChain(fallbacks=tuple(rules[1:]), anchors=tuple(anchors), expect=expect,
                                   fingerprint=fingerprint(el))
    return Profile(name=name, start_urls=(start_url,), allowed_domains=(host,) if host else (),
                   fields=fields, chains=chains, remove=tuple(removes))
