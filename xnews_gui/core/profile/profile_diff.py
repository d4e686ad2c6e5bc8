"""What changed between two versions of a profile, said field by field and rule by rule.

    for change in diff_profiles(old, new):        # dicts from Profile.to_dict() (or profiles)
        print(change.where, change.text)          # "body", "rule 1: css 'div.story' (html) -> css 'div.text' (html)"

A raw JSON diff tells a user that line 14 changed; this tells them that the body's
first rule now selects another element, that a fallback was added, or that the
crawl delay went from 0.5 s to 1 s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

FIELD_ORDER = ("title", "summary", "image", "body", "author", "date")
SECTIONS = (  # top-level keys, in the order a person reads a profile, with their readable names
    ("name", "name"), ("description", "description"), ("start_urls", "start pages"),
    ("allowed_domains", "allowed domains"), ("discovery", "discovery"), ("sitemaps", "sitemaps"),
    ("feeds", "feeds"), ("render", "rendering"), ("remove", "removed blocks"), ("crawl", "crawl settings"),
    ("topics", "section topics"), ("self_test", "self-test"),
)
MAX_TEXT = 160


@dataclass(frozen=True)
class Change:
    where: str  # "body", "article links", "crawl settings", ...
    text: str  # one readable line
    before: str = ""  # for a replaced value: the old and the new, as in ``text`` (the GUI colours them)
    after: str = ""
    label: str = ""  # what was replaced ("rule 1", "delay_s")

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def _short(value, limit: int = MAX_TEXT) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def describe_rule(rule: dict) -> str:
    """One rule as a person reads it: css 'h1.title' (text), markers '<div a>'…'</div>' (html), + post/required."""
    if not isinstance(rule, dict):
        return _short(rule)
    kind = rule.get("kind", "?")
    if kind == "markers":
        start = " | ".join(rule.get("start") or [])
        end = " | ".join(rule.get("end") or [])
        text = f"markers {_short(start, 60)!r}\u2026{_short(end, 60)!r}"
    else:
        text = f"{kind} {_short(rule.get('selector', ''), 100)!r}"
    if rule.get("take"):
        text += f" ({rule['take']})"
    if rule.get("post"):
        text += f", then {_short(rule['post'], 60)!r}"
    if rule.get("required"):
        text += ", required"
    return text


def _field_parts(raw) -> dict:
    """A field (bare rule or schema-2 chain) -> {'rules': [...], 'anchors': [...], 'expect': ..., 'fingerprint': ...}."""
    if not isinstance(raw, dict):
        return {"rules": [], "anchors": []}
    if "rules" not in raw:
        return {"rules": [raw], "anchors": []}
    return {"rules": list(raw.get("rules") or []), "anchors": list(raw.get("anchors") or []),
            "expect": raw.get("expect"), "fingerprint": raw.get("fingerprint")}


def _rule_list_changes(where: str, label: str, old: list, new: list) -> list[Change]:
    out = []
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else None
        b = new[i] if i < len(new) else None
        if a == b:
            continue
        n = f"{label} {i + 1}"
        if a is None:
            out.append(Change(where, f"{n} added: {describe_rule(b)}"))
        elif b is None:
            out.append(Change(where, f"{n} removed: {describe_rule(a)}"))
        else:
            before, after = describe_rule(a), describe_rule(b)
            out.append(Change(where, f"{n}: {before} \u2192 {after}", before, after, n))
    return out


def _expect_text(expect) -> str:
    if not isinstance(expect, dict):
        return "none"
    parts = []
    if "chars" in expect:
        parts.append(f"{expect['chars'][0]}-{expect['chars'][1]} characters")
    if "words" in expect:
        parts.append(f"{expect['words'][0]}-{expect['words'][1]} words")
    if expect.get("anchor"):
        parts.append(f"agrees with {expect['anchor']}")
    return ", ".join(parts) or _short(expect)


def field_changes(name: str, old, new) -> list[Change]:
    if old == new:
        return []
    if old is None:
        return [Change(name, f"field added: {describe_rule(_field_parts(new)['rules'][0]) if _field_parts(new)['rules'] else _short(new)}")]
    if new is None:
        return [Change(name, "field removed (it was " + (describe_rule(_field_parts(old)["rules"][0])
                                                         if _field_parts(old)["rules"] else _short(old)) + ")")]
    a, b = _field_parts(old), _field_parts(new)
    out = _rule_list_changes(name, "rule", a["rules"], b["rules"])
    out += _rule_list_changes(name, "metadata anchor", a["anchors"], b["anchors"])
    if a.get("expect") != b.get("expect"):
        out.append(Change(name, f"expected values: {_expect_text(a.get('expect'))} \u2192 {_expect_text(b.get('expect'))}"))
    if a.get("fingerprint") != b.get("fingerprint"):
        out.append(Change(name, "element fingerprint " + ("added" if not a.get("fingerprint") else
                                                         "removed" if not b.get("fingerprint") else "changed")))
    return out or [Change(name, f"{_short(old)} \u2192 {_short(new)}")]


def _link_changes(label: str, old, new) -> list[Change]:
    if old == new:
        return []
    if not old:
        return [Change(label, f"added: {describe_rule(new)}")]
    if not new:
        return [Change(label, f"removed (was {describe_rule(old)})")]
    out = []
    if {k: old.get(k) for k in ("kind", "selector", "take")} != {k: new.get(k) for k in ("kind", "selector", "take")}:
        out.append(Change(label, f"{describe_rule(old)} \u2192 {describe_rule(new)}"))
    for key in ("allow", "deny"):
        if old.get(key) != new.get(key):
            out.append(Change(label, f"{key} {_short(old.get(key) or [])} \u2192 {_short(new.get(key) or [])}"))
    return out or [Change(label, f"{_short(old)} \u2192 {_short(new)}")]


def _dict_changes(label: str, old, new) -> list[Change]:
    """crawl settings and the like: one change per key."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in list(old) + [k for k in new if k not in old]:
            if old.get(key) != new.get(key):
                before = _short(old[key]) if key in old else "(not set)"
                after = _short(new[key]) if key in new else "(not set)"
                out.append(Change(label, f"{key}: {before} \u2192 {after}", before, after, key))
        return out
    return [Change(label, f"{_short(old) if old is not None else '(none)'} \u2192 {_short(new) if new is not None else '(none)'}")]


