"""A small fuzzing pass (Hypothesis) over what reads untrusted input: profile validation, patterns,
extraction, sanitising, decoding, exports and the topic guard. Each may refuse with its documented
error and must never raise anything else nor hang. Kept to a few seconds: examples are few per test,
the shapes are aimed at the input's real structure (profile keys, HTML tags, regex syntax)."""

from __future__ import annotations

import copy
import json
import os
import string

import lxml.etree
import lxml.html
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import PROFILES
from xnews_gui.core.text.encoding import decode_html
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.patterns import PatternError, check_pattern, compile_pattern
from xnews_gui.core.profile.profile import Profile, ProfileError
from xnews_gui.core.extraction.sanitize import sanitize_html
from xnews_gui.core.text.text import phrases, strip_control_chars
from xnews_gui.classify.domain import out_of_domain
from xnews_gui.export import export_articles

EXAMPLES = int(os.environ.get("XNEWS_FUZZ_EXAMPLES", "100"))  # a deeper campaign: XNEWS_FUZZ_EXAMPLES=3000
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
DEMO = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
KEY_PATHS = [("name",), ("schema",), ("start_urls",), ("allowed_domains",), ("links",), ("links", "articles"),
             ("links", "articles", "allow"), ("links", "articles", "selector"), ("links", "lists"),
             ("fields",), ("fields", "title"), ("fields", "title", "kind"), ("fields", "title", "selector"),
             ("fields", "title", "take"), ("fields", "title", "post"), ("fields", "body", "start"),
             ("remove",), ("crawl",), ("crawl", "concurrency"), ("crawl", "delay_s"), ("crawl", "strategy"),
             ("crawl", "topic_keywords"), ("crawl", "focus_topics"), ("self_test",), ("self_test", "file"),
             ("self_test", "expect"), ("topics",), ("description",), ("discovery",), ("feeds",)]
REGEX_ATOMS = ["a", "b", ".", r"\d", r"\w", r"\s", "[a-z]", "[^/]", "(", ")", "(?:", "|", "*", "+", "?", "{2}",
               "{1,3}", "{2,}", "^", "$", r"\b", "(?=", "(?!", "(?P<g>", r"\1", "[", "]", "\\"]


def set_path(data: dict, path: tuple, value) -> None:
    node = data
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = value


@FUZZ
@given(changes=st.lists(st.tuples(st.sampled_from(KEY_PATHS), json_values), min_size=1, max_size=4))
def test_profile_validation_refuses_only_with_profile_error(changes):
    data = copy.deepcopy(DEMO)
    for path, value in changes:
        set_path(data, path, value)
    try:
        profile = Profile.from_dict(data)
    except ProfileError:
        return
    assert Profile.from_json(profile.to_json()) == profile  # what is accepted round-trips


@FUZZ
@given(text=st.text(max_size=200) | st.builds(json.dumps, json_values))
def test_profile_json_refuses_only_with_profile_error(text):
    try:
        Profile.from_json(text)
    except ProfileError:
        pass


@FUZZ
@given(pattern=st.lists(st.sampled_from(REGEX_ATOMS), max_size=12).map("".join), subject=st.text("ab/-1 x", max_size=60))
def test_patterns_are_refused_cleanly_or_searched_within_the_limit(pattern, subject):
    try:
        check_pattern(pattern)
    except PatternError:
        return
    try:
        compile_pattern(pattern).search(subject)
    except PatternError:  # the time limit
        pass


HTML_PARTS = ["<h1>", "</h1>", "<p>", "</p>", "<div class='body'>", "</div>", "<img src='a.png'>", "<script>x()</script>",
              "<base href='http://evil.test/'>", "<a href='javascript:alert(1)'>", "</a>", "<meta charset='utf-8'>",
              "<!--", "-->", "<![CDATA[", "]]>", "<?xml version='1.0'?>", "&amp;", "&#0;", "&#x1F;", "\x00", "\x01",
              "\ud800", "Việt Nam", "<time datetime='2024-13-45'>", "<span class='by'>", "</span>", "<", ">", "'", '"']
html_docs = st.lists(st.sampled_from(HTML_PARTS) | st.text(max_size=8), max_size=25).map("".join)
FUZZ_PROFILE = Profile.from_dict({
    "schema": 1, "name": "fuzz", "start_urls": ["http://news.test/"],
    "fields": {"title": {"kind": "css", "selector": "h1", "required": True},
               "summary": {"kind": "regex", "selector": r"<p>(.*?)</p>", "post": r"(\w+)"},
               "author": {"kind": "markers", "start": ["class='by'"], "end": ["</span>"]},
               "image": {"kind": "css", "selector": "img", "take": "attr:src"},
               "date": {"kind": "css", "selector": "time", "take": "attr:datetime"},
               "body": {"kind": "css", "selector": "div.body", "take": "html", "required": True}},
    "remove": [{"kind": "css", "selector": "script"}],
})


@FUZZ
@given(html=html_docs | st.binary(max_size=300))
def test_extraction_never_raises_and_keeps_values_clean(html):
    article = extract(html, "http://news.test/a/b.htm", FUZZ_PROFILE)
    for value in (article.title, article.summary, article.author, article.body_text, article.body_html):
        assert value == strip_control_chars(value)
    assert article.image == "" or article.image.startswith(("http://", "https://"))
    assert "evil.test" not in article.body_html and "<script" not in article.body_html.lower()


@FUZZ
@given(html=html_docs)
def test_sanitising_never_raises_and_leaves_no_active_content(html):
    out = sanitize_html(html, "http://news.test/")
    if not out:
        return
    root = lxml.html.fragment_fromstring(out, create_parent="div")
    for el in root.iter():
        assert el.tag not in ("script", "style", "iframe", "base")
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on")
            assert not value.strip().lower().startswith(("javascript:", "data:", "file:"))


@FUZZ
@given(data=st.binary(max_size=400), header=st.none() | st.sampled_from(
    ["text/html; charset=utf-8", "text/html; charset=windows-1258", "text/html; charset=bogus", "text/html",
     "text/html; charset=utf-16", "text/html; charset=\x00"]))
def test_decoding_always_gives_text(data, header):
    text, encoding = decode_html(data, header)
    assert isinstance(text, str) and encoding


@FUZZ
@given(title=st.text(max_size=40), author=st.text(max_size=20), body=html_docs)
def test_feed_exports_stay_valid_xml(tmp_path_factory, title, author, body):
    folder = tmp_path_factory.mktemp("fuzz-export")
    article = {"id": 1, "url": "http://news.test/a.htm", "title": title, "author": author, "summary": title,
               "body_html": body, "body_text": body, "category": author, "date": title}
    for fmt in ("rss", "atom"):
        path = export_articles([article], fmt, folder / f"out.{fmt}")
        lxml.etree.parse(str(path))  # raises on invalid XML


@FUZZ
@given(text=st.text(alphabet=st.sampled_from(string.ascii_letters + " .,\n0123456789" + "ăâđêôơưạảấầẩẫậáàãéèẹệếềểễ"
                                              + "ðþöřçßжя東京"), max_size=300))
def test_the_topic_guard_never_raises(text):
    reason = out_of_domain([w for p in phrases(text) for w in p])
    assert reason in ("", "not Vietnamese") or reason.startswith("too short")
