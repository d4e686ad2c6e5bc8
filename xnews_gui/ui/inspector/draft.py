"""The profile being built: clicks in, rules out, and the checks the panel shows. No Qt here."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ...core.induction.alternatives import place
from ...core.profile.chain import FieldChain
from ...core.profile.profile import FIELDS, LinkRule, Profile
from ...core.profile.profile_settings import SelfTest
from ...core.profile.rules import Rule, RuleError, css_to_xpath, element_text, parse_html
from ...core.induction.selectors import induce, induce_links, locate
from ...core.text.urls import in_scope

# (key, toolbar label); "articles" and "sections"/"next" become the profile's link rules
PICK_FIELDS = (
    ("articles", "Article links"), ("sections", "Section links"), ("next", "Next page"), ("title", "Title"),
    ("summary", "Summary"), ("image", "Image"), ("body", "Body"), ("author", "Author"), ("date", "Date"),
    ("remove", "Remove"),
)
LABELS = {**dict(PICK_FIELDS), "more": "Load more"}  # "more": ui/inspector/load_more.py's pick
SINGLE = {"next", "title", "summary", "image", "body", "author", "date"}
LIST_PARTS = ("sections", "next")  # the profile's one list-link rule is their union


@dataclass(frozen=True)
class PickJob:
    """What a worker needs to induce one key's rule: a snapshot, so the draft may change meanwhile."""

    key: str
    generation: int
    positives: tuple  # ((html, xpath), ...)
    negatives: tuple
    # "rule" | "alternative" (a click on another page of a field with rules) | "chain-refine" (a match of
    # one of a field's rules rejected: that rule only) | "remove-add" | "remove-refine"
    mode: str = "rule"
    added: tuple = ()  # the click this job is for: (url, html, xpath)
    negative: bool = False
    rules: tuple = ()  # "alternative": the field's rules at the snapshot, tried in this order
    anchors: tuple = ()  # ... and its metadata anchors
    pages: tuple = ()  # ... and every clicked page of the field: ((html, url, the clicked value), ...)
    index: int = -1  # "chain-refine": the rule of ``rules`` refined


def induce_job(job: PickJob) -> list:
    """The ranked candidates for the job's key (runs in a worker; no draft is touched)."""
    if job.mode == "alternative":  # this page's own rule: the others stay for their pages
        return induce(list(job.positives), field=job.key)
    if job.key == "articles":
        return induce_links(job.positives, job.negatives)
    if job.key == "sections":  # a menu: a bare "a" catches every link of the page, never what was meant
        rules = induce(list(job.positives), list(job.negatives), field="lists")
        return [r for r in rules if not re.fullmatch(r"[a-z]+", r.selector)] or rules
    return induce(list(job.positives), list(job.negatives), field=job.key)


def takes(rule: Rule, html: str, xpath: str) -> bool:
    """Whether ``rule`` matches the element at ``xpath`` on the page (any of its matches)."""
    if rule.kind not in ("css", "xpath"):
        return False
    doc = parse_html(html)
    element = locate(doc, xpath)
    try:
        return element is not None and any(match is element for match in rule.select(doc))
    except RuleError:
        return False


def clicked_value(key: str, html: str, xpath: str) -> str:
    """What a click says the field is on its page: the clicked element's text ("" if it is gone)."""
    el = locate(parse_html(html), xpath)
    return element_text(el) if el is not None else ""


def alternative_order(job: PickJob, candidates: list) -> list[Rule]:
    """The field's rules with the new click's rule where every clicked page gets its own value (a worker
    calls it; ``Draft.apply_induced`` does when it is not given)."""
    return place(job.key, list(job.rules), candidates[0], list(job.pages), job.anchors)[0]