def diff_profiles(old, new) -> list[Change]:
    """The changes from ``old`` to ``new`` (Profile objects or their dicts); empty when they are the same."""
    old = old.to_dict() if hasattr(old, "to_dict") else dict(old or {})
    new = new.to_dict() if hasattr(new, "to_dict") else dict(new or {})
    out: list[Change] = []
    old_fields, new_fields = old.get("fields") or {}, new.get("fields") or {}
    names = [f for f in FIELD_ORDER if f in old_fields or f in new_fields]
    names += [f for f in list(old_fields) + list(new_fields) if f not in names]
    for name in dict.fromkeys(names):
        out += field_changes(name, old_fields.get(name), new_fields.get(name))
    old_links, new_links = old.get("links") or {}, new.get("links") or {}
    out += _link_changes("article links", old_links.get("articles"), new_links.get("articles"))
    out += _link_changes("section links", old_links.get("lists"), new_links.get("lists"))
    for key, label in SECTIONS:
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key == "remove":
            out += _rule_list_changes(label, "block", list(a or []), list(b or []))
        elif isinstance(a, list) or isinstance(b, list):
            gone = [x for x in (a or []) if x not in (b or [])]
            added = [x for x in (b or []) if x not in (a or [])]
            text = "; ".join(filter(None, [f"added {_short(added)}" if added else "",
                                           f"removed {_short(gone)}" if gone else ""])) or "reordered"
            out.append(Change(label, text))
        else:
            out += _dict_changes(label, a, b)
    return out
