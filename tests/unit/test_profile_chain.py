"""Profile schema 2: field chains (first plausible value wins), anchors, content profiles; v1 migrates."""

import json

import pytest

from xnews_gui.core.extraction import maintext
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import SCHEMA_VERSION, Profile, ProfileError

from ..conftest import PROFILES

TEMPLATE_A = """<html><head><title>A | Site</title></head><body>
<h1 class="headline">{title}</h1><div class="story-text"><p>{body}</p></div></body></html>"""
TEMPLATE_B = """<html><head><script type="application/ld+json">{{"@context": "https://schema.org",
"@type": "NewsArticle", "headline": "{title}", "author": [{{"@type": "Person", "name": "Ann Lee"}}]}}</script>
</head><body><nav><h1 class="headline">Site menu</h1></nav><article class="module"><h2 class="story-title">{title}</h2>
<section class="article-body"><p>{body}</p></section></article></body></html>"""
BODY = "A long paragraph about the council vote and what it means for the town. " * 6

CHAINED = {
    "schema": 2, "name": "two-templates", "start_urls": ["http://site.test/"],
    "fields": {
        "title": {"rules": [{"kind": "css", "selector": "h1.headline", "take": "text", "required": True},
                            {"kind": "css", "selector": "h2.story-title", "take": "text"}],
                  "anchors": [{"kind": "jsonld", "selector": "headline"}],
                  "expect": {"chars": [10, 200], "words": [2, 30], "anchor": "jsonld:headline"}},
        "author": {"rules": [{"kind": "css", "selector": "span.byline"}],
                   "anchors": [{"kind": "jsonld", "selector": "author"}]},
        "body": {"rules": [{"kind": "css", "selector": "div.story-text", "take": "html", "required": True},
                           {"kind": "css", "selector": "section.article-body", "take": "html"}],
                 "expect": {"chars": [100, 100000], "words": [20, 20000]}},
    },
}


def test_v1_profile_migrates_on_read_and_is_written_as_schema_2():
    v1 = json.loads((PROFILES / "demo.json").read_text(encoding="utf-8"))
    v1["schema"] = 1
    profile = Profile.from_dict(v1)
    assert profile.fields["title"].selector == "h1.article-title"
    out = profile.to_dict()
    assert out["schema"] == SCHEMA_VERSION == 2
    assert out["fields"]["title"]["selector"] == "h1.article-title"  # a one-rule field stays a bare rule
    assert Profile.from_dict(out) == profile


def test_chain_round_trips_and_keeps_every_rule():
    profile = Profile.from_dict(CHAINED)
    assert [r.selector for r in profile.rules_for("title")] == ["h1.headline", "h2.story-title", "headline"]
    again = Profile.from_json(profile.to_json())
    assert again == profile and again.chains["title"].expect.anchor == "jsonld:headline"


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(schema=3), "unsupported schema version 3 (this XNews reads versions 1 and 2)"),
    (lambda d: d["fields"]["title"].update(rules=[]), "fields.title.rules: expected a non-empty list"),
    (lambda d: d["fields"]["title"].update(colour=1), "fields.title: unknown key(s) colour"),
    (lambda d: d["fields"]["title"]["rules"][1].update(selector="h2[["), "fields.title.rules[1]: invalid CSS"),
    (lambda d: d["fields"]["title"]["anchors"][0].update(selector="a b"), "fields.title.anchors[0]: a jsonld rule"),
    (lambda d: d["fields"]["title"].update(expect={"chars": [5, 1]}), "fields.title.expect: chars/words"),
    (lambda d: d.update(schema=1), "fields.title: rule chains need schema 2"),
])
def test_bad_chains_are_refused_with_a_precise_message(change, message):
    data = json.loads(json.dumps(CHAINED))
    change(data)
    with pytest.raises(ProfileError) as info:
        Profile.from_dict(data)
    assert message in str(info.value)


