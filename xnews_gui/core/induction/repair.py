"""A repaired rule for a degraded field, proposed for the user to accept (never applied silently).

Candidates, in order: the field's next alternatives (its chain's later rules and
metadata anchors), the element of a failing page most like the fingerprint
taken at authoring (induced into a rule), and every metadata anchor of the
field. The candidate whose values fit the field's content profile on the most
failing pages wins; ``before`` / ``after`` show the values on those pages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .candidates import element_xpath
from ..extraction.extract import extract
from .fingerprint import best_match
from ..extraction.metadata import ANCHORS
from ..profile.profile import Profile
from ..profile.rules import Rule, RuleError, parse_html


@dataclass
class Repair:
    field: str
    rule: Rule
    source: str  # "chain" | "fingerprint" | "metadata"
    fixed: int  # failing pages whose value now fits
    pages: int
    before: list = field(default_factory=list)  # (url, old value)
    after: list = field(default_factory=list)  # (url, new value)
    remove: tuple = ()  # a repaired body's own boilerplate blocks (share bars...), learned from the failing pages

    def apply(self, profile: Profile) -> Profile:
        """The profile with the repaired rule first in the field's chain (the old rules follow)."""
        from ..profile.chain import FieldChain

        if self.remove:
            profile = profile.with_(remove=profile.remove + tuple(r for r in self.remove if r not in profile.remove))

        chain = profile.chains.get(self.field) or FieldChain()
        old = [r for r in profile.rules_for(self.field) if r not in chain.anchors and r != self.rule]
        rule = self.rule.with_(required=old[0].required if old else self.rule.required)
        new_chain = FieldChain(fallbacks=tuple(r.with_(required=False) for r in old)[:11], anchors=chain.anchors,
                               expect=chain.expect, fingerprint=chain.fingerprint)
        return profile.with_field(self.field, rule, new_chain)


def propose_repair(profile: Profile, name: str, failing: list[tuple[str, str]]) -> Repair | None:
    """The best repair for field ``name`` over failing pages ``[(html, url)]``, or None."""
    from .selectors import induce

    if not failing:
        return None
    chain = profile.chains.get(name)
    expect = chain.expect if chain else None
    docs = [(parse_html(html, url), html, url) for html, url in failing]
    candidates: list[tuple[Rule, str]] = [(r, "chain") for r in profile.rules_for(name)[1:]]
    if chain and chain.fingerprint:
        for doc, html, url in docs[:3]:
            el = best_match(chain.fingerprint, doc, minimum=0.35, any_tag=True)
            if el is None:
                continue
            try:
                for rule in induce([(html, element_xpath(el))], field=name)[:3]:
                    candidates.append((rule.with_(score=0.0, note=""), "fingerprint"))
            except ValueError:
                continue
    candidates += [(r, "metadata") for r in ANCHORS.get(name, ())]
    before = [(url, extract(html, url, profile).value(name)) for html, url in failing]
    best = None
    seen = set()
    for rule, source in candidates:
        if rule in seen:
            continue
        seen.add(rule)
        values = []
        for doc, html, url in docs:
            try:
                got = next((v for v in rule.apply(doc if rule.kind in ("css", "xpath", "jsonld") else html, url) if v), "")
            except RuleError:
                got = ""
            values.append((url, got))
        fixed = sum(1 for _, v in values if v and not (expect.problems(v) if expect else []))
        if _same_everywhere(name, [v for _, v in values]):
            fixed = 0  # a logo, a site name, a boilerplate block: not this page's value
        if name == "image" and rule.kind in ("css", "xpath") and _decorative(rule, docs):
            fixed = 0  # an author's avatar, an icon: never the story's picture
        if fixed and (best is None or fixed > best.fixed):
            best = Repair(name, rule, source, fixed, len(failing), before, values)
    if best is not None and name == "body" and best.rule.kind == "css":
        best.remove = _body_removes(best.rule, [html for _, html, _ in docs])
    return best


_DECORATIVE = re.compile(r"avatar|gravatar|logo|icon|sprite|badge|emoji|spacer|pixel|author|profile-pic", re.I)
SMALL_IMAGE = 64  # pixels: an image its page draws this small (width or height attribute) is no story picture


def _decorative(rule: Rule, docs) -> bool:
    """The rule's first image on a failing page looks like decoration: a small one, or one whose class, id,
    address or alternative text says avatar, logo, icon..."""
    for doc, _html, _url in docs:
        try:
            found = rule.select(doc)[:1]
        except RuleError:
            continue
        for el in found:
            img = el if el.tag == "img" else next(el.iter("img"), None)
            if img is None:
                continue
            sizes = [img.get(a, "") for a in ("width", "height")]
            if any(s.isdigit() and int(s) <= SMALL_IMAGE for s in sizes):
                return True
            if _DECORATIVE.search(" ".join(img.get(a, "") for a in ("class", "id", "src", "alt"))):
                return True
    return False


def _same_everywhere(name: str, values: list[str]) -> bool:
    """One value on every failing page (2+) for a field that differs from article to article."""
    got = [v for v in values if v]
    return name in ("title", "summary", "image", "body") and len(got) >= 2 and len(set(got)) == 1


def _body_removes(rule: Rule, pages_html: list[str]) -> tuple:
    """Remove rules inside the repaired body container, as induction learns them (the first failing page is
    the example, the others its siblings)."""
    from .candidates import Pages, Target
    from .induce_body import refine

    pages = Pages()
    docs = [pages.doc(h) for h in pages_html]
    found = pages.select(rule.kind, rule.selector, docs[0])
    if not found:
        return ()
    return tuple(refine(pages, rule, Target(docs[0], found[0]), docs[1:], []))