@dataclass
class Draft:
    """Clicked examples per field and the profile they produce.

    Clicks are recorded here on the GUI thread (``add_pick`` returns a ``PickJob``); a worker
    induces the rule; ``apply_induced`` puts it into the draft as it is *then*: changes made
    meanwhile to other keys stay, and a result older than the key's last change is dropped.
    """

    profile: Profile
    examples: dict = field(default_factory=dict)  # key -> [(url, html, xpath)]
    negatives: dict = field(default_factory=dict)
    list_url: str = ""  # the list page the article links were picked on
    list_parts: dict = field(default_factory=dict)  # "sections"/"next" -> Rule
    generations: dict = field(default_factory=dict)  # key -> count of changes
    picked: set = field(default_factory=set)  # fields whose rule came from clicks (learned again at Save)
    learned: dict = field(default_factory=dict)  # field -> generation its rule was learned from the site at
    learned_remove: tuple = ()  # the remove rules that learning added (replaced when learned again)
    dropped_remove: tuple = ()  # remove rules the person deleted: learning does not add them again

    def __post_init__(self) -> None:
        if self.profile.lists is not None and not self.list_parts:
            self.list_parts = _split_lists(self.profile.lists)

    @classmethod
    def new(cls, name: str, url: str) -> "Draft":
        host = urlsplit(url).hostname or ""
        return cls(Profile(name=name, start_urls=(url,) if url else (), allowed_domains=(host,) if host else ()))

    def with_self_test(self, profile: Profile) -> Profile:
        """``profile`` as Save stores it: one made by clicking gets a self-test (``profiles check NAME`` runs it),
        the article page its title was clicked on, with the title and the body required there."""
        if profile.self_test is not None or not {"title", "body"} <= set(profile.fields):
            return profile
        url = next((u for u, _, _ in self.examples.get("title") or () if u.startswith(("http://", "https://"))), "")
        return profile.with_(self_test=SelfTest(url=url, expect={"title": "required", "body": "required"})) \
            if url else profile

    def saved(self, profile: Profile) -> None:
        """The profile was stored: the self-test Save gave it joins the draft (not an edit to save again)."""
        if profile.self_test is not None and self.profile.self_test is None and self.profile.name == profile.name:
            self.profile = self.profile.with_(self_test=profile.self_test)

    # --- clicks -> rules ------------------------------------------------------
    def add_pick(self, key: str, url: str, html: str, xpath: str, negative: bool) -> PickJob | None:
        """Record a click; the job to induce from (None: nothing to induce yet)."""
        bucket = self.negatives if negative else self.examples
        pairs = bucket.setdefault(key, [])
        if not negative and key in SINGLE:
            pairs[:] = [p for p in pairs if p[0] != url]  # one element per page for single fields
        click = (url, html, xpath)
        pairs.append(click)
        if key == "articles" and not negative:
            self.list_url = url
        if key == "remove":
            if not negative:  # every removal pick adds a rule of its own
                return PickJob(key, self.generations.get(key, 0), ((html, xpath),), (), "remove-add", click)
            if not self.profile.remove or not self.examples.get("remove"):
                return None
            last = self.examples["remove"][-1]
            return PickJob(key, self._bump(key), ((last[1], last[2]),),
                           tuple((h, x) for _, h, x in self.negatives["remove"]), "remove-refine", click, True)
        if not self.examples.get(key):
            return None
        if negative and key in FIELDS and len(self._rules_of(key)) > 1:
            return self._refine_in_chain(key, click)
        if key in FIELDS and not negative and self.profile.fields.get(key) is not None and len(pairs) > 1:
            # a click on another page of a field that has rules: an alternative for that page's layout
            return PickJob(key, self._bump(key), ((html, xpath),), (), "alternative", click,
                           rules=tuple(self._rules_of(key)), anchors=self._anchors_of(key),
                           pages=tuple((h, u, clicked_value(key, h, x)) for u, h, x in pairs))
        return PickJob(key, self._bump(key), tuple((h, x) for _, h, x in self.examples[key]),
                       tuple((h, x) for _, h, x in self.negatives.get(key, [])), added=click, negative=negative)

    def _refine_in_chain(self, key: str, click: tuple) -> PickJob | None:
        """A rejected match of a field with a chain: the rule that took it is learnt again from the clicks it
        takes and the rejections; the chain's other rules, for other layouts, stay."""
        rules = self._rules_of(key)
        index = next((i for i, rule in enumerate(rules) if takes(rule, click[1], click[2])), None)
        if index is None:
            return None  # none of its rules takes the element: nothing to refine
        positives = tuple((h, x) for _, h, x in self.examples.get(key, []) if takes(rules[index], h, x))
        if not positives:
            return None
        return PickJob(key, self._bump(key), positives, tuple((h, x) for _, h, x in self.negatives[key]),
                       "chain-refine", click, True, rules=tuple(rules), anchors=self._anchors_of(key), index=index)

    def _rules_of(self, key: str) -> list[Rule]:
        first, chain = self.profile.fields.get(key), self.profile.chains.get(key)
        return ([first] if first else []) + list(chain.fallbacks if chain else ())

    def _anchors_of(self, key: str) -> tuple:
        chain = self.profile.chains.get(key)
        return chain.anchors if chain else ()

    def forget(self, job: PickJob) -> None:
        """Drop the click a job was made for (its induction failed)."""
        pairs = (self.negatives if job.negative else self.examples).get(job.key, [])
        if job.added in pairs:
            pairs.remove(job.added)

    def apply_induced(self, job: PickJob, candidates: list, order: list | None = None) -> list[Rule] | None:
        """Put the best candidate in; the candidates as rules, or None when the job is stale. An
        "alternative" goes into the field's chain in ``order`` (``alternative_order``: computed here if not
        given)."""
        if job.mode != "remove-add" and self.generations.get(job.key, 0) != job.generation:
            return None  # the key changed since (a newer pick or a hand edit): that one wins
        if job.key == "articles":
            if candidates:
                self.profile = self.profile.with_(articles=candidates[0])
            return [r.as_rule().with_(note=_link_note(r)) for r in candidates]
        if candidates and job.mode == "chain-refine":
            rules = list(job.rules)
            rules[job.index] = candidates[0]
            self._put_chain(job.key, rules, job.anchors)
            self.picked.add(job.key)
            return candidates
        if candidates and job.mode == "alternative":
            order = order if order is not None else alternative_order(job, candidates)
            self._put_chain(job.key, order, job.anchors)
            self.picked.add(job.key)
            return candidates
        if candidates:
            if job.mode == "remove-add":
                self.profile = self.profile.with_(remove=self.profile.remove + (candidates[0],))
            elif job.mode == "remove-refine":
                if self.profile.remove:
                    self.profile = self.profile.with_(remove=self.profile.remove[:-1] + (candidates[0],))
            else:
                self._put(job.key, candidates[0])
                if job.key in FIELDS:
                    self.picked.add(job.key)
        return candidates

    def _put_chain(self, key: str, rules: list[Rule], anchors: tuple) -> None:
        """The field's rules as a chain (what it looks like is learned again at Save, from all of them)."""
        old = self.profile.chains.get(key)
        first = rules[0].with_(required=key in ("title", "body"))
        chain = FieldChain(fallbacks=tuple(r.with_(required=False) for r in rules[1:]), anchors=anchors,
                           fingerprint=old.fingerprint if old else None)
        self.profile = self.profile.with_field(key, first, chain)

    def _bump(self, key: str) -> int:
        self.generations[key] = self.generations.get(key, 0) + 1
        return self.generations[key]

    def set_rule(self, key: str, rule: Rule | None) -> None:
        """Put a rule (a suggestion or a hand edit) into the profile; an induction in flight for
        the same key is then dropped when it comes back."""
        self._bump(key)
        self.picked.discard(key)
        self._put(key, rule)

    def delete(self, key: str) -> None:
        """Drop a rule and the clicks it was learnt from (Save learns the picked fields again from them)."""
        if key.startswith("remove:"):
            rule = self.profile.remove[int(key.split(":", 1)[1])]
            self.dropped_remove += (rule,)  # a rule Save's learning made: it does not come back at the next Save
            self.set_remove(int(key.split(":", 1)[1]), None)
            return
        self.examples.pop(key, None)
        self.negatives.pop(key, None)
        self.set_rule(key, None)

    def accept_repair(self, key: str, profile: Profile) -> None:
        """A repaired profile accepted for field ``key``: the old clicks no longer make its rule."""
        self._bump(key)
        self.picked.discard(key)
        self.profile = profile

    def _put(self, key: str, rule: Rule | None) -> None:
        p = self.profile
        if key == "articles":  # a hand edit of the selector: the URL patterns stay
            kept = p.articles or LinkRule()
            self.profile = p.with_(articles=None if rule is None else LinkRule(
                kind=rule.kind, selector=rule.selector, allow=kept.allow, deny=kept.deny))
        elif key in LIST_PARTS:
            if rule is None:
                self.list_parts.pop(key, None)
            else:
                self.list_parts[key] = rule
            self.profile = p.with_(lists=_join_lists(self.list_parts, p.lists))
        elif key in FIELDS:
            self.profile = p.with_field(key, rule)
        else:
            raise KeyError(key)

    def set_remove(self, index: int, rule: Rule | None) -> None:
        self._bump("remove")
        remove = list(self.profile.remove)
        if rule is None:
            del remove[index]
        else:
            remove[index] = rule
        self.profile = self.profile.with_(remove=tuple(remove))

    def set_start_urls(self, urls: list[str]) -> None:
        """The crawl's start pages (the scope follows their hosts when none was set)."""
        urls = tuple(dict.fromkeys(u.strip() for u in urls if u.strip()))
        hosts = tuple(dict.fromkeys(h for h in (urlsplit(u).hostname for u in urls) if h))
        domains = self.profile.allowed_domains or hosts
        missing = tuple(h for h in hosts if not in_scope(f"http://{h}/", domains))
        self.profile = self.profile.with_(start_urls=urls, allowed_domains=domains + missing)

    def rule_for(self, key: str) -> Rule | None:
        p = self.profile
        if key == "articles":
            return p.articles.as_rule() if p.articles and p.articles.selector else None
        if key in LIST_PARTS:
            return self.list_parts.get(key)
        if key.startswith("remove:"):
            i = int(key.split(":", 1)[1])
            return p.remove[i] if i < len(p.remove) else None
        return p.fields.get(key)

    def rows(self) -> list[str]:
        """Keys of the rules the panel lists, in toolbar order."""
        keys = [k for k, _ in PICK_FIELDS if k != "remove" and self.rule_for(k) is not None]
        keys += [f"remove:{i}" for i in range(len(self.profile.remove))]
        return keys


