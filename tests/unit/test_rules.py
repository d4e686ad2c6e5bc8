import pytest

from xnews_gui.core.profile.rules import Rule, RuleError, between_markers

HTML = """<html><body><div class="main"><table><tr><td><h1 class="t">Tiêu đề   bài
viết</h1></td></tr></table><p class="s">Tóm <b>tắt</b></p>
<img class="hero" data-src="/lazy.jpg" src="data:image/gif;base64,R0lG">
<time datetime="2024-03-12T10:30:00+07:00">12/3/2024</time>
<div class="body"><p>Một</p><script>var x = 1;</script><p>Hai</p></div></div></body></html>"""


def test_css_rule_takes_normalised_text():
    assert Rule(kind="css", selector="h1.t").apply(HTML) == ["Tiêu đề bài viết"]


def test_css_tolerates_tbody_free_lxml_tree():
    # lxml does not insert tbody: a descendant selector still matches
    assert Rule(kind="css", selector="table td h1").apply(HTML) == ["Tiêu đề bài viết"]


def test_xpath_rule_and_html_take():
    values = Rule(kind="xpath", selector="//p[@class='s']", take="html").apply(HTML)
    assert values == ['<p class="s">Tóm <b>tắt</b></p>']


def test_attr_take_falls_back_to_lazy_src():
    assert Rule(kind="css", selector="img.hero", take="attr:src").apply(HTML) == ["/lazy.jpg"]
    assert Rule(kind="css", selector="time", take="attr:datetime").apply(HTML) == ["2024-03-12T10:30:00+07:00"]


def test_text_skips_script_content():
    assert Rule(kind="css", selector="div.body").apply(HTML) == ["Một Hai"]


def test_regex_rule_uses_group_one():
    assert Rule(kind="regex", selector=r'datetime="([^"]+)"').apply(HTML) == ["2024-03-12T10:30:00+07:00"]


def test_markers_rule_takes_text_between_fragments():
    rule = Rule(kind="markers", start=('<p class="s">',), end=("</p>",), take="text")
    assert rule.apply(HTML) == ["Tóm tắt"]
    # a start fragment inside a tag begins after that tag's end
    rule = Rule(kind="markers", start=('class="t"',), end=("</h1>",))
    assert rule.apply(HTML) == ["Tiêu đề bài viết"]


def test_markers_alternatives_and_absence():
    assert between_markers("a<x>1</x>", ["<y>", "<x>"], ["</x>"]) == "1"
    assert between_markers("nothing", ["<y>"], ["</y>"]) is None
    assert Rule(kind="markers", start=("<y>",), end=("</y>",)).apply("nothing") == []


def test_post_processing_regex():
    rule = Rule(kind="css", selector="time", post=r"(\d{4})")
    assert rule.apply(HTML) == ["2024"]


@pytest.mark.parametrize(
    "rule, message",
    [
        (Rule(kind="css", selector="div >> p"), "invalid CSS selector"),
        (Rule(kind="xpath", selector="//div[@"), "invalid XPath"),
        (Rule(kind="regex", selector="(a"), "invalid regular expression"),
        (Rule(kind="jsonpath", selector="$.a"), "unknown kind 'jsonpath'"),
        (Rule(kind="css", selector="   "), "empty css selector"),
    ],
)
def test_bad_rules_raise_rule_error(rule, message):
    with pytest.raises(RuleError, match=message):
        rule.check()


def test_rule_dict_round_trip():
    rule = Rule(kind="markers", start=("<a>", "<b>"), end=("</a>",), take="html", post="x", required=True)
    assert Rule.from_dict(rule.to_dict()) == rule


def test_empty_or_garbage_html_gives_no_values():
    assert Rule(kind="css", selector="h1").apply("") == []
    assert Rule(kind="css", selector="h1").apply(b"\x00\x01\x02 not html") == []


@pytest.mark.parametrize("tag", ["script", "style", "noscript", "template"])
def test_text_after_an_inline_hidden_block_is_kept(tag):
    page = f"<html><body><div class='b'>foo<{tag}>x</{tag}>bar</div></body></html>"
    assert Rule(kind="css", selector="div.b").apply(page) == ["foo bar"]


def test_text_after_nested_hidden_blocks_and_comments_is_kept():
    page = "<div class='b'>a<b>b<script>s</script>c</b><!-- note -->d<noscript><p>n</p></noscript>e</div>"
    assert Rule(kind="css", selector="div.b").apply(page) == ["a b c d e"]


def test_normalize_space_is_split_and_join_also_where_it_skips_the_split():
    """normalize_space returns a single-spaced printable text unsplit: that relies on every whitespace
    character but the space being unprintable, checked here over all of Unicode, and on random texts."""
    import random
    import sys

    from xnews_gui.core.text.text import normalize_space

    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert [c for c in spaces if c.isprintable()] == [" "]
    rnd = random.Random(3)
    alphabet = ["a", "ệ", "x", " ", " ", "\u200b", "\ufeff", "\ud800"] + spaces
    for _ in range(20000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
        got = normalize_space(text)
        assert got == " ".join(text.split()) and type(got) is str, repr(text)
    assert normalize_space("") == "" and normalize_space(None) == ""


def _class_selector_pages():
    """Parsed pages with many classes: the demo site's, and real ones from ../shared/data when present."""
    import gzip

    from tests.conftest import SHARED_DATA as data
    from xnews_gui.core.text.encoding import decode_html
    from xnews_gui.core.profile.rules import parse_html
    from xnews_gui.demo.site import DemoSite

    site = DemoSite(second_template=True)
    pages = [site.article_page(a) for a in site.articles[:6]] + [site.home()]
    files = sorted((data / "fundus-parser-test-data" / "test_data").glob("*/*.html.gz"))[::10]
    files += sorted((data / "cleanportaleval" / "input").glob("*.html"))[::12]
    for path in files:
        raw = path.read_bytes()
        pages.append(decode_html(gzip.decompress(raw) if path.suffix == ".gz" else raw)[0])
    return [parse_html(p) for p in pages]


def test_class_selectors_select_the_same_elements_in_the_same_order_by_their_class_attributes():
    """A css rule's bare-class steps are evaluated through the class attributes (cheaper); on real pages,
    for every class they use and several combinators, the elements and their order are cssselect's."""
    import re

    from lxml import etree

    from xnews_gui.core.profile.rules import _class_steps_by_attribute, css_to_xpath

    compared = rewritten = 0
    for doc in _class_selector_pages():
        classes = sorted({c for v in doc.xpath("//@class") for c in v.split() if re.fullmatch(r"-?[A-Za-z_][A-Za-z0-9_-]*", c)})
        for name in classes[:12]:
            for selector in (f".{name}", f".{name} a", f"div > .{name}", f".{name} > *, h1", f"h1:has(.{name})",
                             f".{name} .{classes[0]}"):
                original = css_to_xpath(selector)
                faster = _class_steps_by_attribute(original)
                rewritten += faster != original
                assert etree.XPath(faster)(doc) == etree.XPath(original)(doc), selector
                compared += 1
    assert compared > 500 and rewritten > compared // 2  # "div > .x" (a child step) is not rewritten
