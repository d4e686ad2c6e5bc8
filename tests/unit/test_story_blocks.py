"""A body that is not the article's whole text says so even where the main-text extractor agrees with it (a
story split over five blocks of one kind, read by the extractor as its one block), a body given by a rule made
for another layout is checked against the page's main text both ways, and a split story's blocks are the
ones side by side, not teaser boxes below or inside it."""

from __future__ import annotations

import re

from xnews_gui.core.profile.chain import FieldChain
from xnews_gui.core.extraction.completeness import body_problems, kin_blocks, story_kin, tokens
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule, parse_html
from xnews_gui.core.extraction.story import story_selection
from xnews_gui.core.profile.verify import ContentProfile

_WORDS = ("river council budget school harbour bridge station market festival report weather season farmers "
          "doctors teachers mayor plan repair delay record storm orchard").split()
TITLE = Rule(kind="css", selector="h1", take="text", required=True)


def _paragraph(n: int) -> str:
    """34 words of this paragraph alone (each word ends in the paragraph's letters)."""
    words = [_WORDS[(n * 7 + i * 3) % len(_WORDS)] + "abcdefghijklmnopqrstuvwxyz"[n % 26] * 2 for i in range(34)]
    return " ".join(words).capitalize() + f" number {n}."


PARAGRAPHS = [_paragraph(n) for n in range(10)]


def _split_page(parts: int = 5, klass: str = "story-part") -> str:
    """The story in ``parts`` blocks of one class, an advertisement or a related box between each two."""
    per = len(PARAGRAPHS) // parts
    between = ["<div class='ad'><span>Advertisement</span></div>",
               "<div class='box'><b>Related</b><ul><li><a href='/a.html'>Another story on the council</a></li>"
               "<li><a href='/b.html'>The budget in five charts</a></li></ul></div>"]
    blocks = []
    for i in range(parts):
        attr = f" class='{klass}'" if klass else ""
        blocks.append(f"<div{attr}>" + "".join(f"<p>{p}</p>" for p in PARAGRAPHS[i * per:(i + 1) * per]) + "</div>")
        if i < parts - 1:
            blocks.append(between[i % 2])
    return ("<html><head><title>Council weighs the harbour plan - The Courier</title></head><body>"
            "<div class='top'><a href='/'>The Courier</a></div><div class='main'>"
            "<h1>Council weighs the harbour plan</h1>" + "".join(blocks) + "</div></body></html>")


def _profile(*bodies: Rule, per_page: int = 1) -> Profile:
    expect = ContentProfile(chars=(100, 100000), words=(20, 20000), per_page=per_page)
    return Profile(name="courier", start_urls=("http://127.0.0.1/",), fields={"title": TITLE, "body": bodies[0]},
                   chains={"body": FieldChain(fallbacks=tuple(bodies[1:]), expect=expect)})


def test_one_block_of_a_story_split_in_five_is_flagged_without_asking_the_main_text():
    doc = parse_html(_split_page())
    first = doc.xpath("//div[@class='story-part']")[0]
    text = " ".join(first.itertext())
    problems = body_problems([first], text, story=None)  # no main text at all: the blocks' kind says it
    assert problems and re.fullmatch(r"covers \d+% of the article's text", problems[0]), problems
    assert 15 <= int(re.search(r"\d+", problems[0]).group()) <= 25, problems
    assert len(kin_blocks(first)) == 5


def test_split_blocks_that_wrap_their_paragraphs_one_level_deeper_are_found_too():
    """Each block's paragraphs inside an inner <div>: the story text beside the body (read one level down
    from its siblings) sees none of it, the blocks of its kind still say the body is one of five."""
    page = _split_page().replace("<div class='story-part'>", "<div class='story-part'><div class='inner'>")
    page = page.replace("</p></div>", "</p></div></div>")
    first = parse_html(page).xpath("//div[@class='story-part']")[0]
    problems = body_problems([first], " ".join(first.itertext()), story=None)
    assert problems and re.fullmatch(r"covers \d+% of the article's text", problems[0]), problems


