"""A field's chain made of several clicks: a click on a page of another layout adds a rule, it never
replaces the rules that work elsewhere.

Each clicked page says what the field is there (``want``). A new rule goes where every clicked page still
gets its own value: after the chain's rules, or before them when a rule of the chain gives that page
something else (the chain is tried in order; the first whole value wins).
"""

from __future__ import annotations

from collections import Counter

from ..profile.chain import FieldChain
from ..extraction.extract import extract
from ..profile.profile import Profile
from ..profile.rules import Rule
from ..text.text import normalize_space
from ..profile.verify import ContentProfile, words

Page = tuple  # (html, url, want): a clicked page and the field's value there


def value_with(field: str, rules: list[Rule], anchors: tuple, html: str, url: str) -> str:
    """The field's value on a page with these rules in this order (extraction as a crawl does it)."""
    if not rules:
        return ""
    chain = FieldChain(fallbacks=tuple(r.with_(required=False) for r in rules[1:]), anchors=anchors)
    profile = Profile(name="alternatives", start_urls=(url,), fields={field: rules[0]},
                      chains={field: chain} if not chain.empty else {})
    return extract(html, url, profile).value(field)


def gives(field: str, value: str, want: str) -> bool:
    """The value is what the clicked page says the field is (a body may hold more than the clicked part)."""
    if not value or not want:
        return False
    if field != "body":
        a, b = normalize_space(value), normalize_space(want)
        return a == b or (b in a and len(a) <= 2 * len(b) + 20)
    got, wanted = Counter(words(value)), Counter(words(want))
    return sum((got & wanted).values()) >= 0.9 * sum(wanted.values())


def place(field: str, rules: list[Rule], new: Rule, pages: list[Page], anchors: tuple = ()) -> tuple[list[Rule], bool]:
    """(the chain's rules with ``new`` in, whether it went first): the order that gives more clicked pages
    their own value; after the others when both orders do as well."""
    if any(r.with_(required=False) == new.with_(required=False) for r in rules):
        return list(rules), False
    after, first = list(rules) + [new], [new] + list(rules)

    def right(order) -> int:
        return sum(gives(field, value_with(field, order, anchors, html, url), want) for html, url, want in pages)

    return (first, True) if right(first) > right(after) else (after, False)


def merge_expect(a: ContentProfile | None, b: ContentProfile | None) -> ContentProfile | None:
    """One content profile for values of several layouts: the widest ranges of both."""
    if a is None or b is None:
        return a or b
    return ContentProfile(chars=(min(a.chars[0], b.chars[0]), max(a.chars[1], b.chars[1])),
                          words=(min(a.words[0], b.words[0]), max(a.words[1], b.words[1])),
                          digits=max(a.digits, b.digits), punct=max(a.punct, b.punct),
                          per_page=a.per_page if a.per_page == b.per_page else 0, anchor=a.anchor or b.anchor)