def test_first_plausible_value_wins_on_a_second_template():
    profile = Profile.from_dict(CHAINED)
    a = extract(TEMPLATE_A.format(title="Council approves the new bridge", body=BODY), "http://site.test/a", profile)
    b = extract(TEMPLATE_B.format(title="Storm closes the coastal road", body=BODY), "http://site.test/b", profile)
    assert a.title == "Council approves the new bridge" and a.body_text.startswith("A long paragraph")
    # template B: h1.headline exists but says "Site menu" - it disagrees with the JSON-LD headline
    assert b.title == "Storm closes the coastal road"
    assert b.body_text.startswith("A long paragraph") and b.ok
    assert b.author == "Ann Lee"  # from the JSON-LD anchor, read with a JSON parser
    assert a.checks == {"title": [], "body": []} and b.checks == {"title": [], "body": []}


def test_a_value_that_fits_no_rule_is_kept_but_its_check_fails():
    profile = Profile.from_dict(CHAINED)
    page = TEMPLATE_A.format(title="Short", body="Too short.")
    art = extract(page, "http://site.test/c", profile)
    assert art.title == "Short"
    assert any("characters" in p for p in art.checks["title"])


@pytest.mark.skipif(not maintext.available(), reason="trafilatura is not installed")
def test_body_fallback_is_said_never_silent():
    profile = Profile.from_dict(CHAINED)
    page = ("<html><body><h1 class='headline'>A title that is long enough</h1><main><div class='x'>"
            + "".join(f"<p>{BODY} Paragraph {i}.</p>" for i in range(4)) + "</div></main></body></html>")
    art = extract(page, "http://site.test/d", profile)
    assert "council vote" in art.body_text
    assert art.fallbacks and art.fallbacks[0].startswith("body: fallback")
    plain = extract(TEMPLATE_A.format(title="Council approves the new bridge", body=BODY), "http://site.test/a", profile)
    assert plain.fallbacks == []


def test_profiles_check_says_suspect_and_fallback():
    from xnews_gui.core.induction.selftest import check_page

    profile = Profile.from_dict(CHAINED)
    short = check_page(profile, TEMPLATE_A.format(title="Short", body=BODY), "http://site.test/s")
    assert {c.field: c.status for c in short}["title"] == "suspect"
    assert "fails verification" in next(c.detail for c in short if c.field == "title")
    if maintext.available():
        page = ("<html><body><h1 class='headline'>A title that is long enough</h1><main><div class='x'>"
                + "".join(f"<p>{BODY} Paragraph {i}.</p>" for i in range(4)) + "</div></main></body></html>")
        assert {c.field: c.status for c in check_page(profile, page, "http://site.test/f")}["body"] == "fallback"


# --- the body is the article's running text -----------------------------------------------------
BODY_REPEATS = """<html><body><h1 class="headline">{title}</h1>
<div class="story-text"><div class="head"><h2><span>Kicker:</span> {title}</span></h2></div>
<div class="strap">{title}</div><p>{body}</p>
<figure><img src="/a.jpg" alt=""><figcaption>Photo: Agency Name / Photographer</figcaption></figure>
<p>{body}</p></div></body></html>"""


def test_the_body_does_not_repeat_the_headline_and_captions_are_not_running_text():
    profile = Profile.from_json(json.dumps(CHAINED))
    title = "Council votes for the new bridge"
    article = extract(BODY_REPEATS.format(title=title, body=BODY), "http://site.test/1", profile)
    assert article.title == title
    assert "Council votes" not in article.body_text and "Kicker" not in article.body_text
    assert "Photographer" not in article.body_text  # the caption stays with its image in the HTML
    assert "Photographer" in article.body_html and "/a.jpg" in article.body_html
    assert article.body_text.count("council vote and what it means") == 12