def _split_top_level(selector: str, sep: str) -> list[str]:
    """Split a selector union at ``sep`` outside brackets, parentheses and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    i = 0
    while i < len(selector):
        ch = selector[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif depth == 0 and selector.startswith(sep, i):
            parts.append(selector[start:i].strip())
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(selector[start:].strip())
    return [p for p in parts if p]


def _split_lists(rule: LinkRule) -> dict:
    """A saved list-link rule as the inspector's parts: "sections, next" (the way it joins them)."""
    if not rule.selector:
        return {}
    parts = _split_top_level(rule.selector, "," if rule.kind == "css" else "|")
    if len(parts) == 2:
        return {"sections": Rule(kind=rule.kind, selector=parts[0], take="attr:href"),
                "next": Rule(kind=rule.kind, selector=parts[1], take="attr:href")}
    key = "next" if len(parts) == 1 and ("next" in rule.selector.lower() or "page" in rule.selector.lower()) else "sections"
    return {key: Rule(kind=rule.kind, selector=rule.selector, take="attr:href")}


def _join_lists(parts: dict, old: LinkRule | None) -> LinkRule | None:
    rules = [parts[k] for k in LIST_PARTS if parts.get(k) is not None]
    if not rules:
        return None
    allow, deny = (old.allow, old.deny) if old else ((), ())
    if len(rules) == 1:
        kind, selector = rules[0].kind, rules[0].selector
    elif all(r.kind == "css" for r in rules):
        kind, selector = "css", ", ".join(r.selector for r in rules)
    else:
        kind, selector = "xpath", " | ".join(css_to_xpath(r.selector) if r.kind == "css" else r.selector for r in rules)
    return LinkRule(kind=kind, selector=selector, allow=allow, deny=deny)


def _link_note(rule: LinkRule) -> str:
    return f"links matching {' or '.join(rule.allow)}" if rule.allow else "every link it selects"


def label_for(key: str) -> str:
    if key.startswith("remove:"):
        return f"Remove #{int(key.split(':')[1]) + 1}"
    return LABELS.get(key, key)


def short(text: str, limit: int = 90) -> str:
    text = re.sub(r"\s+", " ", text or "").strip()
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
