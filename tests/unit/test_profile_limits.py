"""Limits on profiles: size, nesting, every crawl number bounded with a clear message."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import PROFILES
from xnews_gui.core.profile.profile import MAX_PROFILE_CHARS, Profile, ProfileError


def demo() -> dict:
    return json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))


def test_a_deeply_nested_profile_is_a_clear_error_not_a_recursion_error():
    text = "[" * 200_000 + "]" * 200_000
    with pytest.raises(ProfileError, match="nested too deeply"):
        Profile.from_json(text)
    data = demo()
    nested = '{"schema": 1, "name": "x", "start_urls": ["http://a/"], "description": ' + "[" * 200_000 + "]" * 200_000 + "}"
    with pytest.raises(ProfileError, match="nested too deeply"):
        Profile.from_json(nested)
    assert Profile.from_json(json.dumps(data)).name == "demo"


def test_a_huge_profile_is_refused_before_parsing():
    text = json.dumps(dict(demo(), description="x" * (MAX_PROFILE_CHARS + 1)))
    start = time.monotonic()
    with pytest.raises(ProfileError, match="may be at most"):
        Profile.from_json(text)
    assert time.monotonic() - start < 1


@pytest.mark.parametrize("key, value", [
    ("concurrency", 1_000_000_000), ("concurrency", True), ("concurrency", 65), ("max_pages", 10**12),
    ("max_depth", -1), ("delay_s", float("nan")), ("delay_s", float("inf")), ("delay_s", 10**9),
    ("relevance_threshold", 1.5), ("revisit_min", 10**8), ("topic_keywords", {"a": float("nan")}),
])
def test_crawl_numbers_are_bounded(key, value):
    data = demo()
    data["crawl"][key] = value
    with pytest.raises(ProfileError, match=rf"crawl\.{key}"):
        Profile.from_dict(data)


def test_sane_values_still_pass():
    data = demo()
    data["crawl"].update(concurrency=64, max_pages=1_000_000, max_depth=0, delay_s=0, relevance_threshold=1)
    assert Profile.from_dict(data).crawl.concurrency == 64


@pytest.mark.parametrize("expect", [
    {"chars": [1, 1e400]}, {"words": [0, float("inf")]}, {"per_page": 1e400}, {"per_page": -5},
    {"digits": float("nan")}, {"digits": "nan"}, {"punct": 1.5}, {"punct": -0.1},
])
def test_a_fields_expectations_out_of_range_are_a_clear_error(expect):
    """JSON's 1e400 is infinity: int() of it raised OverflowError through Import (a traceback); a NaN share
    switched the check off in silence (every comparison with NaN is False)."""
    data = demo()
    data["schema"] = 2
    data["fields"]["title"] = {"rules": [{"kind": "css", "selector": "h1", "take": "text"}], "expect": expect}
    text = json.dumps(data).replace("Infinity", "1e400")  # NaN stays NaN, which json reads
    with pytest.raises(ProfileError, match="digits/punct shares 0..1"):
        Profile.from_json(text)