def test_with_a_content_profile_the_split_storys_blocks_are_joined_and_flagged():
    rule = Rule(kind="css", selector="div.story-part", take="html", required=True)
    article = extract(_split_page(), "http://127.0.0.1/story.html", _profile(rule))
    assert all(p in article.body_text for p in PARAGRAPHS), article.body_text
    assert "Advertisement" not in article.body_text and "Related" not in article.body_text
    assert any("sibling blocks joined" in f and "covers 20%" in f for f in article.fallbacks), article.fallbacks
    assert article.checks["body"]  # the rules did not give it: still said


def test_a_click_on_one_block_takes_its_kin_even_where_the_main_text_is_that_block_alone():
    doc = parse_html(_split_page())
    third = doc.xpath("//div[@class='story-part']")[2]
    one_block = tokens(" ".join(third.itertext()))  # the extractor read the story as the clicked block
    chosen, how = story_selection(third, one_block)
    assert how == "split" and len(chosen) == 5 and chosen[2] is third


def test_bare_blocks_beside_are_the_storys_only_where_the_main_text_holds_them():
    doc = parse_html(_split_page(klass=""))
    first = doc.xpath("//div[@class='main']/div[p]")[0]
    kin = [k for k in kin_blocks(first) if k is not first]
    assert len(kin) == 4
    assert story_kin(kin, lambda: tokens(" ".join(PARAGRAPHS))) == kin
    assert story_kin(kin, lambda: tokens(PARAGRAPHS[0] + " " + PARAGRAPHS[1])) == []  # teasers of a class-less page


def test_a_body_from_a_rule_made_for_another_layout_is_checked_against_the_main_text():
    story = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    feedback = ("<div class='feedback'><p>We want to hear from you. Enjoyed reading this story or have questions "
                "or feedback? Share your thoughts with the newsroom by writing to our readers' editor.</p>"
                "<p>Ready to get more? Sign up for the morning briefing and get the day's news first.</p></div>")
    html = ("<html><head><title>Council weighs the harbour plan</title></head><body><div class='page'>"
            f"<div class='main'><h1>Council weighs the harbour plan</h1><div class='article-text'>{story}</div></div>"
            f"<div class='foot'><div class='wrap'>{feedback}</div></div></div></body></html>")
    rules = (Rule(kind="css", selector="div.story-body", take="html", required=True),
             Rule(kind="css", selector="div.feedback", take="html"))
    article = extract(html, "http://127.0.0.1/story.html", _profile(*rules))
    assert article.checks["body"], article.checks
    assert any(f.startswith("body: fallback") and "covers" in f for f in article.fallbacks), article.fallbacks
    assert PARAGRAPHS[3] in article.body_text and "We want to hear" not in article.body_text


def test_a_split_rule_takes_the_blocks_side_by_side_not_the_same_class_further_down():
    cards = "".join(f"<div class='story-part'><p>{_paragraph(20 + i)}</p></div>" for i in range(2))
    html = _split_page(parts=2).replace("</body>", f"<div class='more'>{cards}</div></body>")
    rule = Rule(kind="css", selector="div.story-part", take="html", required=True)
    article = extract(html, "http://127.0.0.1/story.html", _profile(rule, per_page=2))
    assert all(p in article.body_text for p in PARAGRAPHS)
    assert _paragraph(20) not in article.body_text and _paragraph(21) not in article.body_text


def test_a_box_of_teasers_inside_the_body_is_not_the_article():
    teasers = "".join(f"<div><a href='/more/{i}.html'><b>Schools brace for a record intake {i}</b></a><br>"
                      "Head teachers say they need more staff to cope with the numbers.</div>" for i in range(4))
    html = ("<html><head><title>Council weighs the harbour plan</title></head><body><h1>Council weighs the harbour "
            "plan</h1><div class='text'>" + "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
            + f"<div><h4>More from this section</h4>{teasers}</div></div></body></html>")
    rule = Rule(kind="css", selector="div.text", take="html", required=True)
    article = extract(html, "http://127.0.0.1/story.html", _profile(rule))
    assert all(p in article.body_text for p in PARAGRAPHS)
    assert "Schools brace" not in article.body_text and "Head teachers" not in article.body_text
