"""Profile regexes are untrusted: catastrophic shapes refused at validation, every search time-limited."""

from __future__ import annotations

import json
import time

import pytest

from xnews_gui.core.profile import patterns
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.patterns import PatternError, PatternTimeout, SafePattern, check_pattern
from xnews_gui.core.profile.profile import LinkRule, Profile, ProfileError
from xnews_gui.core.profile.rules import Rule, RuleError

LONG = "a" * 20_000 + "b"
# the limit is on CPU time (regex counts it so): the wall clock bound only proves "no hang" on a busy machine
CPU_SLACK = 0.5
WALL = 20


class Clock:
    def __enter__(self):
        self.cpu, self.wall = time.thread_time(), time.monotonic()
        return self

    def __exit__(self, *exc):
        self.cpu, self.wall = time.thread_time() - self.cpu, time.monotonic() - self.wall


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*\s?)*x", r"(?:[a-z]+-?)+\.htm", r"((a+){2})+", r"(x|(a+))+"])
def test_nested_repeats_are_refused_with_a_clear_message(pattern):
    with pytest.raises(PatternError, match="nests a repeat inside a repeat"):
        check_pattern(pattern)


@pytest.mark.parametrize("pattern", [r"-\d+\.htm$", r"/(\d{4})/(\d{2})/", r"(\d{1,2}/)+\d{4}", r"(?:ab|cd)+",
                                     r"^https?://[^/]+/tin-tuc/", r"((ab)*c)+", r"(\d+){2,3}", r"(?:a++)+"])
def test_ordinary_patterns_pass(pattern):
    check_pattern(pattern)


def test_the_catastrophic_pattern_itself_stops_at_its_limit():
    with Clock() as took, pytest.raises(PatternTimeout, match="gave up after"):
        SafePattern(r"(a+)+$").search(LONG)
    assert took.cpu < patterns.TIME_LIMIT_S + CPU_SLACK and took.wall < WALL


def test_a_slow_pattern_that_passes_the_shape_check_is_stopped_in_extract():
    profile = Profile.from_dict({
        "schema": 1, "name": "slow", "start_urls": ["http://127.0.0.1/"],
        "fields": {"title": {"kind": "regex", "selector": r"<h1>((?:a|aa)+)$", "required": True},
                   "summary": {"kind": "css", "selector": "p", "post": r"((?:a|aa)+)c"}},
    })
    page = f"<html><body><h1>{LONG}</h1><p>{LONG}</p></body></html>"
    with Clock() as took:
        article = extract(page, "http://127.0.0.1/a.htm", profile)
    assert took.cpu < 2 * patterns.TIME_LIMIT_S + CPU_SLACK and took.wall < WALL, (took.cpu, took.wall)
    assert any(e.startswith("title:") and "gave up after" in e for e in article.errors), article.errors
    assert any(e.startswith("summary:") and "gave up after" in e for e in article.errors), article.errors


def test_a_link_allow_list_with_a_nested_repeat_is_refused_at_import():
    data = {"schema": 1, "name": "evil", "start_urls": ["http://127.0.0.1/"],
            "links": {"articles": {"kind": "css", "selector": "a", "allow": [r"(a+)+$"]}}}
    start = time.monotonic()
    with pytest.raises(ProfileError, match=r"links\.articles: invalid URL pattern.*nests a repeat"):
        Profile.from_json(json.dumps(data))
    assert time.monotonic() - start < 1


@pytest.mark.parametrize("where, change", [
    ("fields.title", lambda d: d["fields"]["title"].update(kind="regex", selector=r"(a+)+$")),
    ("post-processing", lambda d: d["fields"]["title"].update(post=r"(\d*)*")),
    ("links.lists", lambda d: d["links"].update(lists={"kind": "css", "selector": "a", "deny": [r"(a+)+"]})),
    ("topics", lambda d: d.update(topics={r"/(\w+/?)+$": "the-thao"})),
])
def test_every_profile_pattern_is_checked(where, change):
    data = {"schema": 1, "name": "p", "start_urls": ["http://127.0.0.1/"],
            "links": {"articles": {"kind": "css", "selector": "a"}},
            "fields": {"title": {"kind": "css", "selector": "h1"}}}
    change(data)
    with pytest.raises(ProfileError) as info:
        Profile.from_dict(data)
    assert where in str(info.value) and "nests a repeat" in str(info.value)


def test_a_url_pattern_out_of_time_refuses_the_link_instead_of_hanging():
    rule = LinkRule(kind="css", selector="a", allow=(r"(?:a|aa)+$",))
    with Clock() as took:
        assert rule.accepts("http://127.0.0.1/" + LONG) is False
    assert took.cpu < patterns.TIME_LIMIT_S + CPU_SLACK and took.wall < WALL
    assert rule.accepts("http://127.0.0.1/aaa")


def test_rule_check_reports_the_shape():
    with pytest.raises(RuleError, match="nests a repeat"):
        Rule(kind="regex", selector=r"(a+)+$").check()