def test_a_photo_story_keeps_its_captions_and_a_short_title_is_not_hunted():
    profile = Profile.from_json(json.dumps(CHAINED))
    captions = "".join(f"<figure><img src='/{i}.jpg'><figcaption>Picture {i}: the crowd at the harbour wall "
                       f"before the storm came in from the sea.</figcaption></figure>" for i in range(6))
    page = TEMPLATE_A.format(title="Gallery", body="Six pictures.").replace("</p>", "</p>" + captions)
    article = extract(page, "http://site.test/2", profile)
    assert "Picture 5: the crowd" in article.body_text
    short = TEMPLATE_A.format(title="Vote", body="Vote " + BODY)
    assert extract(short, "http://site.test/3", profile).body_text.startswith("Vote A long paragraph")


def test_teaser_link_lists_and_video_fallback_text_are_not_body():
    profile = Profile.from_json(json.dumps(CHAINED))
    teasers = "".join(f"<li><a href='/s{i}'>Another story number {i} you may like</a></li>" for i in range(5))
    page = TEMPLATE_A.format(title="Council votes for the new bridge", body=BODY).replace(
        "</p>", "</p><div class='more'><h3>Read also</h3><ul>" + teasers + "</ul></div>"
        "<video controls><source src='/v.mp4'><p>To view this video please enable JavaScript</p></video>"
        f"<p>{BODY} See <a href='/report'>the report</a>.</p>")
    article = extract(page, "http://site.test/4", profile)
    assert "Another story number" not in article.body_text and "Read also" not in article.body_text
    assert "enable JavaScript" not in article.body_text
    assert article.body_text.count("council vote and what it means") == 12 and "the report" in article.body_text


def test_a_link_round_up_keeps_its_links():
    profile = Profile.from_json(json.dumps(CHAINED))
    links = "".join(f"<li><a href='/s{i}'>Weekend reading number {i}: a long essay worth the time</a></li>"
                    for i in range(8))
    page = TEMPLATE_A.format(title="Links for the weekend", body="Our picks.").replace("</p>", f"</p><ul>{links}</ul>")
    assert "Weekend reading number 7" in extract(page, "http://site.test/5", profile).body_text


def test_sign_up_forms_and_buttons_are_not_body_but_a_page_wide_form_stays():
    profile = Profile.from_json(json.dumps(CHAINED))
    box = ("<form class='signup'><p>Get email updates with the day's biggest stories</p><input name='email'>"
           "<button>Sign up</button><p>We use your sign-up to provide content in ways you consented to.</p></form>")
    page = TEMPLATE_A.format(title="Council votes for the new bridge", body=BODY).replace("</p>", "</p>" + box)
    article = extract(page, "http://site.test/6", profile)
    assert "email updates" not in article.body_text and "Sign up" not in article.body_text
    assert "council vote and what it means" in article.body_text
    wrapped = TEMPLATE_A.format(title="Council votes for the new bridge", body=BODY).replace(
        "<div class=\"story-text\">", "<div class=\"story-text\"><form id='aspnetForm'>").replace("</p></div>", "</p></form></div>")
    assert extract(wrapped, "http://site.test/7", profile).body_text.count("council vote and what it means") == 6


def test_the_main_text_fallback_keeps_links_but_not_teaser_lists_or_the_headline():
    profile = Profile.from_dict(CHAINED)
    teasers = "<ul>" + "".join(f"<li><strong>Health {i}:</strong> <a href='/s{i}.html'>Another story number {i} "
                               "you may like</a></li>" for i in range(5)) + "</ul>"
    paragraphs = [f"<p>{BODY} Paragraph {i}, see <a href='/r{i}.html'>report {i}</a>.</p>" for i in range(4)]
    page = ("<html><body><main><article><h1 class='headline'>A title that is long enough</h1>"
            + "".join(paragraphs[:2]) + teasers + "".join(paragraphs[2:]) + "</article></main></body></html>")
    art = extract(page, "http://site.test/f", profile)
    assert art.fallbacks and "Paragraph 3" in art.body_text
    assert "Another story number" not in art.body_text and "A title that is long enough" not in art.body_text
    assert 'href="http://site.test/r3.html"' in art.body_html
