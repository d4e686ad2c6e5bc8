"""A profile field in schema 2: an ordered chain of rules plus what its values should look like.

JSON shape of one field (README, "Profile format")::

    "title": {"rules": [{"kind": "css", "selector": "h1.headline", "take": "text", "required": true},
                        {"kind": "css", "selector": "h1.story-title", "take": "text"}],
              "anchors": [{"kind": "jsonld", "selector": "headline"}],
              "expect": {"chars": [12, 400], "words": [2, 60], "digits": 0.3, "punct": 0.2, "per_page": 1},
              "fingerprint": {"tag": "h1", "classes": ["headline"], ...}}

The first rule whose value is plausible wins; anchors (page metadata) come last
and also cross-check. A bare rule object (as in schema 1) is a one-rule chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import Rule, RuleError
from .verify import ContentProfile

MAX_CHAIN = 12
# what ``induction.fingerprint`` records of the element a field was picked on
FINGERPRINT_KEYS = {"tag", "id", "classes", "path", "parent", "siblings", "words"}


@dataclass(frozen=True)
class FieldChain:
    """Everything of a field beyond its first rule (kept in ``Profile.chains``)."""

    fallbacks: tuple[Rule, ...] = ()
    anchors: tuple[Rule, ...] = ()
    expect: ContentProfile | None = None
    fingerprint: dict | None = field(default=None, compare=False, hash=False)

    @property
    def empty(self) -> bool:
        return not (self.fallbacks or self.anchors or self.expect or self.fingerprint)


def field_to_dict(rule: Rule, chain: FieldChain | None) -> dict:
    """A one-rule field is written as that rule (readable, and as a schema-1 reader wrote it)."""
    if chain is None or chain.empty:
        return rule.to_dict()
    out: dict = {"rules": [rule.to_dict()]}
    out["rules"] += [r.to_dict() for r in chain.fallbacks]
    if chain.anchors:
        out["anchors"] = [r.to_dict() for r in chain.anchors]
    if chain.expect:
        out["expect"] = chain.expect.to_dict()
    if chain.fingerprint:
        out["fingerprint"] = dict(chain.fingerprint)
    return out


def field_from_dict(raw, where: str) -> tuple[Rule, FieldChain | None]:
    """(first rule, the rest) from a schema-2 field or a bare schema-1 rule."""
    if not isinstance(raw, dict):
        raise RuleError(f"{where}: expected an object")
    if "rules" not in raw:
        return Rule.from_dict(raw, where), None
    unknown = set(raw) - {"rules", "anchors", "expect", "fingerprint"}
    if unknown:
        raise RuleError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    rules = raw["rules"]
    if not isinstance(rules, list) or not rules:
        raise RuleError(f"{where}.rules: expected a non-empty list of rules")
    if len(rules) > MAX_CHAIN:
        raise RuleError(f"{where}.rules: at most {MAX_CHAIN} rules")
    parsed = [Rule.from_dict(r, f"{where}.rules[{i}]") for i, r in enumerate(rules)]
    anchors = raw.get("anchors", [])
    if not isinstance(anchors, list) or len(anchors) > MAX_CHAIN:
        raise RuleError(f"{where}.anchors: expected a list of at most {MAX_CHAIN} rules")
    anchor_rules = tuple(Rule.from_dict(r, f"{where}.anchors[{i}]") for i, r in enumerate(anchors))
    try:
        expect = ContentProfile.from_dict(raw["expect"], f"{where}.expect") if "expect" in raw else None
        fp = check_fingerprint(raw["fingerprint"], f"{where}.fingerprint") if "fingerprint" in raw else None
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    chain = FieldChain(fallbacks=tuple(parsed[1:]), anchors=anchor_rules, expect=expect, fingerprint=fp)
    return parsed[0], (None if chain.empty else chain)


def check_fingerprint(data, where: str) -> dict:
    if not isinstance(data, dict) or set(data) - FINGERPRINT_KEYS:
        raise ValueError(f"{where}: expected an object with keys {', '.join(sorted(FINGERPRINT_KEYS))}")
    return data
