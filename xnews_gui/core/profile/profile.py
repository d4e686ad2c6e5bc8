"""A per-site profile: declarative, versioned JSON (see README, "Profile format").

``Profile.from_json(text)`` validates everything and raises ``ProfileError``
with the profile's name, the place and what is wrong.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from .patterns import PatternError, check_pattern, compile_pattern
from .chain import FieldChain, field_from_dict, field_to_dict
from .rules import Rule, RuleError
from .profile_settings import (  # noqa: F401  (re-exported: the profile API)
    CRAWL_LIMITS,
    STRATEGIES,
    CrawlSettings,
    MoreSettings,
    ProfileError,
    RenderSettings,
    SelfTest,
    string_list,
)
from ..text.urls import ALLOWED_SCHEMES, is_allowed_scheme

SCHEMA_VERSION = 2
READS_SCHEMAS = (1, 2)  # version 1 (one rule per field) is migrated on read
FIELDS = ("title", "summary", "image", "body", "author", "date")
DISCOVERY = ("sitemap", "feeds", "links")  # where article URLs come from (a profile lists them in order)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def is_profile_name(name) -> bool:
    """1-64 letters, digits, '.', '_' or '-', starting with a letter or digit (a file name anywhere)."""
    return isinstance(name, str) and bool(_NAME.match(name))
MAX_PROFILE_CHARS = 1_000_000


@dataclass(frozen=True)
class LinkRule:
    """Which links of a list page to follow: a selector and/or URL regexes."""

    kind: str = "css"
    selector: str = ""
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        data: dict = {"kind": self.kind, "selector": self.selector}
        if self.allow:
            data["allow"] = list(self.allow)
        if self.deny:
            data["deny"] = list(self.deny)
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str) -> "LinkRule":
        if not isinstance(data, dict):
            raise RuleError(f"{where}: expected an object")
        unknown = set(data) - {"kind", "selector", "allow", "deny"}
        if unknown:
            raise RuleError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("kind", "selector"):
            if not isinstance(data.get(key) or "", str):
                raise RuleError(f"{where}.{key}: expected a string, got {type(data[key]).__name__}")
        rule = cls(
            kind=data.get("kind", "css"),
            selector=data.get("selector", "") or "",
            allow=tuple(string_list(data.get("allow", []), f"{where}.allow")),
            deny=tuple(string_list(data.get("deny", []), f"{where}.deny")),
        )
        rule.check(where)
        return rule

    def check(self, where: str) -> None:
        if self.kind not in ("css", "xpath"):
            raise RuleError(f"{where}: link rules are css or xpath, not {self.kind!r}")
        if not self.selector and not self.allow:
            raise RuleError(f"{where}: needs a selector or at least one allow pattern")
        if self.selector:
            self.as_rule().check(where)
        for pattern in self.allow + self.deny:
            try:
                check_pattern(pattern)
            except PatternError as exc:
                raise RuleError(f"{where}: invalid URL pattern: {exc}") from None

    def as_rule(self) -> Rule:
        return Rule(kind=self.kind, selector=self.selector or "a[href]", take="attr:href")

    def accepts(self, url: str) -> bool:
        """True when ``url`` passes allow and deny (a pattern that runs out of time refuses it)."""
        try:
            if self.allow and not any(compile_pattern(p).search(url) for p in self.allow):
                return False
            return not any(compile_pattern(p).search(url) for p in self.deny)
        except PatternError:
            return False


@dataclass(frozen=True)
class Profile:
    name: str
    start_urls: tuple[str, ...]
    allowed_domains: tuple[str, ...] = ()
    articles: LinkRule | None = None
    lists: LinkRule | None = None
    fields: dict = field(default_factory=dict)  # field name -> its first Rule
    remove: tuple[Rule, ...] = ()
    crawl: CrawlSettings = field(default_factory=CrawlSettings)
    self_test: SelfTest | None = None
    topics: dict = field(default_factory=dict)  # URL regex -> topic label (training from sections)
    description: str = ""
    discovery: tuple[str, ...] = ("links",)
    sitemaps: tuple[str, ...] = ()  # known sitemap URLs (robots.txt's Sitemap: lines are read too)
    feeds: tuple[str, ...] = ()  # known RSS/Atom feed URLs (the start pages' announced feeds are read too)
    render: "RenderSettings | None" = None  # article pages need JavaScript (see crawl/render.py)
    more: "MoreSettings | None" = None  # list pages that load more links by a button or by scrolling
    chains: dict = field(default_factory=dict)  # field name -> FieldChain (fallbacks, anchors, expect, fingerprint)

    @property
    def needs_browser(self) -> bool:
        """Its crawl needs a render pool: article pages built by JavaScript, or list pages that load more."""
        return self.render is not None or self.more is not None

    def rules_for(self, name: str) -> tuple[Rule, ...]:
        """The field's whole chain, in the order it is tried: rules, then metadata anchors."""
        first = self.fields.get(name)
        if first is None:
            return ()
        chain = self.chains.get(name)
        return (first,) if chain is None else (first, *chain.fallbacks, *chain.anchors)

    # --- JSON ------------------------------------------------------------
    @classmethod
    def from_json(cls, text: str | bytes) -> "Profile":
        if len(text) > MAX_PROFILE_CHARS:
            raise ProfileError(f"profile of {len(text):,} characters: a profile may be at most {MAX_PROFILE_CHARS:,}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProfileError(f"profile is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
        except RecursionError:
            raise ProfileError("profile is nested too deeply to be a profile") from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProfileError(f"profile is not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> "Profile":
        if not isinstance(data, dict):
            raise ProfileError("profile must be a JSON object")
        name = data.get("name")
        label = f"profile {name!r}" if isinstance(name, str) else "profile"
        version = data.get("schema")
        if "schema" not in data:
            raise ProfileError(f"{label}: no 'schema' key, so this is not a profile XNews exported (its files "
                               f"start with {{\"schema\": {SCHEMA_VERSION}, ...}})")
        if version not in READS_SCHEMAS or isinstance(version, bool):
            raise ProfileError(
                f"{label}: unsupported schema version {version!r} (this XNews reads versions "
                f"{' and '.join(map(str, READS_SCHEMAS))}); export it again from a matching XNews or update the 'schema' key"
            )
        known = {"schema", "name", "start_urls", "allowed_domains", "links", "fields", "remove",
                 "crawl", "self_test", "topics", "description", "discovery", "sitemaps", "feeds", "render", "more"}
        unknown = set(data) - known
        if unknown:
            raise ProfileError(f"{label}: unknown key(s) {', '.join(sorted(unknown))}")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ProfileError(f"{label}: 'name' must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit)")
        try:
            start_urls = tuple(string_list(data.get("start_urls"), "start_urls", required=True))
            for url in start_urls:
                if not is_allowed_scheme(url):
                    raise RuleError(f"start_urls: {url!r} is not an http(s) URL (allowed: {', '.join(ALLOWED_SCHEMES)})")
            domains = tuple(string_list(data.get("allowed_domains", []), "allowed_domains"))
            links = data.get("links", {})
            if not isinstance(links, dict):
                raise RuleError("links: expected an object with 'articles' and/or 'lists'")
            unknown = set(links) - {"articles", "lists"}
            if unknown:
                raise RuleError(f"links: unknown key(s) {', '.join(sorted(unknown))}")
            articles = LinkRule.from_dict(links["articles"], "links.articles") if links.get("articles") else None
            lists = LinkRule.from_dict(links["lists"], "links.lists") if links.get("lists") else None
            raw_fields = data.get("fields", {})
            if not isinstance(raw_fields, dict):
                raise RuleError("fields: expected an object mapping field names to rules")
            fields, chains = {}, {}
            for fname, raw in raw_fields.items():
                if fname not in FIELDS:
                    raise RuleError(f"fields: unknown field {fname!r} (known: {', '.join(FIELDS)})")
                if version == 1 and isinstance(raw, dict) and "rules" in raw:
                    raise RuleError(f"fields.{fname}: rule chains need schema 2")
                fields[fname], chain = field_from_dict(raw, f"fields.{fname}")
                if chain is not None:
                    chains[fname] = chain
            raw_remove = data.get("remove", [])
            if not isinstance(raw_remove, list):
                raise RuleError("remove: expected a list of rules")
            remove = tuple(Rule.from_dict(r, f"remove[{i}]") for i, r in enumerate(raw_remove))
            for i, r in enumerate(remove):
                if r.kind not in ("css", "xpath"):
                    raise RuleError(f"remove[{i}]: remove rules are css or xpath")
            crawl = CrawlSettings.from_dict(data.get("crawl", {}), "crawl")
            discovery, sitemaps, feeds = _discovery(data)
            render = RenderSettings.from_dict(data["render"]) if data.get("render") is not None else None
            more = MoreSettings.from_dict(data["more"]) if data.get("more") is not None else None
            self_test = _self_test(data.get("self_test"))
            topics = data.get("topics", {})
            if not isinstance(topics, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in topics.items()):
                raise RuleError("topics: must map URL patterns to topic labels")
            for pattern in topics:
                try:
                    check_pattern(pattern)
                except PatternError as exc:
                    raise RuleError(f"topics: invalid URL pattern: {exc}") from None
        except (RuleError, ProfileError) as exc:
            raise ProfileError(f"{label}: {exc}") from None
        description = data.get("description", "")
        return cls(name=name, start_urls=start_urls, allowed_domains=domains, articles=articles,
                   lists=lists, fields=fields, remove=remove, crawl=crawl, self_test=self_test,
                   topics=topics, description=description if isinstance(description, str) else "",
                   discovery=discovery, sitemaps=sitemaps, feeds=feeds, render=render,
                   more=more, chains=chains)

    def to_dict(self) -> dict:
        out: dict = {"schema": SCHEMA_VERSION, "name": self.name}
        if self.description:
            out["description"] = self.description
        out["start_urls"] = list(self.start_urls)
        out["allowed_domains"] = list(self.allowed_domains)
        links = {}
        if self.articles:
            links["articles"] = self.articles.to_dict()
        if self.lists:
            links["lists"] = self.lists.to_dict()
        out["links"] = links
        if self.discovery != ("links",):
            out["discovery"] = list(self.discovery)
        if self.sitemaps:
            out["sitemaps"] = list(self.sitemaps)
        if self.feeds:
            out["feeds"] = list(self.feeds)
        if self.render is not None:
            out["render"] = self.render.to_dict()
        if self.more is not None:
            out["more"] = self.more.to_dict()
        out["fields"] = {k: field_to_dict(self.fields[k], self.chains.get(k)) for k in FIELDS if k in self.fields}
        if self.remove:
            out["remove"] = [r.to_dict() for r in self.remove]
        out["crawl"] = self.crawl.to_dict()
        if self.topics:
            out["topics"] = dict(self.topics)
        if self.self_test:
            out["self_test"] = self.self_test.to_dict()
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    def with_(self, **changes) -> "Profile":
        return replace(self, **changes)

    def with_field(self, name: str, rule: Rule | None, chain: FieldChain | None = None) -> "Profile":
        """The profile with one field's rule replaced (its old chain goes: it described the old rule)."""
        fields, chains = dict(self.fields), dict(self.chains)
        chains.pop(name, None)
        if rule is None:
            fields.pop(name, None)
        else:
            fields[name] = rule
            if chain is not None and not chain.empty:
                chains[name] = chain
        return replace(self, fields=fields, chains=chains)

    def topic_for_url(self, url: str) -> str | None:
        for pattern, label in self.topics.items():
            try:
                if compile_pattern(pattern).search(url):
                    return label
            except PatternError:  # out of time on this URL: no section topic from this pattern
                continue
        return None


def _discovery(data: dict) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    modes = tuple(string_list(data.get("discovery", ["links"]), "discovery", required=True))
    for mode in modes:
        if mode not in DISCOVERY:
            raise RuleError(f"discovery: {mode!r} is not one of {', '.join(DISCOVERY)}")
    if len(set(modes)) != len(modes):
        raise RuleError("discovery: each source may be listed once")
    urls = {}
    for key in ("sitemaps", "feeds"):
        urls[key] = tuple(string_list(data.get(key, []), key))
        for url in urls[key]:
            if not is_allowed_scheme(url):
                raise RuleError(f"{key}: {url!r} is not an http(s) URL")
    return modes, urls["sitemaps"], urls["feeds"]


def _self_test(data: Any) -> SelfTest | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise RuleError("self_test: expected an object")
    unknown = set(data) - {"file", "url", "page_url", "expect"}
    if unknown:
        raise RuleError(f"self_test: unknown key(s) {', '.join(sorted(unknown))}")
    if not data.get("file") and not data.get("url"):
        raise RuleError("self_test: needs a 'file' or a 'url'")
    for key in ("file", "url", "page_url"):
        if not isinstance(data.get(key, ""), str):
            raise RuleError(f"self_test.{key}: expected a string")
    for key in ("url", "page_url"):
        if data.get(key) and not is_allowed_scheme(data[key]):
            raise RuleError(f"self_test.{key}: {data[key]!r} is not an http(s) URL "
                            f"(allowed: {', '.join(ALLOWED_SCHEMES)})")
    expect = data.get("expect", {})
    if not isinstance(expect, dict) or any(k not in FIELDS for k in expect):
        raise RuleError(f"self_test.expect: must map field names ({', '.join(FIELDS)}) to expected values")
    return SelfTest(file=data.get("file", ""), url=data.get("url", ""),
                    page_url=data.get("page_url", ""), expect=expect)
