"""Readers' comments below a story are not the story: on a page without classes (nothing says "comments"
but the words on screen) a body rule's container that holds the story and its comments gives the story, in
any of the languages the heading is written in; a "Comments (3)" link in a share bar, a table column named
"Comment" or a story's own heading "Response" cut nothing."""

from __future__ import annotations

import lxml.html
import pytest

from xnews_gui.core.extraction.body_clean import drop_comments
from xnews_gui.core.extraction.extract import extract
from xnews_gui.core.profile.profile import Profile
from xnews_gui.core.profile.rules import Rule

STORY = [f"The harbour council met on day {n} to weigh the bridge repair, the budget and the school plan, "
         f"and the mayor said the storm had delayed the work by {n} weeks." for n in range(6)]
COMMENTS = ("<div><span>3:25 pm July 3, 2013</span><b>cjsexp wrote :</b><p>Just as crazy as ever, some things "
            "never change, they just get old.</p></div><div><span>1:36 pm July 3, 2013</span><b>GKamburoff wrote "
            ":</b><p>Yes, we know about them, after the aircraft were grounded the council did nothing.</p></div>")


def _page(heading: str, share_bar: str = "") -> str:
    story = "".join(f"<p>{p}</p>" for p in STORY)
    return ("<html><body><div><div><h1>Council weighs the harbour plan</h1></div><div><div>"
            f"{share_bar}{story}<div><h3>\n{' ' * 60}{heading}\n{' ' * 60}</h3><div><a href='#f'>Add a Comment</a></div>{COMMENTS}</div>"
            "</div></div></div></body></html>")


def _profile() -> Profile:
    return Profile(name="courier", start_urls=("http://127.0.0.1/",),
                   fields={"title": Rule(kind="css", selector="h1", take="text", required=True),
                           "body": Rule(kind="xpath", selector="/html/body/div/div[2]/div", take="html",
                                        required=True)})


@pytest.mark.parametrize("heading", ["Comments", "12 Comments", "Kommentare (3)", "Comments (3 of 3)", "Commentaires", "Leave a Reply",
                                     "3 Responses to “Council weighs the harbour plan”", "Bình luận"])
def test_a_class_less_body_keeps_the_story_and_drops_the_comments_below_it(heading):
    art = extract(_page(heading), "http://127.0.0.1/a.html", _profile())
    for paragraph in STORY:
        assert paragraph in art.body_text
    assert "wrote" not in art.body_text and heading not in art.body_text, art.body_text


def test_a_comments_link_in_a_share_bar_above_the_story_cuts_nothing():
    bar = "<div><a href='#comments'>Share</a> <a href='#comments'>Comments (3)</a></div>"
    art = extract(_page("Comments", share_bar=bar), "http://127.0.0.1/a.html", _profile())
    for paragraph in STORY:
        assert paragraph in art.body_text


def _root(html: str):
    return lxml.html.fragment_fromstring(html, create_parent="div")


def test_a_story_heading_or_a_table_column_is_not_a_comments_heading():
    story = "".join(f"<p>{p}</p>" for p in STORY)
    root = _root(story + "<h2>Response</h2>" + story + "<table><tr><th>Comments</th><th>State</th></tr>"
                 "<tr><td>new</td><td>queued</td></tr></table><p>The last paragraph of the story.</p>")
    assert not drop_comments([root])
    assert "The last paragraph of the story." in root.text_content()


def test_a_heading_at_the_top_of_the_body_is_not_taken_for_comments_below_it():
    root = _root("<h3>Comments</h3><p>A short intro line.</p>" + "".join(f"<p>{p}</p>" for p in STORY))
    assert not drop_comments([root])
    assert STORY[-1] in root.text_content()


def test_comments_in_the_first_of_a_split_storys_blocks_drop_the_later_blocks_too():
    first = _root("".join(f"<p>{p}</p>" for p in STORY) + "<h3>Comments</h3><p>Nice story from a reader here.</p>")
    later = _root("<p>Another reader's comment, long enough to be taken for a paragraph of text.</p>")
    assert drop_comments([first, later])
    assert STORY[-1] in first.text_content() and "reader" not in first.text_content() + later.text_content()


def test_a_comments_heading_inside_a_link_box_still_ends_the_story():
    story = "".join(f"<p>{p}</p>" for p in STORY)
    html = ("<html><body><div><div><h1>Council weighs the harbour plan</h1></div><div><div>" + story +
            "<div><h3>Comments (3 of 3)</h3><a href='/comments'>View all 3 comments on this story</a></div>" + COMMENTS +
            "</div></div></div></body></html>")
    art = extract(html, "http://127.0.0.1/a.html", _profile())
    assert STORY[-1] in art.body_text and "wrote" not in art.body_text, art.body_text
