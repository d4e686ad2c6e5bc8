"""A profile's list pages that load more: the settings read and refused, which pages do it, the button a
click meant, and the warning of a page cut at its limit."""

from __future__ import annotations

import pytest

from xnews_gui.core.extraction.load_more import MoreResult, applies, button_selector, count_selector
from xnews_gui.core.profile.profile import Profile, ProfileError
from xnews_gui.core.profile.profile_settings import MoreSettings

BASE = {"schema": 2, "name": "more", "start_urls": ["http://127.0.0.1/tin/"],
        "links": {"articles": {"kind": "css", "selector": "h3 a"}}}


def test_the_more_settings_go_through_json_whole():
    profile = Profile.from_dict({**BASE, "more": {"click": "button.xem-them", "pages": ["/tin/$"], "max_loads": 12}})
    assert profile.more == MoreSettings(click="button.xem-them", pages=("/tin/$",), max_loads=12)
    assert profile.needs_browser and Profile.from_json(profile.to_json()) == profile
    assert profile.to_dict()["more"] == {"click": "button.xem-them", "pages": ["/tin/$"], "max_loads": 12}
    scroll = Profile.from_dict({**BASE, "more": {"scroll": True}})
    assert scroll.more.scroll and scroll.to_dict()["more"] == {"scroll": True}
    assert not Profile.from_dict(BASE).needs_browser


@pytest.mark.parametrize("more, says", [
    ({}, "either 'click'"), ({"click": "b", "scroll": True}, "not both"), ({"scroll": "yes"}, "true or false"),
    ({"click": "button[", "scroll": False}, "more.click"), ({"scroll": True, "max_loads": 0}, "more.max_loads"),
    ({"scroll": True, "max_seconds": 3600}, "more.max_seconds"), ({"scroll": True, "pages": ["(a+)+$"]}, "more.pages"),
    ({"scroll": True, "wait": 1}, "unknown key"), ("button", "expected an object")])
def test_bad_more_settings_are_refused_with_the_reason(more, says):
    with pytest.raises(ProfileError, match="more") as caught:
        Profile.from_dict({**BASE, "more": more})
    assert says in str(caught.value)


def test_which_list_pages_load_more():
    click = MoreSettings(click="button.xem-them")
    assert applies(click, "http://x/tin/", "<html><body><button class='xem-them'>Xem thêm</button></body></html>")
    assert not applies(click, "http://x/tin/", "<html><body><a href='/a'>a</a></body></html>")
    scroll = MoreSettings(scroll=True, pages=("/cuon/$",))
    assert applies(scroll, "http://x/cuon/", "") and not applies(scroll, "http://x/tin/", "")
    assert applies(MoreSettings(scroll=True), "http://x/any/", "") and not applies(None, "http://x/", "")


def test_the_clicked_button_becomes_its_rule():
    page = ("<html><body><div class='list'><a href='/a'>a</a></div><div class='load-more'>"
            "<button class='btn xem-them' type='button'><span>Xem thêm</span></button></div>"
            "<button class='btn'>Đăng ký</button></body></html>")
    # the click landed on the span inside the button: the button is what a crawl clicks
    assert button_selector(page, "/html/body/div[2]/button/span") == "button.xem-them"
    assert button_selector(page, "/html/body/div[9]") == ""
    generated = "<html><body><button class='css-1x9f3a2' id='btn-83749'>Xem thêm</button></body></html>"
    assert button_selector(generated, "/html/body/button") == "button"


def test_a_page_cut_at_its_limit_says_so():
    more = MoreSettings(click="b", max_links=50)
    assert MoreResult("", 5, 60, "no_button").warning("http://x/") == ""
    cut = MoreResult("", 4, 50, "links")
    assert cut.at_limit and "stopped at the links limit (max_links 50)" in cut.warning("http://x/", more)
    assert count_selector(Profile.from_dict(BASE)) == "h3 a"
